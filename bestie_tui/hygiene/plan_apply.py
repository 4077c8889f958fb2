"""Applying a plan: policy gate, one transaction, one event batch (undone as a whole)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from bestie_tui.errors import InvalidValueError, PolicyError
from bestie_tui.hygiene.plans import Operation, Plan, _survivor, merged_binding
from bestie_tui.store.binding import uses_store
from bestie_tui.store.db import executemany
from bestie_tui.store.gate import WriteDecision, check_write
from bestie_tui.store.limits import check_memory_text
from bestie_tui.store.models import Event, Memory
from bestie_tui.store.support import snapshot
from bestie_tui.text import words as textmod

#: Fields whose change since the plan makes an operation stale (the owner planned on other data).
_WATCHED = ("updated_at", "text", "status", "layer", "superseded_by", "pinned", "kind", "expires_at")
_FIXABLE = {"kind", "source", "superseded_by", "stale", "last_accessed_at", "layer"}


@dataclass
class ApplyResult:
    """What an apply did: ``batch`` (event batch id, ``None`` if nothing changed), operations applied,
    operations skipped with the reason, and the ids changed / created / deleted."""

    batch: str | None
    applied: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    changed_ids: list[int] = field(default_factory=list)
    created_ids: list[int] = field(default_factory=list)
    deleted_ids: list[int] = field(default_factory=list)
    #: id → the record a merge of this apply folded it into (survivors map to themselves).
    merged_into: dict[int, int] = field(default_factory=dict, repr=False)
    #: ids this apply already wrote: their new ``updated_at`` (and fields) are ours, not a stale plan.
    touched: set[int] = field(default_factory=set, repr=False)

    @property
    def message(self) -> str:
        parts = [f"applied {len(self.applied)} operation(s)"]
        if self.created_ids:
            parts.append(f"created {', '.join(f'#{i}' for i in self.created_ids)}")
        if self.changed_ids:
            parts.append(f"changed {len(self.changed_ids)} record(s)")
        if self.deleted_ids:
            parts.append(f"deleted {len(self.deleted_ids)}")
        if self.skipped:
            parts.append(f"skipped {len(self.skipped)}")
        tail = "; `bestie memory undo` reverts it all" if self.batch else ""
        return ", ".join(parts) + tail

    def to_dict(self) -> dict:
        return {"batch": self.batch, "applied": self.applied, "skipped": [list(s) for s in self.skipped],
                "changed_ids": self.changed_ids, "created_ids": self.created_ids,
                "deleted_ids": self.deleted_ids, "message": self.message}


class _Writes:
    """The apply's reads and writes, batched: every row the plan names is read in a few ``IN (…)``
    queries up front; row updates, hard deletes and events are kept in order and written at the end
    of the transaction with ``executemany`` / multi-row inserts (no per-row round trips), so the
    write lock is held for as little time as the plan's size allows. Still one transaction."""

    _CHUNK = 500

    def __init__(self, store, ids: Iterable[int]):
        self.store = store
        self.rows: dict[int, Memory] = {}
        self.dirty: dict[int, Memory] = {}
        self.deleted: dict[int, None] = {}  # ordered set
        self.events: list[dict] = []
        wanted = sorted(set(ids))
        for start in range(0, len(wanted), self._CHUNK):
            for row in Memory.select().where(Memory.id.in_(wanted[start:start + self._CHUNK])):
                self.rows[row.id] = row

    def get(self, memory_id: int) -> Memory | None:
        if memory_id in self.deleted:
            return None
        row = self.rows.get(memory_id)
        if row is None:
            row = Memory.get_or_none(Memory.id == memory_id)
            if row is not None:
                self.rows[memory_id] = row
        return row

    def save(self, row: Memory) -> None:
        self.rows[row.id] = row
        self.dirty[row.id] = row

    def delete(self, row: Memory) -> None:
        self.rows.pop(row.id, None)
        self.dirty.pop(row.id, None)
        self.deleted[row.id] = None

    def event(self, batch: str, action: str, memory_id: int | None, before: dict | None, after: dict | None,
              actor: str, note: str | None = None) -> None:
        self.events.append(dict(
            batch=batch, memory_id=memory_id, action=action, actor=actor, at=self.store.clock(),
            origin=self.store.origin, note=note,
            before=json.dumps(before, ensure_ascii=False) if before is not None else None,
            after=json.dumps(after, ensure_ascii=False) if after is not None else None))

    def flush(self) -> None:
        """Write the kept updates, deletes and events (call inside the apply's transaction)."""
        fields = [f for f in Memory._meta.sorted_fields if f.name != "id"]
        table = Memory._meta.table_name
        db = self.store.db
        if self.dirty:
            sql = (f'UPDATE "{table}" SET ' + ", ".join(f'"{f.column_name}" = ?' for f in fields)
                   + ' WHERE "id" = ?')
            executemany(db, sql, [tuple(f.db_value(getattr(row, f.name)) for f in fields) + (row.id,)
                                  for row in self.dirty.values()])
        if self.deleted:
            executemany(db, f'DELETE FROM "{table}" WHERE "id" = ?', [(i,) for i in self.deleted])
        if self.events:
            names = list(self.events[0])
            columns = [Event._meta.fields[name] for name in names]
            sql = (f'INSERT INTO "{Event._meta.table_name}" (' + ", ".join(f'"{c.column_name}"' for c in columns)
                   + ", \"undone\") VALUES (" + ", ".join("?" for _ in columns) + ", ?)")
            executemany(db, sql, [tuple(c.db_value(e[n]) for c, n in zip(columns, names, strict=True)) + (False,)
                                  for e in self.events])
        self.dirty, self.deleted, self.events = {}, {}, []


