"""``MemoryIndex``: a lexical index over approved memories, fitted lazily and refreshed cheaply.

What it holds, per approved memory (one row each):

* **word part** — Okapi BM25 document weights over ``vectors.analyze_words_and_bigrams`` features
  (folded, stemmed words with negations kept, and neighbouring pairs):
  ``w(t, m) = idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·len(m)/avglen))`` with
  ``idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5))`` (Robertson & Zaragoza, *The Probabilistic Relevance
  Framework: BM25 and Beyond*, 2009), ``K1`` = 0.6 and ``B`` = 0.2;
* **character part** — the same BM25 weighting (``CHAR_K1`` = 1.2, ``CHAR_B`` = 0.75, the usual
  defaults) over character 3–5-grams inside word boundaries of the accent-folded text, so spelling
  variants, compounds and unseen inflections still meet.

Relevance of a query q to a memory m, in [0, 1], with each query feature counted once::

    part(q, m) = Σ_{t ∈ q} w(t, m) / Σ_{t ∈ q} idf(t)·(k1 + 1)      (for the word and the char part)
    relevance  = WORD_SHARE · word + (1 − WORD_SHARE) · char          (WORD_SHARE = 0.5)

The denominator is the most a memory could score for q (every feature, tf → ∞), so each part stays in
[0, 1] without depending on the other memories. The query first loses ``QUERY_STOP_WORDS``.
Measured on LoCoMo (``benchmarks/retrieval_locomo.py``, relevance alone, recall@10): the earlier TF-IDF
cosine of words + characters 59.0 / 59.0 (turns / observations); BM25 words + TF-IDF characters
61.8 / 59.6; with the query stop words 63.1 / 59.5; with BM25 characters 63.8 / 59.9. ``K1``/``B`` were
chosen over k1 ∈ {0.4, 0.6, 0.9, 1.2}, b ∈ {0, 0.2, 0.4, 0.75}; observations hardly move with them.

Matrices are kept column-major (CSC): a query touches only the columns of its own features, so a
request costs the length of those posting lists, not the size of the index.

How it hears about writes: every change to a memory writes a row to the ``event`` table (the store's
rule), whether it comes from this process, an undo, an import or the assistant in another process.
Before each query the index reads ``min(event.id), max(event.id)`` (two primary-key lookups). When the
maximum moved, it re-reads only the memories named by the new events and *transforms* their text with
the already-fitted vocabulary (and the fitted idf and average length), appending rows; rows of
memories that left ``approved`` are unmapped. It refits from scratch only when those appended rows
exceed ``REFIT_SHARE`` of the fitted rows, when rows with words outside the vocabulary pile up (any
such row below ``SMALL_INDEX`` fitted rows, where a refit is cheap; ``OOV_SHARE`` of them above), or
when the log shrank (``clear``).

scikit-learn, scipy and numpy are imported inside functions, so importing this module stays cheap.

The BM25 parts, their weighting constants and the sparse helpers live in ``index_bm25``; this module keeps
the index itself (fit, incremental refresh, queries) and the per-store registry.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from peewee import fn

from bestie_tui.retrieval.bm25 import (  # noqa: F401  (the weighting constants are re-exported)
    CHAR_B,
    CHAR_K1,
    K1,
    QUERY_STOP_WORDS,
    WORD_SHARE,
    B,
    _dot_columns,
    _dot_rows,
    _Fitted,
    _l2,
)
from bestie_tui.store.binding import bind_methods, uses_store
from bestie_tui.store.models import Event, Memory

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import NDArray

    from bestie_tui.store.memory_store import MemoryStore

#: Refit when rows appended since the last fit exceed this share of the fitted rows.
REFIT_SHARE = 0.2
#: Below this many fitted rows a refit is cheap (well under 0.1 s): any new word triggers one.
SMALL_INDEX = 2000
#: Above it, refit when rows bringing out-of-vocabulary words exceed this share of the fitted rows.
OOV_SHARE = 0.01


@dataclass(frozen=True)
class IndexStats:
    """What the index did so far: ``fits`` full fits, ``updates`` incremental refreshes, ``rows``
    currently mapped memories, ``features`` vocabulary size, ``fit_seconds`` of the last fit."""

    fits: int
    updates: int
    rows: int
    features: int
    fit_seconds: float


@bind_methods(lambda index: index._store_ref())  # each method reads its own store's file
class MemoryIndex:
    """BM25 word rows and character n-gram rows of the approved memories of one store. Thread-safe
    (one lock around refreshes and queries).

    Args:
        store: the ``MemoryStore`` whose database is indexed.
    """

    def __init__(self, store: MemoryStore):
        self._store_ref = weakref.ref(store)
        self._lock = threading.RLock()
        self._fitted: _Fitted | None = None
        # scipy is read as Any (no stubs), so the sparse matrices are typed Any
        self._extra_words: Any = None  # CSR rows appended since the fit (small: below REFIT_SHARE)
        self._extra_chars: Any = None
        # both arrays are set by ``fit``, which ``ensure_fresh`` runs before anything reads them
        self._row_of_id: NDArray[np.int64] | None = None  # indexed by memory id; -1 = not indexed
        self._id_of_row: NDArray[np.int64] | None = None  # indexed by row; -1 = row no longer mapped
        self._event_mark: tuple[int, int] | None = None
        self._fitted_rows = 0
        self._appended = 0
        self._oov_rows = 0
        self._fits = 0
        self._updates = 0
        self._fit_seconds = 0.0

    # ------------------------------------------------------------------ refresh
    def ensure_fresh(self) -> None:
        """Fit on first use; afterwards apply the writes logged since the last look (see module doc)."""
        with self._lock:
            mark = _event_mark()
            if self._event_mark is None or (self._fitted is None and mark != self._event_mark):
                self.fit()
            elif mark != self._event_mark:
                if mark[0] != self._event_mark[0] or mark[1] < self._event_mark[1]:
                    self.fit()  # the log was cleared or rewritten: nothing to replay from
                else:
                    self._apply_events(self._event_mark[1], mark)

    def fit(self) -> None:
        """Fit vocabulary, idf and rows on every approved memory now (normally via ``ensure_fresh``)."""
        import numpy as np

        with self._lock:
            started = time.perf_counter()
            mark = _event_mark()
            rows = list(cast("Iterable[tuple[int, str]]",
                             Memory.select(Memory.id, Memory.text).where(Memory.status == "approved").tuples()))
            self._fitted = self._extra_words = self._extra_chars = None
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            if rows:
                try:
                    self._fitted = _Fitted([r[1] for r in rows])
                except ValueError:  # every text is stop words only: nothing to index
                    self._fitted = None
            size = int(ids.max()) + 1 if len(ids) else 1
            self._row_of_id = np.full(size, -1, dtype=np.int64)
            self._id_of_row = ids if self._fitted is not None else np.zeros(0, dtype=np.int64)
            if self._fitted is not None:
                self._row_of_id[ids] = np.arange(len(ids))
            self._fitted_rows = len(rows)
            self._appended = self._oov_rows = 0
            self._event_mark = mark
            self._fits += 1
            self._fit_seconds = time.perf_counter() - started

    def _apply_events(self, after_event: int, mark: tuple[int, int]) -> None:
        import numpy as np
        from scipy.sparse import vstack

        changed = [m for (m,) in cast("Iterable[tuple[int]]", Event.select(Event.memory_id).distinct()
                   .where((Event.id > after_event) & Event.memory_id.is_null(False)).tuples())]
        self._event_mark = mark
        if not changed:
            return
        rows = list(cast("Iterable[tuple[int, str, str]]",
                         Memory.select(Memory.id, Memory.text, Memory.status).where(Memory.id.in_(changed)).tuples()))
        self._grow(max(changed))
        assert self._row_of_id is not None and self._id_of_row is not None  # set by the fit before any event
        changed_ids = np.asarray(changed, dtype=np.int64)
        old_rows = self._row_of_id[changed_ids]
        self._id_of_row[old_rows[old_rows >= 0]] = -1  # deleted, edited or no longer approved
        self._row_of_id[changed_ids] = -1
        approved = [(i, t) for i, t, status in rows if status == "approved"]
        if not approved:
            return
        self._appended += len(approved)
        self._oov_rows += sum(1 for _, t in approved if self._has_new_words(t))
        if self._fitted is None or self._needs_refit():
            self.fit()
            return
        words, chars = self._fitted.transform([t for _, t in approved])
        self._extra_words = words if self._extra_words is None else vstack([self._extra_words, words], format="csr")
        if chars is not None:
            self._extra_chars = chars if self._extra_chars is None else vstack([self._extra_chars, chars], format="csr")
        start = len(self._id_of_row)
        new_ids = np.asarray([i for i, _ in approved], dtype=np.int64)
        self._id_of_row = np.concatenate([self._id_of_row, new_ids])
        self._row_of_id[new_ids] = np.arange(start, start + len(approved))
        self._updates += 1

    def _needs_refit(self) -> bool:
        fitted = max(self._fitted_rows, 1)
        if self._appended > REFIT_SHARE * fitted:
            return True
        # Words outside the fitted vocabulary only match through character n-grams until a refit;
        # refitting a small index is cheap, a large one waits for a few such rows.
        return self._oov_rows > (0 if fitted < SMALL_INDEX else OOV_SHARE * fitted)

    def _has_new_words(self, text: str) -> bool:
        from bestie_tui.text.analysis import analyze_words

        assert self._fitted is not None  # only _apply_events asks, and ensure_fresh calls it with a fit in place
        vocabulary = self._fitted.words.vectorizer.vocabulary_
        return any(w not in vocabulary for w in analyze_words(text))

    def _grow(self, max_id: int) -> None:
        import numpy as np

        row_of_id = self._row_of_id
        assert row_of_id is not None  # set by the fit before any event is applied
        if max_id >= len(row_of_id):
            grown = np.full(max(max_id + 1, 2 * len(row_of_id)), -1, dtype=np.int64)
            grown[: len(row_of_id)] = row_of_id
            self._row_of_id = grown

    # ------------------------------------------------------------------ queries
    def _row_scores(self, query: str) -> NDArray[np.float64] | None:
        """Relevance of ``query`` to every row (fitted, then appended); None without indexable words."""
        import numpy as np

        fitted = self._fitted
        if fitted is None or not query.strip():
            return None
        q = fitted.query(query)
        if q is None:
            return None
        wcols, wvals, ccols, cvals = q
        scores = _dot_columns(fitted.words.rows, wcols, wvals)
        if fitted.chars is not None:
            scores += _dot_columns(fitted.chars.rows, ccols, cvals)
        if self._extra_words is not None:
            extra = _dot_rows(self._extra_words, wcols, wvals, fitted.words.width)
            if self._extra_chars is not None:
                assert fitted.chars is not None  # char rows are appended only by a fit with a char part
                extra += _dot_rows(self._extra_chars, ccols, cvals, fitted.chars.width)
            scores = np.concatenate([scores, extra])
        return np.clip(scores, 0.0, 1.0)

    def relevance(self, query: str, ids: Sequence[int] | Any) -> Any:
        """Relevance (module docstring) of ``query`` to each memory in ``ids``.

        Returns a float numpy array aligned with ``ids``, values in [0, 1]; 0 for an id that is not an
        indexed (approved) memory, and all zeros for a query without indexable words.
        """
        return self.lookup(query, ids)[0]

    def lookup(self, query: str, ids: Sequence[int] | Any, k: int = 0) -> tuple[Any, list[tuple[int, float]]]:
        """One pass for a request: ``(relevance aligned with ids, top)`` where ``top`` is ``top(query, k)``
        computed from the same scores (the manifest needs both; the query is transformed once)."""
        import numpy as np

        self.ensure_fresh()
        with self._lock:
            ids = np.asarray(ids, dtype=np.int64)
            out = np.zeros(len(ids), dtype=np.float64)
            scores = self._row_scores(query)
            if scores is None:
                return out, []
            row_of_id = self._row_of_id
            assert row_of_id is not None  # ensure_fresh has fitted
            known = (ids >= 0) & (ids < len(row_of_id))
            rows = np.full(len(ids), -1, dtype=np.int64)
            rows[known] = row_of_id[ids[known]]
            hit = rows >= 0
            out[hit] = scores[rows[hit]]
            return out, (self._best(scores, k) if k > 0 else [])

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` indexed memories most relevant to ``query``: ``(memory id, relevance)``, best
        first, relevance > 0 only. Used for the manifest of relevant records left out."""
        self.ensure_fresh()
        with self._lock:
            scores = self._row_scores(query)
            return self._best(scores, k) if scores is not None and k > 0 else []

    def _best(self, scores: NDArray[np.float64], k: int) -> list[tuple[int, float]]:
        import numpy as np

        id_of_row = self._id_of_row
        assert id_of_row is not None  # callers ran ensure_fresh, which fits
        scores = np.where(id_of_row >= 0, scores, 0.0)
        # a partial sort: only the k best are ordered, however large the index
        cut = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        cut = cut[np.lexsort((id_of_row[cut], -scores[cut]))]
        return [(int(id_of_row[r]), float(scores[r])) for r in cut if scores[r] > 0]

    def similarity(self, ids: Sequence[int]) -> Any:
        """Pairwise cosine of indexed memories, ``WORD_SHARE`` · word cosine + the rest · character
        cosine, over their BM25 rows: a ``len(ids)`` × ``len(ids)`` numpy array in [0, 1]; rows of
        ids that are not indexed are 0. Used to keep near-duplicates out of one pack."""
        import numpy as np
        from scipy.sparse import diags

        self.ensure_fresh()
        with self._lock:
            n = len(ids)
            out = np.zeros((n, n), dtype=np.float64)
            fitted = self._fitted
            if fitted is None or n == 0:
                return out
            row_of_id = self._row_of_id
            assert row_of_id is not None  # ensure_fresh has fitted
            id_array = np.asarray(ids, dtype=np.int64)
            rows = np.full(n, -1, dtype=np.int64)
            known = (id_array >= 0) & (id_array < len(row_of_id))
            rows[known] = row_of_id[id_array[known]]
            base = fitted.words.rows.shape[0]
            in_fit, appended = (rows >= 0) & (rows < base), rows >= base
            for part, extra, share in ((fitted.words, self._extra_words, WORD_SHARE),
                                       (fitted.chars, self._extra_chars, 1 - WORD_SHARE)):
                if part is None:
                    continue
                # gather every row at once; masks zero the rows that come from elsewhere
                mat = diags(in_fit.astype(np.float32)) @ part.by_row[np.where(in_fit, rows, 0)]
                if extra is not None and appended.any():
                    mat = mat + diags(appended.astype(np.float32)) @ extra[np.where(appended, rows - base, 0)]
                unit = _l2(mat)
                out += share * (unit @ unit.T).toarray()
            return np.clip(out, 0.0, 1.0)

    def relevance_of_texts(self, query: str, texts: Iterable[str]) -> list[float]:
        """Relevance of ``query`` to texts that are not indexed (e.g. pending proposals), using the
        fitted vocabulary, idf and average length. Returns floats in [0, 1] aligned with ``texts``."""
        texts = list(texts)
        self.ensure_fresh()
        with self._lock:
            fitted = self._fitted
            q = fitted.query(query) if fitted is not None and query.strip() and texts else None
            if fitted is None or q is None:  # q is None whenever fitted is
                return [0.0] * len(texts)
            wcols, wvals, ccols, cvals = q
            words, chars = fitted.transform(texts)
            sims = _dot_rows(words, wcols, wvals, fitted.words.width)
            if chars is not None:
                assert fitted.chars is not None  # transform returns char rows only when there is a char part
                sims += _dot_rows(chars, ccols, cvals, fitted.chars.width)
            return [min(1.0, max(0.0, float(s))) for s in sims]

    @property
    def stats(self) -> IndexStats:
        with self._lock:
            rows = int((self._row_of_id >= 0).sum()) if self._row_of_id is not None else 0
            f = self._fitted
            features = 0 if f is None else f.words.width + (f.chars.width if f.chars is not None else 0)
            return IndexStats(self._fits, self._updates, rows, features, round(self._fit_seconds, 4))


def _event_mark() -> tuple[int, int]:
    low, high = cast("tuple[int | None, int | None]", Event.select(fn.MIN(Event.id), fn.MAX(Event.id)).tuples().get())
    return (low or 0, high or 0)


_INDEXES: weakref.WeakKeyDictionary[Any, MemoryIndex] = weakref.WeakKeyDictionary()
_REGISTRY_LOCK = threading.Lock()


@uses_store
def get_index(store: MemoryStore) -> MemoryIndex:
    """The one ``MemoryIndex`` of ``store`` (created on first call, not fitted until queried)."""
    with _REGISTRY_LOCK:
        index = _INDEXES.get(store)
        if index is None:
            index = _INDEXES[store] = MemoryIndex(store)
        return index
