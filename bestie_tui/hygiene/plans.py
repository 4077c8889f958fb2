"""Cleanup, rebalance and hygiene plans: data objects with a diff rendering, built from the store.

A ``Plan`` is a list of ``Operation``s. ``--dry-run`` prints ``plan.diff()`` (``-`` old, ``+`` new)
and the console draws the same object, so the preview and the apply cannot disagree. Applying is
``plan_apply.apply_plan(store, plan, yes=..., selected=...)``; the builders are in ``plan_build``: one transaction, one
event batch, undone as a whole by ``store.undo()``.

Rules every builder keeps:

* pinned records are never merged, archived, superseded or deleted;
* consolidate before deleting: duplicates are merged (the others get ``superseded_by``), stale
  records archived, expired ones archived; only forgotten/rejected records are ever hard-deleted,
  only ``purge_after_days`` after they were set aside, and only under ``memory.deletePolicy`` allow
  (under ask they are shown as blocked);
* a contradiction is resolved (older superseded by newer) only when the owner accepts it: those
  operations start unselected (``needs_acceptance``); event-vs-state pairs are notes, never operations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bestie_tui.errors import BestieError
from bestie_tui.store.records import MemoryRecord, iso
from bestie_tui.text.words import printable

ACTIONS = ("merge", "supersede", "archive", "expire", "delete", "layer", "fix")
PLAN_KINDS = ("cleanup", "rebalance", "hygiene")
#: A plan whose selected operations change more than this share of the active memories asks a
#: second time, saying how many (CLI ``--confirm-count N``, a second question in the console).
LARGE_SHARE = 0.20
#: ... and at least this many memories (tidying a handful in a small store asks once).
LARGE_MIN = 10
_LAYER_RANK = {"core": 0, "working": 1, "archive": 2}


class PlanChangedError(BestieError):
    """The plan rebuilt at apply time is not the one the owner reviewed (its fingerprint differs)."""


@dataclass
class Operation:
    """One change of a plan.

    Attributes:
        key: stable id, e.g. ``merge:3,5,9`` or ``supersede:4>7``.
        action: one of ``ACTIONS``.
        records: the affected memories as they were when the plan was made (the apply skips an
            operation whose records changed since).
        reason: why, in a few words.
        text: ``merge`` only: the merged text, which the owner may edit before applying.
        into: ``merge`` only: a pinned member the others are folded into; it is kept exactly as it
            is (its text is the merged text and cannot be edited).
        changes: ``layer``/``archive``/``expire``/``fix``: field → new value per record.
        target: ``supersede`` only: the record that replaces ``records`` (for a merged side, its
            newest member; the apply follows ``superseded_by`` to the merged record).
        source_merge / target_merge: ``supersede`` only: the key of the merge in the same plan
            that folds ``records`` / the target into one record (the resolution is aimed at it).
        selected: applied unless switched off.
        needs_acceptance: a contradiction resolution; off until the owner accepts it.
        blocked: why it cannot be applied now (e.g. deletePolicy), or ``None``.
    """

    key: str
    action: str
    records: list[MemoryRecord]
    reason: str
    text: str | None = None
    into: MemoryRecord | None = None
    changes: dict[str, Any] = field(default_factory=dict)
    target: MemoryRecord | None = None
    source_merge: str | None = None
    target_merge: str | None = None
    selected: bool = True
    needs_acceptance: bool = False
    blocked: str | None = None

    @property
    def ids(self) -> list[int]:
        return [r.id for r in self.records]

    def diff_lines(self) -> list[tuple[str, str]]:
        """``(sign, line)`` pairs: ``-`` old, ``+`` new, `` `` context. Memory text is made printable."""
        out: list[tuple[str, str]] = []
        if self.action == "merge" and self.into is not None:
            for r in self.records:
                if r.id != self.into.id:
                    out.append(("-", _line(r)))
            out.append(("+", f"{_line(self.into)}  (pinned, kept as it is; the others superseded→#{self.into.id})"))
        elif self.action == "merge":
            for r in self.records:
                out.append(("-", _line(r)))
            keep = _survivor(self.records, self.text or "")
            bind = merged_binding(self.records)
            if keep is not None:
                out.append(("+", f"#{keep.id} [{bind['layer']}] {printable(self.text or '')}  "
                                 f"(kept; the others superseded→#{keep.id})"))
            else:
                out.append(("+", f"#new [{bind['layer']}] {printable(self.text or '')}  "
                                 f"(the {len(self.records)} above superseded→#new)"))
            out.append((" ", "   merged record: " + ", ".join(
                f"{name} {printable(bind[name]) if bind[name] is not None else 'any'}"
                for name in ("scope", "layer", "user", "channel", "project", "session"))))
        elif self.action == "supersede":
            t = self.target
            assert t is not None  # plan_build gives every supersede operation its target
            newer = f"the merged record of {self.target_merge}" if self.target_merge else f"#{t.id}"
            for r in self.records:
                out.append(("-", _line(r)))
            if self.source_merge:
                out.append(("+", f"the merged record of {self.source_merge}  [superseded→{newer}]"))
            else:
                out.extend(("+", f"{_line(r)}  [superseded→{newer}]") for r in self.records)
            out.append((" ", f"   kept: {newer if self.target_merge else _line(t)}"))
        elif self.action == "delete":
            for r in self.records:
                out.append(("-", f"{_line(r)}  [{r.status}; deleted for good]"))
        else:
            for r in self.records:
                new = self.changes
                if set(new) <= {"layer"}:
                    out.append(("-", _line(r)))
                    out.append(("+", _line(r, layer=new.get("layer", r.layer))))
                else:
                    for name, value in new.items():
                        out.append(("-", f"#{r.id} {name}={_show(getattr(r, name))}"))
                        out.append(("+", f"#{r.id} {name}={_show(value)}"))
        return out

    def header(self) -> str:
        """``[x] key: reason``; the key is what ``--accept/--skip/--text`` take (numbers shift)."""
        mark = "x" if self.selected and not self.blocked else " "
        extra = " (needs your acceptance)" if self.needs_acceptance and not self.selected else ""
        blocked = f" — blocked: {self.blocked}" if self.blocked else ""
        return f"[{mark}] {self.key}: {self.reason}{extra}{blocked}"

    def state(self) -> tuple:
        """What the owner reviewed of this operation, for ``Plan.fingerprint``: its key and the
        records (and target) as they were. Owner choices (``selected``, an edited ``text``) are left
        out, so accepting or editing does not change the fingerprint."""
        records = self.records + ([self.target] if self.target is not None else [])
        return (self.key, self.action, self.blocked,
                tuple((r.id, iso(r.updated_at), r.text, r.status, r.superseded_by) for r in records))

    def to_dict(self) -> dict:
        return {"key": self.key, "action": self.action, "ids": self.ids, "reason": self.reason,
                "text": self.text, "changes": {k: _show(v) for k, v in self.changes.items()},
                "target": self.target.id if self.target else None, "selected": self.selected,
                "needs_acceptance": self.needs_acceptance, "blocked": self.blocked,
                "diff": [f"{s} {line}" for s, line in self.diff_lines()]}


@dataclass
class Plan:
    """A cleanup, rebalance or hygiene plan. ``operations`` are numbered from 1 in ``diff()``."""

    kind: str
    created_at: datetime
    delete_policy: str
    operations: list[Operation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Active approved memories when the plan was built (0: unknown), for ``is_large``.
    active: int = 0

    def changed_count(self) -> int:
        """Distinct memories the selected, unblocked operations change."""
        return len({r.id for o in self.selected_operations() for r in o.records})

    def is_large(self) -> bool:
        """True when the selected operations change more than ``LARGE_SHARE`` of the active memories
        and at least ``LARGE_MIN`` of them."""
        n = self.changed_count()
        return self.active > 0 and n >= LARGE_MIN and n > LARGE_SHARE * self.active

    def large_text(self) -> str:
        """``"This plan changes 1,200 of 5,000 active memories (24 %)."``"""
        n = self.changed_count()
        share = round(100 * n / self.active) if self.active else 0
        return f"This plan changes {n:,} of {self.active:,} active memories ({share} %)."

    def fingerprint(self) -> str:
        """12 hex digits of SHA-256 over the plan's operations in order (``Operation.state``): equal
        fingerprints mean the same operations, numbered the same, on the same record versions.
        ``--dry-run`` prints it; ``--apply --plan FP`` refuses a plan whose fingerprint differs."""
        import hashlib
        import json

        blob = json.dumps([self.kind] + [list(o.state()) for o in self.operations], default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]

    def check_fingerprint(self, expected: str) -> None:
        """Raise ``PlanChangedError`` when ``expected`` (from a dry run) is not this plan's fingerprint."""
        now = self.fingerprint()
        if expected.strip().lower() != now:
            raise PlanChangedError(
                f"the {self.kind} plan changed since the dry run (fingerprint {expected.strip()}, now {now}): "
                "nothing changed; run --dry-run again and review it")

    def op(self, ref: str | int) -> Operation:
        """An operation by key or 1-based number. Raises ``InvalidValueError``.

        A number is a position in *this* plan: use it only on a plan whose fingerprint the owner
        checked (the CLI requires ``--plan`` for numbers with ``--apply``)."""
        from bestie_tui.errors import InvalidValueError

        if isinstance(ref, int) or (str(ref).isdigit() and len(str(ref)) <= 18):
            index = int(ref) - 1
            if 0 <= index < len(self.operations):
                return self.operations[index]
        for op in self.operations:
            if op.key == ref:
                return op
        from bestie_tui.text.words import clip

        raise InvalidValueError(f"the {self.kind} plan has no operation {clip(repr(ref))}")

    def selected_operations(self) -> list[Operation]:
        return [o for o in self.operations if o.selected and not o.blocked]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for o in self.selected_operations():
            out[o.action] = out.get(o.action, 0) + 1
        return out

    def policy_text(self) -> str:
        """What ``memory.deletePolicy`` allows, in one sentence (the confirmation states it)."""
        return {
            "deny": "memory.deletePolicy is deny: applying is refused; nothing will change.",
            "ask": "memory.deletePolicy is ask: applying needs your confirmation; soft changes only "
                   "(merge, supersede, archive), no hard delete.",
            "allow": "memory.deletePolicy is allow: the plan applies, hard deletes of forgotten/rejected "
                     "records included.",
        }[self.delete_policy]

    def diff(self) -> str:
        """The whole plan as text: numbered operation headers, each followed by its diff lines."""
        lines = [f"{self.kind} plan: {len(self.selected_operations())} of {len(self.operations)} operations "
                 f"selected. {self.policy_text()}",
                 f"plan fingerprint {self.fingerprint()} (refer to operations by key, or by number "
                 f"with --plan {self.fingerprint()})"]
        for n, op in enumerate(self.operations, 1):
            lines.append(f"{n:>3}. {op.header()}")
            lines.extend(f"     {sign} {text}" for sign, text in op.diff_lines())
        lines.extend(f"note: {printable(n)}" for n in self.notes)
        if not self.operations:
            lines.append("nothing to do")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "fingerprint": self.fingerprint(), "created_at": iso(self.created_at),
                "delete_policy": self.delete_policy,
                "policy": self.policy_text(), "operations": [o.to_dict() for o in self.operations],
                "notes": self.notes, "selected_counts": self.counts()}


