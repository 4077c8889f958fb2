"""Corrections: pairs where the newer record states a new value of the same fact (a move, a new
job, a new phone, "no longer", "turns out") — ``facts.relate`` kind ``correction``.

The doctor lists them; the cleanup plan supersedes each corrected record by the newest record that
corrects it (selected by default: the owner's own newer statement is the current one).
"""

from __future__ import annotations

from dataclasses import dataclass

from bestie_tui.hygiene.duplicates import DuplicateAnalysis
from bestie_tui.store.records import MemoryRecord


def sides(older: MemoryRecord, newer: MemoryRecord) -> dict:
    """``{"older": {id, text}, "newer": {id, text}}``: how every pair item of the report names its
    two memories in JSON."""
    return {"older": {"id": older.id, "text": older.text}, "newer": {"id": newer.id, "text": newer.text}}


@dataclass
class Correction:
    """``newer`` replaces ``older``: ``attribute`` (e.g. ``residence``), the values as written
    (``old_value`` → ``new_value``) and the one-line ``reason`` of the relation."""

    older: MemoryRecord
    newer: MemoryRecord
    attribute: str | None
    old_value: str | None
    new_value: str | None
    reason: str
    #: whose fact it is, as the reader named it (``owner`` for the person the memories are about)
    subject: str | None = None
    #: strong evidence (``Relation.strong``): only then does the cleanup plan select the supersede
    strong: bool = True

    @property
    def ids(self) -> tuple[int, int]:
        return (self.older.id, self.newer.id)

    def to_dict(self) -> dict:
        return {**sides(self.older, self.newer),
                "attribute": self.attribute, "old_value": self.old_value, "new_value": self.new_value,
                "reason": self.reason, "strong": self.strong}


def find_corrections(analysis: DuplicateAnalysis) -> list[Correction]:
    """The correction pairs of the analysis' pair scan, by the newer record's id."""
    s = analysis.scan
    out = []
    for p in s.pairs:
        if p.relation.kind != "correction":
            continue
        older, newer = s.members[p.older][0], s.members[p.newer][0]  # members are ordered by id
        r = p.relation
        out.append(Correction(older, newer, r.attribute, r.old_value, r.new_value, r.reason, r.subject, r.strong))
    out.sort(key=lambda c: (c.newer.id, c.older.id))
    return out


def latest_replacements(corrections: list[Correction]) -> dict[int, MemoryRecord]:
    """For each corrected record id, the newest record that corrects it (directly or through a
    chain: A → B → C gives A → C and B → C)."""
    newer_of: dict[int, list[MemoryRecord]] = {}
    for c in corrections:
        newer_of.setdefault(c.older.id, []).append(c.newer)
    out: dict[int, MemoryRecord] = {}
    for old_id in newer_of:
        seen: set[int] = {old_id}
        frontier = list(newer_of[old_id])
        best: MemoryRecord | None = None
        while frontier:
            r = frontier.pop()
            if r.id in seen:
                continue
            seen.add(r.id)
            if best is None or (r.created_at, r.id) > (best.created_at, best.id):
                best = r
            frontier.extend(newer_of.get(r.id, []))
        if best is not None:
            out[old_id] = best
    return out


__all__ = ["Correction", "find_corrections", "latest_replacements", "sides"]
