"""Erasing for good: one user's data (``erase_user``), one memory with its history and the messages
that state it (``purge_memory``), and the history text of hard-deleted records and of forgotten or
redacted messages once the undo window has passed (``purge_history``).

The event log keeps ``before``/``after`` snapshots — the text of every version of a memory — which is
what makes undo work, and what a privacy erase must remove too. A purged event keeps its place in the
log (who did what, when) but its snapshots shrink to ``{"id": N, "purged": true}`` and its note
becomes ``history.PURGED_NOTE``, so undo refuses to use it. Erases run with SQLite's
``secure_delete`` on (freed pages are zeroed) and end with a WAL checkpoint that truncates the WAL
file, so the erased text is not left in the database file or beside it. Neither ``erase_user`` nor
``purge_memory`` is undoable; ``erase_user`` writes a backup first (as ``clear`` does), which then
is the only copy of what it erased.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from peewee import fn

from bestie_tui.errors import InvalidValueError
from bestie_tui.store import doc_index, message_forget, vectors
from bestie_tui.store.binding import uses_store
from bestie_tui.store.db import erase_begin, erase_end, json_text, vacuum
from bestie_tui.store.history.undo import PURGED_NOTE
from bestie_tui.store.models import Event, Memory, Message, Setting
from bestie_tui.transfer.backup import take_backup

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore

#: The events that hold a chat message's text: its redactions and forgets, and their undos.
_MESSAGE_EVENTS = Event.memory_id.is_null() & (Event.action.in_(message_forget.ACTIONS) | (
    (Event.action == "undo") & Event.note.in_([f"undo {a}" for a in message_forget.ACTIONS])))
#: The settings the program keeps that may quote memory or message text (the digest log).
_QUOTING_RECORDS = ("digest.log",)


@dataclass(frozen=True)
class EraseResult:
    """What ``erase_user`` removed. ``backup`` holds the database as it was before."""

    user: str
    memories: int
    messages: int
    events_purged: int
    digests_scrubbed: int
    backup: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _backup(store: MemoryStore, label: str) -> Path:
    return take_backup(store, label)


def _purge_events(condition) -> int:
    """Shrink the snapshots of the events matching ``condition`` to ``{"id", "purged"}`` (and the id
    of the message, for an event of a message)."""
    rows = list(Event.select(Event.id, Event.memory_id, Event.before, Event.after).where(condition))
    for e in rows:
        said = _snapshot_key(e.before, message_forget.MESSAGE_KEY) or _snapshot_key(e.after, message_forget.MESSAGE_KEY)
        stub = json.dumps({"id": e.memory_id, "purged": True, **({message_forget.MESSAGE_KEY: said} if said else {})})
        Event.update(before=stub if e.before is not None else None, after=stub if e.after is not None else None,
                     note=PURGED_NOTE).where(Event.id == e.id).execute()
    return len(rows)


def _scrub_records(texts: set[str]) -> int:
    """Replace the text of recorded digests that quote any of ``texts``; returns how many."""
    scrubbed = 0
    for key in _QUOTING_RECORDS:
        row = Setting.get_or_none(Setting.key == key)
        if row is None:
            continue
        records = json.loads(row.value)
        if not isinstance(records, list):
            continue
        for record in records:
            text = record.get("text") if isinstance(record, dict) else None
            if isinstance(text, str) and any(t and t in text for t in texts):
                record["text"] = "[erased: it quoted data of an erased user]"
                scrubbed += 1
        Setting.put(key, json.dumps(records, ensure_ascii=False))
    return scrubbed


def _erasing(store: MemoryStore):
    erase_begin(store.db)  # SQLite: this connection zeroes the pages it frees


def _flush(store: MemoryStore) -> None:
    erase_end(store.db)  # old page versions leave the WAL file (SQLite) or the table (VACUUM)


@uses_store
def erase_user(store: MemoryStore, user: str, *, actor: str = "owner") -> EraseResult:
    """Remove ``user``'s memories and messages for good and purge the history text of those
    memories (and of any event whose snapshot names the user), after a backup. Not undoable.

    Returns:
        An ``EraseResult`` with the counts and the backup path.

    Raises:
        InvalidValueError: ``user`` is empty, or another user than the store is bound to.
        StorageError: the database cannot be written; nothing was erased.
    """
    if not isinstance(user, str) or not user.strip():
        raise InvalidValueError("erase needs a user id (--user U)")
    store.check_user(user)  # a user-bound store erases its own user only
    backup = _backup(store, "before-erase")
    _erasing(store)
    with store.change("erase", actor) as batch:
        ids = [r.id for r in Memory.select(Memory.id).where(Memory.user == user)]
        texts = {r.text for r in Memory.select(Memory.text).where(Memory.user == user)}
        texts |= {r.text for r in Message.select(Message.text).where(Message.user == user)}
        named = (json_text(store.db, Event.before, "user") == user) | (json_text(store.db, Event.after, "user") == user)
        purged = _purge_events(Event.memory_id.in_(ids) | named) if ids else _purge_events(named)
        memories = Memory.delete().where(Memory.user == user).execute()
        message_ids = [r.id for r in Message.select(Message.id).where(Message.user == user)]
        messages = Message.delete().where(Message.user == user).execute()
        doc_index.drop_documents(store.db, ids)  # the search index holds their text and terms too
        vectors.drop_orphans(store.db)  # and a vector says what its text meant
        doc_index.drop_documents(store.db, message_ids, doc_index.MESSAGE)
        scrubbed = _scrub_records(texts)
        counts = {"memories": memories, "messages": messages, "events_purged": purged}
        store.record_event(batch, "erase", None, None, counts, actor, note=PURGED_NOTE)
    _flush(store)
    return EraseResult(user, memories, messages, purged, scrubbed, str(backup))


@dataclass(frozen=True)
class PurgeResult:
    """What ``purge_memory`` removed: the events whose text it purged, and the chat messages it
    redacted (those that stated the memory: ``message_forget``)."""

    events: int
    messages: tuple[int, ...]


@uses_store
def purge_memory(store: MemoryStore, memory_id: int, *, actor: str = "owner") -> PurgeResult:
    """Delete one memory for good, purge the text of its history and redact it from the chat
    messages that state it (``forget --purge``), the text of earlier redactions of it included. Not
    undoable.

    Raises:
        NotFoundError: no memory with that id.
    """
    row = store._row(memory_id)
    _erasing(store)
    with store.change("purge", actor) as batch:
        row = store._row(memory_id)
        texts = {row.text}
        purged = _purge_events(Event.memory_id == row.id)
        earlier = [e.id for e in Event.select(Event.id, Event.before, Event.after).where(_MESSAGE_EVENTS)
                   if row.id in (_snapshot_key(e.before, "memory"), _snapshot_key(e.after, "memory"))]
        purged += _purge_events(Event.id.in_(earlier)) if earlier else 0
        redacted = message_forget.redact(store, batch, row, message_forget.stating_rows(store, row), actor,
                                         purged_note=PURGED_NOTE)
        row.delete_instance()
        _scrub_records(texts)
        store.record_event(batch, "purge", row.id, {"id": row.id, "purged": True}, None, actor, note=PURGED_NOTE)
    _flush(store)
    return PurgeResult(purged, tuple(redacted))


def _snapshot_key(snapshot: str | None, key: str) -> Any:
    """The value at ``key`` of an event's snapshot (JSON text of an object), or ``None``."""
    try:
        data = json.loads(snapshot) if snapshot else None
    except ValueError:
        return None
    return data.get(key) if isinstance(data, dict) else None


