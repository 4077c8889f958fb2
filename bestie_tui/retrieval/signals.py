"""History recall's signals, for memories: session neighbours, the named person, time questions.

``build_context`` scores a working or core memory ``m`` (``scoring.score``) with three signals that
``retrieval.recall`` uses on chat turns, each off at 0 and neutral where it does not apply::

    smooth(m) = relevance(m) + ν · max(relevance(prev m), relevance(next m))     (ν = score.neighbour)
    total(m)  = smooth(m) · gate(m) · (1 + π · [m is bound to / spoken by the one person q names])
                                    · (1 + τ · [q asks when / how long and m holds a time expression])

* ``prev`` / ``next``: the memories just before and after ``m`` among the request's eligible
  memories of the same user and the same source ``session``, in ``(created_at, id)`` order — what a
  memory proposed from a conversation carries (``conversation.proposals``). A memory without a session
  has no neighbours, so its score is unchanged. A memory whose own relevance is under
  ``score.minRelevance`` enters the pack when ``smooth`` reaches it: a short memory ("Loved it, going
  back in June") is found by the topic of the one before it in its session.
* the person (π = ``score.person``): a memory's ``about`` (the person it is bound to, when that reads
  as a name: it starts with a capital letter) or its leading ``Name:`` label (``cues.speaker_of``);
  it counts only when the request names exactly one of the people its candidates are bound to.
* time (τ = ``score.timeQuestion``): ``cues.is_time_question`` and ``cues.has_time_expression`` of
  the memory's own text (a ``Name:`` label left out). Every memory has a creation date, so that date
  is no signal of its own here; ``scoring``'s ``when`` part reads it for a query that names a date.

The weights were chosen on the 7 shared LoCoMo conversations (``benchmarks/retrieval_locomo.py
--tune-memories``), as the ``recall.*`` ones were.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from bestie_tui.retrieval import cues
from bestie_tui.store.records import MemoryRecord

Neighbours = dict[int, tuple[int | None, int | None]]


def session_neighbours(db: Any, ids: Sequence[int], allowed: tuple[str, list[Any]]) -> Neighbours:
    """``memory id → (previous id, next id)`` among the memories the compiled condition ``allowed``
    admits (alias ``t1``; core and working layers), same user and same session, ``(created_at, id)``
    order — for every memory of the sessions of ``ids`` (so a neighbour's own neighbours are known too).
    A memory without a session is not in the map. One query, on the ``memory_session_order`` index."""
    wanted = sorted({int(i) for i in ids})
    if not wanted:
        return {}
    where, params = allowed
    sessions: set[str] = set()
    for start in range(0, len(wanted), 500):  # SQLite's bound-parameter limit
        chunk = wanted[start:start + 500]
        sessions.update(s for (s,) in db.execute_sql(
            f"SELECT DISTINCT session FROM memory WHERE session IS NOT NULL AND id IN ({','.join('?' * len(chunk))})",
            chunk).fetchall())
    if not sessions:
        return {}
    groups: dict[tuple[Any, str], list[tuple[datetime, int]]] = defaultdict(list)
    names = sorted(sessions)
    for start in range(0, len(names), 400):
        part = names[start:start + 400]
        rows = db.execute_sql(
            f'SELECT t1.id, t1."user", t1.session, t1.created_at FROM memory AS t1 WHERE ({where}) '
            f"AND t1.layer IN ('core', 'working') AND t1.session IN ({','.join('?' * len(part))})",
            [*params, *part]).fetchall()
        for i, user, session, at in rows:
            groups[(user, session)].append((_when(at), int(i)))
    out: Neighbours = {}
    for members in groups.values():
        members.sort()
        order = [i for _, i in members]
        for n, i in enumerate(order):
            out[i] = (order[n - 1] if n else None, order[n + 1] if n + 1 < len(order) else None)
    return out


def _when(at: Any) -> datetime:
    return at if isinstance(at, datetime) else datetime.fromisoformat(str(at))


def best_neighbour(i: int, neighbours: Neighbours, relevance: dict[int, float]) -> float:
    """The better relevance of ``i``'s two session neighbours (0 without any)."""
    return max((relevance.get(n, 0.0) for n in neighbours.get(i, (None, None)) if n is not None), default=0.0)


def people_of(m: MemoryRecord) -> set[str]:
    """Who ``m`` is bound to or spoken by: its ``about`` when that reads as a name, its ``Name:`` label."""
    out = set()
    if m.about and m.about[:1].isupper():
        out.add(m.about)
    speaker = cues.speaker_of(m.text)
    if speaker:
        out.add(speaker)
    return out


def named_person(query: str, records: Iterable[MemoryRecord]) -> str | None:
    """The one person of ``records`` (``people_of``) that ``query`` names, or None (none, or several)."""
    people = set().union(*(people_of(m) for m in records))
    named = cues.named_people(query, people) if people else set()
    return next(iter(named)) if len(named) == 1 else None


def says_when(m: MemoryRecord) -> bool:
    """Whether ``m``'s own text (a leading ``Name:`` label left out) holds a time expression."""
    text = m.text.split(":", 1)[1] if cues.speaker_of(m.text) else m.text
    return cues.has_time_expression(text)
