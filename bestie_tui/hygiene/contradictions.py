"""Contradiction candidates, found without a language model. They are proposals for the owner:
nothing here changes a record.

Kinds (``Contradiction.kind``):

* ``negation``: near-identical statements, one negated ("I am vegan." / "I am not a vegan.";
  "Tôi thích sầu riêng" / "Tôi không thích sầu riêng"). Found by the duplicate search, which keeps
  such pairs out of duplicate groups (``DuplicateAnalysis.opposite_pairs``).
* ``antonym``: the same, with an antonym instead of a negation ("I love durian." / "I hate durian.";
  thích / ghét).
* ``value``: the same one-valued attribute with another value ("prefers Vietnamese" / "prefers
  English", two favourite colours, two ages). Each older statement is paired with the newest one.
* ``event_vs_state``: an event that a lasting state excludes ("had steak on Friday" vs "is
  vegetarian"). An event does not replace a state, so this pair is flagged, never resolvable by a
  supersede; ``state_conflict`` is the same with a lasting preference ("loves steak").

A statement that adds a different relation about the same thing ("I love durian." / "I grow
durian.") is neither a duplicate nor a contradiction: it shares no relation and no frame.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from bestie_tui.facts.reader import STATES, read_claims, read_fact
from bestie_tui.hygiene.duplicates import DuplicateAnalysis
from bestie_tui.store.records import MemoryRecord

KINDS = ("negation", "antonym", "value", "event_vs_state", "state_conflict")
#: Kinds the owner may resolve by superseding the older record with the newer one.
RESOLVABLE = frozenset({"negation", "antonym", "value"})


@dataclass
class Contradiction:
    """Two records that cannot both be true. ``older``/``newer`` by creation time; ``score`` is the
    TF-IDF cosine of their core terms (1.0 for value and state conflicts)."""

    kind: str
    older: MemoryRecord
    newer: MemoryRecord
    reason: str
    score: float = 1.0

    @property
    def resolvable(self) -> bool:
        """True when superseding ``older`` by ``newer`` is a sensible resolution to propose."""
        return self.kind in RESOLVABLE

    @property
    def ids(self) -> tuple[int, int]:
        return (self.older.id, self.newer.id)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "older": {"id": self.older.id, "text": self.older.text},
                "newer": {"id": self.newer.id, "text": self.newer.text}, "reason": self.reason,
                "score": round(self.score, 4), "resolvable": self.resolvable}


def _order(a: MemoryRecord, b: MemoryRecord) -> tuple[MemoryRecord, MemoryRecord]:
    return (a, b) if (a.created_at, a.id) <= (b.created_at, b.id) else (b, a)


def find_contradictions(records: Sequence[MemoryRecord], analysis: DuplicateAnalysis | None = None
                        ) -> list[Contradiction]:
    """Contradiction candidates among ``records`` (compared within each user only).

    Args:
        records: the records to check (usually the active approved ones).
        analysis: the ``find_duplicates`` result over the same records, whose opposite-polarity
            pairs become negation/antonym candidates; computed here when omitted.

    Returns:
        Candidates, negation/antonym first, then value, then state conflicts.
    """
    if analysis is None:
        from bestie_tui.hygiene.duplicates import find_duplicates

        analysis = find_duplicates(records)
    out: list[Contradiction] = []
    seen: set[tuple[int, int]] = set()
    for pair in analysis.opposite_pairs:
        older, newer = _order(pair.a, pair.b)
        fa, fb = read_fact(older.text), read_fact(newer.text)
        kind = "negation" if fa.negated != fb.negated else "antonym"
        reason = ("one statement negates the other" if kind == "negation"
                  else "opposite feelings about the same thing")
        out.append(Contradiction(kind, older, newer, reason, pair.score))
        seen.add(older_newer_key(older, newer))
    for c in _value_conflicts(records) + _claim_conflicts(records):
        key = older_newer_key(c.older, c.newer)
        if key not in seen:
            seen.add(key)
            out.append(c)
    out.extend(_state_conflicts(records))
    return out


def older_newer_key(a: MemoryRecord, b: MemoryRecord) -> tuple[int, int]:
    return (min(a.id, b.id), max(a.id, b.id))


def _value_conflicts(records: Sequence[MemoryRecord]) -> list[Contradiction]:
    by_attr: dict[tuple, list[tuple[MemoryRecord, str]]] = defaultdict(list)
    for r in records:
        f = read_fact(r.text)
        if f.frame is not None and f.frame.exclusive and f.polarity > 0:
            by_attr[(r.user, f.subject, f.frame.attribute)].append((r, f.frame.value))
    out = []
    for (_, _, attribute), items in by_attr.items():
        if len({v for _, v in items}) < 2:
            continue
        items.sort(key=lambda rv: (rv[0].created_at, rv[0].id))
        newest, value = items[-1]
        for r, v in items[:-1]:
            if v != value:
                out.append(Contradiction("value", r, newest, f"{attribute}: {v!r} then {value!r}"))
    return out


def _claim_conflicts(records: Sequence[MemoryRecord]) -> list[Contradiction]:
    """Clauses with the same subject, verb and object and opposite polarity (``facts.read_claims``):
    "Linh loves durian and wants it…" / "Linh hates durian; never suggest it." — the extra words
    that keep such a pair below the negated-twin cosine do not hide it. Each record is paired with
    the newest record of the opposite polarity."""
    by_claim: dict[tuple, dict[int, list[MemoryRecord]]] = defaultdict(lambda: {1: [], -1: []})
    negated: dict[tuple, bool] = {}
    for r in records:
        for claim in set(read_claims(r.text)):
            key = (r.user, claim.subject, claim.verb, claim.object)
            by_claim[key][claim.polarity].append(r)
            negated[(r.id,) + key] = claim.negated
    out = []
    for (_, subject, verb, obj), sides in by_claim.items():
        if not sides[1] or not sides[-1]:
            continue
        newest = {p: max(rs, key=lambda r: (r.created_at, r.id)) for p, rs in sides.items()}
        pairs = {older_newer_key(r, newest[-p]): (r, newest[-p]) for p, rs in sides.items() for r in rs}
        for a, b in pairs.values():
            if a.id == b.id:
                continue  # "I don't like X, but I love X" is one confused record, not a pair
            older, newer = _order(a, b)
            key = (older.user, subject, verb, obj)
            kind = "negation" if negated[(older.id,) + key] != negated[(newer.id,) + key] else "antonym"
            what = "feelings about" if verb == "PREF" else f"{verb} …"
            out.append(Contradiction(kind, older, newer, f"opposite {what} {obj!r}"
                                     + (f" ({subject})" if subject != "self" else "")))
    return out


def _state_conflicts(records: Sequence[MemoryRecord]) -> list[Contradiction]:
    states: dict[tuple, MemoryRecord] = {}
    for r in records:
        f = read_fact(r.text)
        if f.state is not None:
            key = (r.user, f.state)
            if key not in states or (r.created_at, r.id) > (states[key].created_at, states[key].id):
                states[key] = r
    if not states:
        return []
    out = []
    for r in records:
        f = read_fact(r.text)
        if not f.items or f.polarity < 0 or f.subject != "self":
            continue
        for (user, state), state_rec in states.items():
            if user != r.user or state_rec.id == r.id:
                continue
            clash = f.items & STATES[state]
            if not clash:
                continue
            words = f.written(clash)  # as written: "cheese", "thịt", not their stems
            if f.event:
                out.append(Contradiction("event_vs_state", *_order(state_rec, r),
                                         f"an event ({words}) against the lasting state {state!r}: "
                                         "an event does not replace a state; review it"))
            else:
                out.append(Contradiction("state_conflict", *_order(state_rec, r),
                                         f"{words} does not fit {state!r}; review it"))
    return out


__all__ = ["Contradiction", "find_contradictions", "KINDS", "RESOLVABLE"]
