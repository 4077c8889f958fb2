"""Search by meaning (the ``semantic`` extra): the cosine of a request to each memory's stored
vector (``store.vectors``), fused with the word relevance of ``index``.

For a request q and an eligible approved memory m, with the embedder's ``floor`` f
(``semantic.Embedder``) and s = ``score.meaningShare`` (default 0.6: the mean of the shares that two
folds of the shared PrefEval and LoCoMo data pick, ``benchmarks/retrieval_fusion.py``)::

    meaning   = clip((cos(e(q), e(m)) − f) / (1 − f), 0, 1)
    relevance = (1 − s) · words + s · meaning

where ``words`` is the lexical relevance (``index.MemoryIndex``). The score parts keep both
(``ScoreParts.words``, ``ScoreParts.meaning``); ``relevance`` is the fused value every later step
uses (the floor ``score.minRelevance``, the gate of the other parts). A memory whose cosine reaches
the embedder's ``related`` counts as evidence of the request's topic (``retrieval.evidence``) even
when it shares no word with it; ``Gate`` holds that level, the one from which the nearest memories of
the request's broad topic count (``topical``), the one under which shared words do not (``support``),
and how they move with the languages of the two texts.

Falling back to words (``Fused`` is ``None``, and ``take_notes`` gives one line saying why): no
embedder (``semantic.model`` off, or ``auto`` without the extra: silently), a named model that
cannot be loaded (``semantic.loader``), vectors of another model in the database (a changed model: ``bestie memory
reindex --semantic`` rebuilds them), or more than ``LAZY_MAX`` eligible memories without a vector.
Fewer are embedded on the spot and stored (best effort: a read-only or busy file keeps them in memory).
The embedder and numpy load only here, on the first request that needs a meaning.
"""

from __future__ import annotations

import os
import threading
import weakref
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from bestie_tui.semantic.loader import note, take_notes  # noqa: F401  (take_notes: for callers)
from bestie_tui.store import vectors
from bestie_tui.store.settings import DEFAULT_TUNING

if TYPE_CHECKING:  # pragma: no cover
    from bestie_tui.retrieval.scoring import ScoreParts
    from bestie_tui.store.memory_store import MemoryStore

#: Eligible memories without a vector that a request embeds itself (more: words, and a note).
LAZY_MAX = 256
#: How many of the memories closest to a request in meaning may be on its topic by ``Gate.topical``.
NEAREST = 2
DEFAULT_SHARE = float(DEFAULT_TUNING["score.meaningShare"])

