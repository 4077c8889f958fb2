"""History recall: the user's past chat turns ranked for a request, with their session order.

``recall(store, query, user, …)`` ranks the messages of the raw history over the persisted message
index (``doc_index`` collection ``"message"``: every turn indexed with the text of the turn before and
after it in its session, so nothing is refitted per process). The score of a turn ``m``::

    base(m)   = relevance(q, m)                                    (BM25, ``retrieval.index``, in [0, 1])
    smooth(m) = base(m) + α · max(base(prev m), base(next m))      (α = ``recall.neighbour``)
    score(m)  = smooth(m) · (1 + person · [m is by the one person q names])
                          · (1 + time · [q asks when / how long and m holds a time expression])
                + recency · 2^(−age(m) / halfLifeDays)

A turn whose ``smooth(m)`` is under ``recall.minScore`` (default 0.1, the floor memories have in
``score.minRelevance``) is no hit: a few shared character n-grams are not a match.

``prev``/``next`` are the turns just before and after in the same session of the same user. The
named person is read from a turn's leading ``Name:`` label (``cues.speaker_of``) and only counts when
the request names exactly one of the speakers it meets. Every weight is a ``recall.*`` setting; the
defaults were chosen on the 7 shared LoCoMo conversations (``benchmarks/retrieval_locomo.py``).

Governance is that of memories (``retrieval.governance``): never another user's messages (a
message bound to no user is the owner's); under ``governed`` only the request's channel or none,
under ``full`` every channel. ``session`` and ``role`` narrow further, and ``exclude`` keeps out
turns the prompt already holds (the current session's recent turns).

The seam for an embedder: ``recall(…, dense=f)`` with ``f(query, texts) -> list[float]`` fuses its
similarities into ``base`` by min–max normalisation over the candidates (``base = ½ lexical + ½
dense``); nothing in this package calls a model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import TYPE_CHECKING, Any

from bestie_tui.errors import InvalidValueError
from bestie_tui.retrieval import cues
from bestie_tui.retrieval.governance import check_mode
from bestie_tui.retrieval.index import get_index
from bestie_tui.store import doc_index
from bestie_tui.store.binding import tenant_sql, uses_store
from bestie_tui.store.models import ROLES, Setting
from bestie_tui.store.records import MessageRecord
from bestie_tui.store.settings import RECALL_DEFAULTS
from bestie_tui.text.analysis import stop_words
from bestie_tui.text.clock import to_local
from bestie_tui.text.words import index_tokens

if TYPE_CHECKING:  # pragma: no cover
    from bestie_tui.store.memory_store import MemoryStore

#: ``dense(query, texts) -> similarities``: an optional embedder's scores of ``texts`` (any scale).
Dense = Callable[[str, Sequence[str]], Sequence[float]]
PARTS = ("relevance", "neighbour", "person", "time", "recency")


@dataclass(frozen=True)
class Knobs:
    """The ``recall.*`` weights (``store.settings.RECALL_DEFAULTS``)."""

    neighbour: float
    person: float
    time: float
    recency: float
    half_life_days: float
    candidates: int
    min_score: float = 0.0

    @classmethod
    def of(cls, store: MemoryStore) -> Knobs:
        """The store's values, defaults where unset (one query)."""
        values = recall_settings(store)
        return cls(float(values["recall.neighbour"]), float(values["recall.person"]), float(values["recall.time"]),
                   float(values["recall.recency"]), float(values["recall.halfLifeDays"]),
                   int(values["recall.candidates"]), float(values["recall.minScore"]))


def recall_settings(store: MemoryStore) -> dict[str, Any]:
    """Every ``recall.*`` setting of ``store``: stored values over ``RECALL_DEFAULTS``."""
    import json

    with store.bound():
        stored = {row.key: json.loads(row.value) for row in Setting.select().where(Setting.key.startswith("recall."))}
    return {**RECALL_DEFAULTS, **{k: v for k, v in stored.items() if k in RECALL_DEFAULTS}}


