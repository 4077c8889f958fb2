"""The read side of ``MemoryStore``: get/open, filtered listing (with a tolerant text match), counts, the
pending queue, similar memories, status and summary figures, the users and the audit history. A mixin:
``MemoryStore`` (``memory_store.py``) supplies ``clock``, ``path``, ``_row`` and the settings it reads.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from peewee import Case, fn

from bestie_tui.store.db import SCHEMA_VERSION
from bestie_tui.store.models import LAYERS, Event, Memory, Message
from bestie_tui.store.query import memory_query, tier_condition
from bestie_tui.store.records import EventRecord, MemoryRecord, StoreStatus, Summary, UserCounts
from bestie_tui.store.support import _clamp, _parse_dt, to_record


class StoreReads:
    """Read methods of ``MemoryStore``; none of them writes except ``open`` (access counters)."""

    if TYPE_CHECKING:  # supplied by ``MemoryStore``; declared here for the type checker only
        path: Path | str
        location: str
        clock: Callable[[], datetime]
        db: Any

        def _row(self, memory_id: int) -> Memory: ...
        def get_setting(self, key: str) -> Any: ...
        def owns(self, user: str | None) -> bool: ...
        @property
        def write_policy(self) -> str: ...
        @property
        def paused(self) -> bool: ...

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
        with_unbound: bool = False,
    ) -> list[MemoryRecord]:
        """Memories matching every given filter, newest id first. ``query`` is a tolerant text match
        (see ``search``). ``tier`` is core/working/archive as the Tiers view shows them.
        ``with_unbound``: with ``user``, also the memories bound to no user (the owner's general
        memories, which recall injects for them).

        Raises:
            InvalidValueError: an unknown scope, status or tier.
        """
        unbound = with_unbound and user is not None
        q = memory_query(scope=scope, status=status, tier=tier, user=None if unbound else user, query=query)
        if unbound:
            q = q.where((Memory.user == user) | Memory.user.is_null())
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

    def pending(self, query: str | None = None, limit: int | None = None) -> builtins.list[MemoryRecord]:
        """Pending proposals, oldest first (the triage order)."""
        q = memory_query(status="pending", query=query).order_by(Memory.created_at, Memory.id)
        if limit is not None:
            q = q.limit(_clamp(limit))
        return [to_record(r) for r in q]

    def pending_ids(self, query: str | None = None) -> builtins.list[int]:
        """Ids of pending proposals in triage order (oldest first), optionally narrowed by a tolerant
        text ``query``: a triage queue that holds only ids, however long it is.

        Raises:
            InvalidValueError: the query has no words.
        """
        q = memory_query(status="pending", query=query).select(Memory.id)
        return [row_id for (row_id,) in cast("Iterable[tuple[int]]", q.order_by(Memory.created_at, Memory.id).tuples())]

    def similar(self, text: str, *, k: int = 5, user: str | None = None,
                exclude_id: int | None = None) -> builtins.list[tuple[MemoryRecord, float]]:
        """Active approved memories (not superseded, not expired) most like ``text``: cosine over binary term vectors weighted by IDF
        (computed over the approved set). Returns up to ``k`` ``(record, score 0..1)``, best first.

        The approved set's term sets are prepared once per state of the event log (and count of
        memories) and user, then reused: the Pending view asks once per proposal."""
        prepared = self._approved_terms(user)
        without = prepared.left_out(self.clock(), exclude_id)
        ranked: builtins.list[tuple[int, float]] = prepared.sets.rank(text, k, without)
        rows_by_id = {r.id: r for r in Memory.select().where(Memory.id.in_([i for i, _ in ranked]))}
        return [(to_record(rows_by_id[i]), score) for i, score in ranked if i in rows_by_id]

    def newest_with_terms(self, words: Iterable[str], *, user: str | None, limit: int,
                          exclude_id: int | None = None) -> builtins.list[int]:
        """Ids of the newest (highest id first) active approved memories bound to exactly ``user``
        (``None``: bound to no user) whose search terms (``Memory.terms``) include any of ``words``;
        at most ``limit``. What ``terms LIKE '% w %'`` finds, from the term sets ``similar`` prepares,
        so a lookup costs the matches instead of a scan of every row (about 0.3 s at 100,000)."""
        prepared = self._approved_terms(user)
        without = prepared.left_out(self.clock(), exclude_id)
        holders = prepared.holders()
        found = sorted({n for w in words for n in holders.get(w, ())}, reverse=True)
        out: builtins.list[int] = []
        for n in found:
            if n in without or (n in prepared.unbound) != (user is None):
                continue
            out.append(prepared.sets.items[n])
            if len(out) >= limit:
                break
        return out

    def _approved_terms(self, user: str | None) -> _ApprovedTerms:
        """The approved, not superseded memories of ``user`` and of no user, prepared for term
        lookups; cached per user for one state of the event log (and count of memories) at a time."""
        from bestie_tui.store.db import read_stamp
        from bestie_tui.text.similarity import TermSets

        stamp = read_stamp(self.db)  # nothing written since the last look: same state
        seen = self.__dict__.get("_similar_state")
        if stamp is not None and seen is not None and seen[0] == stamp:
            state = seen[1]
        else:
            low, high = cast("tuple[int | None, int | None]",
                             Event.select(fn.MIN(Event.id), fn.MAX(Event.id)).tuples().get())
            state = (low, high, Memory.select().count())
            self._similar_state = (stamp, state)
        cache: dict[tuple, _ApprovedTerms] = self.__dict__.setdefault("_similar_sets", {})
        if cache and next(iter(cache))[:3] != state:
            cache.clear()  # one state of the log at a time: an older one will not come back
        prepared = cache.get((*state, user))
        if prepared is None:
            q = Memory.select(Memory.id, Memory.terms, Memory.expires_at, Memory.user).where(
                (Memory.status == "approved") & Memory.superseded_by.is_null())
            if user is not None:
                q = q.where((Memory.user == user) | Memory.user.is_null())
            rows = cast("list[tuple[int, str, datetime | None, str | None]]", list(q.order_by(Memory.id).tuples()))
            # positions of the rows that may expire, and of every id: a lookup leaves out a few, not
            # a pass over 100,000 rows per proposal
            prepared = _ApprovedTerms(TermSets([(i, terms) for i, terms, _, _ in rows]),
                                      [(n, exp) for n, (_, _, exp, _) in enumerate(rows) if exp is not None],
                                      {i: n for n, (i, _, _, _) in enumerate(rows)},
                                      frozenset(n for n, (_, _, _, u) in enumerate(rows) if u is None),
                                      [terms for _, terms, _, _ in rows])
            cache[(*state, user)] = prepared
        return prepared

    def tier_counts(self) -> dict[str, int]:
        """``{"core": n, "working": n, "archive": n, "pending": n}`` as the console shows them."""
        counts = {t: Memory.select().where(tier_condition(t)).count() for t in LAYERS}
        counts["pending"] = Memory.select().where(Memory.status == "pending").count()
        return counts

    def status(self) -> StoreStatus:
        """Policies, paused state and counts: what ``bestie memory status`` prints."""
        by_status = dict(cast(
            "Iterable[tuple[str, int]]", Memory.select(Memory.status, fn.COUNT(Memory.id)).group_by(Memory.status).tuples()
        ))
        return StoreStatus(
            db_path=self.location,
            schema_version=SCHEMA_VERSION,
            write_policy=self.write_policy,
            delete_policy=self.get_setting("memory.deletePolicy"),
            paused=self.paused,
            governance=self.get_setting("memory.governance"),
            counts={s: by_status.get(s, 0) for s in ("pending", "approved", "rejected", "forgotten")},
            tiers=self.tier_counts(),
            messages=Message.select().count(),
            events=Event.select().count(),
            forget_requests=len(self.forget_requested()),
        )

    def forget_requested(self) -> builtins.list[int]:
        """The ids of the memories the assistant asked to forget that await the owner, oldest request
        first (this store's user only; the queue is ``agent.forget_requests``)."""
        queue = self.get_setting("agent.forgetRequests") or []
        return [int(i["memory_id"]) for i in queue if isinstance(i, dict) and str(i.get("memory_id", "")).isdigit()
                and self.owns(i.get("user"))]

    def summary(self, recent: int = 5) -> Summary:
        """Counts by status, tier, kind and scope, plus the ``recent`` newest approved memories."""
        now = self.clock()
        out = Summary()
        for field_name, target in (("status", out.by_status), ("kind", out.by_kind), ("scope", out.by_scope)):
            column = getattr(Memory, field_name)
            target.update(dict(cast("Iterable[tuple[str, int]]",
                                    Memory.select(column, fn.COUNT(Memory.id)).group_by(column).tuples())))
        out.by_tier = {t: n for t, n in self.tier_counts().items() if t != "pending"}
        active = Memory.status == "approved"
        out.expired = Memory.select().where(active & (Memory.expires_at <= now)).count()
        out.stale = Memory.select().where(active & Memory.stale).count()
        out.pinned = Memory.select().where(active & Memory.pinned).count()
        out.recent = self.list(status="approved", limit=recent)
        return out

    def users(self) -> builtins.list[UserCounts]:
        """Every user the database (or this store's binding) holds rows of, with their counts: from
        the memories and the messages, ordered by user id, the rows bound to no user (``user``
        ``None``, the owner's) first. Two grouped queries."""
        approved = fn.SUM(Case(None, [(Memory.status == "approved", 1)], 0))
        pending = fn.SUM(Case(None, [(Memory.status == "pending", 1)], 0))
        memories = {u: (n, int(a or 0), int(p or 0)) for u, n, a, p in cast(
            "Iterable[tuple[str | None, int, int, int]]",
            Memory.select(Memory.user, fn.COUNT(Memory.id), approved, pending).group_by(Memory.user).tuples())}
        messages = {u: (n, _parse_dt(at)) for u, n, at in cast(
            "Iterable[tuple[str | None, int, Any]]",
            Message.select(Message.user, fn.COUNT(Message.id), fn.MAX(Message.created_at))
            .group_by(Message.user).tuples())}
        return [UserCounts(u, *memories.get(u, (0, 0, 0)), *messages.get(u, (0, None)))
                for u in sorted({*memories, *messages}, key=lambda u: (u is not None, u or ""))]

    def knows_user(self, user: str | None) -> bool:
        """Whether the database holds a memory or a message of ``user`` (of any status): a request for
        a user it does not know (a mistyped id) gets a note, not a silent empty block. The rows bound
        to no user count for the owner (``owner.user``) and for ``None``."""
        owner = user is None or user == self.get_setting("owner.user")

        def theirs(column: Any) -> Any:
            if user is None:
                return column.is_null()
            return (column == user) | column.is_null() if owner else column == user

        return bool(Memory.select().where(theirs(Memory.user)).exists()
                    or Message.select().where(theirs(Message.user)).exists())

    def history(self, memory_id: int | None = None, limit: int = 50) -> builtins.list[EventRecord]:
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


class _ApprovedTerms:
    """Approved memories' term sets in id order (``TermSets``; a position is an index into it), the
    positions of those that may expire, each id's position, the positions bound to no user, and
    (built on first use) every term's positions, stop words included."""

    def __init__(self, sets: Any, expiring: builtins.list[tuple[int, datetime]], position: dict[int, int],
                 unbound: frozenset[int], terms: builtins.list[str]) -> None:
        self.sets = sets
        self.expiring = expiring
        self.position = position
        self.unbound = unbound
        self._terms: builtins.list[str] | None = terms
        self._holders: dict[str, builtins.list[int]] | None = None

    def left_out(self, now: datetime, exclude_id: int | None) -> set[int]:
        """Positions of the expired memories and of ``exclude_id``."""
        without = {n for n, exp in self.expiring if exp <= now}
        if exclude_id in self.position:
            without.add(self.position[exclude_id])
        return without

    def holders(self) -> dict[str, builtins.list[int]]:
        """Term → positions of the memories whose terms hold it (``TermSets`` drops stop words)."""
        if self._holders is None:
            holders: dict[str, builtins.list[int]] = {}
            for n, terms in enumerate(self._terms or ()):
                for t in set(terms.split()):
                    holders.setdefault(t, []).append(n)
            self._holders, self._terms = holders, None
        return self._holders
