"""The shape of a summary body, written and read back: the same shape on every compression.

A body (inside ``[CONTEXT_SUMMARY …]`` … ``[/CONTEXT_SUMMARY]``) reads::

    Decisions:
    - [12 March 2024] An: We decided to ship the beta on Friday.
    Open tasks:
    - [12 March 2024] An: TODO update the README before the release.
    Open questions:
    - [13 March 2024] Bình: Not sure whether the venue takes cards.
    ## 12 March 2024
    - An, a list of 40 items (turn 12): Issues from the bug bash
      1. Login button misaligned on Safari
      2. Crash when the upload is empty
      … and 38 more items (turns 12–14)
    - Bình: The staging server moved to Hà Nội on 3 June.
    ## 13 March 2024
    - An: …
    Names: An, Bình, Hà Nội

Decisions, open tasks and open questions come first, each dated; then one group per day (``## Undated``
for turns without a date, when other groups or sections exist), each line ``who: text``. A list keeps
its first items and says how many more there were; a section that could not show everything says
``… and N more decisions (turns a–b)`` (``1 more decision``). ``parse_body`` reads a body back into ``Entry`` objects (also
the older ``- [YYYY-MM-DD] who: text`` lines and any foreign text, which becomes undated lines), so a
merge re-ranks the previous summary with the newly evicted turns and writes this shape again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bestie_tui.conversation.sentences import human_date, parse_human_date

#: Section titles, in the order they are written; the key is the entry kind they hold.
SECTIONS: dict[str, str] = {"decision": "Decisions:", "task": "Open tasks:", "question": "Open questions:"}
#: The kinds a reader finds first; the budget gives them up last.
PRIORITY_KINDS = tuple(SECTIONS)
SECTION_NOUNS = {"decision": ("decision", "decisions"), "task": ("open task", "open tasks"),
                 "question": ("open question", "open questions")}
NAMES_LABEL = "Names:"
UNDATED = "Undated"
ITEM_INDENT = "  "

_DAY = re.compile(r"^## (?P<day>.+)$")
_PRIORITY = re.compile(r"^- \[(?P<day>[^\]]+)\] (?P<rest>.*)$")
_LIST = re.compile(r"^(?P<who>.+?), a list of (?P<n>\d[\d,]*) items? \((?P<turns>turns? [^)]*)\):\s?(?P<intro>.*)$")
_ITEM = re.compile(r"^\s+\d+\. (?P<item>.*)$")
_MORE_ITEMS = re.compile(r"^\s+… and (?P<n>\d[\d,]*) more items? \((?P<turns>turns? [^)]*)\)$")
_MORE_SECTION = re.compile(r"^… and (?P<n>\d[\d,]*) more (?P<what>decisions?|open tasks?|open questions?) "
                           r"\((?P<turns>turns? [^)]*)\)$")
_TURNS = re.compile(r"turns? (?P<a>\d+)(?:–(?P<b>\d+))?")


@dataclass
class Entry:
    """One thing the summary can say. ``kind``: decision, task, question, fact or chatter. ``text`` is
    the sentence (or a list's intro, or a record's ``label: value; …``); ``who`` the speaker; ``day``
    ISO ``YYYY-MM-DD`` or ``None``; ``turn``/``last`` the conversation turns it came from (1-based, 0
    when unknown); ``items`` a list's items (all known ones) and ``more`` items counted but no longer
    known (from an earlier summary); ``order`` sorts entries in conversation order."""

    kind: str
    text: str
    who: str = ""
    day: str | None = None
    turn: int = 0
    last: int = 0
    items: list[str] = field(default_factory=list)
    more: int = 0
    order: tuple[int, int] = (0, 0)
    previous: bool = False

    @property
    def is_list(self) -> bool:
        return bool(self.items) or self.more > 0

    @property
    def total_items(self) -> int:
        return len(self.items) + self.more


def turns_text(first: int, last: int) -> str:
    """``turn 12`` or ``turns 12–14`` (an en dash)."""
    last = max(last, first)
    return f"turn {first}" if last == first else f"turns {first}–{last}"


def _parse_turns(text: str) -> tuple[int, int]:
    m = _TURNS.search(text)
    if not m:
        return 0, 0
    a = int(m.group("a"))
    return a, int(m.group("b") or a)


def entry_lines(e: Entry, shown_items: int | None = None, dated: bool = False) -> list[str]:
    """The lines of one entry: ``- who: text`` (``- [day] who: text`` when ``dated``), and for a list
    its first ``shown_items`` items and the ``… and N more items`` line."""
    tag = f"[{human_date(e.day)}] " if dated and e.day else ""
    if not e.is_list:
        return [f"- {tag}{e.who}: {e.text}" if e.who else f"- {tag}{e.text}"]
    n = len(e.items) if shown_items is None else min(shown_items, len(e.items))
    who = e.who or "someone"
    head = f"- {tag}{who}, a list of {e.total_items:,} item{'s' if e.total_items != 1 else ''} " \
           f"({turns_text(e.turn, e.last)}):" + (f" {e.text}" if e.text else "")
    lines = [head] + [f"{ITEM_INDENT}{i}. {item}" for i, item in enumerate(e.items[:n], 1)]
    hidden = e.total_items - n
    if hidden:
        lines.append(f"{ITEM_INDENT}… and {hidden:,} more item{'s' if hidden != 1 else ''} ({turns_text(e.turn, e.last)})")
    return lines


def day_header(day: str | None) -> str:
    return f"## {human_date(day) if day else UNDATED}"


def render_body(entries: list[Entry], shown: dict[int, int] | None = None, names: list[str] | None = None,
                hidden: dict[str, tuple[int, int, int]] | None = None) -> str:
    """The body text of ``entries`` (see the module docstring). ``shown``: ``id(entry)`` → items shown of a
    list (default all); ``hidden``: kind → ``(count, first turn, last turn)`` of priority entries left out."""
    shown = shown or {}
    hidden = hidden or {}
    lines: list[str] = []
    for kind, title in SECTIONS.items():
        members = sorted((e for e in entries if e.kind == kind), key=lambda e: e.order)
        count = hidden.get(kind)
        if not members and not count:
            continue
        lines.append(title)
        if count and count[0]:
            noun = SECTION_NOUNS[kind][count[0] != 1]
            lines.append(f"… and {count[0]:,} more {noun} ({turns_text(count[1], count[2])})")
        for e in members:
            lines += entry_lines(e, shown.get(id(e)), dated=True)
    detail = [e for e in entries if e.kind not in SECTIONS]
    days = sorted({e.day for e in detail}, key=lambda d: (d is not None, d or ""))
    headed = bool(lines) or any(d is not None for d in days)
    for day in days:
        if headed:
            lines.append(day_header(day))
        for e in sorted((e for e in detail if e.day == day), key=lambda e: e.order):
            lines += entry_lines(e, shown.get(id(e)))
    if names:
        lines.append(f"{NAMES_LABEL} {', '.join(names)}")
    return "\n".join(lines)


def _split_who(rest: str) -> tuple[str, str]:
    who, sep, text = rest.partition(": ")
    if sep and 0 < len(who) <= 40 and not re.search(r"[.!?]", who):
        return who, text
    return "", rest


def parse_body(body: str) -> tuple[list[Entry], list[str], dict[str, tuple[int, int, int]]]:
    """``(entries, names, hidden section counts)`` of a summary body written by ``render_body`` (or the
    older ``- [YYYY-MM-DD] who: text`` / ``Names:`` / ``Dates:`` lines, or any text: a line that is none
    of these becomes an undated fact). Entries are marked ``previous`` and ordered as written."""
    entries: list[Entry] = []
    names: list[str] = []
    hidden: dict[str, tuple[int, int, int]] = {}
    kind, day = "fact", None
    current: Entry | None = None
    for raw in (body or "").splitlines():
        line = raw.rstrip()
        if not line.strip():
            continue
        title = next((k for k, t in SECTIONS.items() if line == t), None)
        if title:
            kind, day, current = title, None, None
            continue
        m = _DAY.match(line)
        if m:
            kind, day, current = "fact", parse_human_date(m.group("day")), None
            continue
        if line.startswith(NAMES_LABEL):
            names += [n.strip() for n in line[len(NAMES_LABEL):].split(",") if n.strip()]
            continue
        if line.startswith("Dates:"):
            continue  # older summaries: the day groups carry the dates now
        if current is not None and current.is_list:
            item, more = _ITEM.match(line), _MORE_ITEMS.match(line)
            if item:
                current.items.append(item.group("item"))
                continue
            if more:
                continue  # the header's count already covers these
        m = _MORE_SECTION.match(line)
        if m:
            what = next(k for k, nouns in SECTION_NOUNS.items() if m.group("what") in nouns)
            hidden[what] = (int(m.group("n").replace(",", "")), *_parse_turns(m.group("turns")))
            continue
        order = (0, len(entries))
        if line.startswith("- "):
            rest, line_day = line[2:], day
            p = _PRIORITY.match(line)
            if p and parse_human_date(p.group("day")):
                line_day, rest = parse_human_date(p.group("day")), p.group("rest")
            listed = _LIST.match(rest)
            if listed:
                first, last = _parse_turns(listed.group("turns"))
                current = Entry(kind, listed.group("intro"), listed.group("who"), line_day, first, last,
                                order=order, previous=True)
                # the count in the header covers every item: what is not listed below is "more"
                current.more = int(listed.group("n").replace(",", ""))
                entries.append(current)
                continue
            who, text = _split_who(rest)
            current = Entry(kind, text, who, line_day, order=order, previous=True)
        else:
            current = Entry("fact", line.strip(), "", None, order=order, previous=True)
        entries.append(current)
    for e in entries:  # a list's header counted all its items; the item lines read are the known ones
        if e.is_list:
            e.more = max(0, e.more - len(e.items))
    return entries, names, hidden
