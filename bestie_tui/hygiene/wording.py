"""The doctor's findings in plain words, for the console and the CLI alike.

A group or pair is named by what it is about ("3 memories say “Prefers trains to flights”",
"you: birth year 1990 or 1992?"), never by how it was found; the scores and rungs of the ladder
(TF-IDF cosine, "frame", "antonym") are the ``*_details`` strings, which the console shows behind
its ``i`` key and the CLI behind ``--details``. ``collapse`` puts items whose headings read the same
under one heading with a count, so 192 pairs about jazz are one line, not 192.

Everything here returns plain ``str`` (memory text included, unescaped): the caller decides how to
show it (``tui.display`` in the console, ``text.words.printable`` in the CLI).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TypeVar

from bestie_tui.text.clock import ago

T = TypeVar("T")

#: Subjects the fact reader names for the person the memories are about.
_OWNER = frozenset({"owner", "user", "the user", "i", "me"})
#: Attributes that read as a verb ("you: like jazz — one says yes, one says no").
_VERBS = frozenset({"like", "love", "prefer", "enjoy", "want", "fear", "hate", "dislike", "need", "eat", "drink"})


def who(subject: str | None) -> str:
    """The subject as the owner reads it: ``you`` for the owner, the name otherwise, ``""`` unknown."""
    if not subject:
        return ""
    return "you" if subject.strip().lower() in _OWNER else subject.strip()


def _first_words(text: str, words: int = 12) -> str:
    parts = " ".join(text.split()).rstrip(".!?;:").split(" ")
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")


def _quote(text: str, words: int = 12) -> str:
    return f"“{_first_words(text, words)}”"


def _about(subject: str | None) -> str:
    name = who(subject)
    return f"{name}: " if name else ""


def duplicate_heading(group) -> str:
    """``3 memories say “Prefers trains to flights for trips under 600 km”`` for a ``DuplicateGroup``
    (the oldest member's words, first twelve)."""
    return f"{len(group.members)} memories say {_quote(group.members[0].text)}"


def duplicate_details(group) -> str:
    """How the group was found: the rung and the lowest TF-IDF cosine between members."""
    return f"found by {group.level}, lowest cosine {group.score:.2f}"


def correction_heading(c) -> str:
    """``you: residence changed Hanoi → Saigon`` for a ``Correction``; without a framed attribute,
    ``newer says “…”`` with the newer record's first words."""
    if c.attribute and c.old_value and c.new_value:
        return f"{_about(c.subject)}{c.attribute.replace('_', ' ')} changed {c.old_value} → {c.new_value}"
    return f"newer says {_quote(c.newer.text, 10)}"


def correction_details(c) -> str:
    """The reader's reason for the correction."""
    return c.reason


def contradiction_heading(c) -> str:
    """What a ``Contradiction`` is about, without the reader's vocabulary:

    * one says it, one denies it: ``you: like jazz — one says yes, one says no``;
    * two values that cannot both hold: ``you: birth year 1990 or 1992?``;
    * a state and what it excludes: ``“only child” does not fit “sibling, sister”``;
    * an event against a lasting state: ``a one-off “steak” against “vegetarian”``;
    * otherwise the two texts' first words side by side.
    """
    attribute = (c.attribute or "").replace("_", " ")
    about = _about(c.subject)
    if c.kind in ("negation", "antonym") and attribute and c.old_value:
        value = c.old_value if c.old_value == c.new_value or not c.new_value else f"{c.old_value} / {c.new_value}"
        return f"{about}{attribute} {value} — one says yes, one says no"
    if c.kind == "value" and attribute and c.old_value and c.new_value:
        return f"{about}{attribute} {c.old_value} or {c.new_value}?"
    if c.kind == "state_conflict" and c.old_value and c.new_value:
        return f"“{c.old_value}” does not fit “{c.new_value}”"
    if c.kind == "event_vs_state" and c.old_value and c.new_value:
        return f"a one-off “{c.new_value}” against “{c.old_value}”"
    return f"{_quote(c.older.text, 6)} or {_quote(c.newer.text, 6)}?"


def contradiction_details(c) -> str:
    """How the pair was found: its kind, the reader's reason and the TF-IDF cosine."""
    return f"{c.kind}: {c.reason}; cosine {c.score:.2f}"


def finding_reason(finding, now: datetime) -> str:
    """A stale or noisy finding's reason, with its time as ``2 days ago`` (``finding.at``)."""
    at = getattr(finding, "at", None)
    if at is not None and finding.reason.startswith("expired"):
        return f"expired {ago(at, now)}"
    return finding.reason


def collapse(items: Iterable[T], heading: Callable[[T], str],
             topic: Callable[[T], tuple[str, frozenset[str]] | None] | None = None) -> list[tuple[str, list[T]]]:
    """``items`` grouped by their heading when headings read the same (case and spacing aside),
    in the order each heading first appears: ``[(heading, [items…]), …]``.

    ``topic``: ``(kind, words)`` of what an item is about, or None; items of one kind whose words
    nest ("jazz" in "jazz music") share a group too, under the heading of the one with the fewest
    words, which comes first in its list."""
    groups: list[tuple[str, frozenset[str] | None, list[T]]] = []  # (heading key, topic, items)
    keys: dict[str, int] = {}
    for item in items:
        key = " ".join(heading(item).casefold().split())
        found = keys.get(key)
        about = topic(item) if topic is not None else None
        if found is None and about is not None:
            for n, (_, words, members) in enumerate(groups):
                first = topic(members[0]) if topic is not None else None
                if first is not None and first[0] == about[0] and words is not None \
                        and (about[1] <= words or words <= about[1]):
                    found = n
                    break
        if found is None:
            keys[key] = len(groups)
            groups.append((key, about[1] if about else None, [item]))
            continue
        _, words, members = groups[found]
        keys.setdefault(key, found)
        if about is not None and words is not None and len(about[1]) < len(words):
            members.insert(0, item)  # the narrower topic names the group
            groups[found] = (key, about[1], members)
        else:
            members.append(item)
    return [(heading(members[0]), members) for _, _, members in groups]


def contradiction_topic(c) -> tuple[str, frozenset[str]] | None:
    """For ``collapse``: a yes/no contradiction's subject and attribute, and the words of its
    shorter value, so "like jazz", "like jazz / jazz music" and "like jazz music" read as one topic."""
    attribute = (c.attribute or "").replace("_", " ")
    if c.kind not in ("negation", "antonym") or not attribute or not c.old_value:
        return None
    values = [v for v in (c.old_value, c.new_value) if v]
    words = min((frozenset(v.casefold().split()) for v in values), key=len)
    return f"{_about(c.subject)}{attribute}", words


def collapsed_heading(text: str, items: Sequence, unit: str) -> str:
    """``text`` with the count of what it stands for when more than one: ``… (12 pairs)``."""
    return text if len(items) == 1 else f"{text} ({len(items):,} {unit})"


def duplicate_collapse_key(group) -> str:
    """What a duplicate group is about, for ``collapse``: its quoted words without the count, so
    two-member and three-member groups of the same sentence share one heading."""
    return f"say {_quote(group.members[0].text)}"


def duplicates_collapsed_heading(groups: Sequence) -> str:
    """One heading for duplicate groups about the same sentence: ``3 memories say “…”`` for one
    group, ``7 memories in 3 groups say “…”`` for several (groups are per user)."""
    if len(groups) == 1:
        return duplicate_heading(groups[0])
    total = sum(len(g.members) for g in groups)
    return f"{total:,} memories in {len(groups):,} groups say {_quote(groups[0].members[0].text)}"


__all__ = ["who", "duplicate_heading", "duplicate_details", "correction_heading", "correction_details",
           "contradiction_heading", "contradiction_details", "finding_reason", "collapse", "collapsed_heading",
           "duplicate_collapse_key", "duplicates_collapsed_heading", "contradiction_topic"]
