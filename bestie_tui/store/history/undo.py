"""Undo from the event log: revert the newest change batch of one actor (or one console session).

Whose change is undone: by default the caller's own (the owner's ``undo`` reverts the owner's last
change, not the assistant's proposal that arrived a second later); ``of`` names other actors,
``any_actor`` takes the newest of anyone's, and ``origin`` the newest made through one store object
(the console's session: its ``u`` undoes what was done in that console).

Because an older batch may be undone while newer changes by others stand, a batch is reverted field
by field: only the fields it changed are written back, and only when nobody changed them since. A
field changed again later, or a created record that others changed since, is a conflict: nothing is
written and the error names the newer change to undo first.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from bestie_tui.errors import InvalidValueError, NotFoundError
from bestie_tui.store import doc_index, message_forget
from bestie_tui.store.history.pair_decisions import KEEP_BOTH, parse_pair_note
from bestie_tui.store.models import Event, Memory, Message, Setting
from bestie_tui.store.records import UndoResult
from bestie_tui.store.support import row_values, snapshot

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore

#: The actors whose changes are the owner's own: typed commands and console keys, and the files the
#: owner imports. ``undo`` by the owner reaches these unless told otherwise.
OWNER_ACTORS = ("owner", "import")
#: The key of an import event's ``after`` listing the message ids it added (undo deletes them).
IMPORTED_MESSAGES = "messages"
#: Snapshot keys that change with every write and never make a conflict.
_QUIET = {"updated_at"}
#: Ids an undo message names before it says how many more (``UndoResult.memory_ids`` holds all).
IDS_SHOWN = 12


def _id_list(ids: list[int]) -> str:
    """``#1, #2, #3`` — or the first ``IDS_SHOWN`` and "and N more" for a long list (an import's undo)."""
    shown = ", ".join(f"#{i}" for i in ids[:IDS_SHOWN])
    return shown if len(ids) <= IDS_SHOWN else f"{shown} and {len(ids) - IDS_SHOWN:,} more"


#: ``Event.note`` of an event whose snapshots were purged (``transfer.erase``): it cannot be undone.
PURGED_NOTE = "text purged"
#: Batches that are records, not undo steps: undos themselves, and erases, which cannot be undone
#: (``erase --user``, ``forget --purge``) and say so before they act.
NOT_UNDO_STEPS = ("undo", "erase", "purge")


def undo_last(store: MemoryStore, actor: str, *, of: Iterable[str] | None = None, any_actor: bool = False,
              origin: str | None = None) -> UndoResult:
    """Revert the newest not-undone batch (undo batches themselves are not undone again).

    Args:
        store: the store.
        actor: who undoes (recorded on the ``undo`` batch).
        of: whose change to revert; by default the undoer's own (``OWNER_ACTORS`` for the owner).
        any_actor: the newest change of anyone (``of`` ignored).
        origin: only a batch made through the store object whose ``origin`` this is.

    Returns:
        An ``UndoResult`` whose message names the change, its actor and the memories, with a short
        quote of the first memory's text.

    Raises:
        NotFoundError: nothing to undo; or the change was a ``clear`` (its backup is named), or its
            text was purged.
        InvalidValueError: a newer change touched the same fields or record; nothing was written.
    """
    q = Event.select().where((Event.undone == False) & Event.action.not_in(NOT_UNDO_STEPS))  # noqa: E712
    whose = ""
    if origin is not None:
        q = q.where(Event.origin == origin)
        whose = " made in this session"
    elif not any_actor:
        actors = tuple(of) if of is not None else (OWNER_ACTORS if actor == "owner" else (actor,))
        q = q.where(Event.actor.in_(actors))
        whose = f" by {' or '.join(actors)}"
    last = q.order_by(Event.id.desc()).first()
    if last is None:
        raise NotFoundError(f"nothing to undo{whose}")
    if last.action == "clear":
        # clear deletes the log itself; only the backup it wrote can bring the data back.
        raise NotFoundError(f"the last change was a clear, which undo cannot revert; {last.note or 'see backups/'} "
                            "(open it with --db, or export it and import here)")
    events = list(Event.select().where(Event.batch == last.batch).order_by(Event.id.desc()))
    if any(e.note == PURGED_NOTE for e in events):
        raise NotFoundError(f"cannot undo {last.action} by {last.actor}: the text it would restore was purged "
                            "(memory.undoRetentionDays, forget --purge or erase)")
    restored: list[int] = []
    quote = ""
    messages_removed = 0
    messages_back: list[int] = []  # messages forgotten or redacted by the batch, given back
    with store.change("undo", actor) as batch:
        for event in events:
            before = json.loads(event.before) if event.before else None
            after = json.loads(event.after) if event.after else None
            if event.memory_id is None:
                if event.action in message_forget.ACTIONS:
                    messages_back.append(message_forget.undo_event(store, batch, event.action, before, after, actor))
                    quote = quote or _quote((before or {}).get("text"))
                elif before is not None and "key" in before:
                    _undo_setting(store, batch, event, before, after, actor)
                elif event.action == "import" and after is not None and IMPORTED_MESSAGES in after:
                    ids = [int(i) for i in after[IMPORTED_MESSAGES]]
                    # the turns beside the removed ones were indexed with their text: indexed again below
                    around = doc_index.neighbours_outside(store.db, ids)
                    for start in range(0, len(ids), 500):
                        messages_removed += Message.delete().where(Message.id.in_(ids[start:start + 500])).execute()
                    doc_index.drop_documents(store.db, ids + around, doc_index.MESSAGE)
                    store.record_event(batch, "undo", None, after, None, actor, note="undo import (messages)")
                continue
            current = _revert_memory(event, before, after, last.batch)
            quote = quote or _quote((before or after or {}).get("text"))
            restored.append(event.memory_id)
            if event.action == KEEP_BOTH:  # one event for a pair: the message names both memories
                restored.extend(parse_pair_note(event.note) or ())
            now = Memory.get_or_none(Memory.id == event.memory_id)
            store.record_event(batch, "undo", event.memory_id, current, snapshot(now) if now else None, actor,
                               note=f"undo {event.action}")
        Event.update(undone=True).where(Event.batch == last.batch).execute()
    whole = last.batch.split(":", 1)[0] if ":" in last.batch else last.action
    if len(events) == 1:
        action = events[0].action
    else:
        kinds = Counter(e.action for e in reversed(events))
        detail = ", ".join(f"{n} {kind}" for kind, n in kinds.items()) if len(kinds) > 1 else ""
        action = f"{whole} ({len(events)} changes{': ' + detail if detail else ''})"
    ids = sorted(set(restored))
    what = _id_list(ids) if ids else ("messages" if messages_removed else "settings")
    if messages_removed:
        what += f" (and removed {messages_removed} imported message(s))"
    if messages_back:
        back = "message " + _id_list(sorted(messages_back))
        if len(messages_back) > 1:
            back = "messages" + back[len("message"):]
        what = back if not ids else f"{what} (and gave back the text of {back})"
    said = f" “{quote}”" if quote and len(ids) + len(messages_back) == 1 else ""
    return UndoResult(action=whole if len(events) > 1 else last.action, actor=last.actor, memory_ids=ids,
                      message=f"undid {action} by {last.actor} on {what}{said}")