@uses_store
def check_policy(store, plan: Plan, yes: bool) -> None:
    """Raise ``PolicyError`` (nothing changed) when ``memory.deletePolicy`` forbids the apply now."""
    policy = store.get_setting("memory.deletePolicy")
    if policy == "deny":
        raise PolicyError(f"memory.deletePolicy is deny: the {plan.kind} plan is refused; nothing changed "
                          "(`bestie memory config memory.deletePolicy ask` to allow applying with --yes)")
    if policy == "ask" and not yes:
        raise PolicyError("memory.deletePolicy is ask: review the plan (--dry-run), then apply it with "
                          "--apply --yes; nothing changed")


def check_merged_text(key: str, text: str | None, store=None, records: Iterable = ()) -> WriteDecision:
    """Pass a merged text (the plan's or the owner's edit) through the write gate (path ``cleanup``).

    Args:
        key: the merge operation's key, for the message.
        text: the merged text.
        store: the open ``MemoryStore``; with it and the merge's ``records``, the merged record's
            tier counts too (the core cap, with the members' tokens freed).
        records: the records the merge folds together.

    Returns:
        The gate's ``WriteDecision`` (its ``about`` binds the merged record).

    Raises:
        InvalidValueError: no word in it, or longer than a memory's text may be
            (``store.limits.MEMORY_TEXT_MAX``). SecretRefusedError: it looks like a secret.
        WriteRefusedError: venting, an injected block, core over its cap, someone else's trait in core.
    """
    if not textmod.normalize(text or ""):
        raise InvalidValueError(f"the merged text of {key} must contain at least one word")
    check_memory_text(text or "", f"the merged text of {key}")  # the limit of any memory's text
    records = list(records)
    bind = merged_binding(records) if records else {"scope": "project", "layer": "working", "user": None}
    return check_write(text or "", path="cleanup", store=store, kind=records[0].kind if records else "note",
                       scope=str(bind["scope"]), layer=bind["layer"], user=bind["user"],
                       replaces=[r.id for r in records]).raise_if_refused()


