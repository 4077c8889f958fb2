"""Export, import and clear.

Export format (JSON object)::

    {"format": "bestie-memory-export", "version": 2, "exported_at": ISO,
     "memories": [ {every MemoryRecord field}, ... ],
     "messages": [ {"role", "text", "user", "channel", "session", "created_at"}, ... ]}

Import accepts that shape. A memory with an ``id`` keeps it when the id is free; when the id holds
the same text it is skipped; when it holds something else the memory gets a new id. A memory without
``id`` (e.g. proposals from a converted conversation) is skipped when a memory with the same
normalised text and user exists. Messages are skipped when an identical message (role, text, user,
session, time) exists. So importing the same file twice adds nothing.

Version 2 adds ``about`` to each memory (who a statement about someone else is about); version 1
files are read as well (their memories are about the owner unless the write gate reads otherwise).
A program that knows only version 1 refuses a version 2 file rather than drop the binding.

A kind outside bestie's own (``support.settle_kind``) comes in as ``note`` with the kind given kept in
its source, as on every other write path; a plural or a label ending in a known kind is that kind.

Every imported memory passes the write gate (``gate.check_write``, path ``import``): a secret, an
injected block or venting is not written (counted by reason in ``ImportResult.refused``); a
statement about someone else, or a core record that would overflow the core's token cap, comes in
as working (counted in ``ImportResult.moved_to_working``, each with its reason in ``moved_why``: the
cap, what core holds and the record's size in tokens); the rest of the file comes in as it is. Message texts are redacted
(``gate.redact``) as ``log_message`` does.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

import peewee

from bestie_tui.errors import BestieError, ImportFormatError, InvalidValueError
from bestie_tui.store import bulk, doc_index, limits
from bestie_tui.store.db import sync_sequences
from bestie_tui.store.gate import check_write, redact
from bestie_tui.store.gate.batch import GateBatch
from bestie_tui.store.history.undo import IMPORTED_MESSAGES
from bestie_tui.store.limits import check_memory_id
from bestie_tui.store.models import (
    LAYERS,
    ROLES,
    SCOPE_DEFAULT_LAYER,
    SCOPES,
    STATUSES,
    Event,
    Memory,
    Message,
)
from bestie_tui.store.records import DATETIME_FIELDS, MEMORY_FIELDS, ImportResult, iso
from bestie_tui.store.support import kept_kind_source, row_values, settle_kind
from bestie_tui.text import words as textmod

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore

FORMAT = "bestie-memory-export"
VERSION = 2


def export_data(store: MemoryStore, user: str | None = None) -> dict[str, Any]:
    """Every memory (all statuses) and message — only ``user``'s when given — as a JSON-ready dict
    in the export format."""
    user = store.check_user(user)  # a user-bound store exports its user (and refuses another)
    memories = [m.to_dict() for m in reversed(store.list(user=user))]
    messages = [
        {k: v for k, v in m.to_dict().items() if k != "id"}
        for m in reversed(store.messages(limit=None, user=user))
    ]
    return {"format": FORMAT, "version": VERSION, "exported_at": iso(store.clock()),
            "memories": memories, "messages": messages}


def load_import_file(path: str | Path) -> dict[str, Any]:
    """Read and validate an import file. Raises ImportFormatError with the reason; reads only."""
    data = read_json_file(path)
    validate(data, str(path))
    return data


def read_json_file(path: str | Path, what: str = "a bestie export") -> Any:
    """The JSON in ``path``, read within the import limits: at most ``limits.IMPORT_FILE_MAX``
    bytes, UTF-8, no number past Python's digit limit. Every importer reads its JSON here.

    Raises:
        ImportFormatError: unreadable, too large, not JSON, too deep, or a number with too many digits
        (``what`` names what the file should have been).
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc}") from exc
    if size > limits.IMPORT_FILE_MAX:
        raise ImportFormatError(f"{path} is {size / 2**20:,.1f} MiB; an import file holds at most "
                                f"{limits.IMPORT_FILE_MAX // 2**20} MiB; nothing was imported (split the export)")
    try:
        with path.open("rb") as handle:  # a FIFO or a file that grew after stat: read at most one byte over
            blob = handle.read(limits.IMPORT_FILE_MAX + 1)
        if len(blob) > limits.IMPORT_FILE_MAX:
            raise ImportFormatError(f"{path} holds more than {limits.IMPORT_FILE_MAX // 2**20} MiB; "
                                    "nothing was imported (split the export)")
        raw = blob.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFormatError(f"cannot read {path}: {exc}") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from exc
    except RecursionError:
        raise ImportFormatError(f"{path} nests too deeply to be {what}") from None
    except ValueError:  # a whole number past Python's digit limit (int_max_str_digits)
        raise ImportFormatError(f"{path} holds a number with too many digits to be {what}") from None
    return data