def _quote(text: Any, width: int = 48) -> str:
    if not isinstance(text, str):
        return ""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _changed(before: dict, after: dict) -> list[str]:
    return [k for k in after if k not in _QUIET and before.get(k) != after.get(k)]


def _newer_change(memory_id: int, batch: str) -> Event | None:
    """The newest not-undone event on ``memory_id`` from another batch, after ``batch``'s events."""
    first = Event.select(Event.id).where(Event.batch == batch).order_by(Event.id).first()
    return (Event.select().where((Event.memory_id == memory_id) & (Event.batch != batch) & (Event.undone == False)  # noqa: E712
                                 & (Event.action != "undo") & (Event.id > (first.id if first else 0)))
            .order_by(Event.id.desc()).first())


def _conflict(event: Event, newer: Event | None, what: str) -> InvalidValueError:
    later = f"{newer.action} by {newer.actor}" if newer is not None else "a later change"
    return InvalidValueError(f"cannot undo {event.action} on #{event.memory_id}: {what} since by {later}; "
                             "undo that first (bestie memory undo --any), nothing was changed")


def _revert_memory(event: Event, before: dict | None, after: dict | None, batch: str) -> dict | None:
    """Write ``before`` back for the fields ``event`` changed. Returns the snapshot it replaced."""
    row = Memory.get_or_none(Memory.id == event.memory_id)
    current = snapshot(row) if row else None
    if before is None:  # the event created the memory: remove it, unless others changed it since
        if row is not None:
            newer = _newer_change(cast(int, event.memory_id), batch)
            if newer is not None:
                raise _conflict(event, newer, "it was changed")
            row.delete_instance()
        return current
    if row is None:  # deleted (by this event or later): bring the old record back
        if after is not None:
            newer = _newer_change(cast(int, event.memory_id), batch)
            raise _conflict(event, newer, "it was deleted")
        Memory.insert(**row_values(before)).execute()
        return current
    assert current is not None
    fields = _changed(before, after or {})
    moved = [k for k in fields if after is not None and current.get(k) != after.get(k)]
    if moved:
        raise _conflict(event, _newer_change(cast(int, event.memory_id), batch), f"{', '.join(moved)} changed")
    merged = dict(current)
    merged.update({k: before.get(k) for k in fields})
    if fields:
        merged["updated_at"] = before.get("updated_at", current.get("updated_at"))
    # write back only what the event changed: snapshots keep whole seconds, and writing the rest
    # back from one would cut the fractions off every other time of the row (created_at among them)
    keep = set(fields) | ({"updated_at", "norm", "terms"} if fields else set())
    values = {k: v for k, v in row_values(merged).items() if k in keep}
    if values:
        Memory.update(**values).where(Memory.id == event.memory_id).execute()
    return current


def _undo_setting(store: MemoryStore, batch: str, event: Event, before: dict, after: dict | None,
                  actor: str) -> None:
    key = before["key"]
    row = Setting.get_or_none(Setting.key == key)
    now = json.loads(row.value) if row else None
    if after is not None and row is not None and now != after.get("value"):
        raise InvalidValueError(f"cannot undo the change of {key}: it was set again since; nothing was changed")
    Setting.put(key, json.dumps(before["value"]))
    # a setting event (and its undo) always logs the value it set as ``after``
    store.record_event(batch, "undo", None, after, before, actor, note=f"undo {event.action}")