@uses_store
def purge_history(store: MemoryStore, days: float | None = None) -> int:
    """Purge the history text of hard-deleted memories whose events are older than ``days``
    (default ``memory.undoRetentionDays``), and of the chat messages forgotten or redacted before
    then (``message_forget``): past that window none of them can be undone. The maintenance run
    calls it. When message text was purged, SQLite's file is rewritten (``VACUUM``), so no page of
    it keeps the old text. Returns how many events were purged."""
    if days is None:
        days = float(store.get_setting("memory.undoRetentionDays"))
    cutoff = store.clock() - timedelta(days=days)
    live = Memory.select(Memory.id)
    # memories that no longer exist and whose last event (their deletion) is older than the window
    gone = (Event.select(Event.memory_id).where(Event.memory_id.is_null(False) & Event.memory_id.not_in(live))
            .group_by(Event.memory_id).having(fn.MAX(Event.at) < cutoff))
    not_yet = (Event.note != PURGED_NOTE) | Event.note.is_null()
    said = _MESSAGE_EVENTS & (Event.at < cutoff) & not_yet
    with store.bound(), store.db.atomic():
        _erasing(store)
        purged = _purge_events(Event.memory_id.in_(gone) & not_yet)
        messages = _purge_events(said)
    if purged or messages:
        _flush(store)
    if messages:
        vacuum(store.db)
    return purged + messages
