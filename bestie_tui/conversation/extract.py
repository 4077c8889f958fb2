"""Evicted turns → summary entries: sentences, lists, templated records, each with a kind.

Each message is read as written (after the one stripping step, ``injected.strip_injected``):

* a run of two or more list lines (``sentences.list_item``) is **one list** with the prose line before
  it as its intro; a list that goes on in the speaker's next message (its numbering continues, or it
  opens that message) is the same list, so its turns are ``12–14``;
* a run of two or more ``Label: value`` lines (a template: a form, a receipt, a stand-up) is **one
  record** ``Label: value; Label: value``, so templated turns keep every field;
* other text is split into sentences (``sentences.split_sentences``: abbreviations and Vietnamese);
  relative dates are resolved against the message's day (``sentences.resolve_relative``).

Kinds (``classify``), English and Vietnamese: ``decision`` ("we decided", "let's go with", "chốt",
"quyết định"), ``task`` (TODO, "please", "remind me to", an unchecked box; "need to", "should", "cần", "phải"
when the sentence says when),
``question`` (an open question said as such: "not sure whether", "TBD", "chưa rõ"), ``chatter``
(greetings, reactions, remarks about the listener and short remarks with no number, date or name)
and ``fact`` (the rest).
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

from bestie_tui.conversation.injected import strip_injected
from bestie_tui.conversation.sentences import list_item, record_field, resolve_relative, split_sentences
from bestie_tui.conversation.summary_format import Entry

#: Longest sentence kept whole (characters); longer ones are shortened with an ellipsis.
MAX_SENTENCE_CHARS = 240
#: Longest list item and record (characters).
MAX_ITEM_CHARS = 120
MAX_RECORD_CHARS = 240
#: Pieces shorter than this (in words) are dropped unless they hold a number, a date or a kind.
MIN_WORDS = 4
#: Remarks shorter than this (in words) without a number, date or name are chatter.
SHORT_WORDS = 6

DECISION = re.compile(
    r"\b(?:we(?:'ve| have)? (?:decided|agreed|settled on|chose|picked)|i(?:'ve| have)? decided"
    r"|decision(?: is)?:|let'?s go with|(?:we'll|we will) go with|we(?:'re| are) going with"
    r"|agreed (?:to|on|that)|final (?:decision|choice|call)|the plan is)\b"
    r"|\b(?:chốt|quyết định|thống nhất|đã chọn)\b", re.IGNORECASE)
#: Open tasks. Explicit markers always count (TODO, action item, next step, deadline, an unchecked box,
#: "remind me to" or "please …" opening the sentence). Obligations ("we should…", "I need to…",
#: "cần…", "phải…") count when the sentence also says when (a date, "tomorrow", "by Friday",
#: "this week", "hôm nay"…): without one, "we should cherish every moment" is talk, not a task.
TASK = re.compile(
    r"\b(?:todo|to-do|action items?|next steps?|deadline|due (?:by|on|date))\b|^(?:to do|task)\s*:"
    r"|^(?:(?:so|and|but|ok|okay|also|then|oh),?\s+)?(?:please\s+(?!don'?t worry)\w+|(?:pls|plz)\s+\w+"
    r"|remind me to|don'?t forget to|let'?s not forget)"
    r"|\b(?:việc cần làm|hạn chót|nhắc (?:tôi|mình|em|anh|chị))\b", re.IGNORECASE)
OBLIGATION = re.compile(
    r"^(?:(?:so|and|but|ok|okay|also|then|just),?\s+)?(?:(?:i|we)(?: still)? (?:need|have|ought) to (?!say|admit|agree)\w+"
    r"|(?:we|you) (?:must|should|need to) (?!have |be |feel |know |love |see )\w+|remember to|let'?s make sure)"
    r"|(?:^|\s)(?:cần phải|cần|phải|nhớ|hãy|nhờ)\s+(?!không)\w+",
    re.IGNORECASE)
WHEN = re.compile(
    r"\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening|week|weekend|month)|next (?:week|month|\w+day)"
    r"|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|noon|the end|end of|eod|eow|\d)"
    r"|before (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|the|we|you|i|\d)|asap|eod|eow)\b"
    r"|\b(?:hôm nay|tối nay|ngày mai|tuần này|tuần sau|tuần tới|trước thứ|trước ngày|cuối tuần)\b", re.IGNORECASE)
_DONE = re.compile(r"\b(?:done|finished|completed|shipped|fixed|resolved|sorted out)\b|\b(?:xong|hoàn thành)\b", re.I)
QUESTION = re.compile(
    r"\b(?:open questions?|question:|tbd|to be decided|not sure (?:if|whether|yet)|still (?:unclear|unknown|open)"
    r"|undecided|no decision yet)\b|\b(?:chưa rõ|chưa biết|chưa quyết)\b", re.IGNORECASE)
#: Openings of greetings, reactions and remarks about the listener ("Hey Mel, long time no chat!",
#: "Wow, thanks!", "That's a memory I'll never forget", "You're gonna make a difference", "Chào anh").
CHITCHAT = re.compile(
    r"^(?:hey|hi|hiya|hello|wow|whoa|thanks|thank you|thx|long time|yeah|yep|yes|oh|ooh|aw+|omg|haha\w*"
    r"|lol|good to|great to|nice to|so good|congrats|congratulations|glad|ok|okay|sure|cool|awesome|amazing"
    r"|bye|see you|take care|that'?s|that is|it'?s so|sounds|what an?|how (?:cool|nice|sweet|lovely|fun)"
    r"|you(?:'re| are|'ve| have)? (?:so|really|such|gonna|going to|must|deserve|did|got)|your \w+ (?:is|are|sounds?|looks?)"
    r"|chào|xin chào|cảm ơn|cám ơn|vâng|dạ|ừ|ừm|hihi|hehe|tuyệt)\b", re.IGNORECASE)
#: A remark about the listener with no name, number or date ("Your kind words mean a lot") is chatter.
_ABOUT_YOU = re.compile(r"^(?:you|your|you're|you've|you'll|bạn|anh|chị)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d")
_MONTHS = ("january february march april may june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec").split()
_DAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
DATE = re.compile(
    r"\b(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+(?:" + "|".join(_MONTHS) + r")\b\.?(?:,?\s+\d{4})?"
    r"|(?:" + "|".join(_MONTHS) + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?"
    r"|(?:" + "|".join(_DAYS) + r")|(?:19|20)\d{2}"
    r"|ngày\s+\d{1,2}(?:\s+tháng\s+\d{1,2})?|tháng\s+\d{1,2})\b",
    re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
# Weekday abbreviations are calendar words for names ("Fri"), not dates: too ambiguous ("sat", "wed").
CALENDAR_WORDS = frozenset(_MONTHS + _DAYS + "mon tue tues wed thu thur thurs fri sat sun".split())
#: Words before a name: English titles and Vietnamese forms of address.
HONORIFICS = frozenset("mr mrs ms miss mx dr prof sir madam anh chị cô chú bác ông bà em bạn thầy".split())
_OPENER = re.compile(r"^(?:(?:oh|ah|yeah|yes|yep|well|so|haha|hehe|lol|wow|hey|hi|um|uh|ok|okay|aw+)[,!.…]*\s+)+",
                     re.IGNORECASE)


def message_text(message: dict[str, Any]) -> str:
    """Plain text of an OpenAI-shaped message: ``content`` (or ``text``) as a string, or the text
    parts of a content list; tool calls are described as ``called name(arguments)``."""
    content = message.get("content", message.get("text"))
    if isinstance(content, list):
        content = " ".join(str(p.get("text", "")) for p in content
                           if isinstance(p, dict) and p.get("type", "text") == "text")
    text = str(content or "")
    for call in message.get("tool_calls") or []:
        fn = call.get("function", {}) if isinstance(call, dict) else {}
        text += f" called {fn.get('name', '?')}({str(fn.get('arguments', ''))[:80]})"
    return text.strip()


def message_day(message: dict[str, Any]) -> str | None:
    """``YYYY-MM-DD`` of the message's ``created_at``/``at``/``timestamp`` (datetime or ISO text), if any."""
    value = message.get("created_at") or message.get("at") or message.get("timestamp")
    if isinstance(value, (datetime, date)):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}", value):
        return value[:10]
    return None