@dataclass(frozen=True)
class Candidate:
    """One turn ``rank`` may order: its row, its own base score, its best neighbour's, whether it is
    by the one person the request names, whether it says when (for a time question), its age in days
    and its session neighbours' ids."""

    id: int
    row: MessageRecord
    own: float
    best_neighbour: float
    by_person: bool
    says_when: bool
    age_days: float | None
    prev_id: int | None
    next_id: int | None
    #: Query words in the turn's own text, when known (``rank`` counts them for tied scores).
    own_words: int = 0


@dataclass(frozen=True)
class RecallHit:
    """One recalled turn.

    Attributes:
        message: the turn as stored.
        score: its score (module docstring; ≥ 0, not bounded by 1).
        parts: what made it — ``relevance`` (base), ``neighbour`` (α · best neighbour's base),
            ``person`` and ``time`` (the factors' added part, in score units), ``recency``.
        before / after: the turn just before / after it in its session (empty at a session's end).
    """

    message: MessageRecord
    score: float
    parts: dict[str, float]
    before: list[MessageRecord] = field(default_factory=list)
    after: list[MessageRecord] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message.to_dict(), "score": round(self.score, 4),
                "parts": {k: round(v, 4) for k, v in self.parts.items()},
                "before": [m.to_dict() for m in self.before], "after": [m.to_dict() for m in self.after]}


def _governed(user: str | None, channel: str | None, mode: str, session: str | None, role: str | None,
              every_user: bool = False) -> tuple[str, list[Any]]:
    """``(SQL condition, parameters)`` on ``message``: governance (``retrieval.governance``'s rule for
    memories: this user's rows and unbound ones; under ``governed`` this channel's and unbound ones)
    and the filters. Plain SQL, built by hand: compiling a Peewee expression per request cost more
    than running it."""
    parts: list[str] = []
    params: list[Any] = []
    if not every_user:
        parts.append('"user" IS NULL' if user is None else '("user" = ? OR "user" IS NULL)')
        params += [] if user is None else [user]
    if mode == "governed":
        parts.append("channel IS NULL" if channel is None else "(channel = ? OR channel IS NULL)")
        params += [] if channel is None else [channel]
    for column, value in (("session", session), ("role", role)):
        if value is not None:
            parts.append(f"{column} = ?")
            params.append(value)
    return " AND ".join(parts) or "1 = 1", params


def _turns(db: Any, ids: Sequence[int], where: tuple[str, list[Any]] | None = None) -> dict[int, MessageRecord]:
    """``id → MessageRecord`` of those of ``ids`` that exist (and meet ``where``, and are the bound
    tenant's: ``binding.tenant_sql``), 500 ids a query."""
    from datetime import datetime

    condition, params = where or ("1 = 1", [])
    mine, own = tenant_sql('"user"')  # a user-bound store reaches only its user's messages
    condition, params = f"{condition} AND {mine}", [*params, *own]
    wanted = sorted({int(i) for i in ids})
    out: dict[int, MessageRecord] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        for i, role, text, user, channel, session, at in db.execute_sql(
                f'SELECT id, role, text, "user", channel, session, created_at FROM message WHERE id IN '
                f"({','.join('?' * len(chunk))}) AND {condition}", [*chunk, *params]).fetchall():
            when = at if isinstance(at, datetime) else datetime.fromisoformat(str(at))  # NOT NULL column
            out[i] = MessageRecord(id=i, role=role, text=text, user=user, channel=channel, session=session,
                                   created_at=when)
    return out


