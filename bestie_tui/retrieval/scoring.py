"""The memory score: explainable parts, relevance-gated, weights stored as ``score.*`` settings.

For a request (query q, user u, channel c, project p) at time ``now`` and an approved memory m, every
part lies in [0, 1]:

================  ==============================================================  =======  ======================
part              formula                                                         weight   setting
================  ==============================================================  =======  ======================
``relevance``     lexical relevance of q to m.text (``index.MemoryIndex``):        0.80     ``score.relevance``
                  0.5 · BM25 over stemmed words and word pairs (k1 = 0.6,
                  b = 0.2), divided by the query's best possible BM25, plus
                  0.5 · cosine of character 3–5-gram TF-IDF vectors
``scope``         mean over (user, channel, project) of: 1 if m's value equals     0.06     ``score.scope``
                  the request's, 0.5 if m is unbound there (general), 0 if it
                  differs (only reachable under governance ``full``)
``recency``       2 ** (−age_days / H), age from max(updated_at, last_accessed_at)  0.04     ``score.recency``
                  to now; half-life H = ``score.halfLifeDays`` (default 90 days)
``access``        min(1, ln(1 + access_count) / ln(1 + A)), A = ``score.accessCap`` 0.02     ``score.access``
                  (default 20 accesses: bounded, so old favourites cannot drown
                  new facts)
``confidence``    m.confidence (0–1, set by the writer, +0.05 per reinforcement)   0.05     ``score.confidence``
``pinned``        1 if pinned, 0.5 if in the core layer, else 0                    0.03     ``score.pinned``
``when``          only when q names a date (``named_periods``: "26 June 2023",     1.00     ``score.when``
                  "June 26, 2023", "June 2023", "2023-06-26", "2023", Vietnamese
                  "ngày 26 tháng 6 năm 2023"): 2 ** (−d / W), d = days from
                  m.created_at, on the owner's calendar (``owner.timezone``),
                  to the nearest named period (0 inside it);
                  W = ``score.whenHalfLifeDays`` (default 7 days). Otherwise
                  ``None``, and its weight is left out of both sums below
================  ==============================================================  =======  ======================

    total = relevance · (w_relevance + Σ_{i ≠ relevance} w_i · part_i) / Σ_i w_i      (in [0, 1])

``build_context`` adds history recall's signals (``retrieval.signals``; each off at 0, and neutral
for a memory without a session, a bound person or a time expression)::

    total = (relevance + ν · neighbour) · (w_relevance + Σ_{i ≠ relevance} w_i · part_i) / Σ_i w_i
            · (1 + π · person) · (1 + τ · time)                                    (≥ 0)

with ``neighbour`` the better relevance of the memory's two session neighbours, ``person`` and
``time`` 0 or 1, and ν, π, τ the settings ``score.neighbour``, ``score.person``, ``score.timeQuestion``.

Relevance gates the total: the other parts can raise a memory by at most their share of the weights
(here 20 %, relative), so they reorder memories of similar relevance but never lift an off-topic one
over an on-topic one, and a memory with no relevance scores 0 whatever its recency or pin. Measured
(``benchmarks/retrieval_locomo.py``): the earlier weighted *sum* of the same parts cost about 1 point
of LoCoMo recall@10 against relevance alone (recency outranked topic over sessions months apart);
gated, the cost is within ±0.2 point (see the README section "How memories are scored").
The ``when`` part answers "what did I say in June 2023": a memory's ``created_at`` is when it was
said or learned. Its weight is large because it counts only for the few queries that name a date,
and the gate still keeps an off-topic memory of that day below an on-topic one. Measured on LoCoMo
(12 % of the questions name a date; the memories are dated by their session), recall@10 rose from
64.0 to 65.9 on turns and from 59.7 to 60.6 on observations (weights 0.5 / 1 / 2 and a
half-life of 0 / 7 days, measured offline: 60.3–61.2 on observations; 1 and 7 sit mid-range).
Working records also need ``relevance ≥ score.minRelevance`` (default 0.1) to enter a pack, and a
working record whose cosine to one already in the pack is ≥ ``score.duplicateCosine`` (default 0.9)
is left out as a near-duplicate (``assembly.build_context``), so near-duplicates do not spend the
token budget; on LoCoMo this changes no recall figure (its memories are rarely near-duplicates);
0.85 cost one PrefEval item of 624 (a near-identical preference of another item), 0.9 none.
The exponential recency decay and the log-bounded access count follow common practice in memory
stores (e.g. the recency/importance/relevance of Park et al., *Generative Agents*, 2023); BM25 is
Robertson & Zaragoza, *The Probabilistic Relevance Framework: BM25 and Beyond* (2009).
"""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any, cast

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.binding import uses_store
from bestie_tui.store.records import MemoryRecord
from bestie_tui.store.settings import DEFAULT_TUNING, DEFAULT_WEIGHTS
from bestie_tui.text.clock import to_local

