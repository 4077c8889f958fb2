"""How a new memory text relates to what the store already holds: the check the write path and
triage share (``facts.relate`` on the approved memories a text could be about).

``find_related(store, text, user)`` returns the approved, active memories of that user the text
duplicates, corrects, contradicts or breaks as a one-off event, strongest first. Candidates are the
user's approved memories most like the text (IDF cosine, ``reads.similar``), those that contain
the words of the text's attributes ("lives", "moved", "sống" for a residence: ``facts.attribute_words``)
and the newest ones; the relation decides every one.

``supersede_into(store, batch, old_ids, new_id, actor)`` marks the replaced records inside a change
batch that is already open, so approving a correction and retiring what it replaces is one undo step.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from bestie_tui.facts.reader import attribute_words, read
from bestie_tui.facts.relations import Relation, relate
from bestie_tui.store.binding import uses_store
from bestie_tui.store.models import Memory
from bestie_tui.store.records import MemoryRecord
from bestie_tui.store.support import snapshot, to_record

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore

#: Similar memories (IDF cosine) compared with a new text.
SIMILAR = 12
#: Memories found by the words of the text's attributes, newest first.
BY_ATTRIBUTE = 60
#: The user's newest memories always compared (a small store is compared whole).
NEWEST = 60
#: Order in which related memories are reported (and acted on).
ORDER = ("correction", "contradiction", "event_vs_state", "duplicate", "related")
#: Setting: what a correction proposed under ``memory.writePolicy allow`` does.
CORRECTION_POLICY = "memory.correctionPolicy"


@dataclass(frozen=True)
class Related:
    """An approved memory and how the new text relates to it (``facts.Relation``)."""

    memory: MemoryRecord
    relation: Relation

    def to_dict(self) -> dict:
        return {"memory": self.memory.to_dict(), "relation": self.relation.to_dict()}


@uses_store
def find_related(store: MemoryStore, text: str, user: str | None, *, exclude_id: int | None = None,
                 kinds: tuple[str, ...] = ORDER) -> list[Related]:
    """The approved active memories of ``user`` that ``text`` relates to (see the module docstring).

    Args:
        store: the open store.
        text: the new (or pending) memory text; it is the newer statement of every pair.
        user: its user (``None``: unbound memories only).
        exclude_id: a memory to leave out (the pending record itself).
        kinds: the relation kinds to keep, in the order they are returned.

    Returns:
        ``Related`` items: by kind (``ORDER``), then newest memory first.
    """
    now = store.clock()
    active = ((Memory.status == "approved") & Memory.superseded_by.is_null()
              & (Memory.expires_at.is_null() | (Memory.expires_at > now)))
    same_user = Memory.user.is_null() if user is None else (Memory.user == user)
    condition = active & same_user
    if exclude_id is not None:
        condition &= Memory.id != exclude_id
    ids: dict[int, None] = {}
    for m, _score in store.similar(text, k=SIMILAR, user=user, exclude_id=exclude_id):
        if m.user == user:
            ids[m.id] = None
    words = sorted(attribute_words(read(text)))
    if words:
        for mid in store.newest_with_terms(words[:40], user=user, limit=BY_ATTRIBUTE, exclude_id=exclude_id):
            ids[mid] = None
    newest = Memory.select(Memory.id).where(condition).order_by(Memory.id.desc()).limit(NEWEST)
    for (mid,) in cast("Iterable[tuple[int]]", newest.tuples()):
        ids[mid] = None
    out: list[Related] = []
    if not ids:
        return out
    rows = Memory.select().where(condition & Memory.id.in_(list(ids)))
    for row in rows:
        rel = relate(row.text, text)
        if rel.kind in kinds:
            out.append(Related(to_record(row), rel))
    out.sort(key=lambda r: (kinds.index(r.relation.kind), -r.memory.id))
    return out


def replaced(related: list[Related]) -> list[int]:
    """Ids of the memories a text corrects on strong evidence (those approving it supersedes); a
    weaker correction is shown ("may replace") and left to the owner."""
    return [r.memory.id for r in related if r.relation.kind == "correction" and r.relation.strong]


@uses_store
def supersede_into(store: MemoryStore, batch: str, old_ids: list[int], new_id: int, actor: str) -> list[int]:
    """Mark ``old_ids`` as superseded by ``new_id`` inside the open change ``batch`` (one event
    each). Pinned, inactive or already superseded records are left alone. Returns the ids changed."""
    done = []
    for row in Memory.select().where(Memory.id.in_(list(old_ids))):
        if row.id == new_id or row.pinned or row.status != "approved" or row.superseded_by is not None:
            continue
        before = snapshot(row)
        row.superseded_by = new_id
        row.updated_at = store.clock()
        row.save()
        store.record_event(batch, "supersede", row.id, before, snapshot(row), actor,
                           note=f"corrected by #{new_id}")
        done.append(row.id)
    return done


__all__ = ["Related", "find_related", "replaced", "supersede_into", "CORRECTION_POLICY"]
