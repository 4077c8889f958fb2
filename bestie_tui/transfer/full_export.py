"""The full export (``export --full``): memories and messages as ``transfer`` writes them, plus the
event log (what ``undo`` walks) and the stored settings (policies, weights, the owner's zone), so a
move to another machine keeps undo history and policies.

The export format is described by the JSON Schema shipped beside this module
(``export.schema.json``); every import is checked against it (with the ``jsonschema`` library)
after ``transfer.validate``, whose messages name the bad field in plain words and which checks what
a schema cannot (times, kinds, duplicate ids); the schema also covers the full export's parts.

Import restores the event log only into a database without one (a fresh or cleared one, where the
memories keep their ids, so every event still names its memory); otherwise it leaves the log as it
is and says so. Settings are restored through ``store.set_setting`` — checked, and undoable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from peewee import fn

from bestie_tui.errors import BestieError, ImportFormatError
from bestie_tui.store import settings as settings_mod
from bestie_tui.store.binding import uses_store
from bestie_tui.store.db import sync_sequences
from bestie_tui.store.models import Event, Setting
from bestie_tui.store.records import ImportResult, iso
from bestie_tui.transfer import exchange as transfer

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore

#: The JSON Schema of the export format, shipped in the package.
SCHEMA_PATH = Path(__file__).with_name("export.schema.json")
_EVENT_FIELDS = ("id", "batch", "memory_id", "action", "actor", "at", "before", "after", "note", "undone", "origin")


@dataclass
class FullImportResult:
    """What an import did: ``base`` (memories and messages), then the full export's parts."""

    base: ImportResult
    events_restored: int = 0
    events_kept_local: int = 0
    settings_restored: list[str] = field(default_factory=list)
    settings_refused: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.base.to_dict()
        data.update({k: v for k, v in asdict(self).items() if k != "base"})
        return data


@cache
def schema() -> dict[str, Any]:
    """The export format's JSON Schema (draft 2020-12)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def check_schema(data: Any, where: str = "import data", records: bool = True) -> None:
    """Validate ``data`` against ``schema()``; raises ImportFormatError naming the first bad place.

    ``records=False`` leaves the ``memories`` and ``messages`` lists out: for data ``transfer.validate``
    has passed, which checks every field of each record at least as strictly, in a fraction of the
    time (the schema walk costs about 1 ms a record, minutes for an import of 100,000)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    if not records and isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in ("memories", "messages")}
    error = best_match(Draft202012Validator(schema()).iter_errors(data))
    if error is not None:
        place = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
        message = error.message if len(error.message) <= 200 else error.message[:200] + "…"
        raise ImportFormatError(f"{where}: {place or 'the top level'}: {message}")


#: The shape of an ``Event.action``: a short lower-case word, as every version of bestie has written
#: ("add", "edit+approve", "keep_both", "message-redact", a hygiene plan's "merge" …). Names are checked
#: by shape, not against today's list, so a full export from an older version with an action since
#: renamed still imports (undo reverts a memory event from its before/after snapshots).
ACTION_SHAPE = re.compile(r"[a-z][a-z_+-]{0,39}")


def _nul_place(value: Any, place: str = "") -> str | None:
    """Where inside a parsed JSON ``value`` a text (a key or a string value) holds U+0000, or None."""
    if isinstance(value, str):
        return place if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            shown = f"{place}.{_escaped(key)}"
            if "\x00" in str(key):
                return shown
            found = _nul_place(item, shown)
            if found is not None:
                return found
    if isinstance(value, list):
        for n, item in enumerate(value):
            found = _nul_place(item, f"{place}[{n}]")
            if found is not None:
                return found
    return None


def _escaped(key: Any) -> str:
    """``key`` as one line of ASCII (controls and other characters as ``\\uXXXX``), quotes left off."""
    return json.dumps(str(key), ensure_ascii=True)[1:-1][:60]


def _refuse_nul(value: Any, what: str) -> None:
    place = _nul_place(value)
    if place is not None:
        raise ImportFormatError(f"{what}{place} holds a NUL character (U+0000), which bestie does not store; "
                                "nothing was imported (remove it and try again)")


