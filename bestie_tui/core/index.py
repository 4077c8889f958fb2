"""``MemoryIndex``: a TF-IDF index over approved memories, fitted lazily and refreshed cheaply.

What it holds: one L2-normalised TF-IDF row per approved memory (``vectors.make_vectorizer``: folded,
stemmed words with negations kept, plus character n-grams), a map memory id → row, and the event-log
position it has seen.

How it hears about writes: every change to a memory writes a row to the ``event`` table (the store's
rule), whether it comes from this process, an undo, an import or the assistant in another process.
Before each query the index reads ``min(event.id), max(event.id)`` (two primary-key lookups). When the
maximum moved, it re-reads only the memories named by the new events and *transforms* their text with
the already-fitted vocabulary, appending rows; rows of memories that left ``approved`` are unmapped.
It refits from scratch only when those appended rows exceed ``REFIT_SHARE`` of the fitted rows, when
rows with words outside the vocabulary pile up (any such row below ``SMALL_INDEX`` fitted rows, where a
refit is cheap; ``OOV_SHARE`` of them above), or when the log shrank (``clear``).

scikit-learn and numpy are imported inside functions, so importing this module stays cheap.
"""

from __future__ import annotations

import threading
import time
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from peewee import fn

from .models import Event, Memory

if TYPE_CHECKING:  # pragma: no cover
    from .store import MemoryStore

#: Weight of the character n-gram part against the word part (1.0).
CHAR_WEIGHT = 1.5
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


