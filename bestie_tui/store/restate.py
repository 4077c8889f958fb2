"""A fact said again: find the record it restates, and bring it back.

``propose`` and ``add`` call ``find_restated`` first: the record with the same normalised text and
the same user, in this order of preference: active (approved, not superseded, not expired),
pending, expired, superseded, forgotten, rejected. Then ``restate``:

* **active or pending**: reinforced (confidence +0.05), and its expiry follows the restatement —
  said again without a TTL, the old expiry is cleared; with one, it is set anew (``reinforce``);
* **expired**: revived in place (``revive``): the expiry follows the restatement, as above. The
  owner approved this very text before; only its time ran out;
* **superseded or rejected**: revived in place when the owner says it (``add``) or the assistant
  may store directly (writePolicy allow): approved again, and when it was superseded, the record in
  force that replaced it is now superseded by it, so the old answer stops being injected. Under
  writePolicy ask the assistant's restatement is a new pending proposal instead (the owner
  decides), which on approval takes over the same way (``take_over``);
* **forgotten**: revived in place only by the owner's ``add``. The assistant's restatement, under
  any write policy, is a new pending proposal that says the owner forgot it: the owner's forget
  is never undone by the assistant alone.

Every change is one event batch, undone as a whole.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from bestie_tui.store.binding import uses_store
from bestie_tui.store.gate import check_write
from bestie_tui.store.models import Memory
from bestie_tui.store.records import MemoryRecord, ProposalResult, iso
from bestie_tui.store.support import snapshot, to_record
from bestie_tui.text import words as textmod
from bestie_tui.text.ttl import parse_ttl

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore

_ORDER = ("active", "pending", "expired", "superseded", "forgotten", "rejected")


def state_of(row: Memory, now: datetime) -> str:
    """``active``, ``pending``, ``expired``, ``superseded``, ``forgotten`` or ``rejected``."""
    if row.status in ("pending", "forgotten", "rejected"):
        return str(row.status)
    if row.superseded_by is not None:
        return "superseded"
    if row.expires_at is not None and row.expires_at <= now:
        return "expired"
    return "active"


def find_restated(text: str, user: str | None, now: datetime) -> Memory | None:
    """The record ``text`` restates for ``user`` (same ``normalize`` and ``same_text``), best state first (see the
    module docstring), then the oldest; ``None`` when there is none."""
    norm = textmod.normalize(text or "")
    if not norm:
        return None
    same_user = Memory.user.is_null() if user is None else (Memory.user == user)
    rows = [r for r in Memory.select().where((Memory.norm == norm) & same_user).order_by(Memory.id)
            if textmod.same_text(r.text, text)]  # accents and "C++" are not spelling
    if not rows:
        return None
    return min(rows, key=lambda r: (_ORDER.index(state_of(r, now)), r.id))


def _head(row: Memory) -> Memory | None:
    """The record in force at the end of ``row``'s supersede chain (``None`` if the chain breaks)."""
    seen: set[int] = set()
    cursor: Memory | None = row
    while cursor is not None and cursor.superseded_by is not None and cursor.id not in seen:
        seen.add(cursor.id)
        cursor = Memory.get_or_none(Memory.id == cursor.superseded_by)
    return cursor


def _what_it_was(row: Memory, state: str) -> str:
    if state == "expired":
        return f"it had expired on {iso(row.expires_at)}"
    if state == "superseded":
        return f"it had been superseded by #{row.superseded_by}"
    return f"it had been {state}"


