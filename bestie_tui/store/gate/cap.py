"""The core cap: core memories are injected into every prompt, so they must stay under
``memory.coreTokenCap`` tokens (default 200) — checked when a write would put a memory in core,
not discovered later when a prompt silently leaves it out.

Core is measured as ``retrieval.assembly`` spends it: the title line ``Core:`` plus each active
core record's line (``markers.memory_line``), each with its newline, in the token mode of
``context.tokenMode``. Which records a prompt sees depends on its user: those of that user and the
unbound ones. For an unbound record (seen by every user) the fullest user's core counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bestie_tui.store.binding import uses_store
from bestie_tui.store.markers import CORE_TITLE, memory_line
from bestie_tui.store.models import Memory
from bestie_tui.text.tokens import MissingExtraError, count_tokens


@dataclass(frozen=True)
class CoreUsage:
    """Tokens of core before and after a write, and the cap (all in ``mode``)."""

    used: int
    adds: int
    cap: int
    mode: str

    @property
    def after(self) -> int:
        return self.used + self.adds

    @property
    def over(self) -> bool:
        return self.after > self.cap

    def message(self) -> str:
        return (f"core is capped at {self.cap} tokens (memory.coreTokenCap, {self.mode}) and holds {self.used}; "
                f"this memory adds {self.adds}, which would make {self.after}")


def _tokens(text: str, mode: str) -> int:
    try:
        return count_tokens(text, mode)
    except MissingExtraError:  # the estimate is still a fair check without the optional extra
        return count_tokens(text, "chars4")


def _active_core(now: datetime, exclude: Iterable[int], user: str | None = None) -> list[Any]:
    """The active core rows; of ``user`` and the unbound ones alone when ``user`` is given (the
    only ones its prompt sees), so a bulk import of many users' core does not read every user's."""
    q = Memory.select(Memory.id, Memory.text, Memory.about, Memory.user).where(
        (Memory.status == "approved") & Memory.superseded_by.is_null() & (Memory.stale == False)  # noqa: E712
        & (Memory.layer == "core") & (Memory.expires_at.is_null() | (Memory.expires_at > now)))
    skip = set(exclude)
    if user is not None:  # two indexed reads (``user = ?``, ``user IS NULL``), not a scan of every core row
        return [r for part in (q.where(Memory.user == user), q.where(Memory.user.is_null()))
                for r in part if r.id not in skip]
    return [r for r in q if r.id not in skip]


@uses_store
def core_usage(store: Any, text: str, about: str | None, user: str | None,
               exclude: Iterable[int] = ()) -> CoreUsage:
    """What core would hold if ``text`` (bound to ``user``) joined it.

    Args:
        store: the open ``MemoryStore`` (its clock and settings).
        text / about: the memory that would join core.
        user: its user; ``None`` for an unbound memory (then the fullest user's core counts).
        exclude: ids not to count (the memory itself when it is edited or moved, the records a merge
            replaces).

    Returns:
        ``CoreUsage`` (tokens used now, tokens added, the cap, the token mode).
    """
    mode = store.get_setting("context.tokenMode") or "chars4"
    cap = int(store.get_setting("memory.coreTokenCap"))
    per_user: dict[str | None, int] = {}
    for r in _active_core(store.clock(), exclude, user):
        per_user[r.user] = per_user.get(r.user, 0) + line_tokens(r.text, r.about, mode)
    return usage_of(per_user, text, about, user, mode, cap)


def line_tokens(text: str, about: str | None, mode: str) -> int:
    """Tokens of one core record's line in the block (``markers.memory_line`` and its newline)."""
    return _tokens(memory_line(text, about) + "\n", mode)


def usage_of(per_user: dict[str | None, int], text: str, about: str | None, user: str | None, mode: str,
             cap: int) -> CoreUsage:
    """``CoreUsage`` of ``text`` joining core, from the tokens each user's active core records hold now
    (``per_user``: user → tokens, ``None`` for the unbound records; of ``user`` and ``None`` alone
    are enough when ``user`` is given, every user's when it is ``None``)."""
    unbound = per_user.get(None, 0)
    if user is None:
        used = unbound + max((v for k, v in per_user.items() if k is not None), default=0)
    else:
        used = unbound + per_user.get(user, 0)
    title = _tokens(CORE_TITLE + "\n", mode)
    adds = line_tokens(text, about, mode) + (0 if used else title)
    return CoreUsage(used + (title if used else 0), adds, cap, mode)