def _line(r: MemoryRecord, layer: str | None = None) -> str:
    # the tier (archive for a forgotten/rejected/superseded record), as ``bestie memory list`` shows it
    where = layer or r.tier
    return f"#{r.id} [{where}{', pinned' if r.pinned else ''}] {printable(r.text)}"


def _show(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    return printable(value) if isinstance(value, str) else value


def _survivor(records: list[MemoryRecord], text: str) -> MemoryRecord | None:
    """The member whose text already is the merged text (it stays; the others point to it)."""
    from bestie_tui.text.words import normalize

    norm = normalize(text)
    return next((r for r in records if normalize(r.text) == norm), None)


_SCOPE_RANK = {"core": 0, "project": 1, "session": 2}
BINDINGS = ("user", "channel", "project", "session")


def merged_binding(records: list[MemoryRecord]) -> dict[str, Any]:
    """Where a merged record is seen: never narrower than any member, so no request that got a member
    before the merge gets nothing after it.

    Returns ``{"scope", "layer", "user", "channel", "project", "session"}``: the widest scope
    (core > project > session), the most visible layer (core > working > archive), and each binding
    kept only when every member has the same value, else ``None`` (unbound: seen everywhere)."""
    out: dict[str, Any] = {
        "scope": min((r.scope for r in records), key=lambda v: _SCOPE_RANK.get(v, 1)),
        "layer": min((r.layer for r in records), key=lambda v: _LAYER_RANK.get(v, 1)),
    }
    for name in BINDINGS:
        values = {getattr(r, name) for r in records}
        out[name] = values.pop() if len(values) == 1 else None
    return out


__all__ = ["Operation", "Plan", "PlanChangedError", "merged_binding", "LARGE_SHARE"]
