"""Resolving a related pair: the owner's one answer to two memories the doctor could not decide.

The answers (``HOW``), each one change batch that ``store.undo()`` reverts:

* ``keep_both``: both stay as they are, and the store remembers the pair
  (``MemoryStore.keep_both``; ``store.history.pair_decisions.kept_pairs`` reads it back), so the doctor
  does not ask again;
* ``merge``: cleanup's merge of the two (``plan_apply``), applied as a plan of one operation: one
  record with the merged text — a member whose text it is stays, else a new record is made — seen
  wherever either member was (``plans.merged_binding``), the others superseded by it. The text is
  the owner's, or cleanup's proposal (``plan_build.best_text``: the most complete member's text);
* ``newer``: the newer replaces the older (``MemoryStore.supersede(older, newer)``);
* ``older``: the older stays and the newer is superseded by it.

Both memories must be active and of one user (``pair_decisions.check_pair``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from bestie_tui.errors import InvalidValueError, PolicyError
from bestie_tui.hygiene.plan_apply import apply_plan
from bestie_tui.hygiene.plan_build import best_text
from bestie_tui.hygiene.plans import Operation, Plan
from bestie_tui.store.binding import uses_store
from bestie_tui.store.history.pair_decisions import check_pair, kept_pairs
from bestie_tui.store.records import MemoryRecord
from bestie_tui.text.words import clip

HOW = ("keep_both", "merge", "newer", "older")
_UNDO = "undo with `bestie memory undo`"


@dataclass(frozen=True)
class Resolution:
    """What resolving a pair did.

    Attributes:
        how: one of ``HOW``.
        older / newer: the pair's ids, as given.
        active: the ids of the pair (or the merged record) that reach prompts afterwards.
        superseded: the ids superseded by the resolution.
        changed: False when nothing was written (the pair was already kept).
        message: one line for the owner (memory text in it is raw: print it with ``printable``).
    """

    how: str
    older: int
    newer: int
    active: tuple[int, ...]
    superseded: tuple[int, ...]
    changed: bool
    message: str

    def to_dict(self) -> dict:
        return asdict(self)


@uses_store
def resolve_pair(store, older_id: int, newer_id: int, how: str, *, text: str | None = None,
                 actor: str = "owner") -> Resolution:
    """Apply the owner's answer ``how`` (one of ``HOW``) to the pair ``older_id``/``newer_id``.

    Args:
        store: the open ``MemoryStore``.
        older_id / newer_id: the pair as the doctor reports it (older first).
        how: ``keep_both``, ``merge``, ``newer`` (the newer replaces the older) or ``older``
            (the older stays, the newer is superseded).
        text: ``merge`` only: the merged text; ``None`` takes cleanup's proposal (``best_text``).
        actor: who resolves it (recorded on the events).

    Returns:
        A ``Resolution``.

    Raises:
        NotFoundError: an id names no memory this store reaches.
        InvalidValueError: an unknown ``how``, a text with another answer than merge, the same id
            twice, a memory that is not active, two users' memories, a pinned memory to supersede or
            merge, an empty merged text.
        PolicyError: a merge under ``memory.deletePolicy`` deny (merges are cleanup operations).
        SecretRefusedError / WriteRefusedError: the write gate refuses the merged text.
        Nothing is written when it raises.
    """
    if how not in HOW:
        raise InvalidValueError(f"unknown resolution {how!r}; use one of {', '.join(HOW)}")
    if text is not None and how != "merge":
        raise InvalidValueError("only a merge takes a text")
    older, newer = check_pair(store, older_id, newer_id)
    o, n = older.id, newer.id
    if how == "keep_both":
        if frozenset((o, n)) in kept_pairs(store):
            return Resolution(how, o, n, (o, n), (), False, f"#{o} and #{n} are already kept both; nothing changed")
        store.keep_both(o, n, actor=actor)
        return Resolution(how, o, n, (o, n), (), True,
                          f"kept both #{o} and #{n}: the doctor will not ask again ({_UNDO})")
    if how == "newer":
        store.supersede(o, n, actor=actor)
        return Resolution(how, o, n, (n,), (o,), True,
                          f"#{n} replaces #{o}: #{o} is superseded, kept but no longer in prompts ({_UNDO})")
    if how == "older":
        store.supersede(n, o, actor=actor)
        return Resolution(how, o, n, (o,), (n,), True,
                          f"kept the older #{o}: #{n} is superseded by it, kept but no longer in prompts ({_UNDO})")
    merged, survivor = merge_pair(store, older, newer, text=text, actor=actor)
    where = f"#{survivor}" if survivor in (o, n) else f"the new #{survivor}"
    return Resolution(how, o, n, (survivor,), tuple(i for i in (o, n) if i != survivor), True,
                      f"merged #{o} and #{n} into {where}: “{clip(merged)}” ({_UNDO})")


@uses_store
def merge_pair(store, older: MemoryRecord, newer: MemoryRecord, *, text: str | None = None,
               actor: str = "owner") -> tuple[str, int]:
    """Merge two active memories of one user with cleanup's merge (one plan operation, applied by
    ``apply_plan`` in one transaction and one event batch). ``memory.deletePolicy`` ask needs no
    second confirmation: the owner named the two memories.

    Returns:
        ``(merged text, id of the merged record)``.

    Raises:
        InvalidValueError: a pinned member (it is never merged), an empty merged text, or a member
            that changed before the merge applied. PolicyError: deletePolicy deny.
        SecretRefusedError / WriteRefusedError: the write gate refuses the merged text.
    """
    if store.get_setting("memory.deletePolicy") == "deny":  # said here: apply_plan's words are about --yes
        raise PolicyError("memory.deletePolicy is deny: merges are refused; nothing changed "
                          "(`bestie memory config memory.deletePolicy ask` allows them)")
    records = [older, newer]
    for m in records:
        if m.pinned:
            raise InvalidValueError(f"memory #{m.id} is pinned; unpin it before merging it")
    merged = best_text(records) if text is None else text
    op = Operation(f"merge:{older.id},{newer.id}", "merge", records, "a related pair the owner merged",
                   text=merged)
    plan = Plan(kind="merge", created_at=store.clock(), delete_policy=store.get_setting("memory.deletePolicy"),
                operations=[op], active=len(records))
    result = apply_plan(store, plan, yes=True, actor=actor)
    if result.skipped:
        raise InvalidValueError(f"nothing was merged: {result.skipped[0][1]}")
    return merged.strip(), result.merged_into[older.id]


__all__ = ["HOW", "Resolution", "merge_pair", "resolve_pair"]
