"""Contradiction candidates: the pairs ``facts.relate`` calls a contradiction or an event against a
state. They are proposals for the owner: nothing here changes a record.

Kinds (``Contradiction.kind``), from what decided the relation (``Relation.basis``):

* ``negation``: one statement negates the other ("I am vegan." / "I am not a vegan."; "Tôi thích
  sầu riêng" / "Tôi không thích sầu riêng").
* ``antonym``: the same with an antonym instead of a negation ("I love durian." / "I hate durian.";
  thích / ghét; allowed / forbidden).
* ``value``: a second value where the two cannot both hold and the newer does not read as an
  update: a birth year, handedness, "only Vietnamese" and English.
* ``state_conflict``: a lasting state and what it excludes ("I have no siblings at all." / "My
  brother …"; "I'm vegetarian." / "I had a burger with bacon").
* ``event_vs_state``: a one-off event that a lasting state excludes ("had steak on Friday" vs "is
  vegetarian"). An event does not replace a state, so this pair is flagged, never resolvable.

A correction (the newer value replaces the older) is not a contradiction: see ``corrections``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bestie_tui.hygiene.corrections import sides
from bestie_tui.hygiene.duplicates import DuplicateAnalysis
from bestie_tui.store.records import MemoryRecord

KINDS = ("negation", "antonym", "value", "state_conflict", "event_vs_state")
#: Kinds the owner may resolve by superseding the older record with the newer one.
RESOLVABLE = frozenset({"negation", "antonym", "value"})
_KIND_OF_BASIS = {"negation": "negation", "antonym": "antonym", "exclusion": "state_conflict",
                  "event": "event_vs_state", "words": "negation"}


@dataclass
class Contradiction:
    """Two records that cannot both be true. ``older``/``newer`` by creation time; ``score`` is the
    TF-IDF cosine of their content (1.0 when the pair did not come from the similarity search)."""

    kind: str
    older: MemoryRecord
    newer: MemoryRecord
    reason: str
    score: float = 1.0
    #: what the two disagree about, where the reader framed it (``facts.Relation``'s fields)
    subject: str | None = None
    attribute: str | None = None
    old_value: str | None = None
    new_value: str | None = None
    basis: str = "none"

    @property
    def resolvable(self) -> bool:
        """True when superseding ``older`` by ``newer`` is a sensible resolution to propose."""
        return self.kind in RESOLVABLE

    @property
    def ids(self) -> tuple[int, int]:
        return (self.older.id, self.newer.id)

    def to_dict(self) -> dict:
        return {"kind": self.kind, **sides(self.older, self.newer), "reason": self.reason,
                "score": round(self.score, 4), "resolvable": self.resolvable}


def kind_of(relation) -> str:
    """The contradiction kind of a ``facts.Relation`` (``event_vs_state`` for that relation)."""
    if relation.kind == "event_vs_state":
        return "event_vs_state"
    return _KIND_OF_BASIS.get(relation.basis, "value")


def find_contradictions(records: Sequence[MemoryRecord], analysis: DuplicateAnalysis | None = None
                        ) -> list[Contradiction]:
    """Contradiction candidates among ``records`` (compared within each user only).

    Args:
        records: the records to check (usually the active approved ones).
        analysis: the ``find_duplicates`` result over the same records (its pair scan holds the
            relations); computed here when omitted.

    Returns:
        Candidates: negation and antonym first, then value, state conflicts and events, each by
        the newer record's id.
    """
    if analysis is None:
        from bestie_tui.hygiene.duplicates import find_duplicates

        analysis = find_duplicates(records)
    s = analysis.scan
    out = []
    for p in s.pairs:
        if p.relation.kind not in ("contradiction", "event_vs_state"):
            continue
        older, newer = _first(s.members[p.older]), _first(s.members[p.newer])
        r = p.relation
        out.append(Contradiction(kind_of(r), older, newer, r.reason, p.score if p.score is not None else 1.0,
                                 r.subject, r.attribute, r.old_value, r.new_value, r.basis))
    out.sort(key=lambda c: (KINDS.index(c.kind) if c.kind in ("negation", "antonym") else 2, c.newer.id, c.older.id))
    return out


def _first(members: list[MemoryRecord]) -> MemoryRecord:
    return members[0]  # members are ordered by id


def older_newer_key(a: MemoryRecord, b: MemoryRecord) -> tuple[int, int]:
    return (min(a.id, b.id), max(a.id, b.id))


__all__ = ["Contradiction", "find_contradictions", "KINDS", "RESOLVABLE", "kind_of"]
