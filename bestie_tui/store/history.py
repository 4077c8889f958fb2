"""Undo from the event log: revert the newest batch of changes that is not yet undone."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, cast

from bestie_tui.errors import NotFoundError
from bestie_tui.store.models import Event, Memory, Setting
from bestie_tui.store.records import UndoResult
from bestie_tui.store.support import row_values, snapshot

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore


def undo_last(store: MemoryStore, actor: str) -> UndoResult:
    """Revert the newest not-undone batch (undo batches themselves are not undone again).

    Each event's ``before`` snapshot is written back, in reverse order; a memory that did not exist
    before is deleted (its snapshot stays in the log). The revert is itself recorded as an ``undo``
    batch, so the audit trail shows who undid what and when.

    Raises:
        NotFoundError: nothing to undo.
    """

    last = (
        Event.select()
        .where((Event.undone == False) & (Event.action != "undo"))  # noqa: E712
        .order_by(Event.id.desc())
        .first()
    )
    if last is None:
        raise NotFoundError("nothing to undo")
    if last.action == "clear":
        # clear deletes the log itself; only the backup it wrote can bring the data back.
        raise NotFoundError(f"the last change was a clear, which undo cannot revert; {last.note or 'see backups/'} "
                            "(open it with --db, or export it and import here)")
    events = list(Event.select().where(Event.batch == last.batch).order_by(Event.id.desc()))
    restored: list[int] = []
    with store.change("undo", actor) as batch:
        for event in events:
            before = json.loads(event.before) if event.before else None
            if event.memory_id is None:
                if before is not None and "key" in before:
                    Setting.replace(key=before["key"], value=json.dumps(before["value"])).execute()
                    # a setting event (and its undo) always logs the value it set as ``after``
                    store.record_event(batch, "undo", None, json.loads(cast(str, event.after)), before, actor,
                                 note=f"undo {event.action}")
                continue
            row = Memory.get_or_none(Memory.id == event.memory_id)
            current = snapshot(row) if row else None
            if before is None:
                if row is not None:
                    row.delete_instance()
            else:
                values = row_values(before)
                if row is None:
                    Memory.insert(**values).execute()
                else:
                    Memory.update(**values).where(Memory.id == event.memory_id).execute()
            restored.append(event.memory_id)
            store.record_event(batch, "undo", event.memory_id, current, before, actor, note=f"undo {event.action}")
        Event.update(undone=True).where(Event.batch == last.batch).execute()
    whole = last.batch.split(":", 1)[0] if ":" in last.batch else last.action
    if len(events) == 1:
        action = events[0].action
    else:
        kinds = Counter(e.action for e in reversed(events))
        detail = ", ".join(f"{n} {kind}" for kind, n in kinds.items()) if len(kinds) > 1 else ""
        action = f"{whole} ({len(events)} changes{': ' + detail if detail else ''})"
    ids = sorted(set(restored))
    what = ", ".join(f"#{i}" for i in ids) if ids else "settings"
    return UndoResult(action=whole if len(events) > 1 else last.action, actor=last.actor, memory_ids=ids,
                      message=f"undid {action} by {last.actor} on {what}")