def speaker(message: dict[str, Any]) -> str:
    """Who said it: ``name`` (or ``user``) when given, else the role."""
    return str(message.get("name") or message.get("user") or message.get("role") or "?")


def find_names(sentence: str, stop: frozenset[str]) -> list[str]:
    """Capitalised words that are not the first word of the sentence, not stop words and not
    calendar words — unless a title goes before them ("Ms. Thu", "chị Thu"): a cheap,
    language-neutral stand-in for named-entity recognition."""
    words = _WORD.findall(sentence)
    out = []
    for before, word in zip(words, words[1:]):
        if not word[0].isupper():
            continue
        clean = word.rstrip("'’s-") if word.endswith(("'s", "’s")) else word.rstrip("'’-")
        low = clean.lower().replace("'", "").replace("’", "")
        titled = before.lower() in HONORIFICS
        if (len(clean) > 1 and clean[0].isupper() and not clean.isupper()
                and (titled or (low not in stop and low not in CALENDAR_WORDS))):
            out.append(clean)
    return out


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at a word, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "…"


def has_fact(text: str) -> bool:
    """Holds a number or a date."""
    return bool(_NUMBER.search(text) or DATE.search(text))


_DECISION_WORDS = ("decid", "decision", "agreed", "settled", "chose", "picked", "go with", "going with", "final",
                   "plan is", "chốt", "quyết định", "thống nhất", "đã chọn")
