"""``MemoryStore``: the one facade over the database that the CLI, the TUI and the runtime call.

Every write goes through ``change`` — one transaction, one event batch — so each change to a memory
has an audit row (actor, time, before, after) and ``undo`` can revert it as a whole.
"""

from __future__ import annotations

import json
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import re

from peewee import DatabaseError as PeeweeDatabaseError
from peewee import OperationalError, fn

from . import settings as settings_mod
from . import text as textmod
from .db import SCHEMA_VERSION, open_database
from .errors import InvalidValueError, NotFoundError, PolicyError, SecretRefusedError, StorageError
from .models import LAYERS, ROLES, SCOPE_DEFAULT_LAYER, SCOPES, Event, Memory, Message, Setting, database_proxy
from .query import memory_query, tier_condition
from .records import (
    DATETIME_FIELDS,
    MEMORY_FIELDS,
    EventRecord,
    MemoryRecord,
    MessageRecord,
    ProposalResult,
    StoreStatus,
    Summary,
    UndoResult,
    iso,
)
from .secrets import detect_secret
from .ttl import parse_ttl


#: How many text matches ``search`` ranks with the scorer (newest first) before cutting to its limit.
SEARCH_POOL = 2000


def utcnow() -> datetime:
    """Current time as a naive UTC datetime (the database's convention)."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


def to_record(row: Memory) -> MemoryRecord:
    return MemoryRecord(**{name: getattr(row, name) for name in MEMORY_FIELDS})


def snapshot(row: Memory) -> dict[str, Any]:
    """JSON-ready dict of a memory row: what an event stores as before/after."""
    return to_record(row).to_dict()


def _parse_dt(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value)).replace(tzinfo=None)


def row_values(data: dict[str, Any]) -> dict[str, Any]:
    """Model field values from a snapshot/export dict (text indexes recomputed)."""
    values = {k: data[k] for k in MEMORY_FIELDS if k in data}
    for key in DATETIME_FIELDS:
        if key in values:
            values[key] = _parse_dt(values[key])
    values["norm"] = textmod.normalize(values["text"])
    values["terms"] = textmod.search_text(values["text"])
    return values


class MemoryStore:
    """Open the bestie database at ``path`` and offer every memory operation.

    Args:
        path: SQLite file; created if missing.
        clock: returns "now" as naive UTC; tests pass a frozen clock.
        create_dirs: create a missing parent directory (False for a user-typed ``--db``).

    Raises:
        SchemaError: the file is newer or not a bestie database (it is left untouched).
        StorageError: the file or its directory cannot be opened.

    Write methods raise ``StorageError`` when the database is read-only or stays locked by another
    process past the busy timeout; nothing is changed then.
    """

    def __init__(self, path: str | Path, clock: Callable[[], datetime] | None = None, *,
                 create_dirs: bool = True):
        self.path = Path(path).expanduser()
        self.clock = clock or utcnow
        self.db = open_database(self.path, create_dirs=create_dirs)

    def close(self) -> None:
        if not self.db.is_closed():
            self.db.close()

    # ---------------------------------------------------------------- settings
    def get_setting(self, key: str) -> Any:
        """The stored value of ``key`` or its default from ``settings.DEFAULTS``."""
        row = Setting.get_or_none(Setting.key == key)
        return json.loads(row.value) if row else settings_mod.DEFAULTS.get(key)

    def set_setting(self, key: str, value: Any, actor: str = "owner") -> None:
        """Validate and store a setting; recorded as an undoable event. Raises InvalidValueError."""
        value = settings_mod.validate(key, value)
        old = self.get_setting(key)
        with self.change("setting", actor) as batch:
            Setting.replace(key=key, value=json.dumps(value)).execute()
            self.record_event(batch, "setting", None, {"key": key, "value": old}, {"key": key, "value": value}, actor)

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

    # ---------------------------------------------------------------- reads
    def get(self, memory_id: int) -> MemoryRecord:
        """The memory with this id. Raises NotFoundError."""
        return to_record(self._row(memory_id))

    def open(self, memory_id: int) -> MemoryRecord:
        """Like ``get`` but counts as an access (the owner opened it): bumps access fields."""
        row = self._row(memory_id)
        Memory.update(last_accessed_at=self.clock(), access_count=Memory.access_count + 1).where(
            Memory.id == row.id
        ).execute()
        return self.get(memory_id)

    def list(
        self,
        *,
        scope: str | None = None,
        status: str | None = None,
        tier: str | None = None,
        user: str | None = None,
        query: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[MemoryRecord]:
        """Memories matching every given filter, newest id first. ``query`` is a tolerant text match
        (see ``search``). ``tier`` is core/working/archive as the Tiers view shows them.

        Raises:
            InvalidValueError: an unknown scope, status or tier.
        """
        q = memory_query(scope=scope, status=status, tier=tier, user=user, query=query)
        q = q.order_by(Memory.id.desc()).offset(_clamp(offset) or None)
        if limit is not None:
            q = q.limit(_clamp(limit))
        return [to_record(r) for r in q]

    def count(self, **filters: Any) -> int:
        """Number of memories matching the same filters as ``list``."""
        return memory_query(**filters).count()

    def position(self, memory_id: int, **filters: Any) -> int | None:
        """0-based index of ``memory_id`` in ``list(**filters)`` (newest id first), or ``None`` when
        the filters exclude it. Lets a paged list keep its selection after the data changed."""
        q = memory_query(**filters)
        if not q.where(Memory.id == memory_id).exists():
            return None
        return q.where(Memory.id > memory_id).count()

    def search(self, query: str, *, status: str | None = None, limit: int = 50) -> list[MemoryRecord]:
        """Case-, accent- and inflection-tolerant search: every query word must occur as a stemmed
        word prefix ("replies" ~ "reply") or inside the accent-folded text with spaces removed
        ("hanoi" ~ "Hà Nội"). Ranked by approved first, then by the relevance score of
        ``scoring.rank_records`` (the scorer ``build_context`` uses, without the scope part); only the
        ``SEARCH_POOL`` newest matches are ranked. A search does not count as an access.

        Raises:
            InvalidValueError: the query has no words.
        """
        from .scoring import rank_records

        if not textmod.tokens(query):
            raise InvalidValueError("search query has no words")
        q = memory_query(status=status, query=query).order_by(Memory.updated_at.desc()).limit(SEARCH_POOL)
        return [m for m, _ in rank_records(self, query, [to_record(r) for r in q])][:limit]

    def pending(self, query: str | None = None, limit: int | None = None) -> list[MemoryRecord]:
        """Pending proposals, oldest first (the triage order)."""
        q = memory_query(status="pending", query=query).order_by(Memory.created_at, Memory.id)
        if limit is not None:
            q = q.limit(_clamp(limit))
        return [to_record(r) for r in q]

    def pending_ids(self, query: str | None = None) -> list[int]:
        """Ids of pending proposals in triage order (oldest first), optionally narrowed by a tolerant
        text ``query``: a triage queue that holds only ids, however long it is.

        Raises:
            InvalidValueError: the query has no words.
        """
        q = memory_query(status="pending", query=query).select(Memory.id)
        return [row_id for (row_id,) in q.order_by(Memory.created_at, Memory.id).tuples()]

    def similar(self, text: str, *, k: int = 5, user: str | None = None,
                exclude_id: int | None = None) -> list[tuple[MemoryRecord, float]]:
        """Active approved memories (not superseded, not expired) most like ``text``: cosine over binary term vectors weighted by IDF
        (computed over the approved set). Returns up to ``k`` ``(record, score 0..1)``, best first."""
        from .similarity import rank_similar

        now = self.clock()
        q = Memory.select().where(
            (Memory.status == "approved") & Memory.superseded_by.is_null()
            & (Memory.expires_at.is_null() | (Memory.expires_at > now))
        )
        if user is not None:
            q = q.where((Memory.user == user) | Memory.user.is_null())
        if exclude_id is not None:
            q = q.where(Memory.id != exclude_id)
        rows = list(q)
        ranked = rank_similar(text, [(r, r.terms) for r in rows], k)
        return [(to_record(r), score) for r, score in ranked]

    def tier_counts(self) -> dict[str, int]:
        """``{"core": n, "working": n, "archive": n, "pending": n}`` as the console shows them."""
        counts = {t: Memory.select().where(tier_condition(t)).count() for t in LAYERS}
        counts["pending"] = Memory.select().where(Memory.status == "pending").count()
        return counts

    def status(self) -> StoreStatus:
        """Policies, paused state and counts: what ``bestie memory status`` prints."""
        by_status = dict(
            Memory.select(Memory.status, fn.COUNT(Memory.id)).group_by(Memory.status).tuples()
        )
        return StoreStatus(
            db_path=str(self.path),
            schema_version=SCHEMA_VERSION,
            write_policy=self.write_policy,
            delete_policy=self.get_setting("memory.deletePolicy"),
            paused=self.paused,
            governance=self.get_setting("memory.governance"),
            counts={s: by_status.get(s, 0) for s in ("pending", "approved", "rejected", "forgotten")},
            tiers=self.tier_counts(),
            messages=Message.select().count(),
            events=Event.select().count(),
        )

    def summary(self, recent: int = 5) -> Summary:
        """Counts by status, tier, kind and scope, plus the ``recent`` newest approved memories."""
        now = self.clock()
        out = Summary()
        for field_name, target in (("status", out.by_status), ("kind", out.by_kind), ("scope", out.by_scope)):
            column = getattr(Memory, field_name)
            target.update(dict(Memory.select(column, fn.COUNT(Memory.id)).group_by(column).tuples()))
        out.by_tier = {t: n for t, n in self.tier_counts().items() if t != "pending"}
        active = Memory.status == "approved"
        out.expired = Memory.select().where(active & (Memory.expires_at <= now)).count()
        out.stale = Memory.select().where(active & Memory.stale).count()
        out.pinned = Memory.select().where(active & Memory.pinned).count()
        out.recent = self.list(status="approved", limit=recent)
        return out

    def history(self, memory_id: int | None = None, limit: int = 50) -> list[EventRecord]:
        """Audit events, newest first; only those of ``memory_id`` when given."""
        q = Event.select().order_by(Event.id.desc()).limit(_clamp(limit))
        if memory_id is not None:
            q = q.where(Event.memory_id == memory_id)
        return [
            EventRecord(
                id=e.id, batch=e.batch, memory_id=e.memory_id, action=e.action, actor=e.actor, at=e.at,
                before=json.loads(e.before) if e.before else None,
                after=json.loads(e.after) if e.after else None, note=e.note, undone=e.undone,
            )
            for e in q
        ]

    # ---------------------------------------------------------------- writes
    def propose(
        self,
        text: str,
        kind: str = "note",
        *,
        user: str | None = None,
        channel: str | None = None,
        project: str | None = None,
        session: str | None = None,
        scope: str = "project",
        source: str | None = None,
        confidence: float = 0.7,
        ttl: str | None = None,
        actor: str = "assistant",
    ) -> ProposalResult:
        """The assistant's write, under ``memory.writePolicy`` (ask: pending; allow: approved; deny: refused).

        An exact or normalised duplicate (same ``normalize(text)``, same user) of an approved or pending
        memory creates nothing: the existing one is reinforced (confidence +0.05, capped at 1).

        Raises:
            PolicyError: memory is paused or writePolicy is deny.
            SecretRefusedError: the text looks like a secret; nothing is written anywhere.
            InvalidValueError: empty text, bad scope, bad TTL or confidence.
        """
        if self.paused:
            raise PolicyError("memory is paused: the assistant cannot write memories until `bestie memory resume`")
        policy = self.write_policy
        if policy == "deny":
            raise PolicyError("memory.writePolicy is deny: memory writes are refused")
        self._guard_secret(text, kind)
        self._check_text(text)
        existing = self.find_duplicate(text, user, statuses=("approved", "pending"))
        if existing is not None:
            record = self._reinforce(existing.id, actor)
            return ProposalResult("duplicate", record,
                                  f"already remembered as #{record.id} ({record.status}); reinforced it")
        status = "approved" if policy == "allow" else "pending"
        record = self._create(text, kind, status=status, user=user, channel=channel, project=project,
                              session=session, scope=scope, source=source or actor, confidence=confidence,
                              ttl=ttl, actor=actor, action="propose")
        message = f"stored #{record.id}" if status == "approved" else f"queued #{record.id} for the owner's review"
        return ProposalResult(status, record, message)

    def add(
        self,
        kind: str,
        text: str,
        *,
        user: str | None = None,
        channel: str | None = None,
        project: str | None = None,
        session: str | None = None,
        scope: str = "project",
        confidence: float = 1.0,
        ttl: str | None = None,
        pinned: bool = False,
        allow_secret: bool = False,
        actor: str = "owner",
    ) -> MemoryRecord:
        """The owner's own write: stored approved, whatever writePolicy says. An exact or normalised
        duplicate of an approved memory of the same user is reinforced and returned instead.

        Raises:
            SecretRefusedError: unless ``allow_secret`` (the owner explicitly asks).
            InvalidValueError: empty text, bad scope, TTL or confidence.
        """
        if not allow_secret:
            self._guard_secret(text, kind)
        self._check_text(text)
        existing = self.find_duplicate(text, user)
        if existing is not None:
            return self._reinforce(existing.id, actor)
        return self._create(text, kind, status="approved", user=user, channel=channel, project=project,
                            session=session, scope=scope, source="owner", confidence=confidence, ttl=ttl,
                            actor=actor, action="add", pinned=pinned)

    def check_text(self, text: str) -> None:
        """Raise what a write of ``text`` by the owner would raise — InvalidValueError (no words) or
        SecretRefusedError — without writing anything. Editors call it before they close."""
        self._check_text(text)
        self._guard_secret(text, "")

    def find_duplicate(self, text: str, user: str | None = None,
                       statuses: tuple[str, ...] = ("approved",)) -> MemoryRecord | None:
        """The memory (approved first, then oldest) whose normalised text equals ``normalize(text)``,
        for the same user, among ``statuses``; ``None`` when there is none."""
        row = (
            Memory.select()
            .where((Memory.norm == textmod.normalize(text or "")) & Memory.status.in_(statuses)
                   & self._same_user(user))
            .order_by((Memory.status == "approved").desc(), Memory.id)
            .first()
        )
        return to_record(row) if row else None

    def _reinforce(self, memory_id: int, actor: str) -> MemoryRecord:
        """Seen again: confidence +0.05 (capped at 1), recorded as a ``reinforce`` event."""
        def apply(row: Memory) -> None:
            row.confidence = min(1.0, round(row.confidence + 0.05, 4))
        return self._mutate(memory_id, "reinforce", actor, apply)

    def approve(self, memory_id: int, *, text: str | None = None, actor: str = "owner") -> MemoryRecord:
        """Approve a pending (or rejected) proposal, optionally with edited ``text`` (one undo step).

        Raises: SecretRefusedError when the edited text looks like a secret; InvalidValueError when the
        memory is not pending or rejected.
        """
        if text is not None:
            self._guard_secret(text, "")

        def apply(row: Memory) -> None:
            if row.status not in ("pending", "rejected"):
                raise InvalidValueError(f"memory #{row.id} is {row.status}, not pending")
            if text is not None:
                self._set_text(row, text)
            row.status = "approved"
        return self._mutate(memory_id, "approve" if text is None else "edit+approve", actor, apply)

    def reject(self, memory_id: int, *, actor: str = "owner") -> MemoryRecord:
        """Reject a pending proposal (kept, never injected; undo brings it back)."""
        def apply(row: Memory) -> None:
            if row.status != "pending":
                raise InvalidValueError(f"memory #{row.id} is {row.status}, not pending")
            row.status = "rejected"
        return self._mutate(memory_id, "reject", actor, apply)

    def reject_all(self, ids: list[int] | None = None, *, actor: str = "owner") -> int:
        """Reject every pending proposal (or only ``ids``) in one undoable batch. Returns how many."""
        q = Memory.select().where(Memory.status == "pending")
        if ids is not None:
            q = q.where(Memory.id.in_(list(ids)))
        rows = list(q)
        if not rows:
            return 0
        with self.change("reject-all", actor) as batch:
            for row in rows:
                before = snapshot(row)
                row.status = "rejected"
                row.updated_at = self.clock()
                row.save()
                self.record_event(batch, "reject", row.id, before, snapshot(row), actor)
        return len(rows)

    def edit(self, memory_id: int, text: str, *, actor: str = "owner") -> MemoryRecord:
        """Replace a memory's text (the secret guard applies to owner edits as well)."""
        self._guard_secret(text, "")
        return self._mutate(memory_id, "edit", actor, lambda row: self._set_text(row, text))

    def pin(self, memory_id: int, *, actor: str = "owner") -> MemoryRecord:
        """Pin: never auto-cleaned, merged or archived."""
        return self._mutate(memory_id, "pin", actor, lambda row: setattr(row, "pinned", True))

    def unpin(self, memory_id: int, *, actor: str = "owner") -> MemoryRecord:
        return self._mutate(memory_id, "unpin", actor, lambda row: setattr(row, "pinned", False))

    def move(self, memory_id: int, scope: str, *, actor: str = "owner") -> MemoryRecord:
        """Change scope; the layer follows the scope's default unless the memory is pinned.

        Raises: InvalidValueError for an unknown scope.
        """
        self._check_scope(scope)

        def apply(row: Memory) -> None:
            row.scope = scope
            if not row.pinned:
                row.layer = SCOPE_DEFAULT_LAYER[scope]
        return self._mutate(memory_id, "move", actor, apply)

    def set_layer(self, memory_id: int, layer: str, *, actor: str = "owner") -> MemoryRecord:
        """Move a memory to another layer (core/working/archive) without changing its scope."""
        if layer not in LAYERS:
            raise InvalidValueError(f"unknown layer {layer!r}; use one of {', '.join(LAYERS)}")
        return self._mutate(memory_id, "layer", actor, lambda row: setattr(row, "layer", layer))

    def set_ttl(self, memory_id: int, ttl: str | None, *, actor: str = "owner") -> MemoryRecord:
        """Set ``expires_at`` from a TTL (``7d``, ``2 weeks``, ``until friday``, ISO date); ``None`` clears."""
        expires = parse_ttl(ttl, self.clock()) if ttl else None
        return self._mutate(memory_id, "ttl", actor, lambda row: setattr(row, "expires_at", expires))

    def supersede(self, old_id: int, new_id: int, *, actor: str = "owner") -> MemoryRecord:
        """Mark ``old_id`` as replaced by ``new_id`` (kept, archived from injection). Returns the old one.

        Raises: InvalidValueError if the ids are equal, the new one is not approved, or it would loop.
        """
        if old_id == new_id:
            raise InvalidValueError("a memory cannot supersede itself")
        new = self._row(new_id)
        if new.status != "approved":
            raise InvalidValueError(f"memory #{new_id} is {new.status}; only an approved memory can replace another")
        seen, cursor = set(), new
        while cursor is not None and cursor.superseded_by is not None and cursor.id not in seen:
            if cursor.superseded_by == old_id:
                raise InvalidValueError(f"#{new_id} is itself (through #{cursor.id}) superseded by #{old_id}; "
                                        "that would make a cycle")
            seen.add(cursor.id)
            cursor = Memory.get_or_none(Memory.id == cursor.superseded_by)

        def apply(row: Memory) -> None:
            if row.status != "approved":
                raise InvalidValueError(f"memory #{row.id} is {row.status}; only an approved memory can be superseded")
            if row.pinned:
                raise InvalidValueError(f"memory #{row.id} is pinned; unpin it before superseding it")
            row.superseded_by = new_id
        return self._mutate(old_id, "supersede", actor, apply)

    def forget(self, memory_id: int, *, actor: str = "owner") -> MemoryRecord:
        """Soft delete: status ``forgotten``; never injected; ``restore`` or undo brings it back."""
        def apply(row: Memory) -> None:
            if row.status == "forgotten":
                raise InvalidValueError(f"memory #{row.id} is already forgotten")
            row.status = "forgotten"
        return self._mutate(memory_id, "forget", actor, apply)

    def restore(self, memory_id: int, *, actor: str = "owner") -> MemoryRecord:
        """Bring a forgotten, rejected or superseded memory back to approved and active."""
        def apply(row: Memory) -> None:
            if row.status == "approved" and row.superseded_by is None:
                raise InvalidValueError(f"memory #{row.id} is already active")
            row.status = "approved"
            row.superseded_by = None
        return self._mutate(memory_id, "restore", actor, apply)

    def undo(self, *, actor: str = "owner") -> UndoResult:
        """Revert the most recent change batch that has not been undone (memories and settings).

        Raises:
            NotFoundError: there is nothing left to undo.
        """
        from .history import undo_last

        return undo_last(self, actor)

    # ---------------------------------------------------------------- messages
    def log_message(self, role: str, text: str, *, user: str | None = None, channel: str | None = None,
                    session: str | None = None, at: datetime | None = None) -> MessageRecord:
        """Append one chat message to the raw history. Raises InvalidValueError for an unknown role."""
        if role not in ROLES:
            raise InvalidValueError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
        row = Message.create(role=role, text=text, user=user, channel=channel, session=session,
                             created_at=at or self.clock(), terms=textmod.search_text(text))
        return _message_record(row)

    def messages(self, *, limit: int | None = 50, role: str | None = None, query: str | None = None,
                 offset: int = 0) -> list[MessageRecord]:
        """Chat messages, newest first, filtered by role and a tolerant text query."""
        from .query import text_condition

        if role is not None and role not in ROLES:
            raise InvalidValueError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
        if limit is not None and limit < 0:
            raise InvalidValueError("--limit must be zero or more")
        q = Message.select()
        if role:
            q = q.where(Message.role == role)
        if query:
            q = q.where(text_condition(query, Message.terms, fn.REPLACE(Message.terms, " ", "")))
        q = q.order_by(Message.created_at.desc(), Message.id.desc()).offset(_clamp(offset) or None)
        if limit is not None:
            q = q.limit(_clamp(limit))
        return [_message_record(r) for r in q]

    def message_count(self) -> int:
        return Message.select().count()

    # ---------------------------------------------------------------- internals
    @contextmanager
    def change(self, action: str, actor: str) -> Iterator[str]:
        """One transaction and one event batch id for a user-visible change. The batch id starts with
        the change's name (``cleanup:3f2a…``) so undo can say what it reverts as a whole."""
        batch = f"{action}:{uuid.uuid4().hex[:12]}"
        try:
            with database_proxy.atomic():
                yield batch
        except (OperationalError, PeeweeDatabaseError) as exc:
            raise StorageError(_storage_message(self.path, exc)) from exc

    def next_memory_id(self) -> int:
        """The id for a new memory: one above every id the memory table *or the event log* has seen,
        so an id freed by undoing a creation is never reused and one id always names one memory."""
        top = max(Memory.select(fn.MAX(Memory.id)).scalar() or 0,
                  Event.select(fn.MAX(Event.memory_id)).scalar() or 0)
        return top + 1

    def record_event(self, batch: str, action: str, memory_id: int | None, before: dict | None,
               after: dict | None, actor: str, note: str | None = None) -> None:
        Event.create(batch=batch, memory_id=memory_id, action=action, actor=actor, at=self.clock(),
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
                source, confidence, ttl, actor, action, pinned: bool = False) -> MemoryRecord:
        self._check_scope(scope)
        if not (isinstance(confidence, (int, float)) and 0.0 <= float(confidence) <= 1.0):
            raise InvalidValueError(f"confidence must be between 0 and 1, not {confidence}")
        kind = check_kind(kind)
        now = self.clock()
        expires = parse_ttl(ttl, now) if ttl else None
        with self.change(action, actor) as batch:
            row = Memory.create(
                id=self.next_memory_id(), text=text.strip(), kind=kind, status=status, scope=scope, layer=SCOPE_DEFAULT_LAYER[scope],
                pinned=pinned, confidence=float(confidence), expires_at=expires, user=user, channel=channel,
                project=project, session=session, source=source, created_at=now, updated_at=now,
                norm=textmod.normalize(text), terms=textmod.search_text(text),
            )
            self.record_event(batch, action, row.id, None, snapshot(row), actor)
        return to_record(row)

    def _set_text(self, row: Memory, text: str) -> None:
        self._check_text(text)
        row.text = text.strip()
        row.norm = textmod.normalize(text)
        row.terms = textmod.search_text(text)

    @staticmethod
    def _check_text(text: str) -> str:
        norm = textmod.normalize(text or "")
        if not norm:
            raise InvalidValueError("memory text must contain at least one word")
        return norm

    @staticmethod
    def _check_scope(scope: str) -> None:
        if scope not in SCOPES:
            raise InvalidValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")

    @staticmethod
    def _guard_secret(text: str, kind: str) -> None:
        found = detect_secret(text or "")
        if found:
            raise SecretRefusedError(found)
        if kind in ("venting", "vent"):
            raise SecretRefusedError("one-off venting")

    @staticmethod
    def _same_user(user: str | None):
        return Memory.user.is_null() if user is None else (Memory.user == user)


