"""Related pairs: two memories of one user close enough to matter that the doctor cannot place
(``facts.relate`` kind ``related``). They are shown for review, never acted on by default.

Each ``RelatedPair`` carries the evidence the doctor can show (``Relation.evidence``), the label
the model leans to, and a suggested action for the owner, one of ``ACTIONS``:

* ``keep_both``: different facts after all (the doctor remembers the choice and does not ask again);
* ``merge``: one fact told twice;
* ``newer``: the newer replaces the older (a supersede);
* ``older``: the older stays, the newer goes (a supersede the other way);
* ``review``: no suggestion.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bestie_tui.hygiene.corrections import sides
from bestie_tui.hygiene.duplicates import DuplicateAnalysis
from bestie_tui.store.records import MemoryRecord

ACTIONS = ("keep_both", "merge", "newer", "older", "review")
#: The suggestion for each label the model leans to.
SUGGESTED = {"duplicate": "merge", "correction": "newer", "contradiction": "review", "event_vs_state": "keep_both"}


@dataclass
class RelatedPair:
    """``older`` and ``newer`` (by creation time) are related in a way the doctor cannot tell;
    ``evidence`` says why it showed them, ``leaning`` which label it leans to (or ``None``),
    ``confidence`` the model's probability that they are related at all (0–1), ``action`` its
    suggestion (one of ``ACTIONS``); ``suggestion`` is a language model's answer when the owner set
    one up (``hygiene.judge``), never applied by itself."""

    older: MemoryRecord
    newer: MemoryRecord
    evidence: tuple[str, ...]
    leaning: str | None
    confidence: float
    action: str
    suggestion: str | None = None
    score: float | None = field(default=None)

    @property
    def ids(self) -> tuple[int, int]:
        return (self.older.id, self.newer.id)

    def to_dict(self) -> dict:
        return {**sides(self.older, self.newer), "ids": list(self.ids), "evidence": list(self.evidence), "leaning": self.leaning,
                "confidence": round(self.confidence, 3), "suggested_action": self.action,
                "suggestion": self.suggestion}


def find_related(analysis: DuplicateAnalysis, kept: set[frozenset[int]] | None = None) -> list[RelatedPair]:
    """The related pairs of the analysis' pair scan, minus those the owner kept apart (``kept``:
    pairs of record ids), most confident first, then by the newer record's id."""
    s = analysis.scan
    out = []
    for p in s.pairs:
        if p.relation.kind != "related":
            continue
        older, newer = s.members[p.older][0], s.members[p.newer][0]  # members are ordered by id
        if kept and frozenset((older.id, newer.id)) in kept:
            continue
        r = p.relation
        out.append(RelatedPair(older, newer, r.evidence, r.leaning, r.confidence or 0.0,
                               SUGGESTED.get(r.leaning or "", "review"), score=p.score))
    out.sort(key=lambda x: (-round(x.confidence, 3), x.newer.id, x.older.id))
    return out


__all__ = ["RelatedPair", "find_related", "ACTIONS", "SUGGESTED"]
