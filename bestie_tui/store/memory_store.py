"""``MemoryStore``: the one facade over the database that the CLI, the TUI and the runtime call.

Every write goes through ``change`` — one transaction, one event batch — so each change to a memory
has an audit row (actor, time, before, after) and ``undo`` can revert it as a whole.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from peewee import DatabaseError as PeeweeDatabaseError
from peewee import OperationalError, fn

from bestie_tui.errors import DatabaseBusyError, InvalidValueError, NotFoundError, StorageError
from bestie_tui.store import bulk, doc_index, vectors
from bestie_tui.store import settings as settings_mod
from bestie_tui.store.binding import Tenant, bind_store_methods, binding, register_open, unregister_open, unscoped
from bestie_tui.store.db import display_location, is_busy_error, is_url, open_database
from bestie_tui.store.db import next_memory_id as engine_next_memory_id
from bestie_tui.store.limits import check_memory_text, check_user_id
from bestie_tui.store.messages import StoreMessages
from bestie_tui.store.models import SCOPE_DEFAULT_LAYER, SCOPES, Event, Memory, Setting
from bestie_tui.store.reads import StoreReads
from bestie_tui.store.records import MemoryRecord, iso
from bestie_tui.store.support import (  # noqa: F401  (re-exported for callers of the facade module)
    MAX_ID,
    _storage_message,
    check_kind,
    kept_kind_source,
    row_values,
    settle_kind,
    snapshot,
    to_record,
)
from bestie_tui.store.writes import StoreWrites
from bestie_tui.text import clock
from bestie_tui.text import words as textmod
from bestie_tui.text.ttl import parse_ttl


def utcnow() -> datetime:
    """Current time as a naive UTC datetime (the database's convention)."""
    return datetime.now(UTC).replace(tzinfo=None)


@bind_store_methods
class MemoryStore(StoreReads, StoreWrites, StoreMessages):
    """Open the bestie database at ``path`` and offer every memory operation.

    Any number of stores may be open in one process, each on its own file: every method binds the
    models to this store's database for its length, per thread and per task (``store.binding``).
    Code that queries the models directly runs inside ``with store.bound():``.

    Args:
        path: SQLite file (created if missing), or a ``postgresql://user@host/dbname`` URL.
        clock: returns "now" as naive UTC; tests pass a frozen clock.
        create_dirs: create a missing parent directory (False for a user-typed ``--db``).
        user: bind the store to this user (``for_user``): every read, write, export and erase
            reaches only that user's memories, messages and history — and, when ``user`` is the
            database's ``owner.user``, the records bound to no user (the owner's). ``None``: the
            whole database (the owner's own tools).

    Raises:
        SchemaError: the file is newer or not a bestie database (it is left untouched).
        StorageError: the file or its directory cannot be opened.

    Write methods raise ``StorageError`` when the database is read-only or stays locked by another
    process past the busy timeout; nothing is changed then.

    The read, write and message methods live in the mixins ``StoreReads`` (``reads.py``),
    ``StoreWrites`` (``writes.py``) and ``StoreMessages`` (``messages.py``); this class
    keeps opening, settings and the transaction/event internals they share.
    """

    def __init__(self, path: str | Path, clock: Callable[[], datetime] | None = None, *,
                 create_dirs: bool = True, user: str | None = None):
        if user is not None:
            check_user_id(user)  # 1 to 200 printable characters (MCP's and the CLI's binding too)
            textmod.check_encodable(user, "user")
        #: The SQLite file (a ``Path``), or the PostgreSQL URL as given (a ``str``).
        self.path: Path | str = path if is_url(path) else Path(path).expanduser()
        #: Where the data is, as it may be shown (a URL's password masked).
        self.location = display_location(self.path)
        self.clock = clock or utcnow
        self.db = open_database(self.path, create_dirs=create_dirs)
        #: This store object's session id, written on every event it records (console undo).
        self.origin = uuid.uuid4().hex[:12]
        #: Whose rows this store reaches (``binding.Tenant``), or ``None``: every row.
        self.tenant: Tenant | None = None
        register_open(self.db)
        bulk.recover(self.db)  # an import killed between its chunks: rolled back before anything reads
        if user is not None:
            self.tenant = Tenant(user, owner=self.get_setting("owner.user") == user)
            register_open(self.db, self.tenant)  # model code outside a binding is filtered too

    @property
    def user(self) -> str | None:
        """The user this store is bound to, or ``None`` (the whole database)."""
        return self.tenant.user if self.tenant is not None else None

    def for_user(self, user: str) -> MemoryStore:
        """A store on the same database bound to ``user`` (its own connection; close it when done).
        Only a store bound to no user (the database's owner) makes one for any user; a store bound
        to a user makes one for that user alone, so a bound store handed to other code cannot be
        unbound into another user's rows.

        Raises:
            InvalidValueError: an empty user id, or another user than this store's binding.
        """
        if self.tenant is not None and user != self.tenant.user:
            raise InvalidValueError(f"this store is bound to user {self.tenant.user!r}; it cannot open a store "
                                    f"for user {user!r}")
        return MemoryStore(self.path, self.clock, create_dirs=False, user=user)

    def check_user(self, user: str | None) -> str | None:
        """``user`` as a command names it, checked against this store's binding: the bound user when
        ``None`` is given. Raises InvalidValueError when a bound store is asked for another user."""
        if self.tenant is None or user is None:
            return self.user if user is None else user
        if user != self.tenant.user:
            raise InvalidValueError(f"this store is bound to user {self.tenant.user!r}; it cannot reach user {user!r}")
        return user

    def owns(self, user: str | None) -> bool:
        """Whether a record the program keeps for ``user`` (a forget request, a digest) is this
        store's to see: every one for a store bound to no user; for a user-bound store its user's,
        and for the owner's also those of no user."""
        tenant = self.tenant
        return tenant is None or user == tenant.user or (tenant.owner and user is None)

    def require_unbound(self, what: str) -> None:
        """Raise InvalidValueError when this store is bound to a user: ``what`` (a setting, a whole
        database clear or backup) belongs to the database's owner."""
        if self.tenant is not None:
            raise InvalidValueError(f"{what} belongs to the whole database; a store bound to user "
                                    f"{self.tenant.user!r} cannot do it")

    def close(self) -> None:
        """Close this thread's connection; unbound model code no longer falls back to this store."""
        unregister_open(self.db)
        if not self.db.is_closed():
            self.db.close()

    def begin_session(self) -> str:
        """Start a new session on this store: the changes made from now on carry a fresh ``origin``
        (the console calls it when it opens, so its ``u`` reaches only what was done in it)."""
        self.origin = uuid.uuid4().hex[:12]
        return self.origin

    @contextmanager
    def bound(self) -> Iterator[MemoryStore]:
        """``with store.bound(): Memory.select()…`` — the models talk to this store's file in this
        thread or task until the block ends (blocks nest)."""
        with binding(self.db, self.tenant):
            yield self

    # ---------------------------------------------------------------- settings
    def get_setting(self, key: str) -> Any:
        """The stored value of ``key`` or its default from ``settings.DEFAULTS``."""
        row = Setting.get_or_none(Setting.key == key)
        return json.loads(row.value) if row else settings_mod.DEFAULTS.get(key)

    def set_setting(self, key: str, value: Any, actor: str = "owner") -> None:
        """Validate and store a setting; recorded as an undoable event. Raises InvalidValueError."""
        self.require_unbound(f"setting {key}")
        value = settings_mod.validate(key, value)
        old = self.get_setting(key)
        with self.change("setting", actor) as batch:
            Setting.put(key, json.dumps(value))
            self.record_event(batch, "setting", None, {"key": key, "value": old}, {"key": key, "value": value}, actor)

    @property
    def owner_zone(self) -> ZoneInfo:
        """The owner's time zone (``owner.timezone``, else the system's): TTL words and named days
        are read on its calendar, and the console and CLI show times in it."""
        try:
            return clock.zone(self.get_setting("owner.timezone"))
        except InvalidValueError:  # a name this machine's tz database does not know
            return clock.zone(None)

    def parse_ttl(self, ttl: str) -> datetime:
        """``expires_at`` (naive UTC) for a TTL typed now, on the owner's calendar (``text.ttl``).
        Raises InvalidValueError."""
        return parse_ttl(ttl, self.clock(), self.owner_zone)

    @property
    def write_policy(self) -> str:
        return self.get_setting("memory.writePolicy")

    @property
    def paused(self) -> bool:
        return bool(self.get_setting("memory.paused"))

    def pause(self, actor: str = "owner") -> None:
        """Stop the assistant's memory writes and injection until ``resume``."""
        self.set_setting("memory.paused", True, actor)

    def resume(self, actor: str = "owner") -> None:
        self.set_setting("memory.paused", False, actor)


    # ---------------------------------------------------------------- internals
    @contextmanager
    def change(self, action: str, actor: str, batch: str | None = None, index: bool = True) -> Iterator[str]:
        """One transaction and one event batch id for a user-visible change. The batch id starts with
        the change's name (``cleanup:3f2a…``) so undo can say what it reverts as a whole. The search
        index (``doc_index``) and the meaning vectors of the memories the batch changed
        (``vectors.sync_batch``) are brought up to date inside the same transaction, before it commits.

        A change committed in several transactions (a bulk import, ``store.bulk``) passes the same
        ``batch`` to each: the vectors of that transaction's own memories are written. ``index=False``
        leaves the search index to the change's last transaction (it indexes all at once)."""
        since = None
        if batch is not None:  # one chunk of a bulk change: the events after this mark are its own
            since = self.db.execute_sql("SELECT COALESCE(MAX(id), 0) FROM event").fetchone()[0]
        batch = batch or f"{action}:{uuid.uuid4().hex[:12]}"
        try:
            with binding(self.db, self.tenant), self.db.atomic():
                yield batch
                if index:
                    doc_index.sync(self.db, rebuild_ok=False)
                if since is None:
                    vectors.sync_batch(self.db, batch)
                else:
                    bulk.sync_vectors(self.db, batch, since)
        except (OperationalError, PeeweeDatabaseError) as exc:
            message = _storage_message(self.location, exc)
            busy = is_busy_error(exc) or " is busy " in message
            if busy and " is busy " not in message:
                message = f"{self.location} is busy (another process holds the write lock); nothing was changed, try again"
            raise (DatabaseBusyError if busy else StorageError)(message) from exc

    def next_memory_id(self) -> int:
        """The id for a new memory: above every id the memory table *or the event log* has seen, so an
        id freed by undoing a creation is never reused and one id always names one memory. From the
        id sequence on PostgreSQL; on SQLite the next after the largest, under the write lock
        (``db.next_memory_id``).
        Ids above ``limits.MEMORY_ID_MAX`` (imported before that limit) are stepped over, not followed.
        Raises InvalidValueError when every id up to the limit is used."""
        from bestie_tui.store.limits import MEMORY_ID_MAX, check_memory_id

        with unscoped():  # ids are unique across every user's rows
            top = max(Memory.select(fn.MAX(Memory.id)).where(Memory.id <= MEMORY_ID_MAX).scalar() or 0,
                      Event.select(fn.MAX(Event.memory_id)).where(Event.memory_id <= MEMORY_ID_MAX).scalar() or 0)
        value = engine_next_memory_id(self.db, top)
        check_memory_id(value)
        return value

    def record_event(self, batch: str, action: str, memory_id: int | None, before: dict | None,
               after: dict | None, actor: str, note: str | None = None) -> None:
        Event.create(batch=batch, memory_id=memory_id, action=action, actor=actor, at=self.clock(), origin=self.origin,
                     before=json.dumps(before, ensure_ascii=False) if before is not None else None,
                     after=json.dumps(after, ensure_ascii=False) if after is not None else None, note=note)

    def _row(self, memory_id: int) -> Memory:
        try:
            memory_id = int(memory_id)
        except (TypeError, ValueError):
            raise InvalidValueError(f"memory id must be a number, not {memory_id!r}") from None
        row = Memory.get_or_none(Memory.id == memory_id) if 0 < memory_id <= MAX_ID else None
        if row is None:
            raise NotFoundError(f"no memory with id {memory_id}")
        return row

    def _mutate(self, memory_id: int, action: str, actor: str, apply: Callable[[Memory], None]) -> MemoryRecord:
        with self.change(action, actor) as batch:
            row = self._row(memory_id)
            before = snapshot(row)
            apply(row)
            if snapshot(row) == before:
                return to_record(row)  # nothing changed: no event, no empty undo step
            row.updated_at = self.clock()
            row.save()
            self.record_event(batch, action, row.id, before, snapshot(row), actor)
        return to_record(row)

    def _create(self, text: str, kind: str, *, status: str, user, channel, project, session, scope,
                source, confidence, ttl, actor, action, pinned: bool = False, layer: str | None = None,
                about: str | None = None, then: Callable[[str, Memory], Any] | None = None) -> MemoryRecord:
        """Insert a memory in one change batch; ``then(batch, row)`` runs inside the same batch (so a
        correction stored under ``memory.correctionPolicy`` auto retires the old record in one undo step)."""
        self._check_scope(scope)
        for what, value in (("user", user), ("channel", channel), ("project", project), ("session", session),
                            ("source", source), ("about", about)):
            textmod.check_encodable(value, what)
        if not (isinstance(confidence, (int, float)) and 0.0 <= float(confidence) <= 1.0):
            raise InvalidValueError(f"confidence must be between 0 and 1, not {confidence}")
        kind, original = settle_kind(kind)  # one rule on every write path: an unknown kind is a note
        source = kept_kind_source(source, original)  # ...and the kind given is kept, never lost
        now = self.clock()
        expires = parse_ttl(ttl, now, self.owner_zone) if ttl else None
        with self.change(action, actor) as batch:
            row = Memory.create(
                id=self.next_memory_id(), text=text.strip(), kind=kind, status=status, scope=scope,
                layer=layer or SCOPE_DEFAULT_LAYER[scope], pinned=pinned, about=about,
                confidence=float(confidence), expires_at=expires, user=user, channel=channel, project=project,
                session=session, source=source, created_at=now, updated_at=now,
                norm=textmod.normalize(text), terms=textmod.search_text(text),
            )
            self.record_event(batch, action, row.id, None, snapshot(row), actor)
            if then is not None:
                then(batch, row)
        return to_record(row)

    def _set_text(self, row: Memory, text: str) -> None:
        self._check_text(text)
        row.text = text.strip()
        row.norm = textmod.normalize(text)
        row.terms = textmod.search_text(text)

    @staticmethod
    def _check_text(text: str) -> str:
        if isinstance(text, str):
            check_memory_text(text)  # first: its length alone, before any pass over the text
        textmod.check_encodable(text, "memory text")
        norm = textmod.normalize(text or "")
        if not norm:
            raise InvalidValueError("memory text must contain at least one word")
        return norm

    @staticmethod
    def _check_scope(scope: str) -> None:
        if scope not in SCOPES:
            raise InvalidValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")

    @staticmethod
    def _same_user(user: str | None):
        return Memory.user.is_null() if user is None else (Memory.user == user)


__all__ = ["MemoryStore", "utcnow", "iso"]