@uses_store
def recall(store: MemoryStore, query: str, user: str | None, *, channel: str | None = None,
           session: str | None = None, role: str | None = None, limit: int = 10, context: bool = True,
           exclude: Collection[int] = (), governance: str | None = None, knobs: Knobs | None = None,
           dense: Dense | None = None, every_user: bool = False) -> list[RecallHit]:
    """The ``limit`` turns of ``user``'s history that best answer ``query``, best first (ties: newer
    first), each with its score parts and (``context``) the turns around it.

    Args:
        store: an open ``MemoryStore``.
        query: the request (any language; an empty query recalls nothing).
        user: whose history; ``None`` reaches only messages bound to no user.
        channel: the request's channel (``governed`` keeps to it and to unbound messages).
        session / role: only that session's / role's turns.
        limit: how many hits, at most.
        exclude: message ids the caller already shows (the current session's recent turns).
        governance: ``governed`` / ``full``; default the ``memory.governance`` setting.
        knobs: weights; default the store's ``recall.*`` settings.
        dense: an optional embedder (module docstring), fused by min–max normalisation.
        every_user: the owner's own search of the whole history (``bestie memory messages search``
            without ``--user``, the console's Messages view): no user condition. Never for a request.

    Returns:
        A list of ``RecallHit``; empty when nothing in the history shares a feature with the query.

    Raises:
        InvalidValueError: an unknown role or governance mode, a negative limit.
    """
    if role is not None and role not in ROLES:
        raise InvalidValueError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
    if limit < 0:
        raise InvalidValueError("--limit must be zero or more")
    mode = check_mode(governance or store.get_setting("memory.governance"))
    if limit == 0 or not query.strip():
        return []
    knobs = knobs or Knobs.of(store)
    ranked = rank(candidates(store, query, user, channel=channel, session=session, role=role, limit=limit,
                             exclude=exclude, governance=mode, knobs=knobs, dense=dense, every_user=every_user),
                  knobs, limit, query)
    shown = _turns(store.db, [n for _, _, c in ranked for n in (c.prev_id, c.next_id) if n is not None]) if context else {}
    return [RecallHit(c.row, total, parts,
                      [shown[c.prev_id]] if c.prev_id in shown else [],
                      [shown[c.next_id]] if c.next_id in shown else []) for total, parts, c in ranked]


@uses_store
def candidates(store: MemoryStore, query: str, user: str | None, *, channel: str | None, session: str | None,
               role: str | None, limit: int, exclude: Collection[int], governance: str, knobs: Knobs,
               dense: Dense | None, every_user: bool = False) -> list[Candidate]:
    """What ``rank`` orders: the best-scored turns this request may see (at least ``knobs.candidates``
    of them, widened until ``2 · limit`` pass governance) and their unscored session neighbours, each
    with the signals of the module docstring. Arguments as for ``recall``."""
    mode = governance
    scored = get_index(store, doc_index.MESSAGE).all_scores(query)
    if scored is None:
        return []
    import numpy as np

    ids, base = scored
    nonzero = int(np.count_nonzero(base))
    excluded = set(exclude)
    want = max(knobs.candidates, 4 * limit)
    cond = _governed(user, channel, mode, session, role, every_user)
    db = store.db
    rows: dict[int, MessageRecord] = {}
    taken = 0
    while True:  # the best-scored turns, widened until enough of them are this request's to see
        take = min(want, nonzero)
        pool = [int(ids[i]) for i in _best(base, take)[taken:]]
        taken = take
        rows.update((i, m) for i, m in _turns(db, pool, cond).items() if i not in excluded)
        if len(rows) >= limit * 2 or taken >= nonzero:
            break
        want *= 4
    if not rows:
        return []
    neighbours = doc_index.session_neighbours(store.db, list(rows))
    # neighbours that scored nothing on their own may still be lifted by the turn beside them
    extra = {n for pn in neighbours.values() for n in pn if n is not None and n not in rows and n not in excluded}
    if extra and knobs.neighbour > 0:
        rows.update(_turns(db, sorted(extra), cond))
        neighbours.update(doc_index.session_neighbours(store.db, [i for i in extra if i in rows]))

    def base_of(message_ids: Sequence[int]) -> Any:
        wanted = np.asarray(message_ids, dtype=np.int64)
        positions = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
        return np.where(ids[positions] == wanted, base[positions], 0.0)

    cand = sorted(rows)
    own = dict(zip(cand, base_of(cand).tolist()))
    if dense is not None:
        own = _fuse(own, dense(query, [rows[i].text for i in cand]), cand)
    around = {n for pn in neighbours.values() for n in pn if n is not None}
    near = dict(zip(sorted(around), base_of(sorted(around)).tolist())) if around else {}
    near.update(own)
    speakers = {i: cues.speaker_of(rows[i].text) for i in cand}
    named = cues.named_people(query, {s for s in speakers.values() if s})
    person = next(iter(named)) if len(named) == 1 else None
    time_question = cues.is_time_question(query)
    now = store.clock()
    out = []
    for i in cand:
        prev_id, next_id = neighbours.get(i, (None, None))
        side = [near.get(n, 0.0) for n in (prev_id, next_id) if n is not None]
        at = rows[i].created_at
        out.append(Candidate(i, rows[i], own[i], max(side, default=0.0), bool(person) and speakers[i] == person,
                             time_question and cues.has_time_expression(_own_text(rows[i].text)),
                             max(0.0, (now - at).total_seconds() / 86400) if at is not None else None,
                             prev_id, next_id))
    return out