class MemoryIndex:
    """TF-IDF rows of the approved memories of one store. Thread-safe (one lock around refreshes).

    Args:
        store: the ``MemoryStore`` whose database is indexed.
        char_ngrams: add character n-gram features (see ``vectors.make_vectorizer``).
    """

    def __init__(self, store: "MemoryStore", *, char_ngrams: bool = True):
        self._store_ref = weakref.ref(store)
        self.char_ngrams = char_ngrams
        self._lock = threading.RLock()
        self._vectorizer = None
        self._matrix = None  # scipy CSR, n_rows × n_features, rows L2-normalised
        self._row_of_id = None  # numpy int64 array indexed by memory id; -1 = not indexed
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
            if self._event_mark is None or (self._vectorizer is None and mark != self._event_mark):
                self.fit()
            elif mark != self._event_mark:
                if mark[0] != self._event_mark[0] or mark[1] < self._event_mark[1]:
                    self.fit()  # the log was cleared or rewritten: nothing to replay from
                else:
                    self._apply_events(self._event_mark[1], mark)

    def fit(self) -> None:
        """Fit the vocabulary and IDF on every approved memory now (normally called by ``ensure_fresh``)."""
        import numpy as np

        with self._lock:
            started = time.perf_counter()
            mark = _event_mark()
            rows = list(Memory.select(Memory.id, Memory.text).where(Memory.status == "approved").tuples())
            self._vectorizer, self._matrix = None, None
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            if rows:
                vectorizer = _new_vectorizer(self.char_ngrams)
                try:
                    matrix = vectorizer.fit_transform([r[1] for r in rows])
                except ValueError:  # every text is stop words only: nothing to index
                    matrix = None
                if matrix is not None:
                    self._vectorizer, self._matrix = vectorizer, _l2(matrix)
            size = int(ids.max()) + 1 if len(ids) else 1
            self._row_of_id = np.full(size, -1, dtype=np.int64)
            if self._matrix is not None:
                self._row_of_id[ids] = np.arange(len(ids))
            self._fitted_rows = len(rows)
            self._appended = 0
            self._oov_rows = 0
            self._event_mark = mark
            self._fits += 1
            self._fit_seconds = time.perf_counter() - started

    def _apply_events(self, after_event: int, mark: tuple[int, int]) -> None:
        import numpy as np
        from scipy.sparse import vstack

        changed = [m for (m,) in Event.select(Event.memory_id).distinct()
                   .where((Event.id > after_event) & Event.memory_id.is_null(False)).tuples()]
        self._event_mark = mark
        if not changed:
            return
        rows = list(Memory.select(Memory.id, Memory.text, Memory.status).where(Memory.id.in_(changed)).tuples())
        self._grow(max(changed))
        self._row_of_id[np.asarray(changed, dtype=np.int64)] = -1  # deleted or no longer approved
        approved = [(i, t) for i, t, status in rows if status == "approved"]
        if not approved:
            return
        self._appended += len(approved)
        self._oov_rows += sum(1 for _, t in approved if self._has_new_words(t))
        if self._vectorizer is None or self._needs_refit():
            self.fit()
            return
        new = _l2(self._vectorizer.transform([t for _, t in approved]))
        start = self._matrix.shape[0]
        self._matrix = vstack([self._matrix, new], format="csr")
        self._row_of_id[np.asarray([i for i, _ in approved], dtype=np.int64)] = np.arange(start, start + len(approved))
        self._updates += 1

    def _needs_refit(self) -> bool:
        fitted = max(self._fitted_rows, 1)
        if self._appended > REFIT_SHARE * fitted:
            return True
        # Words outside the fitted vocabulary only match through character n-grams until a refit;
        # refitting a small index is cheap, a large one waits for a few such rows.
        return self._oov_rows > (0 if fitted < SMALL_INDEX else OOV_SHARE * fitted)

    def _has_new_words(self, text: str) -> bool:
        from .vectors import analyze_words

        vocabulary = _word_vocabulary(self._vectorizer)
        return any(w not in vocabulary for w in analyze_words(text))

    def _grow(self, max_id: int) -> None:
        import numpy as np

        if max_id >= len(self._row_of_id):
            grown = np.full(max(max_id + 1, 2 * len(self._row_of_id)), -1, dtype=np.int64)
            grown[: len(self._row_of_id)] = self._row_of_id
            self._row_of_id = grown

    # ------------------------------------------------------------------ queries
    def relevance(self, query: str, ids: Sequence[int] | Any) -> Any:
        """TF-IDF cosine of ``query`` to each memory in ``ids``.

        Returns a float numpy array aligned with ``ids``, values in [0, 1]; 0 for an id that is not an
        indexed (approved) memory, and all zeros for a query without indexable words.
        """
        import numpy as np

        self.ensure_fresh()
        with self._lock:
            ids = np.asarray(ids, dtype=np.int64)
            out = np.zeros(len(ids), dtype=np.float64)
            qv = self._query_vector(query)
            if qv is None or not len(ids):
                return out
            known = ids < len(self._row_of_id)
            rows = np.full(len(ids), -1, dtype=np.int64)
            rows[known] = self._row_of_id[ids[known]]
            hit = rows >= 0
            if not hit.any():
                return out
            selected = rows[hit]
            # Scoring every row costs O(nnz of the matrix); slicing costs O(nnz of the slice).
            if len(selected) * 4 < self._matrix.shape[0]:
                sims = (self._matrix[selected] @ qv.T).toarray().ravel()
            else:
                sims = (self._matrix @ qv.T).toarray().ravel()[selected]
            out[hit] = np.clip(sims, 0.0, 1.0)
            return out

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` indexed memories most similar to ``query``: ``(memory id, cosine)``, best first,
        cosine > 0 only. Used for the manifest of relevant records left out."""
        import numpy as np

        self.ensure_fresh()
        with self._lock:
            qv = self._query_vector(query)
            if qv is None or k <= 0:
                return []
            sims = (self._matrix @ qv.T).toarray().ravel()
            live = np.flatnonzero(self._row_of_id >= 0)
            rows = self._row_of_id[live]
            scores = sims[rows]
            order = np.argsort(-scores)[:k]
            return [(int(live[i]), float(scores[i])) for i in order if scores[i] > 0]

    def relevance_of_texts(self, query: str, texts: Iterable[str]) -> list[float]:
        """Cosine of ``query`` to texts that are not indexed (e.g. pending proposals), using the fitted
        vocabulary. Returns a list of floats in [0, 1] aligned with ``texts``."""
        texts = list(texts)
        self.ensure_fresh()
        with self._lock:
            qv = self._query_vector(query)
            if qv is None or not texts:
                return [0.0] * len(texts)
            sims = (_l2(self._vectorizer.transform(texts)) @ qv.T).toarray().ravel()
            return [min(1.0, max(0.0, float(s))) for s in sims]

    def _query_vector(self, query: str):
        if self._vectorizer is None or not query.strip():
            return None
        qv = _l2(self._vectorizer.transform([query]))
        return qv if qv.nnz else None

    @property
    def stats(self) -> IndexStats:
        with self._lock:
            rows = int((self._row_of_id >= 0).sum()) if self._row_of_id is not None else 0
            features = self._matrix.shape[1] if self._matrix is not None else 0
            return IndexStats(self._fits, self._updates, rows, features, round(self._fit_seconds, 4))


def _event_mark() -> tuple[int, int]:
    low, high = Event.select(fn.MIN(Event.id), fn.MAX(Event.id)).tuples().get()
    return (low or 0, high or 0)


def _word_vocabulary(vectorizer) -> dict:
    # make_vectorizer returns either the word TfidfVectorizer or a FeatureUnion whose first part it is
    parts = getattr(vectorizer, "transformer_list", None)
    return (parts[0][1] if parts else vectorizer).vocabulary_


def _new_vectorizer(char_ngrams: bool):
    from .vectors import make_vectorizer

    # Word uni+bigrams and character 3–5-grams weighted 1.5 : 1 — the best of the variants measured
    # by benchmarks/retrieval_locomo.py (see the README section "How memories are scored").
    return make_vectorizer(char_ngrams=char_ngrams, word_bigrams=True, char_weight=CHAR_WEIGHT)


def _l2(matrix):
    from sklearn.preprocessing import normalize

    return normalize(matrix.tocsr(), norm="l2", copy=False)


_INDEXES: "weakref.WeakKeyDictionary[Any, MemoryIndex]" = weakref.WeakKeyDictionary()
_REGISTRY_LOCK = threading.Lock()


def get_index(store: "MemoryStore") -> MemoryIndex:
    """The one ``MemoryIndex`` of ``store`` (created on first call, not fitted until queried)."""
    with _REGISTRY_LOCK:
        index = _INDEXES.get(store)
        if index is None:
            index = _INDEXES[store] = MemoryIndex(store)
        return index