#: SQLite integers are signed 64-bit; larger ids or limits cannot exist.
MAX_ID = 2**63 - 1
_KIND = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]{0,63}$")


def check_kind(kind: str) -> str:
    """A memory kind is an identifier such as ``communication_preference`` (letters, digits, ``_.-``,
    at most 64 characters). Returns it stripped; raises InvalidValueError otherwise."""
    kind = (kind or "").strip() if isinstance(kind, str) else kind
    if not isinstance(kind, str) or not _KIND.match(kind):
        raise InvalidValueError(
            f"memory kind must be a word such as preference or project_context, not {kind!r}"
        )
    return kind


def _clamp(n: int | None) -> int | None:
    return None if n is None else max(0, min(int(n), MAX_ID))


def _storage_message(path: Path, exc: Exception) -> str:
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return f"{path} is read-only; nothing was changed"
    if "locked" in text or "busy" in text:
        return f"{path} is busy (another process holds the write lock); nothing was changed, try again"
    return f"database error on {path}: {text}; nothing was changed"


def _message_record(row: Message) -> MessageRecord:
    return MessageRecord(id=row.id, role=row.role, text=row.text, user=row.user, channel=row.channel,
                         session=row.session, created_at=row.created_at)


__all__ = ["MemoryStore", "utcnow", "iso"]