_TASK_WORDS = ("todo", "to-do", "to do", "action item", "next step", "deadline", "due ", "task", "please", "pls",
               "plz", "remind me", "forget", "việc cần làm", "hạn chót", "nhắc")
_OBLIGATION_WORDS = ("need", "have to", "has to", "ought", "must", "should", "remember to", "make sure",
                     "cần", "phải", "nhớ", "hãy", "nhờ")
_QUESTION_WORDS = ("question", "tbd", "to be decided", "not sure", "still", "undecided", "no decision",
                   "chưa rõ", "chưa biết", "chưa quyết")


def _words_pattern(*groups: tuple[str, ...]) -> re.Pattern:
    return re.compile("|".join(re.escape(w) for group in groups for w in group))


_ANY_KIND = _words_pattern(_DECISION_WORDS, _TASK_WORDS, _OBLIGATION_WORDS, _QUESTION_WORDS)


def _has(low: str, words: tuple[str, ...]) -> bool:
    return any(w in low for w in words)


def classify(text: str, names: list[str] | None = None, checkbox: bool | None = None) -> str:
    """``decision``, ``task``, ``question``, ``chatter`` or ``fact`` of one sentence (or list intro):
    see the module docstring. ``checkbox``: ``False`` for an unchecked box (an open task), ``True``
    for a checked one (done: a fact)."""
    low = text.lower()
    # Each pattern runs only where one of its words occurs: the regexes are long, sentences many.
    if checkbox is None and not _ANY_KIND.search(low):
        return _chatter_or_fact(text, names)
    if _has(low, _DECISION_WORDS) and DECISION.search(text):
        return "decision"
    if checkbox is False or (checkbox is None and not _DONE.search(text) and (
            (_has(low, _TASK_WORDS) and TASK.search(text))
            or (_has(low, _OBLIGATION_WORDS) and OBLIGATION.search(text) and (WHEN.search(text) or DATE.search(text))))):
        return "task"
    if _has(low, _QUESTION_WORDS) and QUESTION.search(text):
        return "question"
    return _chatter_or_fact(text, names)


def _chatter_or_fact(text: str, names: list[str] | None) -> str:
    if not has_fact(text) and (CHITCHAT.match(text) or (not names and (
            len(text.split()) < SHORT_WORDS or _ABOUT_YOU.match(text)))):
        return "chatter"
    return "fact"


def _tidy(sentence: str) -> str:
    """Drop a leading interjection ("Yeah, ", "Oh wow! ") when a real sentence follows it."""
    rest = _OPENER.sub("", sentence)
    return rest[0].upper() + rest[1:] if rest and len(rest.split()) >= 3 and rest != sentence else sentence


