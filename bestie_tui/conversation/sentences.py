"""Reading chat text into the pieces a summary keeps: sentences, list items, templated records, dates.

* ``split_sentences(text)``: sentence ends are ``.``, ``!``, ``?``, ``…`` (and runs of them) followed
  by white space, and line breaks. A period after a known abbreviation (``Ms.``, ``Dr.``, ``e.g.``,
  ``U.S.``, Vietnamese ``TP.``, ``ThS.``, ``Q.``, ``v.v.``), after a single capital letter (an
  initial: ``J. K. Rowling``) or before a lower-case word is not an end. Vietnamese capitals
  (``Đ``, ``Ấ``…) count as capitals: ``str.isupper`` knows them.
* ``list_item(line)``: the body of a bulleted, numbered, lettered or checkbox line, or ``None``.
* ``record_field(line)``: ``(label, value)`` of a templated ``Label: value`` line, or ``None``.
* ``resolve_relative(text, day)``: relative time words (``yesterday``, ``last Sunday``, ``two weeks
  ago``, ``hôm qua``, ``tuần trước`` …) annotated with the calendar date they mean on ``day``, so a
  summary line keeps its date when it is read weeks later.
* ``human_date`` / ``parse_human_date``: ``2023-05-08`` ↔ ``8 May 2023``, the form summaries print.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import lru_cache

#: English abbreviations that end with a period inside a sentence (folded, without the final dot).
ABBREVIATIONS = frozenset(
    "mr mrs ms mx dr prof sr jr st mt ft rev gen col capt lt sgt hon pres gov sen rep "
    "vs etc e.g i.e cf al approx dept est inc ltd co corp bros assn no nos vol vols ch fig figs "
    "p pp ed eds tel ext ave blvd rd apt a.m p.m u.s u.k u.n ph.d m.d b.a m.a "
    "jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun".split())
#: Vietnamese abbreviations (as written, folded): TP. (thành phố), TT., Q. (quận), P. (phường),
#: TS./ThS./PGS./GS. (academic titles), BS. (bác sĩ), KS. (kỹ sư), CN. (cử nhân), v.v. (etc.).
VI_ABBREVIATIONS = frozenset("tp tt q p h x ts ths pgs gs bs ks cn ong ba v.v vv đc đ/c ubnd th".split())

_END = re.compile(r"(?:[.!?…]+|\.{3})[\"'”’)\]»]*(?=\s)")
_ITEM = re.compile(
    r"^\s{0,8}(?:(?P<box>[-*•]\s+\[(?P<mark>[ xX✓])\])|(?P<bullet>[-*•·‣▪◦–])|(?P<num>\d{1,3}[.)])"
    r"|(?P<paren>\(\d{1,3}\))|(?P<letter>[a-z][.)]|[A-Z]\))|(?P<bare>\[(?P<mark2>[ xX✓])\]))\s+(?P<body>\S.*)$")
_FIELD = re.compile(r"^\s*(?P<label>[^\W\d_][\w '’/&()#.-]{0,28}?)\s*:\s+(?P<value>\S.*)$", re.UNICODE)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` in order, stripped; line breaks always end a sentence."""
    out: list[str] = []
    for line in (text or "").splitlines():
        start = 0
        for m in _END.finditer(line):
            if _is_boundary(line, m):
                piece = line[start:m.end()].strip()
                if piece:
                    out.append(piece)
                start = m.end()
        rest = line[start:].strip()
        if rest:
            out.append(rest)
    return out


def _is_boundary(line: str, m: re.Match) -> bool:
    mark = m.group(0)
    after = line[m.end():].lstrip()
    if not after:
        return True
    if mark.rstrip("\"'”’)]»") != ".":
        return not after[0].islower()  # "!", "?", "…": an end unless the sentence plainly goes on
    head = line[:m.start()].rsplit(None, 1)
    word = head[-1].lstrip("(\"'“‘") if head else ""
    folded = word.lower().rstrip(".")
    if folded in ABBREVIATIONS or folded in VI_ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isupper():  # an initial, "J. K. Rowling"
        return False
    if re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", word):  # "U.S", "e.g" written without the list
        return False
    return not after[0].islower()


def list_item(line: str) -> tuple[str, bool | None] | None:
    """``(body, done)`` of a list line (``- x``, ``* x``, ``• x``, ``1. x``, ``2) x``, ``(3) x``, ``a. x``,
    ``- [ ] x``, ``[x] x``; a capital letter only as ``A)``, since ``A. Smith`` is a name), or ``None``.
    ``done`` is ``True``/``False`` for checkboxes, else ``None``."""
    m = _ITEM.match(line)
    if not m:
        return None
    body = m.group("body").strip()
    mark = m.group("mark") or m.group("mark2")
    return body, (None if mark is None else mark.strip() != "")


def record_field(line: str) -> tuple[str, str] | None:
    """``(label, value)`` of a ``Label: value`` line of a template (a label of at most four words)."""
    m = _FIELD.match(line)
    if not m or len(m.group("label").split()) > 4 or m.group("label").lower().startswith(("http", "www")):
        return None
    return m.group("label").strip(), m.group("value").strip()


# ------------------------------------------------------------------------------------ dates
MONTHS = ("January February March April May June July August September October November December").split()
_MONTH_NUMBER = {name.lower(): i for i, name in enumerate(MONTHS, 1)}
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "a couple of": 2, "two": 2, "three": 3, "four": 4, "five": 5,
                 "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
                 "a few": 3, "few": 3}