#: store → (model, generation, ids, matrix): the approved vectors as one float32 matrix
_MATRICES: weakref.WeakKeyDictionary[Any, tuple[str, Any, Any, Any]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Gate:
    """The embedder's cosines for evidence of a request's topic (``retrieval.evidence``): ``related``,
    from which a memory is on the topic by meaning alone; ``support``, below which a memory that
    shares words with the request is not (``None``: words decide alone); and ``shifts``, how much both
    move for a pair of texts by their languages (``kind``: ``en`` — any language but Vietnamese —,
    ``vi``, or ``vi_plain`` typed without diacritics), since a model's cosines between unrelated
    texts run higher within Vietnamese and lower across languages."""

    related: float
    support: float | None = None
    shifts: tuple[tuple[str, str, float], ...] = ()
    #: from this cosine (shifted up as ``related`` is), one of the ``NEAREST`` memories closest to a
    #: request in meaning is on its topic when both name the same broad topic of life
    #: (``text.topics``); ``None``: never
    topical: float | None = None

    @classmethod
    def of(cls, embedder: Any) -> Gate:
        """The gate of ``embedder``: its ``related``, and ``support`` and ``shifts`` where it has them."""
        support = getattr(embedder, "support", None)
        topical = getattr(embedder, "topical", None)
        shifts = getattr(embedder, "shifts", {}) or {}
        return cls(float(embedder.related), None if support is None else float(support),
                   tuple(sorted((a, b, float(v)) for (a, b), v in shifts.items())),
                   None if topical is None else float(topical))

    def shift(self, a: str, b: str) -> float:
        """The shift for texts of kinds ``a`` and ``b`` (either order); 0 when none is given."""
        for x, y, value in self.shifts:
            if {x, y} == {a, b}:
                return value
        return 0.0

    def judge(self, cosine: float, query: str, text: str) -> tuple[bool, bool]:
        """``(related, supported)`` of a memory ``text`` at ``cosine`` to the request ``query``:
        on its topic by meaning alone (never below ``related``: across languages a lower cosine is
        the norm, but no evidence); not too far in meaning for its shared words to count. Only a
        request and a memory of one kind are held to ``support``: across languages, or between
        Vietnamese written with and without marks, a model's cosine says too little to overrule a
        shared word (a question typed without marks met the memory it asks about at 0.82)."""
        a, b = kind(query), kind(text)
        shift = self.shift(a, b)
        return (cosine >= self.related + max(shift, 0.0),
                self.support is None or a != b or cosine >= self.support + shift)

    def on_topic(self, cosine: float, query: str, text: str) -> bool:
        """Whether memory ``text``, one of the ``NEAREST`` to ``query`` in meaning, is on its topic at
        ``cosine``: both name one broad topic of life (``text.topics``) and the cosine reaches
        ``topical`` (raised as ``related`` is)."""
        if self.topical is None or cosine < self.topical + max(self.shift(kind(query), kind(text)), 0.0):
            return False
        from bestie_tui.text.analysis import features, query_features
        from bestie_tui.text.topics import topics_of

        return not set(topics_of(query_features(query)[0])).isdisjoint(topics_of(features(text)[0]))


def kind(text: str) -> str:
    """``"vi"``, ``"vi_plain"`` (Vietnamese typed without diacritics) or ``"en"`` (any other language),
    by ``facts.tokens.detect_language``."""
    from bestie_tui.facts.tokens import detect_language

    lang, plain = detect_language(text)
    return "en" if lang != "vi" else ("vi_plain" if plain else "vi")


@dataclass(frozen=True)
class Fused:
    """The meaning of one request: ``relevance`` (fused, aligned with the ids given), ``words`` and
    ``meaning`` (aligned too), the model's name, the ``cosines`` (aligned too) and the embedder's
    ``gate`` (what counts as evidence of the request's topic, ``Gate.judge``)."""

    ids: Any
    relevance: Any
    words: Any
    meaning: Any
    model: str
    cosines: Any
    gate: Gate

    def nearest(self, k: int) -> frozenset[int]:
        """The ids of the ``k`` highest cosines (ties: any of them)."""
        import numpy as np

        if k <= 0 or not len(self.ids):
            return frozenset()
        top = np.argpartition(-self.cosines, k - 1)[:k] if k < len(self.ids) else np.arange(len(self.ids))
        return frozenset(self.ids[top].tolist())

    def cosines_of(self, wanted: list[int]) -> dict[int, float]:
        """``{id: cosine}`` of the request to each of ``wanted`` that was given to ``fuse``."""
        return {i: float(self.cosines[j]) for i, j in self._positions(wanted).items()}

    def annotate(self, scored: dict[int, ScoreParts]) -> dict[int, ScoreParts]:
        """The score parts with their ``words`` and ``meaning`` filled in."""
        at = self._positions(list(scored))
        return {i: (replace(parts, words=float(self.words[at[i]]), meaning=float(self.meaning[at[i]]))
                    if i in at else parts) for i, parts in scored.items()}

    def _positions(self, wanted: list[int]) -> dict[int, int]:
        """``{id: position in ids}`` of each of ``wanted`` that was given to ``fuse`` (one sort for all)."""
        import numpy as np

        if not wanted or not len(self.ids):
            return {}
        order = np.argsort(self.ids, kind="stable")
        ordered = self.ids[order]
        asked = np.asarray(wanted, dtype=np.int64)
        at = np.minimum(np.searchsorted(ordered, asked), len(ordered) - 1)
        return {int(i): int(order[j]) for i, j, ok in zip(asked, at, ordered[at] == asked) if ok}


def share(settings: dict[str, Any]) -> float:
    """``score.meaningShare`` from a settings snapshot (0–1)."""
    try:
        value = float(settings.get("score.meaningShare", DEFAULT_SHARE))
    except (TypeError, ValueError):
        return DEFAULT_SHARE
    return min(1.0, max(0.0, value))


def fuse(store: MemoryStore, query: str, ids: Any, words: Any, settings: dict[str, Any], generation: Any) -> Fused | None:
    """Fuse the word relevance ``words`` of the memories ``ids`` (aligned numpy arrays) with their
    meaning for ``query``; ``None`` when meaning is off or falls back to words (see the module
    docstring; the reason is kept for ``take_notes``). ``generation``: ``MemoryIndex.generation()``,
    the key under which the vectors are kept in memory between requests."""
    import numpy as np

    embedder = _embedder(store, settings)
    if embedder is None or not query.strip():
        return None
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    if not len(ids):
        return None  # nothing to rank: the request need not be embedded
    cos = _cosines(store, embedder, query, ids, generation)
    if cos is None:
        return None
    floor = float(embedder.floor)
    meaning = np.clip((cos - floor) / max(1e-6, 1.0 - floor), 0.0, 1.0)
    s = share(settings)
    words = np.asarray(words, dtype=np.float64)
    relevance = (1.0 - s) * words + s * meaning
    return Fused(ids, relevance, words, meaning, embedder.name, cos, Gate.of(embedder))


def _embedder(store: MemoryStore, settings: dict[str, Any]) -> Any:
    from bestie_tui.semantic import resolve

    return resolve(settings.get(vectors.SETTING)).embedder


def _cosines(store: MemoryStore, embedder: Any, query: str, ids: Any, generation: Any) -> Any:
    """Cosine of the query to each of ``ids`` (aligned float64), or None (a fallback, with its note)."""
    import numpy as np

    db = store.db
    others = vectors.other_models(db, embedder.name)
    if others:
        model, count = max(others.items(), key=lambda kv: kv[1])
        note(f"meaning search off: {count} stored vectors are of model {model!r}, not {embedder.name!r}; "
             "searching by words (bestie memory reindex --semantic rebuilds them)")
        return None
    have_ids, matrix = _matrix(store, embedder.name, generation)
    positions = np.searchsorted(have_ids, ids) if len(have_ids) else np.zeros(len(ids), dtype=np.int64)
    positions = np.minimum(positions, max(0, len(have_ids) - 1))
    known = (have_ids[positions] == ids) if len(have_ids) else np.zeros(len(ids), dtype=bool)
    missing = ids[~known]
    extra: dict[int, Any] = {}
    if len(missing):
        if len(missing) > LAZY_MAX:
            note(f"meaning search off: {len(missing)} memories have no vector of {embedder.name!r} yet; "
                 "searching by words (bestie memory reindex --semantic embeds them)")
            return None
        extra = _embed_missing(store, embedder, missing.tolist())
    q = query_vector(embedder, query)
    out = np.zeros(len(ids), dtype=np.float64)
    if known.any():
        out[known] = matrix[positions[known]] @ q
    for j in np.flatnonzero(~known).tolist():
        v = extra.get(int(ids[j]))
        if v is not None:
            out[j] = float(np.dot(v, q))
    return out


def query_vector(embedder: Any, query: str) -> Any:
    """The embedder's float32 vector of the request ``query``, kept for the last ``QUERY_CACHE``
    requests of the process: a search asks for the nearest memories, then ranks them, with one
    embedding (two entries only, so a run of different requests embeds each). A request that
    ``prefetch`` is embedding in its worker thread is waited for, not embedded twice; an embedding
    that failed raises its error here (and is tried again on the next call)."""
    key = (embedder.name, id(embedder), query)
    with _QUERIES_LOCK:
        future = _QUERIES.get(key)
        mine = future is None
        if future is None:
            future = _remember(key)
    if mine:
        _embed_request(future, key, embedder, query)
    return future.result()


def prefetch(store: MemoryStore, query: str, settings: dict[str, Any]) -> bool:
    """Start embedding the request ``query`` in a worker thread, so that the model runs while the
    caller reads the word index, the eligible memories and the candidates (the engine's call
    releases the GIL); ``query_vector`` joins it where the meaning is needed. Returns whether a thread
    was started: not when meaning is off (no model is loaded, numpy is not imported), the request
    is empty or already embedded, the store holds no vector of the model, the embedder runs on more
    than one thread (its ``threads``: it has the cores already), or no core is free
    (``_core_free``; ``BESTIE_SEMANTIC_PREFETCH=0`` never, ``1`` always). Without the thread the
    request is embedded in the caller's thread, with the same vector."""
    if not query.strip() or not _core_free(os.environ.get(PREFETCH_ENV, "").strip()):
        return False
    embedder = _embedder(store, settings)
    if embedder is None or getattr(embedder, "threads", 1) > 1:
        return False  # an engine on two threads already has both cores: the request is embedded in line
    key = (embedder.name, id(embedder), query)
    with _QUERIES_LOCK:
        if key in _QUERIES:
            return False
    if not vectors.has_model(store.db, embedder.name):
        return False
    with _QUERIES_LOCK:
        if key in _QUERIES:
            return False
        future = _remember(key)
    threading.Thread(target=_embed_request, args=(future, key, embedder, query), name="bestie-embed-request").start()
    return True


class _Pending:
    """One request's vector, or the error that embedding it raised, once the thread embedding it is done."""

    __slots__ = ("_done", "_value", "_error")

    def __init__(self) -> None:
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None

    def set_result(self, value: Any) -> None:
        self._value = value
        self._done.set()

    def set_exception(self, error: BaseException) -> None:
        self._error = error
        self._done.set()

    def result(self) -> Any:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value


def _core_free(choice: str) -> bool:
    """Whether a worker thread may embed the request: ``BESTIE_SEMANTIC_PREFETCH`` ``1`` always, ``0``
    never; unset, when the 1-minute load average leaves a core idle (``load ≤ cores − 1``). The
    thread gains only from a free core: on 2 cores at load 3–4 a request took as long with it as
    without (p50 25.2 / 25.1 ms, ``benchmarks/latency.py --semantic``), since even a hash that
    releases the GIL did not run beside the interpreter there."""
    if choice in ("0", "1"):
        return choice == "1"
    try:
        return os.getloadavg()[0] <= (os.cpu_count() or 1) - 1
    except OSError:  # no load average on this platform: the thread costs little either way
        return True


def _remember(key: tuple[str, int, str]) -> _Pending:
    """A new entry of the request cache (the caller holds ``_QUERIES_LOCK``)."""
    future = _Pending()
    if len(_QUERIES) >= QUERY_CACHE:
        _QUERIES.pop(next(iter(_QUERIES)))
    _QUERIES[key] = future
    return future


def _embed_request(future: _Pending, key: tuple[str, int, str], embedder: Any, query: str) -> None:
    import numpy as np

    try:
        future.set_result(np.asarray(embedder([query], query=True), dtype=np.float32).reshape(-1))
    except BaseException as exc:  # handed to whoever waits for it; the next request embeds again
        with _QUERIES_LOCK:
            if _QUERIES.get(key) is future:
                del _QUERIES[key]
        future.set_exception(exc)


#: Requests whose vectors are kept (``query_vector``).
QUERY_CACHE = 2
#: ``BESTIE_SEMANTIC_PREFETCH``: ``0`` no worker thread (the request is embedded where it is needed),
#: ``1`` always one, unset: when a core is free (``_core_free``).
PREFETCH_ENV = "BESTIE_SEMANTIC_PREFETCH"
_QUERIES: dict[tuple[str, int, str], _Pending] = {}
_QUERIES_LOCK = threading.Lock()


def nearest(store: MemoryStore, query: str, settings: dict[str, Any], generation: Any, k: int) -> list[tuple[int, float]]:
    """The approved memories closest in meaning to ``query`` among every stored vector of the model:
    ``[(id, cosine)]``, best first, at most ``k``, only those whose cosine reaches the embedder's
    ``related`` for the request (``Gate``: on its topic by meaning alone, ``retrieval.evidence``). One matrix–vector
    product over the vectors kept in memory (10,000 memories: 10,000 × 384 float32, about 1 ms).
    ``[]`` when meaning is off or falls back to words (the reason is kept for ``take_notes``).
    Memories without a vector yet are not found here (``bestie memory reindex --semantic``)."""
    import numpy as np

    embedder = _embedder(store, settings)
    if embedder is None or not query.strip() or k <= 0:
        return []
    others = vectors.other_models(store.db, embedder.name)
    if others:
        return []  # ``fuse`` says why when the same request ranks its candidates
    ids, matrix = _matrix(store, embedder.name, generation)
    if not len(ids):
        return []
    cos = matrix @ query_vector(embedder, query)
    gate = Gate.of(embedder)
    at = np.flatnonzero(cos >= gate.related + gate.shift(kind(query), kind(query)))
    if len(at) > k:
        at = at[np.argpartition(-cos[at], k - 1)[:k]]
    at = at[np.lexsort((ids[at], -cos[at]))]
    return list(zip(ids[at].tolist(), cos[at].astype(float).tolist()))


def _matrix(store: MemoryStore, model: str, generation: Any) -> tuple[Any, Any]:
    kept = _MATRICES.get(store)
    if kept is not None and generation is not None and kept[0] == model and kept[1] == generation:
        return kept[2], kept[3]
    ids, matrix = vectors.load(store.db, model)
    if generation is not None:
        _MATRICES[store] = (model, generation, ids, matrix)
    return ids, matrix


def _embed_missing(store: MemoryStore, embedder: Any, ids: list[int]) -> dict[int, Any]:
    """Embed the memories ``ids`` that have no vector; store them when the file takes a write."""
    from peewee import DatabaseError

    db = store.db
    marks = ",".join("?" * len(ids))
    rows = [(int(i), t) for i, t in db.execute_sql(f"SELECT id, text FROM memory WHERE id IN ({marks})", ids)]
    if not rows:
        return {}
    try:
        with db.atomic():
            matrix = vectors.store_vectors(db, rows, embedder)
    except DatabaseError:  # read-only or busy: use them for this request, embed again next time
        matrix = embedder([t for _, t in rows], query=False)
    _MATRICES.pop(store, None)
    return {i: matrix[k] for k, (i, _) in enumerate(rows)}