def _blocks(text: str) -> list[tuple[str, Any]]:
    """Lines of one message grouped: ``("list", (intro, [(body, done)]))``, ``("record", [(label, value)])``
    or ``("prose", line)``."""
    lines = [line for line in text.splitlines() if line.strip()]
    out: list[tuple[str, Any]] = []
    i = 0
    while i < len(lines):
        items = []
        j = i
        while j < len(lines) and list_item(lines[j]) is not None:
            items.append(list_item(lines[j]))
            j += 1
        if len(items) >= 2 or (items and out and out[-1][0] == "prose" and out[-1][1].rstrip().endswith(":")):
            intro = out.pop()[1].strip() if out and out[-1][0] == "prose" and out[-1][1].rstrip().endswith(":") else ""
            out.append(("list", (intro, items)))
            i = j
            continue
        fields = []
        while j < len(lines) and record_field(lines[j]) is not None and list_item(lines[j]) is None:
            fields.append(record_field(lines[j]))
            j += 1
        if len(fields) >= 2:
            out.append(("record", fields))
            i = j
            continue
        out.append(("prose", lines[i]))
        i += 1
    return out


def _continues(previous: Entry | None, who: str, day: str | None, first_block: tuple[str, Any]) -> bool:
    """Whether a message opening with a list goes on with ``previous`` (the speaker's last list)."""
    return (previous is not None and previous.is_list and first_block[0] == "list" and not first_block[1][0]
            and previous.who == who and previous.day == day)


def extract(messages: list[dict[str, Any]], first_turn: int,
            stop: frozenset[str]) -> tuple[list[Entry], list[list[str]], list[str]]:
    """``(entries, names found per entry, short pieces)`` of evicted ``messages``; ``first_turn`` numbers
    the first one. Short pieces (under ``MIN_WORDS`` words, no number or date, no kind) are not
    entries: they only feed the line that counts turns with nothing to keep."""
    entries: list[Entry] = []
    names: list[list[str]] = []
    short: list[str] = []
    last_list: Entry | None = None
    for index, message in enumerate(messages):
        turn, day, who = first_turn + index, message_day(message), speaker(message)
        blocks = _blocks(strip_injected(message_text(message)))
        for b, (kind, value) in enumerate(blocks):
            order = (1, turn * 1000 + b)
            if kind == "list":
                intro, items = value
                bodies = [shorten(("[x] " if done else "[ ] " if done is False else "") + body, MAX_ITEM_CHARS)
                          for body, done in items]
                if b == 0 and _continues(last_list, who, day, (kind, value)):
                    assert last_list is not None
                    last_list.items += bodies
                    last_list.last = turn
                    continue
                open_box = any(done is False for _, done in items)
                what = classify(intro, checkbox=False if open_box else None) if intro or open_box else "fact"
                last_list = Entry("fact" if what == "chatter" else what, shorten(intro.rstrip(":"), MAX_ITEM_CHARS),
                                  who, day, turn, turn, bodies, order=order)
                entries.append(last_list)
                names.append(find_names(intro + " " + " ".join(bodies), stop))
                continue
            if kind == "record":
                text = shorten("; ".join(f"{label}: {v}" for label, v in value), MAX_RECORD_CHARS)
                entries.append(Entry(classify(text), text, who, day, turn, turn, order=order))
                names.append(find_names(text, stop))
                continue
            for part, piece in enumerate(split_sentences(value)):
                found = find_names(piece, stop)
                kind_of = classify(piece, found)
                if len(piece.split()) < MIN_WORDS and kind_of in ("fact", "chatter") and not has_fact(piece):
                    short.append(piece)
                    continue
                text = shorten(resolve_relative(_tidy(piece), day), MAX_SENTENCE_CHARS)
                entries.append(Entry(kind_of, text, who, day, turn, turn, order=(1, turn * 1000 + b * 50 + part)))
                names.append(found)
        if not blocks or blocks[-1][0] != "list":
            last_list = None
    return entries, names, short