@lru_cache(maxsize=4096)
def human_date(iso: str) -> str:
    """``2023-05-08`` → ``8 May 2023`` (English month names, whatever the locale)."""
    y, m, d = (int(x) for x in iso[:10].split("-"))
    return f"{d} {MONTHS[m - 1]} {y}"


def parse_human_date(text: str) -> str | None:
    """``8 May 2023`` (or an ISO day) → ``2023-05-08``; ``None`` when it is neither."""
    text = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return text
    m = re.fullmatch(r"(\d{1,2}) ([A-Za-z]+) (\d{4})", text)
    if not m or m.group(2).lower() not in _MONTH_NUMBER:
        return None
    try:
        return date(int(m.group(3)), _MONTH_NUMBER[m.group(2).lower()], int(m.group(1))).isoformat()
    except ValueError:
        return None


def _months_back(day: date, n: int) -> date:
    total = day.year * 12 + day.month - 1 - n
    return date(total // 12, total % 12 + 1, 1)


def _fmt(d: date) -> str:
    return human_date(d.isoformat())


def _month(d: date) -> str:
    return f"{MONTHS[d.month - 1]} {d.year}"


def _weekday_before(day: date, weekday: int, after: bool = False) -> date:
    step = 1 if after else -1
    d = day + timedelta(days=step)
    while d.weekday() != weekday:
        d += timedelta(days=step)
    return d


_NUM = r"(?P<n>\d{1,2}|a couple of|a few|few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_WD = r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_RELATIVE = re.compile(
    r"\b(?:(?P<yesterday>yesterday|last night)|(?P<tomorrow>tomorrow)"
    r"|" + _NUM + r"\s+(?P<unit>day|week|month|year)s?\s+ago"
    r"|(?:last|this past)\s+" + _WD + r"|(?:next|by|until|this coming)\s+(?P<nwd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"|(?P<lastp>last|next)\s+(?P<period>week(?:end)?|month|year))\b"
    r"|(?P<vi>hôm qua|tối qua|ngày mai|tuần trước|tuần sau|tuần tới|tháng trước|tháng sau|tháng tới"
    r"|năm ngoái|năm trước|năm sau|năm tới)",
    re.IGNORECASE)
_VI = {"hôm qua": ("day", -1), "tối qua": ("day", -1), "ngày mai": ("day", 1), "tuần trước": ("week", -1),
       "tuần sau": ("week", 1), "tuần tới": ("week", 1), "tháng trước": ("month", -1), "tháng sau": ("month", 1),
       "tháng tới": ("month", 1), "năm ngoái": ("year", -1), "năm trước": ("year", -1), "năm sau": ("year", 1),
       "năm tới": ("year", 1)}


def _meaning(m: re.Match, day: date) -> str | None:
    if m.group("yesterday"):
        return _fmt(day - timedelta(days=1))
    if m.group("tomorrow"):
        return _fmt(day + timedelta(days=1))
    if m.group("unit"):
        n = int(m.group("n")) if m.group("n").isdigit() else _NUMBER_WORDS[m.group("n").lower()]
        unit = m.group("unit").lower()
        if unit == "day":
            return _fmt(day - timedelta(days=n))
        if unit == "week":
            return f"week of {_fmt(day - timedelta(weeks=n) - timedelta(days=day.weekday()))}"
        if unit == "month":
            return _month(_months_back(day, n))
        return str(day.year - n)
    if m.group("wd") or m.group("nwd"):
        wd = WEEKDAYS.index((m.group("wd") or m.group("nwd")).title())
        return f"{WEEKDAYS[wd]} {_fmt(_weekday_before(day, wd, after=bool(m.group('nwd'))))}"
    if m.group("period"):
        return _period(m.group("period").lower(), -1 if m.group("lastp").lower() == "last" else 1, day)
    if m.group("vi"):
        unit, step = _VI[m.group("vi").lower()]
        return _fmt(day + timedelta(days=step)) if unit == "day" else _period(unit, step, day)
    return None


def _period(unit: str, step: int, day: date) -> str:
    monday = day - timedelta(days=day.weekday())
    if unit == "week":
        return f"week of {_fmt(monday + timedelta(weeks=step))}"
    if unit == "weekend":  # last: the one before this week; next: this week's, or next week's from Saturday on
        saturday = monday - timedelta(days=2) if step < 0 else monday + timedelta(days=5 if day.weekday() < 5 else 12)
        return f"weekend of {_fmt(saturday)}"
    if unit == "month":
        return _month(_months_back(day, -step))
    return str(day.year + step)


_TRIGGERS = ("yesterday", "last", "tomorrow", " ago", "next", "by ", "until", "coming", "hôm qua", "tối qua",
             "ngày mai", "tuần", "tháng", "năm")


def resolve_relative(text: str, day: str | None) -> str:
    """``text`` with each relative time expression followed by the date it means on ``day``
    (ISO ``YYYY-MM-DD``): ``"I ran yesterday"`` on 2023-05-08 → ``"I ran yesterday (7 May 2023)"``.
    ``last week`` → ``(week of 1 May 2023)`` (its Monday), ``last month`` → ``(April 2023)``, ``by
    Friday`` / ``next Friday`` → the first Friday after the day.
    Without a day, or when nothing is relative, ``text`` is returned unchanged."""
    if not day or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day[:10]):
        return text
    low = text.lower()
    if not any(w in low for w in _TRIGGERS):  # most sentences say no relative date: skip the long regex
        return text
    anchor = date.fromisoformat(day[:10])

    def annotate(m: re.Match) -> str:
        meaning = _meaning(m, anchor)
        return f"{m.group(0)} ({meaning})" if meaning else m.group(0)

    return _RELATIVE.sub(annotate, text)