def _check_event_states(events: list[dict[str, Any]], settings: Any = None) -> None:
    """Check the full export's parts the schema cannot: an event's ``action`` is one bestie writes;
    its ``before``/``after`` is JSON text (the record or setting as it was) or null — a tampered one
    would break ``history``, ``inspect`` and ``undo`` later; and no text of an event (every field,
    and every key and text inside its snapshots) nor of a setting (key or value) holds a NUL
    character (U+0000), which ``undo`` would otherwise put back into a live memory.

    Raises:
        ImportFormatError: one line naming the event's place in the file (and its id) and the field.
    """
    for i, event in enumerate(events):
        if not isinstance(event, dict):
            continue  # the schema has refused it
        name = f"events[{i}] (event #{event.get('id')})"
        for key in _EVENT_FIELDS:
            if key not in ("before", "after"):
                _refuse_nul(event.get(key), f"{name}.{key}")
        for key in ("before", "after"):
            value = event.get(key)
            if value is None:
                continue
            _refuse_nul(value, f"{name}.{key}")
            try:
                state = json.loads(value)
            except (TypeError, ValueError, RecursionError):
                raise ImportFormatError(f"{name}.{key} is not the JSON of a record or setting; nothing was imported") from None
            _refuse_nul(state, f"{name}.{key}")
        action = event.get("action")
        if not isinstance(action, str) or not ACTION_SHAPE.fullmatch(action):
            shown = json.dumps(action, ensure_ascii=True)[:60]
            raise ImportFormatError(f"{name}.action is {shown}, not a change bestie records; nothing was imported")
    if isinstance(settings, dict):
        for key, value in settings.items():
            _refuse_nul(key, f"the setting key {_escaped(key)}")
            _refuse_nul(value, f"settings.{_escaped(key)}")


@uses_store
def export_full(store: MemoryStore) -> dict[str, Any]:
    """``transfer.export_data`` of the whole database plus ``events`` and ``settings``.
    Raises InvalidValueError for a store bound to a user (``export --user`` is a user's export)."""
    store.require_unbound("a full export (event log and settings)")
    data = transfer.export_data(store)
    data["full"] = True
    data["events"] = [{**{f: getattr(e, f) for f in _EVENT_FIELDS}, "at": iso(e.at)}
                      for e in Event.select().order_by(Event.id)]
    data["settings"] = {row.key: json.loads(row.value) for row in Setting.select().order_by(Setting.key)}
    return data


@uses_store
def import_any(store: MemoryStore, data: dict[str, Any], allow_secrets: bool = False,
               progress: Callable[[str, int, int], None] | None = None,
               validated: bool = False) -> FullImportResult:
    """``transfer.import_data``, and for a full export its event log and settings too, all in one
    transaction. An export without them is written in chunks that stay all-or-nothing
    (``transfer.import_data``); ``progress(what, done, total)`` after each chunk. ``validated``:
    ``data`` comes from ``importers.load``, which has checked it (not checked again).

    Raises:
        ImportFormatError: ``data`` fails the schema or ``transfer.validate``; nothing is written.
    """
    if not validated:
        transfer.validate(data)
        check_schema(data, records=False)
    events = data.get("events") or []
    if events or data.get("settings"):
        store.require_unbound("a full import (event log and settings)")
    else:
        return FullImportResult(transfer.import_data(store, data, allow_secrets=allow_secrets, progress=progress,
                                                       validated=True))
    _check_event_states(events, data.get("settings"))
    with store.db.atomic():
        restore = bool(events) and not Event.select().exists()
        result = FullImportResult(transfer.import_data(store, data, allow_secrets=allow_secrets, progress=progress,
                                                       validated=True))
        if restore:
            # After the import's own batch, so undo walks the old machine's history first, newest
            # first, and the import itself last; ids shift by the same amount, so the order holds.
            offset = Event.select(fn.MAX(Event.id)).scalar() or 0
            for e in events:
                values = {f: e.get(f) for f in _EVENT_FIELDS}
                values.update(id=e["id"] + offset, at=_naive(e["at"]), undone=bool(values["undone"]))
                Event.insert(**values).execute()
            sync_sequences(store.db)  # ids written by hand: the next generated one comes after them
            result.events_restored = len(events)
        else:
            result.events_kept_local = len(events)
        for key, value in (data.get("settings") or {}).items():
            if key == "maintenance.entry":  # this machine's crontab line, not the exporting machine's
                continue
            try:
                if key in settings_mod.INTERNAL:
                    Setting.put(key, json.dumps(value, ensure_ascii=False))
                    continue
                value = settings_mod.validate(key, value)
                if store.get_setting(key) == value:
                    continue
                if restore:  # the restored history already holds the change that set it
                    Setting.put(key, json.dumps(value))
                else:
                    store.set_setting(key, value, actor="import")
                result.settings_restored.append(key)
            except BestieError as exc:
                result.settings_refused[key] = str(exc)
    return result


def _naive(value: str) -> datetime:
    try:
        return datetime.fromisoformat(value).replace(tzinfo=None)
    except ValueError:
        raise ImportFormatError(f"an event time is not an ISO date-time: {value!r}") from None