@uses_store
def apply_plan(store, plan: Plan, *, yes: bool = False, selected: Iterable[str | int] | None = None,
               actor: str = "owner") -> ApplyResult:
    """Apply the selected operations of ``plan`` in one transaction with one event batch.

    Args:
        store: the open ``MemoryStore``.
        plan: a plan from ``plan_build.build_*`` (operation texts possibly edited by the owner).
        yes: the owner confirmed (required when ``memory.deletePolicy`` is ask).
        selected: operation keys or 1-based numbers to apply; default: the operations whose
            ``selected`` flag is on. Blocked operations never apply.
        actor: who applies it (recorded in every event).

    Returns:
        ``ApplyResult``. An operation whose records changed since the plan was made is skipped.

    Raises:
        PolicyError: deletePolicy deny, or ask without ``yes``; nothing changed.
        InvalidValueError / SecretRefusedError: an edited merged text that is empty or a secret.
    """
    check_policy(store, plan, yes)
    policy = store.get_setting("memory.deletePolicy")
    if selected is None:
        ops = plan.selected_operations()
    else:
        ops = [plan.op(ref) for ref in selected]
    # merges first: an accepted resolution with a merged side is aimed at the merged record
    ops = sorted((o for o in ops if not o.blocked), key=lambda o: o.action != "merge")
    abouts = {op.key: check_merged_text(op.key, op.text, store, op.records).about
              for op in ops if op.action == "merge" and op.into is None}
    result = ApplyResult(batch=None)
    if not ops:
        return result
    with store.change(plan.kind, actor) as batch:
        writes = _Writes(store, [r.id for op in ops for r in op.records]
                         + [t.id for op in ops for t in (op.target, op.into) if t is not None])
        for op in ops:
            if op.action == "delete" and policy != "allow":
                result.skipped.append((op.key, f"memory.deletePolicy is {policy}; only allow hard-deletes"))
                continue
            reason = _apply_one(store, writes, batch, op, actor, result, abouts.get(op.key))
            if reason:
                result.skipped.append((op.key, reason))
            else:
                result.applied.append(op.key)
        writes.flush()
        if result.applied:
            result.batch = batch
    return result


def _current(writes: _Writes, op: Operation, result: ApplyResult, records=None) -> list[Memory] | str:
    """The rows of ``op`` (or of ``records``) if none changed since the plan; else the reason to skip.
    A row an earlier operation of this same apply wrote is not stale: that change is the plan's own
    (one record can be in a merge and an archive); the operation's own checks still apply."""
    rows = []
    for planned in op.records if records is None else records:
        row = writes.get(planned.id)
        if row is None:
            return f"#{planned.id} no longer exists"
        if row.id not in result.touched and any(getattr(row, name) != getattr(planned, name) for name in _WATCHED):
            return f"#{planned.id} changed since the plan was made"
        if row.pinned and op.action != "fix" and not (op.into is not None and op.into.id == row.id):
            return f"#{planned.id} is pinned"
        rows.append(row)
    return rows


def _apply_one(store, writes: _Writes, batch: str, op: Operation, actor: str, result: ApplyResult,
               about: str | None = None) -> str | None:

    if op.action == "supersede":
        return _supersede(writes, op, result, save_event=lambda row, before: _save(
            store, writes, batch, row, before, actor, result, op.reason))
    rows = _current(writes, op, result)
    if isinstance(rows, str):
        return rows
    now = store.clock()

    def save(row: Memory, before: dict, action: str, note: str | None = None) -> None:
        row.updated_at = now
        writes.save(row)
        writes.event(batch, action, row.id, before, snapshot(row), actor, note=note)
        result.changed_ids.append(row.id)
        result.touched.add(row.id)

    if op.action == "merge":
        return _merge(store, writes, batch, op, rows, actor, result, save, about)
    if op.action == "delete":
        for row in rows:
            if row.status not in ("forgotten", "rejected"):
                return f"#{row.id} is {row.status}; only forgotten/rejected records are hard-deleted"
            writes.event(batch, "delete", row.id, snapshot(row), None, actor, note=op.reason)
            writes.delete(row)
            result.deleted_ids.append(row.id)
        return None
    for row in rows:  # layer / archive / expire / fix
        before = snapshot(row)
        for name, value in op.changes.items():
            if name not in _FIXABLE:
                return f"{name} cannot be changed by a plan"
            setattr(row, name, value)
        save(row, before, op.action, note=op.reason)
    return None


