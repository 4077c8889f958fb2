"""What the gate reads from the database, read once for many writes: ``GateBatch``.

``check_write`` reads two things from the database besides the settings: the core a record would
join (``cap.core_usage``: the active core records of its user and the unbound ones) and the names
the owner gave as their own (``decision.owner_names``). One write asks once; an import of 100,000
records asked for each, a query and a page of rows per record. A ``GateBatch`` is made for one
transaction of many writes (a chunk of an import, ``transfer.exchange``): on the first question it
reads the answer for every user the batch names in one query, keeps it, and answers the rest from
memory. The writer tells it what it wrote (``wrote``), and the answers those rows change are read
again on the next question, so each decision sees the database as a write-by-write gate would.

A batch lives no longer than its transaction: another process may write between two.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from bestie_tui.store.gate.about import NAME_CUES, NAME_ROWS, names_given
from bestie_tui.store.gate.cap import CoreUsage, line_tokens, usage_of
from bestie_tui.store.models import Memory


def name_rows() -> Any:
    """The Peewee condition of a memory the owner may give their name in: approved, holding one of
    ``about.NAME_CUES`` (``LIKE``: ASCII letters in any case)."""
    holds = Memory.text.contains(NAME_CUES[0])
    for cue in NAME_CUES[1:]:
        holds = holds | Memory.text.contains(cue)
    return (Memory.status == "approved") & holds


def _active_core(now: datetime) -> Any:
    """The Peewee condition of an active core record at ``now`` (what a prompt's core shows)."""
    return ((Memory.status == "approved") & Memory.superseded_by.is_null() & (Memory.stale == False)  # noqa: E712
            & (Memory.layer == "core") & (Memory.expires_at.is_null() | (Memory.expires_at > now)))


class GateBatch:
    """The core and the owners' names for the writes of one transaction, read in batches.

    Args:
        store: the open ``MemoryStore`` (its clock, settings and database, bound by the caller).
        users: the users the batch's records belong to (``None`` for unbound ones): their core and
            names are read together on the first question. Another user asked about is read then.
    """

    def __init__(self, store: Any, users: Iterable[str | None]):
        self.store = store
        self.users: set[str | None] = set(users)
        self._settings: tuple[str, int] | None = None
        #: user → {memory id: tokens of its line}; users present were read (``None``: the unbound)
        self._core: dict[str | None, dict[int, int]] = {}
        self._core_read: set[str | None] = set()
        self._core_everyone = False
        self._names: dict[str, frozenset[str]] = {}

    # ----------------------------------------------------------------------------- the core cap
    def core_usage(self, text: str, about: str | None, user: str | None, exclude: Iterable[int] = ()) -> CoreUsage:
        """``cap.core_usage`` answered from the batch: one query the first time (for every user of
        the batch, or every user when ``user`` is ``None``), none after until a write changes core."""
        mode, cap = self._read_settings()
        self._read_core(user)
        skip = set(exclude)
        wanted = list(self._core) if user is None else [user, None]
        per_user = {u: sum(t for i, t in self._core.get(u, {}).items() if i not in skip) for u in wanted}
        return usage_of(per_user, text, about, user, mode, cap)

    def _read_settings(self) -> tuple[str, int]:
        if self._settings is None:
            self._settings = (self.store.get_setting("context.tokenMode") or "chars4",
                              int(self.store.get_setting("memory.coreTokenCap")))
        return self._settings

    def _read_core(self, user: str | None) -> None:
        if self._core_everyone or (user is not None and user in self._core_read and None in self._core_read):
            return
        mode = self._read_settings()[0]
        query = Memory.select(Memory.id, Memory.text, Memory.about, Memory.user).where(_active_core(self.store.clock()))
        if user is None:  # an unbound record is weighed against the fullest user's core: every user's
            self._core.clear()
            rows = list(query.tuples())
        else:
            missing = [u for u in {*self.users, user, None} if u not in self._core_read]
            named = sorted(u for u in missing if u is not None)
            for u in missing:
                self._core[u] = {}
            # the unbound rows, then the named users 500 at a time (bound parameters per query)
            parts = ([Memory.user.is_null()] if None in missing else []) + [
                Memory.user.in_(named[start:start + 500]) for start in range(0, len(named), 500)]
            rows = [row for part in parts for row in query.where(part).tuples()]
            self._core_read.update(missing)
        for mid, text, about, owner in rows:
            self._core.setdefault(owner, {})[mid] = line_tokens(text, about, mode)
        self._core_everyone = user is None

    # ------------------------------------------------------------------------------ owner names
    def owner_names(self, user: str) -> frozenset[str]:
        """``decision.owner_names`` answered from the batch: the first question reads the names of
        every named user of the batch in one query (at most ``about.NAME_ROWS`` rows each, by id)."""
        if user not in self._names:
            wanted = sorted({u for u in self.users if isinstance(u, str) and u not in self._names} | {user})
            texts: dict[str, list[str]] = {u: [] for u in wanted}
            for start in range(0, len(wanted), 500):
                part = wanted[start:start + 500]
                rows = (Memory.select(Memory.user, Memory.text).where(Memory.user.in_(part) & name_rows())
                        .order_by(Memory.user, Memory.id).tuples())
                for owner, text in rows:
                    held = texts[owner]
                    if len(held) < NAME_ROWS:
                        held.append(text)
            self._names.update((u, names_given(held)) for u, held in texts.items())
        return self._names[user]

    # ------------------------------------------------------------------------------------ writes
    def wrote(self, rows: Iterable[dict[str, Any]]) -> None:
        """The batch's writer inserted ``rows`` (field → value, as the model takes them): what they
        change (a user's core, the names in a user's approved memories) is read again when asked."""
        for row in rows:
            if row.get("status") != "approved":
                continue
            owner = row.get("user")
            if row.get("layer") == "core":
                if owner is None:  # in every user's core
                    self._core.clear()
                    self._core_read.clear()
                    self._core_everyone = False
                else:
                    self._core.pop(owner, None)
                    self._core_read.discard(owner)
                    self._core_everyone = False
            if isinstance(owner, str):
                self._names.pop(owner, None)