if TYPE_CHECKING:  # pragma: no cover
    from bestie_tui.store.memory_store import MemoryStore

PARTS = ("relevance", "scope", "recency", "access", "confidence", "pinned", "when")
#: Short labels for the parts, in ``PARTS`` order, as the CLI and the console print them.
PART_LABELS = (("relevance", "rel"), ("scope", "scope"), ("recency", "rec"), ("access", "acc"),
               ("confidence", "conf"), ("pinned", "pin"), ("when", "when"))


def signals_text(parts: ScoreParts) -> str:
    """The session/person/time signals (``retrieval.signals``) that lifted a memory, as the CLI and
    the console print them after the parts (``"nb +0.12 person time"``); ``""`` when none did."""
    out = [f"words {parts.words:.2f} meaning {parts.meaning:.2f}"] if parts.meaning is not None else []
    out += [f"nb +{parts.neighbour:.2f}"] if parts.neighbour > 0 else []
    return " ".join(out + [name for name in ("person", "time") if getattr(parts, name) > 0])


def format_part(parts: ScoreParts, name: str) -> str:
    """One part as two decimals, or ``—`` when it does not count for this query (``when`` for a
    query that names no date)."""
    value = getattr(parts, name, None)
    return "—" if value is None else f"{value:.2f}"


#: Parts that always count; ``when`` counts only for a query that names a date.
ALWAYS = PARTS[:6]


@dataclass(frozen=True)
class ScoreParts:
    """Every part of a memory's score beside the weighted ``total`` (all in [0, 1])."""

    relevance: float
    scope: float
    recency: float
    access: float
    confidence: float
    pinned: float
    total: float
    when: float | None = None  # None: the query names no date, so the part does not count
    #: ``score.neighbour`` × the better relevance of the memory's two session neighbours (relevance units)
    neighbour: float = 0.0
    #: 1 when the memory is bound to (or spoken by) the one person the query names, else 0
    person: float = 0.0
    #: 1 when the query asks when / how long and the memory holds a time expression, else 0
    time: float = 0.0
    #: with search by meaning (``retrieval.meaning``): the word relevance and the meaning part that
    #: ``relevance`` fuses; ``None`` when the request was scored by words alone
    words: float | None = None
    meaning: float | None = None

    def to_dict(self) -> dict[str, float | None]:
        """Every part rounded to 4 places; ``words`` and ``meaning`` only when meaning was searched."""
        return {k: (None if v is None else round(v, 4)) for k, v in asdict(self).items()
                if v is not None or k not in ("words", "meaning")}