_MAX_INT = 2**62
_MAX_ID = limits.MEMORY_ID_MAX
_OPTIONAL_TEXT = ("user", "about", "channel", "project", "session", "source")


def validate(data: Any, where: str = "import data") -> None:
    """Check the export format shape and every field's type. Raises ImportFormatError naming the
    first bad entry; reads only."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ImportFormatError(f"{where} is not a bestie export (expected \"format\": \"{FORMAT}\")")
    version = data.get("version")
    if not _is_int(version) or not 1 <= version <= VERSION:
        raise ImportFormatError(f"{where} has export version {version!r}; this program reads {VERSION}")
    for key in ("memories", "messages"):
        if not isinstance(data.get(key, []), list):
            raise ImportFormatError(f"{where}: \"{key}\" must be a list")
    seen: set[int] = set()
    for i, m in enumerate(data.get("memories", [])):
        _check_memory(m, f"{where}: memories[{i}]")
        if m.get("id") is not None:
            if m["id"] in seen:
                raise ImportFormatError(f"{where}: memories[{i}].id {m['id']} appears twice")
            seen.add(m["id"])
    for i, m in enumerate(data.get("messages", [])):
        if not isinstance(m, dict) or not isinstance(m.get("text"), str) or m.get("role") not in ROLES:
            raise ImportFormatError(f"{where}: messages[{i}] needs a text and a role ({', '.join(ROLES)})")
        problem = (limits.message_text_problem(m["text"], f"{where}: messages[{i}].text")
                   or limits.user_id_problem(m.get("user"), f"{where}: messages[{i}].user"))
        if problem:
            raise ImportFormatError(problem + "; nothing was imported")
        for key in ("user", "channel", "session"):
            if m.get(key) is not None and not isinstance(m[key], str):
                raise ImportFormatError(f"{where}: messages[{i}].{key} must be text or null")
        for key in ("text", "user", "channel", "session"):
            try:
                textmod.check_encodable(m.get(key), f"{where}: messages[{i}].{key}")
            except BestieError as exc:
                raise ImportFormatError(str(exc)) from None
        _check_time(m.get("created_at"), f"{where}: messages[{i}].created_at", required=True)


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_memory(m: Any, where: str) -> None:

    if not isinstance(m, dict):
        raise ImportFormatError(f"{where} is not an object")
    if isinstance(m.get("text"), str) and limits.stripped_length(m["text"]) > limits.MEMORY_TEXT_MAX:
        # first, from the length alone: a 50 MB text is refused before any pass over it
        raise ImportFormatError(f"{where}.text is {limits.stripped_length(m['text']):,} characters; a memory "
                                f"holds at most {limits.MEMORY_TEXT_MAX:,}; nothing was imported")
    problem = limits.user_id_problem(m.get("user"), f"{where}.user")
    if problem:
        raise ImportFormatError(problem + "; nothing was imported")
    if not isinstance(m.get("text"), str) or not textmod.normalize(m["text"]):
        raise ImportFormatError(f"{where} has no text")
    for key in ("text", *_OPTIONAL_TEXT):
        try:
            textmod.check_encodable(m.get(key), f"{where}.{key}")
        except BestieError as exc:
            raise ImportFormatError(str(exc)) from None
    for key, allowed in (("status", STATUSES), ("scope", SCOPES), ("layer", LAYERS)):
        if key in m and m[key] not in allowed:
            raise ImportFormatError(f"{where}.{key} is {m[key]!r}; expected one of {', '.join(allowed)}")
    for key in ("id", "superseded_by"):
        if m.get(key) is not None and (not _is_int(m[key]) or not 0 < m[key] <= _MAX_ID):
            raise ImportFormatError(f"{where}.{key} must be a whole number from 1 to {_MAX_ID}")
    if m.get("access_count") is not None and (not _is_int(m["access_count"]) or not 0 <= m["access_count"] < _MAX_INT):
        raise ImportFormatError(f"{where}.access_count must be a whole number ≥ 0")
    for key in ("pinned", "stale"):
        if key in m and not isinstance(m[key], bool):
            raise ImportFormatError(f"{where}.{key} must be true or false")
    for key in _OPTIONAL_TEXT:
        if m.get(key) is not None and not isinstance(m[key], str):
            raise ImportFormatError(f"{where}.{key} must be text or null")
    if m.get("kind") is not None:
        try:
            settle_kind(m["kind"])
        except BestieError as exc:
            raise ImportFormatError(f"{where}.kind: {exc}") from None
    conf = m.get("confidence", 0.5)
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 <= conf <= 1:
        raise ImportFormatError(f"{where}.confidence must be a number between 0 and 1")
    for key in ("created_at", "updated_at", "expires_at", "last_accessed_at"):
        _check_time(m.get(key), f"{where}.{key}")


def _check_time(value: Any, where: str, required: bool = False) -> None:
    if value is None and not required:
        return
    try:
        datetime.fromisoformat(str(value))
    except ValueError:
        raise ImportFormatError(f"{where} is not an ISO date-time: {value!r}") from None


def import_data(store: MemoryStore, data: dict[str, Any], actor: str = "import",
                allow_secrets: bool = False, progress: Callable[[str, int, int], None] | None = None,
                chunk: int | None = None, validated: bool = False) -> ImportResult:
    """Validate, then write ``data`` in chunks of ``bulk.CHUNK`` rows (``chunk``), all under one
    event batch: one ``undo`` reverts the whole import, and a process killed between two chunks
    leaves a mark the next store opened on the database rolls back (``bulk.recover``), so the owner
    sees all of it or none of it.

    Each memory passes the write gate (path ``import``): what it refuses is not written and is
    counted in ``ImportResult.refused`` by rule (secrets also in ``secrets_refused``; a secret is
    kept when ``allow_secrets``, the owner's explicit ask). Message texts are redacted. Duplicates
    (the same id and text, the same normalised text and user, the same message) are found with one
    query a chunk. ``progress(what, done, total)`` is called after each chunk (``bulk.Progress``).
    ``validated``: the caller has run ``validate(data)`` on this very data (not run again).

    Raises:
        ImportFormatError: the data is not in the export format, or another import into this
            database is still running; nothing is written.
    """

    if not validated:
        validate(data)
    memories = data.get("memories", [])
    messages = data.get("messages", [])
    size = max(1, chunk or bulk.CHUNK)
    state = _ImportState(store, actor, allow_secrets, store.clock())
    bulk.recover(store.db)
    if bulk.running(store.db):
        raise ImportFormatError("another import into this database is still running; try again when it ends")
    if store.tenant is not None:  # a bound store writes its user's rows alone: all checked before the first chunk
        bound = store.tenant.user
        for record in (*memories, *messages):
            named = record.get("user")
            if named is not None and named != bound:
                raise InvalidValueError(f"this store is bound to user {bound!r}; it cannot write a row of user "
                                        f"{named!r}")
    batch = f"import:{uuid.uuid4().hex[:12]}"
    pieces: list[tuple[str, int, int]] = [("memories", i, min(i + size, len(memories)))
                                          for i in range(0, len(memories), size)]
    pieces += [("messages", i, min(i + size, len(messages))) for i in range(0, len(messages), size)]
    if not pieces:
        return state.result()
    # many memories beside few indexed: index them all at the end in one pass (``doc_index.sync``
    # rebuilds), not chunk by chunk; then no reader meets an index to build
    indexed = store.db.execute_sql("SELECT COUNT(*) FROM memory").fetchone()[0]
    at_end = len(memories) > max(doc_index.REBUILD_MIN, doc_index.REBUILD_SHARE * indexed)
    # meaning vectors (the semantic extra): each chunk's are made after it commits, outside the write
    # lock, and the mark stays until the last chunk's are written, so a failure takes the import back
    model = bulk.embedder(store.db) if memories else None
    marked = len(pieces) > 1 or model is not None
    try:
        for n, (what, lo, hi) in enumerate(pieces):
            last = n == len(pieces) - 1
            with store.change("import", actor, batch=batch, index=not at_end or last):
                if n == 0 and marked:
                    bulk.open_mark(store.db, batch)
                if what == "memories":
                    state.memories(batch, memories, lo, hi)
                else:
                    state.messages(batch, messages, lo, hi)
                if last and at_end:
                    doc_index.sync(store.db)
                if last and marked and model is None:
                    bulk.close_mark(store.db, batch)
            if model is not None and what == "memories":
                bulk.embed(store.db, state.take_ids(), model)
            if progress is not None:
                progress(what, hi, len(memories) if what == "memories" else len(messages))
        if model is not None:
            with store.db.atomic():
                bulk.close_mark(store.db, batch)
    except BaseException:  # a failed chunk or Ctrl-C: the chunks already committed go too
        bulk.abandon(store.db, batch)
        raise
    return state.result()


class _ImportState:
    """The counts and the duplicate memory of one ``import_data`` across its chunks."""

    def __init__(self, store: MemoryStore, actor: str, allow_secrets: bool, now: datetime):
        self.store, self.actor, self.allow_secrets, self.now = store, actor, allow_secrets, now
        self.added = self.skipped = self.msg_added = self.msg_skipped = self.moved = 0
        self.refused: dict[str, int] = {}
        self.moved_why: list[str] = []
        self.norms: dict[tuple[str, str | None], list[str]] = {}  # id-less texts this import added
        self.seen_messages: set[tuple[Any, ...]] = set()
        self.batch = GateBatch(store, ())
        self.ids: list[int] = []  # the memories written since ``take_ids`` was last called

    def take_ids(self) -> list[int]:
        """The ids of the memories written since the last call (a chunk's, for its vectors)."""
        ids, self.ids = self.ids, []
        return ids

    def result(self) -> ImportResult:
        return ImportResult(self.added, self.skipped, self.msg_added, self.msg_skipped, self.refused.get("secret", 0),
                            self.refused, self.moved, self.moved_why)

    def memories(self, batch: str, items: list[dict[str, Any]], lo: int, hi: int) -> None:
        """Gate, deduplicate and insert ``items[lo:hi]`` with their events, in the open transaction."""
        store = self.store
        wanted = [int(m["id"]) for m in items[lo:hi] if m.get("id")]
        holders: dict[int, str] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            holders.update((int(i), norm) for i, norm in store.db.execute_sql(
                f"SELECT id, norm FROM memory WHERE id IN ({','.join('?' * len(part))})", part))
        keep: list[dict[str, Any]] = []
        fresh: list[dict[str, Any]] = []  # id-less, or an id taken by another text: a new id
        idless: list[dict[str, Any]] = []
        chunk = [_memory_values(m, self.now) for m in items[lo:hi]]
        # what the gate reads of core and of the owners' names: once for the chunk's users
        self.batch = GateBatch(store, {store.tenant.user if store.tenant is not None else v["user"] for v in chunk})
        for i in range(lo, hi):
            values = chunk[i - lo]
            m = items[i]
            # a pending record is checked as what its approval would make it: over the cap, it comes as working
            active = values["status"] in ("approved", "pending") and values["superseded_by"] is None
            decision = check_write(m["text"], path="import", store=store, kind=values["kind"], scope=values["scope"],
                                   layer=values["layer"] if active else "archive", user=values["user"],
                                   about=values["about"], allow_secret=self.allow_secrets, batch=self.batch)
            if decision.refused:
                self.refused[decision.rule] = self.refused.get(decision.rule, 0) + 1
                continue
            values["about"] = decision.about
            if active and decision.layer != values["layer"]:
                values["scope"], values["layer"] = decision.scope, decision.layer
                self.moved += 1
                self.moved_why.append(f"memories[{i}]: " + "; ".join(decision.notes))
            row = row_values(values)
            if store.tenant is not None:
                row["user"] = store.tenant.user
            mid = m.get("id")
            if mid and mid in holders:
                if holders[mid] == row["norm"]:
                    self.skipped += 1
                    continue
                fresh.append(row)
            elif mid:
                row["id"] = mid
                holders[mid] = row["norm"]
                keep.append(row)
            else:
                idless.append(row)
            if row["layer"] == "core" and row["status"] == "approved":
                # the gate weighs the next core record against core as it now is: this one written first
                self._flush(batch, keep, fresh, idless)
                keep, fresh, idless = [], [], []
        self._flush(batch, keep, fresh, idless)

    def _flush(self, batch: str, keep: list[dict[str, Any]], fresh: list[dict[str, Any]],
               idless: list[dict[str, Any]]) -> None:
        """Insert the rows a chunk decided on, with their events: ``keep`` with their own ids,
        ``fresh`` and the ``idless`` ones no twin holds with new ids."""
        store = self.store
        if keep:  # before the id-less rows look for their twins, so they see these
            _insert(Memory, keep)
        if idless:  # the same normalised text of the same user, in the database or earlier in this file
            norms = sorted({r["norm"] for r in idless})
            known: dict[tuple[str, str | None], list[str]] = {}
            for start in range(0, len(norms), 500):
                part = norms[start:start + 500]
                for text, norm, user in store.db.execute_sql(
                        f"SELECT text, norm, user FROM memory WHERE norm IN ({','.join('?' * len(part))})", part):
                    known.setdefault((norm, user), []).append(text)
            for row in idless:
                key = (row["norm"], row.get("user"))
                texts = known.get(key, []) + self.norms.get(key, [])
                if any(textmod.same_text(t, row["text"]) for t in texts):
                    self.skipped += 1
                    continue
                self.norms.setdefault(key, []).append(row["text"])
                fresh.append(row)
        rows = keep
        if fresh:
            first = store.next_memory_id()
            check_memory_id(first + len(fresh) - 1)
            for k, row in enumerate(fresh):
                row["id"] = first + k
            _insert(Memory, fresh)
            rows = keep + fresh
            sync_sequences(store.db)
        at = store.clock()
        events = [{"batch": batch, "memory_id": row["id"], "action": "import", "actor": self.actor, "at": at,
                   "origin": store.origin, "before": None, "note": None,
                   "after": _JSON(_snapshot(row))} for row in rows]
        _insert(Event, events)
        self.batch.wrote(rows)
        self.ids += [row["id"] for row in rows]
        self.added += len(rows)

    def messages(self, batch: str, items: list[dict[str, Any]], lo: int, hi: int) -> None:
        """Redact, deduplicate and insert ``items[lo:hi]``; one event names the messages added."""
        store = self.store
        part = []
        for m in items[lo:hi]:
            at = datetime.fromisoformat(str(m["created_at"])).replace(tzinfo=None)
            text, _ = redact(m["text"])
            user = store.tenant.user if store.tenant is not None else m.get("user")
            part.append((m["role"], text, user, m.get("session"), at, m.get("channel")))
        times = sorted({p[4] for p in part})
        present: set[tuple[Any, ...]] = set()
        for start in range(0, len(times), 500):
            present.update(Message.select(Message.role, Message.text, Message.user, Message.session,
                                          Message.created_at)
                           .where(Message.created_at.in_(times[start:start + 500])).tuples())
        rows = []
        for role, text, user, session, at, channel in part:
            key = (role, text, user, session, at)
            if key in present or key in self.seen_messages:
                self.msg_skipped += 1
                continue
            self.seen_messages.add(key)
            rows.append({"role": role, "text": text, "user": user, "channel": channel, "session": session,
                         "created_at": at, "terms": textmod.search_text(text)})
        if not rows:
            return
        ids: list[int] = []
        for start in range(0, len(rows), _ROWS_PER_INSERT):
            ids += [int(r[0]) for r in Message.insert_many(rows[start:start + _ROWS_PER_INSERT])
                    .returning(Message.id).tuples().execute()]
        # one event names them, so undoing the import removes its messages too
        store.record_event(batch, "import", None, None, {IMPORTED_MESSAGES: ids}, self.actor,
                           note=f"{len(ids)} message(s)")
        self.msg_added += len(ids)


#: Rows in one multi-row INSERT (under SQLite's bound-parameter limit for the widest table).
_ROWS_PER_INSERT = 200


def _insert(model: Any, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` (field name → value; a missing field takes its default) with one prepared
    statement run for every row, each value converted as the model's field converts it (a value
    already of the type the field stores, or ``None``, is passed as it is: what the conversion gives)."""
    if not rows:
        return
    fields = [f for f in model._meta.sorted_fields if f.name != "id" or "id" in rows[0]]
    columns = ", ".join(f'"{f.column_name}"' for f in fields)
    sql = f'INSERT INTO "{model._meta.table_name}" ({columns}) VALUES ({", ".join("?" * len(fields))})'
    plan = [(f.name, f.db_value, _STORED_AS.get(type(f)), f.default) for f in fields]
    values = []
    for row in rows:
        line = []
        for name, convert, kept, default in plan:
            if name in row:
                value = row[name]
                line.append(value if value is None or type(value) is kept else convert(value))
            else:
                line.append(convert(default() if callable(default) else default))
        values.append(line)
    model._meta.database.run_many(sql, values)


#: The Python type each Peewee field class stores unchanged (its ``db_value`` returns such a value as
#: it is); a subclass of one (which may convert otherwise) is not listed, so its values are converted.
_STORED_AS: dict[type, type] = {peewee.TextField: str, peewee.CharField: str, peewee.IntegerField: int,
                                peewee.AutoField: int, peewee.BigIntegerField: int, peewee.FloatField: float,
                                peewee.BooleanField: bool, peewee.DateTimeField: datetime}


#: ``json.dumps(value, ensure_ascii=False)`` with one encoder made once (dumps makes one a call).
_JSON = json.JSONEncoder(ensure_ascii=False).encode


def _snapshot(row: dict[str, Any]) -> dict[str, Any]:
    """``support.snapshot`` of the memory a complete row of field values makes, read from the
    values themselves instead of a model instance built for it."""
    data = {name: row[name] for name in MEMORY_FIELDS}
    for key in DATETIME_FIELDS:
        data[key] = iso(data[key])
    return data


def _eq(column, value):
    return column.is_null() if value is None else column == value


def _memory_values(m: dict[str, Any], now: datetime) -> dict[str, Any]:
    scope = m.get("scope", "project")
    kind, original = settle_kind(m.get("kind") or "note")  # the one rule of every write path
    values = {
        "text": m["text"].strip(), "kind": kind, "status": m.get("status", "pending"),
        "scope": scope, "layer": m.get("layer") or SCOPE_DEFAULT_LAYER[scope],
        "pinned": bool(m.get("pinned", False)), "stale": bool(m.get("stale", False)),
        "superseded_by": m.get("superseded_by"), "access_count": int(m.get("access_count") or 0),
        "confidence": float(m.get("confidence", 0.7)),
        "created_at": m.get("created_at") or iso(now), "updated_at": m.get("updated_at") or iso(now),
    }
    for key in ("last_accessed_at", "expires_at", "user", "about", "channel", "project", "session", "source"):
        values[key] = m.get(key)
    values["source"] = kept_kind_source(values["source"], original)
    return values
