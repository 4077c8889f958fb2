"""Cue words of history recall: is a request a time question, does a text hold a time expression,
who speaks a turn and which person a request names. English and Vietnamese; all matching is on the
accent-folded, lower-cased text (``text.words.fold``), so "khi nào" and "khi nao" are one cue.

* ``is_time_question("When did Linh move?")`` → True; "bao lâu", "khi nào", "hồi nào", "mấy giờ",
  "how long", "what year" … are cues too.
* ``has_time_expression("We went last weekend")`` → True: month and weekday names, years, clock
  times, dates, "yesterday", "ago", "last/next week", "hôm qua", "tuần trước", "năm ngoái" ….
* ``speaker_of("Caroline: Yeah, me too!")`` → ``"Caroline"``: the leading ``Name:`` label that
  transcripts of group or imported chats carry (one to three capitalised words before a colon).
* ``named_people(query, people)``: which of ``people`` (speaker labels, the names memories are bound
  to) the request names, by whole folded words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from bestie_tui.text.words import fold

_TIME_QUESTION = re.compile(
    r"\b(?:when|how long|how many (?:years?|months?|weeks?|days?|hours?|times)|what (?:year|month|date|day|time)"
    r"|which (?:year|month|date|day)|since when|how recently|how often|how soon"
    # Vietnamese, folded: khi nào, bao giờ, lúc nào, bao lâu, hồi nào, năm/tháng/ngày/hôm nào, mấy giờ,
    # mấy năm/tháng/tuần/ngày, từ khi nào, dạo nào, thời gian nào
    r"|khi nao|bao gio|luc nao|bao lau|hoi nao|nam nao|thang nao|ngay nao|hom nao|may gio"
    r"|may (?:nam|thang|tuan|ngay)|dao nao|thoi gian nao)\b")

_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december"
           "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|weekends"
_TIME_EXPRESSION = re.compile(
    rf"\b(?:{_MONTHS}|{_WEEKDAYS})\b"
    r"|\b(?:19|20)\d{2}s?\b|\b\d{1,2}[:/.h]\d{1,2}\b|\b\d{1,2}\s*(?:am|pm)\b"
    r"|\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately|earlier|soon|since|anniversary|birthday)\b"
    r"|\b(?:last|next|this|past|coming|few|couple of|every)\s+(?:\w+\s+)?"
    r"(?:week|weeks|month|months|year|years|day|days|night|morning|evening|summer|winter|spring|fall|autumn)\b"
    r"|\b(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:years?|months?|weeks?|days?)\b"
    # Vietnamese, folded: hôm qua/nay/kia, ngày mai, tuần/tháng/năm trước/sau/này/ngoái, năm ngoái,
    # dạo này, gần đây, trước đây, sáng/tối qua, cuối tuần, thứ hai…, chủ nhật, tháng 5, năm 2023
    r"|\bhom (?:qua|nay|kia|truoc)\b|\bngay mai\b|\b(?:tuan|thang|nam) (?:truoc|sau|nay|ngoai|toi)\b"
    r"|\bdao nay\b|\bgan day\b|\btruoc day\b|\b(?:sang|chieu|toi|dem) (?:qua|nay|mai)\b|\bcuoi tuan\b"
    r"|\bthu (?:hai|ba|tu|nam|sau|bay|[2-7])\b|\bchu nhat\b|\b(?:thang|nam) \d{1,4}\b|\b\d+ (?:nam|thang|tuan|ngay) truoc\b")

_SPEAKER = re.compile(r"^\s*([^\W\d_][\w'’.-]*(?: [^\W\d_][\w'’.-]*){0,2})\s*:\s")


def is_time_question(query: str) -> bool:
    """Whether ``query`` asks when or how long (English or Vietnamese cue words)."""
    return bool(_TIME_QUESTION.search(fold(query)))


def has_time_expression(text: str) -> bool:
    """Whether ``text`` names a time: a date, a month, weekday or year, a clock time, a relative time
    ("last week", "two years ago", "hôm qua", "năm ngoái")."""
    return bool(_TIME_EXPRESSION.search(fold(text)))


def speaker_of(text: str) -> str | None:
    """The leading ``Name:`` label of a turn (``"Caroline: hi"`` → ``"Caroline"``), or None. The label
    must start with a capital letter, as names in transcripts do."""
    match = _SPEAKER.match(text)
    if match is None or not match.group(1)[0].isupper():
        return None
    return match.group(1)


@lru_cache(maxsize=4096)
def _name_words(name: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\w+", fold(name)))


def named_people(query: str, people: Iterable[str]) -> set[str]:
    """Those of ``people`` whose first word, or whole name, the query contains as whole folded words."""
    words = set(re.findall(r"\w+", fold(query)))
    folded = " " + " ".join(re.findall(r"\w+", fold(query))) + " "
    out = set()
    for person in people:
        parts = _name_words(person)
        if parts and (parts[0] in words or " " + " ".join(parts) + " " in folded):
            out.add(person)
    return out