def _save(store, writes: _Writes, batch: str, row: Memory, before: dict, actor: str, result: ApplyResult,
          note: str) -> None:

    row.updated_at = store.clock()
    writes.save(row)
    writes.event(batch, "supersede", row.id, before, snapshot(row), actor, note=note)
    result.changed_ids.append(row.id)
    result.touched.add(row.id)


def _supersede(writes: _Writes, op: Operation, result: ApplyResult, save_event) -> str | None:
    """Supersede ``op.records`` by the active head of ``op.target``. Records a merge of this apply
    folded are replaced by their merged record (its own changes are ours, not a stale plan)."""

    rows: dict[int, Memory] = {}
    unmerged = [r for r in op.records if r.id not in result.merged_into]
    current = _current(writes, op, result, unmerged)
    if isinstance(current, str):
        return current
    for row in current:
        rows[row.id] = row
    for r in op.records:
        if r.id in result.merged_into:
            survivor = writes.get(result.merged_into[r.id])
            assert survivor is not None  # a merge of this apply made or kept it
            rows[survivor.id] = survivor
    target = op.target
    assert target is not None  # plan_build gives every supersede operation its target
    head = writes.get(target.id)
    seen = set()
    while head is not None and head.superseded_by is not None and head.id not in seen:
        seen.add(head.id)
        head = writes.get(head.superseded_by)
    if head is None or head.status != "approved" or head.id in rows:
        return f"#{target.id} is no longer an active record"
    for row in rows.values():
        if row.superseded_by is not None or row.status != "approved":
            return f"#{row.id} is no longer active"
    for row in rows.values():
        before = snapshot(row)
        row.superseded_by = head.id
        save_event(row, before)
    return None


def _merge(store, writes: _Writes, batch, op, rows, actor, result, save, about: str | None = None) -> str | None:

    if any(r.status != "approved" or r.superseded_by is not None for r in rows):
        return "a member is no longer active"
    if op.into is not None:  # fold the others into the pinned member, which stays as it is
        survivor = next(r for r in rows if r.id == op.into.id)
        for row in rows:
            result.merged_into[row.id] = survivor.id
            if row.id != survivor.id:
                before = snapshot(row)
                row.superseded_by = survivor.id
                save(row, before, "merge", note=f"merged into the pinned #{survivor.id}")
        return None
    text = op.text.strip()
    keep = _survivor(op.records, text)
    bind = merged_binding(rows)
    uses = sum(r.access_count for r in rows)
    last = max((r.last_accessed_at for r in rows if r.last_accessed_at), default=None)
    confidence = max(r.confidence for r in rows)
    if keep is not None:
        survivor = next(r for r in rows if r.id == keep.id)
        before = snapshot(survivor)
        survivor.text, survivor.norm, survivor.terms = text, textmod.normalize(text), textmod.search_text(text)
        survivor.about = about or survivor.about
        for name, value in bind.items():
            setattr(survivor, name, value)
        survivor.access_count = uses
        survivor.last_accessed_at, survivor.confidence = last, confidence
        save(survivor, before, "merge", note=f"kept for {op.key}")
    else:
        base = max(rows, key=lambda r: (r.access_count, r.updated_at, r.id))
        now = store.clock()
        survivor = Memory.create(
            id=store.next_memory_id(), text=text, kind=base.kind, status="approved", pinned=False, confidence=confidence, expires_at=None,
            about=about or (base.about if len({r.about for r in rows}) == 1 else None), **bind,
            source="merge:" + ",".join(f"#{r.id}" for r in rows), created_at=now,
            updated_at=now, access_count=uses, last_accessed_at=last, norm=textmod.normalize(text),
            terms=textmod.search_text(text))
        writes.rows[survivor.id] = survivor
        writes.event(batch, "merge", survivor.id, None, snapshot(survivor), actor, note=op.key)
        result.created_ids.append(survivor.id)
    for row in rows:
        result.merged_into[row.id] = survivor.id
        if row.id == survivor.id:
            continue
        before = snapshot(row)
        row.superseded_by = survivor.id
        save(row, before, "merge", note=f"merged into #{survivor.id}")
    return None


__all__ = ["ApplyResult", "apply_plan", "check_policy", "check_merged_text"]