@dataclass(frozen=True)
class ScoringConfig:
    """Weights and tuning read from settings (``ScoringConfig.from_store``) or given directly.

    Attributes:
        weights: part name → weight ≥ 0 (at least one positive).
        half_life_days: recency half-life in days (> 0).
        access_cap: access count at which the access part reaches 1 (≥ 1).
        min_relevance: relevance a working record needs to enter a pack.
        candidates: how many working records, best by relevance, are scored in full per request.
        when_half_life_days: days outside a named date at which the ``when`` part halves (> 0).
        duplicate_cosine: a working record whose cosine (``MemoryIndex.similarity``) to a record
            already in the pack is at least this is left out as a near-duplicate (> 0; above 1: off).
        zone: the owner's time zone (``owner.timezone``): a date the query names is a day on this
            calendar (``when_part``); ``None`` reads the database's UTC times as they are.
    """

    weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    half_life_days: float = DEFAULT_TUNING["score.halfLifeDays"]
    access_cap: float = DEFAULT_TUNING["score.accessCap"]
    min_relevance: float = DEFAULT_TUNING["score.minRelevance"]
    candidates: int = int(DEFAULT_TUNING["score.candidates"])
    when_half_life_days: float = DEFAULT_TUNING["score.whenHalfLifeDays"]
    duplicate_cosine: float = DEFAULT_TUNING["score.duplicateCosine"]
    neighbour: float = DEFAULT_TUNING["score.neighbour"]
    person: float = DEFAULT_TUNING["score.person"]
    time_question: float = DEFAULT_TUNING["score.timeQuestion"]
    #: share of the memories a single shared word may be in and still be evidence (``retrieval.evidence``)
    rare_share: float = DEFAULT_TUNING["score.rareShare"]
    zone: tzinfo | None = None

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(PARTS)
        if unknown:
            raise InvalidValueError(f"unknown score part(s) {', '.join(sorted(unknown))}; parts: {', '.join(PARTS)}")
        if any(w < 0 for w in self.weights.values()) or sum(self.weights.get(p, 0) for p in ALWAYS) <= 0:
            raise InvalidValueError("score weights must be zero or more, and one part other than when positive")
        if self.half_life_days <= 0 or self.access_cap < 1 or self.candidates < 1 or self.when_half_life_days <= 0 \
                or self.duplicate_cosine <= 0 or min(self.neighbour, self.person, self.time_question) < 0 \
                or not 0 <= self.rare_share <= 1:
            raise InvalidValueError("score.halfLifeDays, score.whenHalfLifeDays and score.duplicateCosine must be > 0, "
                                    "score.accessCap ≥ 1, score.candidates ≥ 1, score.neighbour, score.person "
                                    "and score.timeQuestion ≥ 0, score.rareShare between 0 and 1")

    @classmethod
    def from_store(cls, store: MemoryStore, settings: dict[str, Any] | None = None) -> ScoringConfig:
        """Read ``score.<part>`` weights and tuning from the store's settings (defaults where unset);
        ``settings``: a ``settings_snapshot`` already read for this request (saves the queries).

        Raises:
            InvalidValueError: a stored value is not a number or out of range.
        """
        values = settings if settings is not None else settings_snapshot(store)
        weights = {p: _number(values, f"score.{p}", DEFAULT_WEIGHTS[p]) for p in PARTS}
        tuning = {k: _number(values, k, v) for k, v in DEFAULT_TUNING.items()}
        return cls(weights=weights, half_life_days=tuning["score.halfLifeDays"],
                   access_cap=tuning["score.accessCap"], min_relevance=tuning["score.minRelevance"],
                   candidates=int(tuning["score.candidates"]),
                   when_half_life_days=tuning["score.whenHalfLifeDays"],
                   duplicate_cosine=tuning["score.duplicateCosine"], neighbour=tuning["score.neighbour"],
                   person=tuning["score.person"], time_question=tuning["score.timeQuestion"],
                   rare_share=tuning["score.rareShare"], zone=_owner_zone(values))

    def without(self, *parts: str) -> ScoringConfig:
        """A copy with the weights of ``parts`` set to 0 (e.g. ``scope`` for a search without a user)."""
        return replace(self, weights={p: (0.0 if p in parts else w) for p, w in self.weights.items()})


