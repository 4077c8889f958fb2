"""The lifecycle writes of ``MemoryStore``: the assistant's ``propose`` and the owner's ``add``,
duplicate detection and reinforcement, approve/reject, edit, pin, standing instructions
(``instruct``/``uninstruct``), scope/layer/TTL changes,
supersede, keep both (``pair_decisions``), forget/restore and ``undo``. Every write of text or
tier passes the write gate (``gate.check_write``) first; restatements go through ``restate``. A
mixin: ``MemoryStore`` (``memory_store.py``) supplies ``change``, ``record_event``, ``_mutate``,
``_create`` and the text/scope checks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from bestie_tui.errors import InvalidValueError
from bestie_tui.store import corrections
from bestie_tui.store.gate import WriteDecision, check_write
from bestie_tui.store.history import pair_decisions
from bestie_tui.store.instructions import INSTRUCTION_KIND, ORDINARY_KIND
from bestie_tui.store.message_forget import forget_memory
from bestie_tui.store.models import LAYERS, SCOPE_DEFAULT_LAYER, Event, Memory
from bestie_tui.store.records import ForgetResult, MemoryRecord, ProposalResult, UndoResult
from bestie_tui.store.restate import find_restated, restate, take_over
from bestie_tui.store.support import settle_kind, snapshot, to_record
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
                    source, confidence, ttl, actor, action, pinned: bool = False, layer: str | None = None,
                    about: str | None = None, then: Callable[[str, Memory], Any] | None = None) -> MemoryRecord: ...
        def get_setting(self, key: str) -> Any: ...
        def _set_text(self, row: Memory, text: str) -> None: ...
        def parse_ttl(self, ttl: str) -> datetime: ...
        @staticmethod
        def _check_text(text: str) -> str: ...
        @staticmethod
        def _check_scope(scope: str) -> None: ...
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
        about: str | None = None,
        actor: str = "assistant",
    ) -> ProposalResult:
        """The assistant's write, through the write gate (``gate.check_write``): refused, queued as
        pending for the owner (writePolicy ask, contact details, no user under allow), or stored
        approved (writePolicy allow).

        A restatement of a record of the same user (same ``normalize(text)``) creates no twin: an
        active or pending one is reinforced, an expired one revived, a superseded or rejected one
        revived under allow or queued again under ask (``restate``); a forgotten one is queued again
        under every policy, saying the owner forgot it. Said again without a TTL, the old expiry is
        cleared.

        A proposal that corrects or contradicts an approved memory (``store.corrections``) is queued
        for the owner even under writePolicy allow — except a correction under
        ``memory.correctionPolicy`` auto, which is stored and supersedes the old record in one undo step.

        Raises:
            PolicyError: memory is paused or writePolicy is deny.
            SecretRefusedError: the text looks like a secret; nothing is written anywhere.
            WriteRefusedError: another gate rule refuses it (venting, an injected block).
            InvalidValueError: empty text, bad scope, bad TTL or confidence.
            DatabaseBusyError: another process held the write lock for over ``store.busy.WAIT_S``
                (60 s) while this retried with backoff; nothing was written.
        """
        from bestie_tui.store.busy import retry_busy

        return retry_busy(lambda: self._propose_once(
            text, kind, user=user, channel=channel, project=project, session=session, scope=scope,
            source=source, confidence=confidence, ttl=ttl, about=about, actor=actor))

    def _propose_once(self, text: str, kind: str, *, user: str | None, channel: str | None,
                      project: str | None, session: str | None, scope: str, source: str | None,
                      confidence: float, ttl: str | None, about: str | None, actor: str) -> ProposalResult:
        """One attempt of ``propose`` (one transaction)."""
        limits_first(text, user)
        settle_kind(kind)  # a kind that is no word at all is refused before the text is weighed
        decision = check_write(text, path="propose", store=self, kind=kind, scope=scope, user=user,
                               about=about).raise_if_refused()
        self._check_text(text)
        self._check_scope(scope)
        restated = find_restated(text, user, self.clock())
        note = ""
        if restated is not None:
            result, note = restate(cast("MemoryStore", self), restated, ttl=ttl, actor=actor, revive=decision.action == "store")
            if result is not None:
                return result
        forgotten = restated is not None and restated.status == "forgotten"  # only the owner brings it back
        status = "approved" if decision.action == "store" and not forgotten else "pending"
        related = corrections.find_related(cast("MemoryStore", self), text, user)
        replaces = corrections.replaced(related)
        conflicts = [r.memory.id for r in related if r.relation.kind == "contradiction"]
        auto = bool(replaces) and not conflicts and self.get_setting(corrections.CORRECTION_POLICY) == "auto"
        held = status == "approved" and bool(conflicts or replaces and not auto)
        if held:
            status = "pending"  # the owner decides what a correction or a contradiction replaces
        then = None
        if status == "approved" and replaces:
            def then(batch: str, row: Memory) -> None:
                corrections.supersede_into(cast("MemoryStore", self), batch, replaces, row.id, actor)
        record = self._create(text, decision.kind or kind, status=status, user=user, channel=channel, project=project,
                              session=session, scope=decision.scope or scope, layer=decision.layer,
                              about=decision.about, source=source or actor, confidence=confidence, ttl=ttl,
                              actor=actor, action="propose", then=then)
        if status == "approved":
            message = f"stored #{record.id}" + (" and superseded " + ", ".join(f"#{i}" for i in replaces)
                                                 if replaces else "")
        else:
            why = "" if decision.rule == "ask" or held or forgotten else f" ({decision.reason})"
            message = f"queued #{record.id} for the owner's review{why}"
            if replaces:
                message += "; it replaces " + ", ".join(f"#{i}" for i in replaces)
        if conflicts:
            message += "; it contradicts " + ", ".join(f"#{i}" for i in conflicts)
        extra = [n for n in (*decision.notes, note) if n]
        return ProposalResult(status, record, message + "".join(f"; {n}" for n in extra), decision,
                              tuple(replaces), tuple(conflicts))

    def add(self, kind: str, text: str, **options: Any) -> MemoryRecord:
        """The owner's own write (``add_result`` with the same arguments), returning the record
        written, reinforced or revived."""
        return self.add_result(kind, text, **options).memory

    def add_result(
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
        about: str | None = None,
        allow_secret: bool = False,
        keep_venting: bool = False,
        actor: str = "owner",
    ) -> ProposalResult:
        """The owner's own write: stored approved, whatever writePolicy says, after the write gate.

        A restatement (same ``normalize(text)``, same user) creates no twin: an active record is
        reinforced, a pending one approved, an expired, superseded, forgotten or rejected one revived
        in place; the result's ``outcome`` (``approved``, ``duplicate``, ``revived``) and ``message``
        say which.

        Raises:
            SecretRefusedError: unless ``allow_secret`` (the owner explicitly asks).
            WriteRefusedError: venting (unless ``keep_venting``: a 7-day archive note), an injected
                block, a statement about someone else in core, core over its token cap.
            InvalidValueError: empty text, bad scope, TTL or confidence.
        """
        limits_first(text, user)
        settle_kind(kind)  # a kind that is no word at all is refused before the text is weighed
        decision = check_write(text, path="add", store=self, kind=kind, scope=scope, user=user, about=about,
                               allow_secret=allow_secret, keep_venting=keep_venting).raise_if_refused()
        self._check_text(text)
        self._check_scope(scope)
        restated = find_restated(text, user, self.clock())
        if restated is not None and restated.status == "pending":
            record = self.approve(restated.id, actor=actor)
            return ProposalResult("approved", record, f"approved #{record.id}, which was waiting for review",
                                  decision)
        if restated is not None:
            result, _ = restate(cast("MemoryStore", self), restated, ttl=ttl, actor=actor, revive=True)
            if result is not None:
                return result
        record = self._create(text, decision.kind or kind, status="approved", user=user, channel=channel,
                              project=project, session=session, scope=decision.scope or scope, layer=decision.layer,
                              about=decision.about, source="owner", confidence=confidence,
                              ttl=ttl or decision.ttl, actor=actor, action="add", pinned=pinned)
        notes = "".join(f"; {n}" for n in decision.notes)
        return ProposalResult("approved", record, f"added #{record.id}{notes}", decision)

    def check_text(self, text: str, memory_id: int | None = None) -> None:
        """Raise what an owner's edit of ``text`` would raise — InvalidValueError (no words),
        SecretRefusedError or WriteRefusedError (the write gate) — without writing anything.
        Editors call it before they close; with ``memory_id``, the edited memory's tier counts
        (the core cap, a statement about someone else in core)."""
        self._check_text(text)
        if memory_id is None:
            check_write(text, path="edit", store=self).raise_if_refused()
        else:
            row = self._row(memory_id)
            check_write(text, path="edit", store=self, kind=row.kind, scope=row.scope, layer=row.layer,
                        user=row.user, memory_id=row.id).raise_if_refused()

    def find_duplicate(self, text: str, user: str | None = None,
                       statuses: tuple[str, ...] = ("approved",)) -> MemoryRecord | None:
        """The memory (approved and in force first, then oldest) whose text is ``text`` written
        differently (``normalize`` equal and ``words.same_text``: accents kept), for the same user,
        among ``statuses``; ``None`` when there is none."""
        rows = (
            Memory.select()
            .where((Memory.norm == textmod.normalize(text or "")) & Memory.status.in_(statuses)
                   & self._same_user(user))
            .order_by((Memory.status == "approved").desc(), Memory.superseded_by.is_null().desc(), Memory.id)
        )
        row = next((r for r in rows if textmod.same_text(r.text, text)), None)  # accents are not spelling
        return to_record(row) if row else None

    def _reinforce(self, memory_id: int, actor: str) -> MemoryRecord:
        """Seen again: confidence +0.05 (capped at 1), recorded as a ``reinforce`` event."""
        def apply(row: Memory) -> None:
            row.confidence = min(1.0, round(row.confidence + 0.05, 4))
        return self._mutate(memory_id, "reinforce", actor, apply)

    def _gate(self, row: Memory, path: str, *, text: str | None = None, layer: str | None = None,
              scope: str | None = None) -> WriteDecision:
        """The write gate for a change of ``row``'s text or tier (raises when it refuses)."""
        return check_write(row.text if text is None else text, path=path, store=self, kind=row.kind,
                           scope=scope or row.scope, layer=layer or row.layer, user=row.user,
                           about=row.about if text is None else None, memory_id=row.id).raise_if_refused()

    def approve(self, memory_id: int, *, text: str | None = None, replaces: list[int] | None = None,
                scope: str | None = None, actor: str = "owner") -> MemoryRecord:
        """Approve a pending (or rejected) proposal, optionally with edited ``text``, and supersede the
        approved memories it corrects — one undo step. Approving a restatement of a superseded record
        supersedes the record that had replaced it.

        Args:
            replaces: the ids to supersede; ``None`` finds them (``store.corrections``: the approved
                memories the text corrects), ``[]`` supersedes nothing (approve and keep the old ones).
            scope: land it in this scope (one of ``SCOPES``) instead of the one it was proposed with;
                its layer follows as in ``move`` (``project``/``session``: working), in the same step.

        Raises: SecretRefusedError / WriteRefusedError when the write gate refuses it (a secret,
        venting, an injected block, core over its cap); InvalidValueError when the memory is not
        pending or rejected, or ``scope`` is unknown.
        """
        row = self._row(memory_id)
        if row.status not in ("pending", "rejected"):
            raise InvalidValueError(f"memory #{row.id} is {row.status}, not pending")
        if text is not None:
            self._check_text(text)
        layer = None
        if scope is not None:
            self._check_scope(scope)
            layer = SCOPE_DEFAULT_LAYER[scope] if not row.pinned or scope == "core" else row.layer
        decision = self._gate(row, "approve", text=text, scope=scope, layer=layer)
        with self.change("approve" if text is None else "edit+approve", actor) as batch:
            row = self._row(memory_id)
            before = snapshot(row)
            if text is not None:
                self._set_text(row, text)
            row.about = decision.about or row.about
            row.kind = decision.kind or row.kind  # a generic memory about replies: a standing instruction
            if scope is not None and layer is not None:
                row.scope, row.layer = scope, layer
            row.status = "approved"
            row.updated_at = self.clock()
            row.save()
            self.record_event(batch, "approve" if text is None else "edit+approve", row.id, before, snapshot(row),
                              actor)
            take_over(cast("MemoryStore", self), batch, row, actor)
            if replaces is None:
                replaces = corrections.replaced(corrections.find_related(
                    cast("MemoryStore", self), row.text, row.user, exclude_id=row.id, kinds=("correction",)))
            corrections.supersede_into(cast("MemoryStore", self), batch, list(replaces), row.id, actor)
        return to_record(row)

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
        """Replace a memory's text, through the write gate. Who the memory is about is read again
        from the new text (kept when the new text names nobody else).

        Raises: SecretRefusedError / WriteRefusedError (the gate), InvalidValueError (no words),
        NotFoundError."""
        row = self._row(memory_id)
        self._check_text(text)
        decision = self._gate(row, "edit", text=text)

        def apply(row: Memory) -> None:
            self._set_text(row, text)
            row.about = decision.about or row.about
        return self._mutate(memory_id, "edit", actor, apply)

    def pin(self, memory_id: int, *, actor: str = "owner") -> MemoryRecord:
        """Pin: never auto-cleaned, merged or archived."""
        return self._mutate(memory_id, "pin", actor, lambda row: setattr(row, "pinned", True))

    def unpin(self, memory_id: int, *, actor: str = "owner") -> MemoryRecord:
        return self._mutate(memory_id, "unpin", actor, lambda row: setattr(row, "pinned", False))

    def instruct(self, memory_id: int, *, actor: str = "owner") -> MemoryRecord:
        """Make a memory a standing instruction (``store.instructions``): its kind becomes
        ``communication_preference``, so once approved it enters every prompt of its user in the
        "How to answer:" section. Undoable (event ``instruct``).

        Raises: NotFoundError; InvalidValueError when the memory is about someone else (``about``):
        a statement about another person is no instruction to the assistant.
        """
        row = self._row(memory_id)
        if row.about:
            raise InvalidValueError(f"memory #{row.id} is about {row.about}, not the owner: it cannot be a "
                                    "standing instruction")
        return self._mutate(memory_id, "instruct", actor, lambda row: setattr(row, "kind", INSTRUCTION_KIND))

    def uninstruct(self, memory_id: int, *, actor: str = "owner") -> MemoryRecord:
        """Make a standing instruction an ordinary memory: it enters a prompt only when relevant, as
        any other. Its kind goes back to the one it had before its last ``instruct`` (the event log),
        else ``preference``. Undoable (event ``uninstruct``). Raises NotFoundError."""
        row = self._row(memory_id)
        if row.kind != INSTRUCTION_KIND:
            return to_record(row)
        earlier = (Event.select(Event.before).where((Event.memory_id == row.id) & (Event.action == "instruct")
                                                     & (Event.undone == False))  # noqa: E712 (SQL)
                   .order_by(Event.id.desc()).first())
        before = json.loads(earlier.before).get("kind") if earlier is not None and earlier.before else None
        kind = before if before and before != INSTRUCTION_KIND else ORDINARY_KIND
        return self._mutate(memory_id, "uninstruct", actor, lambda row: setattr(row, "kind", kind))

    def move(self, memory_id: int, scope: str, *, actor: str = "owner") -> MemoryRecord:
        """Change scope; the layer follows the scope's default, except that a pinned memory keeps its
        layer when moved anywhere but core (moving it to core is asking for the core layer: it goes
        there, or the write gate says why not, e.g. the core token cap).

        Raises: InvalidValueError for an unknown scope; WriteRefusedError when the gate refuses.
        """
        self._check_scope(scope)
        row = self._row(memory_id)
        follows = not row.pinned or scope == "core"
        self._gate(row, "move", scope=scope, layer=SCOPE_DEFAULT_LAYER[scope] if follows else row.layer)

        def apply(row: Memory) -> None:
            row.scope = scope
            if follows:
                row.layer = SCOPE_DEFAULT_LAYER[scope]
        return self._mutate(memory_id, "move", actor, apply)

    def set_layer(self, memory_id: int, layer: str, *, actor: str = "owner") -> MemoryRecord:
        """Move a memory to another layer (core/working/archive) without changing its scope."""
        if layer not in LAYERS:
            raise InvalidValueError(f"unknown layer {layer!r}; use one of {', '.join(LAYERS)}")
        self._gate(self._row(memory_id), "layer", layer=layer)
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

    def keep_both(self, older_id: int, newer_id: int, *, actor: str = "owner") -> None:
        """The owner keeps both memories of a pair the doctor could not decide: neither changes; one
        ``keep_both`` event on the newer names the pair, so ``pair_decisions.kept_pairs`` reports
        it (the doctor does not ask again) until ``undo`` reverts it. A pair already kept writes
        nothing.

        Raises:
            NotFoundError: an id names no memory this store reaches.
            InvalidValueError: the same id twice, a memory that is not approved and active, or the
                memories of two users. Nothing is written.
        """
        pair_decisions.keep_both(cast("MemoryStore", self), older_id, newer_id, actor=actor)

    def forget(self, memory_id: int, *, actor: str = "owner", messages: bool | None = None) -> MemoryRecord:
        """Soft delete: status ``forgotten``; never injected; ``restore`` or undo brings it back. With
        ``messages`` (by default: under ``memory.deletePolicy`` allow) the chat messages that state it
        are redacted in the same undo step (``forget_result`` says which)."""
        return self.forget_result(memory_id, actor=actor, messages=messages).memory

    def forget_result(self, memory_id: int, *, actor: str = "owner", messages: bool | None = None) -> ForgetResult:
        """``forget``, saying which messages state the memory and which of them were redacted
        (``message_forget.forget_memory``). Raises NotFoundError, InvalidValueError (already
        forgotten)."""
        return forget_memory(cast("MemoryStore", self), memory_id, actor=actor, messages=messages)

    def restore(self, memory_id: int, *, actor: str = "owner") -> MemoryRecord:
        """Bring a memory back, by its state: a rejected proposal goes back to pending (for review
        again); a forgotten or superseded memory becomes approved and active; an active memory in the
        archive layer comes back to its scope's layer. What comes back into a prompt passes the write
        gate (a memory coming back into core counts against the core cap). ``restore_message`` words it.

        Raises: InvalidValueError (already active outside the archive, or pending),
        WriteRefusedError / SecretRefusedError (the gate)."""
        from bestie_tui.store.models import SCOPE_DEFAULT_LAYER

        row = self._row(memory_id)
        back_layer = SCOPE_DEFAULT_LAYER.get(row.scope, "working") if row.layer == "archive" else row.layer
        if row.status not in ("rejected", "pending") and not (
                row.status == "approved" and row.superseded_by is None and row.layer != "archive"):
            self._gate(row, "restore", layer=back_layer)

        def apply(row: Memory) -> None:
            if row.status == "pending":
                raise InvalidValueError(f"memory #{row.id} is pending: approve or reject it instead")
            if row.status == "rejected":
                row.status = "pending"
                return
            if row.status == "approved" and row.superseded_by is None and row.layer != "archive":
                raise InvalidValueError(f"memory #{row.id} is already active (in {row.layer}); nothing to restore")
            row.status = "approved"
            row.superseded_by = None
            row.layer = back_layer
        return self._mutate(memory_id, "restore", actor, apply)

    def restore_message(self, before: MemoryRecord, after: MemoryRecord) -> str:
        """What a restore did, in the owner's words, by the state it started from. A superseded memory
        brought back beside the memory that replaced it says so: both now reach prompts."""
        if before.status == "rejected":
            return f"#{after.id} is pending again: review it in Pending"
        was = "forgotten" if before.status == "forgotten" else (
            "superseded" if before.superseded_by is not None else "archived")
        out = f"Restored #{after.id} ({was}) to {after.layer}"
        newer = before.superseded_by
        if newer is not None and Memory.select().where(
                (Memory.id == newer) & (Memory.status == "approved") & Memory.superseded_by.is_null()).exists():
            out += (f"; #{newer}, which replaced it, is still active: both reach prompts until you forget or "
                    f"supersede one")
        return out

    def undo(self, *, actor: str = "owner", of: tuple[str, ...] | None = None, any_actor: bool = False,
             session: str | None = None) -> UndoResult:
        """Revert ``actor``'s own most recent change batch (the owner's: ``history.OWNER_ACTORS``);
        ``of`` other actors', ``any_actor`` anyone's, ``session`` only one made through the store
        object with that ``origin`` (the console's own). See ``store.history.undo``.

        Raises:
            NotFoundError: there is nothing left to undo (for that actor or session).
            InvalidValueError: a newer change touched the same record or fields; nothing was changed.
        """
        from bestie_tui.store.history.undo import undo_last

        return undo_last(cast("MemoryStore", self), actor, of=of, any_actor=any_actor,  # only ever a MemoryStore
                         origin=session)


def limits_first(text: Any, user: Any) -> None:
    """The size of ``text`` and the shape of ``user`` (``store.limits``), checked before the write
    gate reads the text: a 50 MB text is refused from its length alone.

    Raises:
        InvalidValueError: the text is over ``MEMORY_TEXT_MAX`` or the user id is not 1 to 200
            printable characters.
    """
    from bestie_tui.store.limits import check_memory_text, check_user_id

    if isinstance(text, str):
        check_memory_text(text)
    check_user_id(user)
