"""Governance: which approved memories a request may see (``memory.governance``), as SQL.

* ``governed`` (default): records bound to the request's user (or to no user: the owner's general
  memories) **and** to the request's channel or to none **and** to its project or to none.
* ``full``: every channel and project of that user (and unbound records).

No mode ever reaches a record bound to another user: the user condition is the same in both.
``active_condition`` is the other half of every retrieval query: it keeps out stale, superseded,
expired, pending, rejected and forgotten records in SQL, before any scoring.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from peewee import fn

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.binding import uses_store
from bestie_tui.store.models import Memory

if TYPE_CHECKING:  # pragma: no cover
    from bestie_tui.store.memory_store import MemoryStore

GOVERNANCE_MODES = ("governed", "full")
MEANING = {
    "governed": "a request sees only its user's records bound to its channel and project, or to none",
    "full": "a request sees its user's records from every channel and project",
}


def active_condition(now: datetime):
    """SQL condition: approved, not stale, not superseded, not expired at ``now`` (naive UTC)."""
    return (
        (Memory.status == "approved")
        & (Memory.stale == False)  # noqa: E712 (peewee expression)
        & Memory.superseded_by.is_null()
        & (Memory.expires_at.is_null() | (Memory.expires_at > now))
    )


def user_condition(user: str | None):
    """SQL condition: the request's user's records and unbound ones; never another user's."""
    if user is None:
        return Memory.user.is_null()
    return (Memory.user == user) | Memory.user.is_null()


def scope_condition(mode: str, user: str | None, channel: str | None, project: str | None):
    """SQL condition of the records a request may see under governance ``mode``.

    Raises:
        InvalidValueError: ``mode`` is not ``governed`` or ``full``.
    """
    check_mode(mode)
    cond = user_condition(user)
    if mode == "governed":
        cond &= _bound_to(Memory.channel, channel) & _bound_to(Memory.project, project)
    return cond


def _bound_to(column, value: str | None):
    return column.is_null() if value is None else (column.is_null() | (column == value))


def check_mode(mode: str) -> str:
    if mode not in GOVERNANCE_MODES:
        raise InvalidValueError(f"unknown governance mode {mode!r}; use governed or full")
    return mode


@dataclass(frozen=True)
class Bindings:
    """Distinct users, channels and projects of approved memories (what the Context view offers)."""

    users: list[str] = field(default_factory=list)
    channels: list[str] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@uses_store
def bindings(store: MemoryStore) -> Bindings:
    """Sorted distinct non-empty user, channel and project values of approved memories.

    One ``DISTINCT`` scan of the approved rows' three columns (a scan per column cost a Context view's first
    switch 0.24 s at 100,000 memories)."""
    q = (Memory.select(Memory.user, Memory.channel, Memory.project).distinct()
         .where(Memory.status == "approved").tuples())
    users: set[str] = set()
    channels: set[str] = set()
    projects: set[str] = set()
    for user, channel, project in cast("Iterable[tuple[str | None, str | None, str | None]]", q):
        for found, value in ((users, user), (channels, channel), (projects, project)):
            if value is not None:
                found.add(value)
    return Bindings(sorted(users), sorted(channels), sorted(projects))


@dataclass(frozen=True)
class GovernanceStatus:
    """What ``governance status`` prints.

    Attributes:
        mode: ``governed`` or ``full``; ``meaning`` explains it in one line.
        users: approved active records per user (``"(unbound)"`` for records bound to no user).
        channel_bound / project_bound: approved active records bound to some channel / project, i.e.
            the records that governed mode keeps to their own channel / project.
        unbound: approved active records bound to no user, channel or project (seen by every request).
    """

    mode: str
    meaning: str
    users: dict[str, int]
    channel_bound: int
    project_bound: int
    unbound: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@uses_store
def governance_status(store: MemoryStore) -> GovernanceStatus:
    """The current mode and how the active approved records are bound."""
    mode = store.get_setting("memory.governance")
    active = active_condition(store.clock())
    per_user = dict(cast("Iterable[tuple[str | None, int]]",
                         Memory.select(Memory.user, fn.COUNT(Memory.id)).where(active).group_by(Memory.user).tuples()))
    users = {("(unbound)" if u is None else u): n for u, n in sorted(per_user.items(), key=lambda kv: (kv[0] is None, kv[0] or ""))}
    count = lambda cond: Memory.select().where(active & cond).count()  # noqa: E731
    return GovernanceStatus(
        mode=mode,
        meaning=MEANING.get(mode, ""),
        users=users,
        channel_bound=count(Memory.channel.is_null(False)),
        project_bound=count(Memory.project.is_null(False)),
        unbound=count(Memory.user.is_null() & Memory.channel.is_null() & Memory.project.is_null()),
    )


@uses_store
def set_policy(store: MemoryStore, mode: str, actor: str = "owner") -> GovernanceStatus:
    """Set ``memory.governance`` to ``mode`` (an undoable setting event). Returns the new status.

    Raises:
        InvalidValueError: ``mode`` is not ``governed`` or ``full``.
    """
    store.set_setting("memory.governance", check_mode(mode), actor)
    return governance_status(store)