@uses_store
def settings_snapshot(store: MemoryStore) -> dict[str, Any]:
    """Every setting (stored value, else the default of ``settings.DEFAULTS``) in one query: a request
    reads a dozen settings, and one SELECT of the small ``setting`` table beats a dozen lookups."""
    import json

    from bestie_tui.store import settings as settings_mod
    from bestie_tui.store.db import read_stamp
    from bestie_tui.store.models import Setting

    stamp = read_stamp(store.db)  # read first: a write during the SELECT makes the next call read again
    cached = _SNAPSHOTS.get(store)
    if stamp is not None and cached is not None and cached[0] == stamp:
        return dict(cached[1])
    values = dict(settings_mod.DEFAULTS)
    values.update((k, json.loads(v)) for k, v in cast("Iterable[tuple[str, str]]",
                                                      Setting.select(Setting.key, Setting.value).tuples()))
    _SNAPSHOTS[store] = (stamp, values)
    return dict(values)


#: store → (``read_stamp`` before the read, the settings it read): nothing written since, nothing to read
_SNAPSHOTS: weakref.WeakKeyDictionary[Any, tuple[Any, dict[str, Any]]] = weakref.WeakKeyDictionary()


def _owner_zone(values: dict[str, Any]) -> tzinfo:
    """The zone of the ``owner.timezone`` setting in ``values``; the system's when it is unset or
    names no zone (as ``MemoryStore.owner_zone``)."""
    from bestie_tui.text import clock

    try:
        return clock.zone(values.get("owner.timezone"))
    except InvalidValueError:
        return clock.zone(None)


def _number(values: dict[str, Any], key: str, default: float) -> float:
    value = values.get(key)
    if value is None:
        return default
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InvalidValueError(f"setting {key} must be a number, not {value!r}") from None


def scope_part(m: MemoryRecord, user: str | None, channel: str | None, project: str | None) -> float:
    """Mean over user, channel and project: 1 equal, 0.5 memory unbound, 0 bound elsewhere."""
    def one(bound: str | None, wanted: str | None) -> float:
        if bound is None:
            return 0.5
        return 1.0 if bound == wanted else 0.0
    return (one(m.user, user) + one(m.channel, channel) + one(m.project, project)) / 3


def recency_part(m: MemoryRecord, now: datetime, half_life_days: float) -> float:
    """2 ** (−age / half-life), age in days since the later of ``updated_at`` and ``last_accessed_at``."""
    last = max(d for d in (m.updated_at, m.last_accessed_at, m.created_at) if d is not None)
    age_days = max(0.0, (now - last).total_seconds() / 86400)
    return 2.0 ** (-age_days / half_life_days)


def access_part(access_count: int, cap: float) -> float:
    """ln(1 + count) / ln(1 + cap), capped at 1."""
    return min(1.0, math.log1p(max(0, access_count)) / math.log1p(cap))


def pinned_part(m: MemoryRecord) -> float:
    return 1.0 if m.pinned else 0.5 if m.layer == "core" else 0.0


Period = tuple[datetime, datetime]  # [start, end), naive like the database
_MONTHS = {name: i + 1 for i, names in enumerate((
    "january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
    "august aug", "september sept sep", "october oct", "november nov", "december dec")) for name in names.split()}