def rank(found: Sequence[Candidate], knobs: Knobs, limit: int,
         query: str | None = None) -> list[tuple[float, dict[str, float], Candidate]]:
    """``(score, parts, candidate)`` of the ``limit`` best candidates under ``knobs``, best first.
    Ties (a turn and the neighbour whose score lifts it, with α = 1): the one whose own text holds
    more of ``query``'s words (folded, stop words left out), then the newer. Pure arithmetic: the
    benchmark re-ranks one set of candidates per setting."""
    from collections import Counter

    hits = []
    for c in found:
        parts = _parts(c, knobs)
        total = sum(parts.values())
        if total > 0 and parts["relevance"] + parts["neighbour"] >= max(knobs.min_score, 1e-12):
            hits.append((round(total, 9), parts, c))
    tied = {t for t, n in Counter(h[0] for h in hits).items() if n > 1}
    words = (set(index_tokens(query)) - stop_words()) if query and tied else set()
    own = {h[2].id: len(words & set(index_tokens(h[2].row.text))) for h in hits if h[0] in tied} if words else {}
    hits.sort(key=lambda h: (-h[0], -own.get(h[2].id, h[2].own_words),
                             -(h[2].row.created_at.timestamp() if h[2].row.created_at else 0.0), -h[2].id))
    return hits[:limit]


def _best(scores: Any, k: int) -> Any:
    """Positions of the ``k`` best scores, best first (a partial sort: 1M scores cost one pass)."""
    import numpy as np

    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    cut = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    return cut[np.lexsort((cut, -scores[cut]))]


def _parts(c: Candidate, knobs: Knobs) -> dict[str, float]:
    relevance, neighbour = c.own, knobs.neighbour * c.best_neighbour
    smooth = relevance + neighbour
    person = smooth * knobs.person if c.by_person else 0.0
    time = (smooth + person) * knobs.time if c.says_when else 0.0
    recency = 0.0
    if knobs.recency > 0 and c.age_days is not None and smooth > 0:
        recency = knobs.recency * math.pow(2.0, -c.age_days / max(knobs.half_life_days, 1e-9))
    return {"relevance": relevance, "neighbour": neighbour, "person": person, "time": time, "recency": recency}


def _own_text(text: str) -> str:
    speaker = cues.speaker_of(text)
    return text.split(":", 1)[1] if speaker else text


def _fuse(own: dict[int, float], dense: Sequence[float], cand: list[int]) -> dict[int, float]:
    """``½ lexical + ½ dense``, each min–max normalised over the candidates (Fox & Shaw's CombSUM with
    min–max normalisation, as Lee 1997 recommends), scaled back to the lexical maximum."""
    lexical = [own[i] for i in cand]
    dense = [float(d) for d in dense]
    if len(dense) != len(cand):
        raise InvalidValueError(f"the embedder returned {len(dense)} scores for {len(cand)} texts")

    def norm(values: list[float]) -> list[float]:
        low, high = min(values), max(values)
        return [0.0 if high == low else (v - low) / (high - low) for v in values]
    top = max(lexical) or 1.0
    return {i: top * (0.5 * a + 0.5 * b) for i, a, b in zip(cand, norm(lexical), norm(dense))}


def hit_line(hit: RecallHit, zone: tzinfo | None = None) -> str:
    """``[2023-05-08 13:56] Caroline: …`` — one excerpt as the recall segment quotes it, the time on
    the owner's clock ``zone`` (``None``: the database's UTC)."""
    at = hit.message.created_at
    if at is None:
        return f"[?] {hit.message.text}"
    local = at if zone is None else to_local(at, zone)
    return f"[{local:%Y-%m-%d %H:%M}] {hit.message.text}"
