"""The owner's decisions on pairs of memories: "keep both", recorded in the event log.

The doctor reports related pairs it cannot decide by itself. When the owner answers "keep both",
nothing about either memory changes; the answer is one ``keep_both`` event on the newer memory
(``before`` and ``after`` its snapshot, equal) whose note names the pair (``pair_note``). Being an
event, it is undone like any other change, and under a store bound to a user it is that user's
(``models.Event`` reads the user from the snapshot). ``kept_pairs`` reads the decisions back: the
pairs with a ``keep_both`` event that was not undone.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.binding import uses_store
from bestie_tui.store.models import Event
from bestie_tui.store.records import MemoryRecord
from bestie_tui.store.support import snapshot

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore

#: The action of the event that records a "keep both" (and the name of its change batch).
KEEP_BOTH = "keep_both"
_NOTE = re.compile(r"kept both #(\d+) and #(\d+)")


def pair_note(older_id: int, newer_id: int) -> str:
    """The note of a ``keep_both`` event: ``"kept both #3 and #7"`` (what ``bestie memory history``
    shows, and what ``parse_pair_note`` reads back)."""
    return f"kept both #{older_id} and #{newer_id}"


def parse_pair_note(note: str | None) -> frozenset[int] | None:
    """The two ids a ``pair_note`` names, or ``None`` for any other note (a purged one, say)."""
    found = _NOTE.fullmatch(note or "")
    if found is None:
        return None
    pair = frozenset((int(found.group(1)), int(found.group(2))))
    return pair if len(pair) == 2 else None


def _who(user: str | None) -> str:
    return "no user" if user is None else f"user {user!r}"


def check_pair(store: MemoryStore, older_id: int, newer_id: int) -> tuple[MemoryRecord, MemoryRecord]:
    """The two memories of a pair the owner resolves, checked: two different ids, both there (and
    within this store's tenant), both active (approved and not superseded), both of one user.

    Returns:
        ``(older, newer)`` as records, ordered by creation (then id), whatever order they were given in.

    Raises:
        NotFoundError: an id names no memory this store reaches.
        InvalidValueError: the same id twice, a memory that is not active, or two users' memories.
    """
    older, newer = store.get(older_id), store.get(newer_id)
    if older.id == newer.id:
        raise InvalidValueError(f"#{older.id} and #{newer.id} are one memory; a pair is two different ids")
    for m in (older, newer):
        if m.status != "approved":
            raise InvalidValueError(f"memory #{m.id} is {m.status}; only approved memories form a pair to resolve")
        if m.superseded_by is not None:
            raise InvalidValueError(f"memory #{m.id} is already superseded by #{m.superseded_by}; "
                                    "only active memories form a pair to resolve")
    if older.user != newer.user:
        raise InvalidValueError(f"#{older.id} belongs to {_who(older.user)} and #{newer.id} to "
                                f"{_who(newer.user)}; a pair is two memories of one user")
    if (newer.created_at, newer.id) < (older.created_at, older.id):
        older, newer = newer, older  # "newer" is the later statement, whichever order the ids came in
    return older, newer


def keep_both(store: MemoryStore, older_id: int, newer_id: int, *, actor: str = "owner") -> bool:
    """Record that the owner keeps both memories of a pair (``MemoryStore.keep_both`` calls it).

    One change batch with one ``keep_both`` event on the newer memory, its snapshot as ``before``
    and ``after`` (the memories are left as they are), ``pair_note`` as its note. A pair already
    kept (in either order) writes nothing.

    Returns:
        True when the event was written; False when the pair was already kept.

    Raises:
        NotFoundError / InvalidValueError: as ``check_pair``; nothing is written.
    """
    with store.change(KEEP_BOTH, actor) as batch:
        older, newer = check_pair(store, older_id, newer_id)
        if frozenset((older.id, newer.id)) in kept_pairs(store):
            return False
        row = store._row(newer.id)
        shot = snapshot(row)
        store.record_event(batch, KEEP_BOTH, row.id, shot, shot, actor, note=pair_note(older.id, newer.id))
    return True


@uses_store
def kept_pairs(store: MemoryStore, user: str | None = None) -> set[frozenset[int]]:
    """The pairs the owner chose to keep both of: every ``keep_both`` event not undone, as a set of
    two-id frozensets (``frozenset({3, 7})``), whichever order the ids were given in.

    Args:
        store: the store; one bound to a user sees only that user's decisions.
        user: only the pairs of this user's memories; ``None``: every pair the store reaches.

    Raises:
        InvalidValueError: ``user`` is not the user a bound store is bound to.
    """
    if store.tenant is not None:
        store.check_user(user)  # the tenant's condition on the event log already keeps it to its user
        user = None
    rows = Event.select(Event.note, Event.after).where((Event.action == KEEP_BOTH) & (Event.undone == False))  # noqa: E712
    out: set[frozenset[int]] = set()
    for e in rows:
        pair = parse_pair_note(e.note)
        if pair is None:
            continue
        if user is not None and (json.loads(e.after) if e.after else {}).get("user") != user:
            continue
        out.add(pair)
    return out


__all__ = ["KEEP_BOTH", "check_pair", "keep_both", "kept_pairs", "pair_note", "parse_pair_note"]