_M = "|".join(sorted(_MONTHS, key=len, reverse=True))
#: Date forms a query may name, most precise first (matched on the accent-folded, lower-case query).
_DATE_FORMS = (
    (re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"), "day"),
    (re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?(?P<mn>{_M})\.?,? (?P<y>\d{{4}})\b"), "day"),
    (re.compile(rf"\b(?P<mn>{_M})\.? (?P<d>\d{{1,2}})(?:st|nd|rd|th)?,? (?P<y>\d{{4}})\b"), "day"),
    (re.compile(r"\bngay (?P<d>\d{1,2}) thang (?P<m>\d{1,2}) nam (?P<y>\d{4})\b"), "day"),
    (re.compile(rf"\b(?P<mn>{_M})\.?,? (?:of )?(?P<y>\d{{4}})\b"), "month"),
    (re.compile(r"\bthang (?P<m>\d{1,2}) nam (?P<y>\d{4})\b"), "month"),
    (re.compile(r"\b(?P<y>(?:19|20)\d\d)\b"), "year"),
)


def named_periods(query: str) -> tuple[Period, ...]:
    """The calendar periods ``query`` names, each ``(start, end)`` (end exclusive): a day for
    "26 June 2023", "June 26th, 2023", "2023-06-26" or "ngày 26 tháng 6 năm 2023"; a month for
    "June 2023" or "tháng 6 năm 2023"; a year for a bare 19xx/20xx. A span already read as a
    more precise form is not read again; an impossible day ("31 February 2023") is read as its month. ``()`` when none."""
    from bestie_tui.text import words as textmod

    folded = " ".join(textmod.fold(query).split())
    taken: list[tuple[int, int]] = []
    out: list[Period] = []
    for pattern, size in _DATE_FORMS:
        for match in pattern.finditer(folded):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue
            g = match.groupdict()
            try:
                year = int(g["y"])
                month = _MONTHS[g["mn"]] if g.get("mn") else int(g.get("m") or 1)
                start = datetime(year, month, int(g.get("d") or 1))
            except ValueError:  # "31 February", month 13
                continue
            try:
                if size == "day":
                    end = start + timedelta(days=1)
                elif size == "month":
                    end = datetime(year + month // 12, month % 12 + 1, 1)
                else:
                    end = datetime(year + 1, 1, 1)
            except (ValueError, OverflowError):  # a period ending after 9999-12-31: not a usable date
                continue
            taken.append(match.span())
            out.append((start, end))
    return tuple(out)


def when_part(m: MemoryRecord, periods: tuple[Period, ...], half_life_days: float,
              zone: tzinfo | None = None) -> float | None:
    """2 ** (−d / half-life), d = days from ``m.created_at`` to the nearest of ``periods`` (0 inside
    one); ``None`` when there are no periods (the query names no date). ``periods`` are days of the
    owner's calendar: ``zone`` (the owner's) moves the naive-UTC ``created_at`` onto it first, so a
    note made at 00:30 on 16 April in Shanghai (16:30 UTC on the 15th) is of 16 April."""
    if not periods:
        return None
    at = m.created_at if zone is None else to_local(m.created_at, zone).replace(tzinfo=None)
    days = min(max(0.0, (start - at).total_seconds(), (at - end).total_seconds()) / 86400
               for start, end in periods)
    return 2.0 ** (-days / half_life_days)


def score(m: MemoryRecord, relevance: float, *, user: str | None, channel: str | None,
          project: str | None, now: datetime, config: ScoringConfig,
          periods: tuple[Period, ...] = (), neighbour: float = 0.0, person: bool = False,
          time: bool = False) -> ScoreParts:
    """Score one memory for one request. ``relevance`` is its lexical relevance to the query (0–1,
    ``index.MemoryIndex``); ``periods``: ``named_periods(query)``, computed once per request.
    The signals of ``retrieval.signals``: ``neighbour`` is the better relevance of its two session
    neighbours (0–1, unweighted), ``person`` whether it is bound to or spoken by the one person the
    query names, ``time`` whether the query asks when and it holds a time expression.

    Returns ``ScoreParts`` with every part and the weighted total (formula in the module docstring).
    """
    parts: dict[str, Any] = {  # floats; "when" is None when the query names no date
        "relevance": float(relevance),
        "scope": scope_part(m, user, channel, project),
        "recency": recency_part(m, now, config.half_life_days),
        "access": access_part(m.access_count, config.access_cap),
        "confidence": float(m.confidence),
        "pinned": pinned_part(m),
        "when": when_part(m, periods, config.when_half_life_days, config.zone),
    }
    w = config.weights
    counted = [p for p in PARTS if parts[p] is not None]
    lifted = config.neighbour * float(neighbour)
    total = (parts["relevance"] + lifted) * (w["relevance"] + sum(w[p] * parts[p] for p in counted[1:])) \
        / sum(w[p] for p in counted)
    total *= (1 + config.person * person) * (1 + config.time_question * time)
    return ScoreParts(total=total, neighbour=lifted, person=float(person), time=float(time), **parts)


@uses_store
def rank_records(store: MemoryStore, query: str, records: list[MemoryRecord], *,
                 config: ScoringConfig | None = None) -> list[tuple[MemoryRecord, ScoreParts]]:
    """Order ``records`` (any status) for a search: approved first, then by total score without the
    scope part (a search has no request binding), then newest id. Approved records get their
    relevance from the index; others (pending, rejected…) are transformed on the fly.

    The signals ``build_context`` adds (``retrieval.signals``) reorder a search the same way, with
    the same ``score.neighbour`` / ``score.person`` / ``score.timeQuestion`` weights: an approved
    record's neighbours are the approved memories just before and after it in its source session
    (same user; a search has no request binding, so no governance narrows them); the person is the
    one of the records' people the query names; the time signal needs a when / how-long query.

    Returns ``[(record, ScoreParts)]`` in that order.
    """
    from bestie_tui.retrieval import cues, signals
    from bestie_tui.retrieval.index import get_index
    from bestie_tui.store.binding import tenant_sql

    if not records:
        return []
    config = (config or ScoringConfig.from_store(store)).without("scope")
    index = get_index(store)
    rel = list(index.relevance(query, [r.id for r in records]))
    others = [i for i, r in enumerate(records) if r.status != "approved"]
    for i, value in zip(others, index.relevance_of_texts(query, [records[i].text for i in others])):
        rel[i] = value
    fused = _fuse_approved(store, query, records, rel, index)
    now = store.clock()
    periods = named_periods(query)
    approved = [r.id for r in records if r.status == "approved" and r.session is not None]
    near: dict[int, float] = {}
    neighbours: signals.Neighbours = {}
    if config.neighbour > 0 and approved:
        mine, own = tenant_sql('t1."user"')
        neighbours = signals.session_neighbours(store.db, approved, (f"t1.status = 'approved' AND {mine}", own))
        around = sorted({n for i in approved for n in neighbours.get(i, (None, None)) if n is not None})
        near = dict(zip(around, index.relevance(query, around).tolist())) if around else {}
    person = signals.named_person(query, records) if config.person > 0 else None
    time_question = config.time_question > 0 and cues.is_time_question(query)
    scored = [(r, score(r, rel[i], user=None, channel=None, project=None, now=now, config=config, periods=periods,
                        neighbour=signals.best_neighbour(r.id, neighbours, near) if r.status == "approved" else 0.0,
                        person=person is not None and person in signals.people_of(r),
                        time=time_question and signals.says_when(r)))
              for i, r in enumerate(records)]
    if fused is not None:
        scored = list(zip(records, fused.annotate(dict(enumerate(p for _, p in scored))).values()))
    scored.sort(key=lambda pair: (pair[0].status != "approved", -pair[1].total, -pair[0].id))
    return scored


def _fuse_approved(store: MemoryStore, query: str, records: list[MemoryRecord], rel: list[float], index: Any) -> Any:
    """Fuse the relevance of the approved records with their meaning (``retrieval.meaning``) in place
    in ``rel``; returns the fusion keyed by position in ``records`` (for the parts), or None."""
    import numpy as np

    from bestie_tui.retrieval import meaning

    at = [i for i, r in enumerate(records) if r.status == "approved"]
    if not at:
        return None
    fused = meaning.fuse(store, query, [records[i].id for i in at], [rel[i] for i in at], settings_snapshot(store),
                         index.generation())
    if fused is None:
        return None
    for j, i in enumerate(at):
        rel[i] = float(fused.relevance[j])
    positions = np.asarray(at, dtype=np.int64)
    return replace(fused, ids=positions)


def describe_weights(config: ScoringConfig) -> dict[str, Any]:
    """Weights and tuning as a JSON-ready dict (what ``--json`` and the Context view show)."""
    return {"weights": dict(config.weights), "half_life_days": config.half_life_days,
            "access_cap": config.access_cap, "min_relevance": config.min_relevance,
            "candidates": config.candidates, "when_half_life_days": config.when_half_life_days,
            "duplicate_cosine": config.duplicate_cosine, "neighbour": config.neighbour, "person": config.person,
            "time_question": config.time_question}