@uses_store
def restate(store: MemoryStore, row: Memory, *, ttl: str | None, actor: str, revive: bool,
            confidence_bump: float = 0.05) -> tuple[ProposalResult | None, str]:
    """Apply a restatement of ``row`` (from ``find_restated``).

    Args:
        ttl: the restatement's TTL; ``None`` clears the record's expiry.
        revive: a superseded, forgotten or rejected record may come back in place (the owner's
            ``add``, or ``propose`` under writePolicy allow; a forgotten one only for the owner).

    Returns:
        ``(result, note)``: the result when the restatement was applied here, else ``None`` and a
        note for the new proposal the caller then creates ("it restates #4, superseded by #9").

    Raises:
        InvalidValueError: a bad TTL. WriteRefusedError: bringing it back would break a gate rule
            (the core cap, for a record in core) and the owner asked; the assistant's restatement
            becomes a new proposal instead.
    """
    now = store.clock()
    state = state_of(row, now)
    expires = parse_ttl(ttl, now) if ttl else None
    if state in ("active", "pending"):
        note = "; its expiry was cleared" if row.expires_at is not None and expires is None else ""
        record = _apply(store, row, "reinforce", actor, expires, confidence_bump)
        return ProposalResult("duplicate", record, f"already remembered as #{record.id} ({record.status}); "
                                                   f"reinforced it{note}"), ""
    if state == "forgotten" and actor != "owner":
        return None, f"it restates #{row.id}, which the owner forgot"  # the owner's forget stands
    if state != "expired" and not revive:
        return None, f"it restates #{row.id} ({_what_it_was(row, state)})"
    decision = check_write(row.text, path="revive", store=store, kind=row.kind, scope=row.scope, layer=row.layer,
                           user=row.user, about=row.about, memory_id=row.id)
    if decision.refused:
        if actor == "owner":
            decision.raise_if_refused()
        return None, f"it restates #{row.id} ({_what_it_was(row, state)})"
    head = _head(row) if state == "superseded" else None
    record = _apply(store, row, "revive", actor, expires, confidence_bump, replaced=head)
    tail = ""
    if head is not None and head.id != row.id and head.status == "approved" and head.superseded_by is None:
        tail = f"; #{head.id} is pinned, so it stays in force too" if head.pinned else f"; it replaces #{head.id} again"
    return ProposalResult("revived", record, f"revived #{record.id} ({_what_it_was(row, state)}){tail}"), ""


def _apply(store: MemoryStore, row: Memory, action: str, actor: str, expires: datetime | None, bump: float,
           replaced: Memory | None = None) -> MemoryRecord:
    with store.change(action, actor) as batch:
        row = Memory.get_by_id(row.id)
        before = snapshot(row)
        row.confidence = min(1.0, round(row.confidence + bump, 4))
        row.expires_at = expires
        if action == "revive":
            row.status = "approved"
            row.superseded_by = None
        row.updated_at = store.clock()
        row.save()
        store.record_event(batch, action, row.id, before, snapshot(row), actor)
        if replaced is not None:
            _supersede_by(store, batch, replaced, row, actor)
    return to_record(row)


def _supersede_by(store: MemoryStore, batch: str, head: Memory, new: Memory, actor: str) -> None:
    head = Memory.get_by_id(head.id)
    if head.id == new.id or head.status != "approved" or head.superseded_by is not None or head.pinned:
        return
    before = snapshot(head)
    head.superseded_by = new.id
    head.updated_at = store.clock()
    head.save()
    store.record_event(batch, "supersede", head.id, before, snapshot(head), actor, note=f"restated as #{new.id}")


@uses_store
def take_over(store: MemoryStore, batch: str, row: Memory, actor: str) -> list[int]:
    """After ``row`` is approved: every approved record with its text (same user) that was
    superseded has its chain's record in force superseded by ``row`` — a restatement that was
    queued for review replaces the answer that had replaced it. Returns the ids superseded."""
    same_user = Memory.user.is_null() if row.user is None else (Memory.user == row.user)
    done: list[int] = []
    olds = Memory.select().where((Memory.norm == row.norm) & same_user & (Memory.id != row.id)
                                 & (Memory.status == "approved") & Memory.superseded_by.is_null(False))
    for old in olds:
        if not textmod.same_text(old.text, row.text):
            continue  # another text that only folds the same ("bơ" / "bò")
        head = _head(old)
        if head is not None and head.id != row.id and head.id not in done and head.status == "approved" \
                and head.superseded_by is None and not head.pinned:
            _supersede_by(store, batch, head, row, actor)
            done.append(head.id)
    return done

