"""The lifecycle writes of ``MemoryStore``: the assistant's ``propose`` and the owner's ``add``,
duplicate detection and reinforcement, approve/reject, edit, pin, scope/layer/TTL changes,
supersede, forget/restore and ``undo``. A mixin: ``MemoryStore`` (``memory_store.py``) supplies
``change``, ``record_event``, ``_mutate``, ``_create`` and the text/scope/secret checks.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from bestie_tui.errors import InvalidValueError, PolicyError
from bestie_tui.store.models import LAYERS, SCOPE_DEFAULT_LAYER, Memory
from bestie_tui.store.records import MemoryRecord, ProposalResult, UndoResult
from bestie_tui.store.support import snapshot, to_record
from bestie_tui.text import words as textmod

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore


class StoreWrites:
    """Write methods of ``MemoryStore``; each change is one transaction and one undoable event batch."""

    if TYPE_CHECKING:  # supplied by ``MemoryStore``; declared here for the type checker only
        clock: Callable[[], datetime]

        @property
        def write_policy(self) -> str: ...
        @property
        def paused(self) -> bool: ...
        def change(self, action: str, actor: str) -> AbstractContextManager[str]: ...
        def record_event(self, batch: str, action: str, memory_id: int | None, before: dict | None,
                         after: dict | None, actor: str, note: str | None = None) -> None: ...
        def _row(self, memory_id: int) -> Memory: ...
        def _mutate(self, memory_id: int, action: str, actor: str, apply: Callable[[Memory], None]) -> MemoryRecord: ...
        def _create(self, text: str, kind: str, *, status: str, user, channel, project, session, scope,
                    source, confidence, ttl, actor, action, pinned: bool = False) -> MemoryRecord: ...
        def _set_text(self, row: Memory, text: str) -> None: ...
        def parse_ttl(self, ttl: str) -> datetime: ...
        @staticmethod
        def _check_text(text: str) -> str: ...
        @staticmethod
        def _check_scope(scope: str) -> None: ...
        @staticmethod
        def _guard_secret(text: str, kind: str) -> None: ...
        @staticmethod
        def _same_user(user: str | None) -> Any: ...

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
        expires = self.parse_ttl(ttl) if ttl else None
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
        seen: set[int] = set()
        cursor: Memory | None = new
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

    def undo(self, *, actor: str = "owner", of: tuple[str, ...] | None = None, any_actor: bool = False,
             session: str | None = None) -> UndoResult:
        """Revert ``actor``'s own most recent change batch (the owner's: ``history.OWNER_ACTORS``);
        ``of`` other actors', ``any_actor`` anyone's, ``session`` only one made through the store
        object with that ``origin`` (the console's own). See ``store.history``.

        Raises:
            NotFoundError: there is nothing left to undo (for that actor or session).
            InvalidValueError: a newer change touched the same record or fields; nothing was changed.
        """
        from bestie_tui.store.history import undo_last

        return undo_last(cast("MemoryStore", self), actor, of=of, any_actor=any_actor,  # only ever a MemoryStore
                         origin=session)
