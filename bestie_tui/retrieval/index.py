"""``MemoryIndex``: lexical relevance over the approved memories, read from the persisted index.

What it holds, per approved memory (one row each):

* **word part** — Okapi BM25 document weights over ``analysis.analyze_words_and_bigrams`` features
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
               + TOPIC_SHARE · [relevance > 0 and m holds a word of a topic q names]   (memories only)

The denominator is the most a memory could score for q (every feature, tf → ∞), so each part stays in
[0, 1] without depending on the other memories (the sum is clipped to 1). The topic term
(``text.topics``: food, travel, work…, ``TOPIC_SHARE`` = 0.1, fitted two-fold by
``benchmarks/retrieval_topics.py``) reorders memories that already share a feature with q: it lifted
PrefEval recall@5 by words from 13.9 to 17.5 with LoCoMo observations share@10 at 59.8 → 60.1
(relevance alone); it never makes a memory evidence of q's topic (``retrieval.evidence``). The query first loses ``QUERY_STOP_WORDS``.
Measured on LoCoMo (``benchmarks/retrieval_locomo.py``, relevance alone, recall@10): the earlier TF-IDF
cosine of words + characters 59.0 / 59.0 (turns / observations); BM25 words + TF-IDF characters
61.8 / 59.6; with the query stop words 63.1 / 59.5; with BM25 characters 63.8 / 59.9. ``K1``/``B`` were
chosen over k1 ∈ {0.4, 0.6, 0.9, 1.2}, b ∈ {0, 0.2, 0.4, 0.75}; observations hardly move with them.

The counts behind these weights (term and document frequencies, lengths) live in the database
(``bestie_tui.store.doc_index``), kept current by every write's own transaction; the weights are
computed from them at query time, so idf and average length are always those of the current
memories (the earlier in-process fit froze them between refits). A query reads its own features'
rows only — a few index lookups and their posting blocks — so a new process answers without
reading, let alone fitting, the whole collection; numpy does the arithmetic (no scipy, no
scikit-learn). Memory ids are looked up in a sorted array of indexed ids, never used as positions.

The message collection (history recall) stores each turn's own counts and links to the turns
before and after it in its session; a turn is scored as the text of those three turns: its term
frequencies, lengths and document frequencies are the sums over the three, added up at query time
from the stored lists (``_windows``), so one turn's terms are stored once, not three times.

Within one process the index caches what it read (document lengths, term frequencies, posting
lists, bounded by ``POSTING_CACHE``) until the event log moves.
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from peewee import DatabaseError, OperationalError

from bestie_tui.errors import StorageError
from bestie_tui.retrieval import bm25
from bestie_tui.retrieval.bm25 import (  # noqa: F401  (the weighting constants are re-exported)
    CHAR,
    CHAR_B,
    CHAR_K1,
    K1,
    QUERY_STOP_WORDS,
    TOPIC_SHARE,
    WORD,
    WORD_SHARE,
    B,
    PartWeights,
    parts,
)
from bestie_tui.store import doc_index
from bestie_tui.store.db import planner_statistics, read_stamp
from bestie_tui.text.analysis import features, query_features
from bestie_tui.text.topics import member_features

if TYPE_CHECKING:  # pragma: no cover
    from bestie_tui.store.memory_store import MemoryStore

#: Posting entries (document, tf) kept in memory between queries of one process.
POSTING_CACHE = 2_000_000
#: Documents whose term vectors (for near-duplicate cosines) are kept between queries.
VECTOR_CACHE = 20_000
_CHUNK = 500


@dataclass(frozen=True)
class IndexStats:
    """What this process's view of the index did: ``fits`` full rebuilds it ran, ``updates`` times it
    found the index moved and reloaded, ``rows`` indexed memories, ``features`` stored features of
    the terms it has looked up so far (not the vocabulary size: it never reads the whole vocabulary),
    ``fit_seconds`` of its last rebuild."""

    fits: int
    updates: int
    rows: int
    features: int
    fit_seconds: float


class MemoryIndex:
    """Relevance, top-k and near-duplicate cosines over the persisted index of one store's approved
    memories. Thread-safe (one lock around loads and queries).

    Args:
        store: the ``MemoryStore`` whose database is indexed.
        collection: the ``doc_index`` collection (``"memory"``).
    """

    def __init__(self, store: MemoryStore, collection: str = doc_index.MEMORY):
        self._store_ref = weakref.ref(store)
        self.collection = collection
        self._lock = threading.RLock()
        self._key: tuple | None = None
        self._doc_ids: Any = None  # sorted int64 numpy array of indexed ids
        self._lengths: Any = None  # (word lengths, char lengths), float64 arrays aligned with _doc_ids
        #: messages: (previous, next) positions in _doc_ids of each turn's session neighbours; none:
        #: len(_doc_ids)
        self._links: tuple[Any, Any] | None = None
        self._parts: tuple[PartWeights, PartWeights] | None = None
        self._terms: dict[tuple[int, str], tuple[int, int] | None] = {}
        self._postings: OrderedDict[int, tuple[Any, Any]] = OrderedDict()
        self._vectors: OrderedDict[int, tuple[Any, Any]] = OrderedDict()
        self._cached = 0
        self._fits = self._updates = 0
        self._fit_seconds = 0.0
        self._stamp: Any = None  # ``read_stamp`` when this view was last found current

    @property
    def _db(self) -> Any:
        store = self._store_ref()
        if store is None:
            raise RuntimeError("the store of this index was closed and collected")
        return store.db

    # ------------------------------------------------------------------ freshness
    def ensure_fresh(self) -> None:
        """Bring the persisted index up to date if a write skipped it (or it is missing or stale:
        then it is rebuilt, once, under the write lock), and reload this process's view when the
        index moved since the last look. A read-only or busy database answers from the index it has.

        Raises:
            StorageError: there is no index at all and the database cannot be written.
        """
        with self._lock:
            db = self._db
            stamp = read_stamp(db)
            if stamp is not None and stamp == self._stamp and self._doc_ids is not None:
                return  # nothing was written since the last look: skip its reads
            first = self._key is None  # once per process: also count the source rows
            state = doc_index.status(db, self.collection, count=first)
            settled = True
            if state != "current":
                import time

                started = time.perf_counter()
                try:
                    with db.atomic():
                        done = doc_index.sync(db, self.collection, count=first)
                except (OperationalError, DatabaseError) as exc:
                    if doc_index.read_meta(db, self.collection) is None:
                        raise StorageError(f"the database has no search index yet and it cannot be written now "
                                           f"({exc}); run `bestie memory reindex` where it can") from exc
                    done = "current"  # read-only or busy: answer from the index as it is
                    settled = False  # and look in full again next time
                if done == "rebuilt":
                    planner_statistics(db, refresh=True)  # a rebuild follows a bulk change
                    self._fits += 1
                    self._fit_seconds = time.perf_counter() - started
            self._load_if_moved(db)
            # the stamp read *before* the look: a write that landed during it makes the next look full
            self._stamp = stamp if settled else None

    def generation(self) -> Any:
        """A value that moves whenever a memory of the collection changes (a write logs an event, and
        the index follows the event log), and only then: a record access, which logs none, leaves it.
        Readers key what they derive from the memories' rows on it. Brings the index up to date first.

        Returns an opaque hashable value, or None when the index cannot say (nothing is kept then)."""
        self.ensure_fresh()
        with self._lock:
            return self._key if self._stamp is not None else None

    def _view(self, db: Any) -> None:
        """Inside a query's read snapshot: reload this process's view if anything was written since
        ``ensure_fresh`` looked (one cheap stamp read when nothing was)."""
        stamp = read_stamp(db)
        if stamp is None or stamp != self._stamp:
            self._load_if_moved(db)

    def _load_if_moved(self, db: Any) -> None:
        import numpy as np

        meta = doc_index.read_meta(db, self.collection)
        key = None if meta is None else (meta.event_low, meta.event_high, meta.built_at, meta.docs)
        if key == self._key and self._doc_ids is not None:
            return
        ids: list[Any] = []
        wlen: list[Any] = []
        clen: list[Any] = []
        links: list[Any] = []
        windowed = self.collection == doc_index.MESSAGE
        for block, data in db.execute_sql("SELECT block, data FROM ix_block WHERE collection = ? ORDER BY block",
                                          (self.collection,)).fetchall():
            n = len(data) // (28 if windowed else 12)  # doc_index._block_data: 3 uint32 (+ 2 int64)
            triples = np.frombuffer(data, dtype="<u4", count=3 * n).reshape(-1, 3)
            ids.append((np.int64(block) << doc_index.BLOCK_BITS) + triples[:, 0].astype(np.int64))
            wlen.append(triples[:, 1])
            clen.append(triples[:, 2])
            if windowed:
                links.append(np.frombuffer(data, dtype="<i8", offset=12 * n).reshape(-1, 2))
        self._doc_ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        self._lengths = (np.concatenate(wlen).astype(np.float64) if wlen else np.zeros(0),
                         np.concatenate(clen).astype(np.float64) if clen else np.zeros(0))
        self._links = None
        if windowed:
            pairs = np.concatenate(links) if links else np.zeros((0, 2), dtype=np.int64)
            nowhere = len(self._doc_ids)  # the position of "no neighbour": one slot past the end
            prev, nxt = (np.where(known, pos, nowhere) for pos, known in
                         (self._positions(pairs[:, 0]), self._positions(pairs[:, 1])))
            self._links = (prev, nxt)
            self._lengths = tuple(self._window_sum(own) for own in self._lengths)
            totals = (int(self._lengths[0].sum()), int(self._lengths[1].sum()))
        else:
            totals = (meta.word_total, meta.char_total) if meta else (0, 0)
        self._parts = parts(len(self._doc_ids), *totals)
        self._terms.clear()
        self._postings.clear()
        self._vectors.clear()
        self._cached = 0
        if self._key is not None:
            self._updates += 1
        self._key = key

    def _window_sum(self, own: Any) -> Any:
        """Per turn: ``own`` plus its session neighbours' values (messages)."""

        import numpy as np

        assert self._links is not None
        padded = np.append(own, 0)
        return own + padded[self._links[0]] + padded[self._links[1]]

    def _windows(self, positions: Any, tf: Any) -> tuple[Any, Any]:
        """A term's own postings (positions, tf) → those of the three-turn texts: each turn that holds
        the term passes its count on to itself and to its session neighbours (messages)."""
        import numpy as np

        assert self._links is not None
        n = len(self._links[0])  # a missing neighbour is position n, dropped at the end
        targets = np.concatenate([positions, self._links[0][positions], self._links[1][positions]])
        counts = np.tile(tf, 3)
        if 8 * len(targets) >= n:  # a common term: one pass over every turn beats a sort
            dense = np.bincount(targets, weights=counts, minlength=n + 1)[:n]
            where = np.flatnonzero(dense)
            return where, dense[where]
        where, inverse = np.unique(targets, return_inverse=True)
        summed = np.bincount(inverse, weights=counts, minlength=len(where))
        keep = where < n
        return where[keep], summed[keep]

    def fit(self) -> None:
        """Rebuild the persisted index from every approved memory now (``bestie memory reindex``)."""
        import time

        with self._lock:
            started = time.perf_counter()
            db = self._db
            with db.atomic():
                doc_index.rebuild(db, self.collection)
            planner_statistics(db, refresh=True)
            self._fits += 1
            self._fit_seconds = time.perf_counter() - started
            self._key = None
            self._load_if_moved(db)
            self._stamp = None

    def _reading(self) -> Any:
        """One read snapshot for a query's several SELECTs (a no-op inside a caller's transaction)."""
        db = self._db
        return nullcontext() if db.in_transaction() else db.transaction(lock_type="DEFERRED")

    # ------------------------------------------------------------------ reads
    def _lookup(self, keys: Iterable[tuple[int, str]]) -> dict[tuple[int, str], tuple[int, int]]:
        """``(part, feature) → (term id, df)`` of the stored ones among ``keys``, through the cache."""
        keys = list(dict.fromkeys(keys))
        missing = [k for k in keys if k not in self._terms]
        if missing:
            for part in (WORD, CHAR):
                terms = [t for p, t in missing if p == part]
                for start in range(0, len(terms), _CHUNK):
                    chunk = terms[start:start + _CHUNK]
                    rows = self._db.execute_sql(
                        f"SELECT term, id, df FROM ix_term WHERE collection = ? AND part = ? AND term IN "
                        f"({','.join('?' * len(chunk))})", (self.collection, part, *chunk)).fetchall()
                    found = {term: (tid, df) for term, tid, df in rows}
                    for term in chunk:
                        self._terms[(part, term)] = found.get(term)
        return {k: v for k in keys if (v := self._terms.get(k)) is not None}

    def _posting_lists(self, term_ids: list[int]) -> dict[int, tuple[Any, Any]]:
        """``term id → (positions in _doc_ids, tf)`` numpy arrays, through the bounded cache."""

        out = {t: self._postings[t] for t in term_ids if t in self._postings}
        for t in out:
            self._postings.move_to_end(t)
        missing = [t for t in term_ids if t not in out]
        for start in range(0, len(missing), _CHUNK):
            chunk = missing[start:start + _CHUNK]
            raw: dict[int, list[tuple[int, bytes]]] = {}
            for tid, block, data in self._db.execute_sql(
                    f"SELECT term_id, block, data FROM ix_posting WHERE term_id IN ({','.join('?' * len(chunk))})",
                    chunk).fetchall():
                raw.setdefault(tid, []).append((block, data))
            for tid in chunk:
                blocks = raw.get(tid, [])
                ids, tf = _decode(self.collection, blocks)
                positions, known = self._positions(ids)
                entry = (positions[known], tf[known])
                if self._links is not None:
                    entry = self._windows(*entry)
                out[tid] = self._postings[tid] = entry
                self._cached += len(entry[0])
        while self._cached > POSTING_CACHE and len(self._postings) > 1:
            _, (old, _) = self._postings.popitem(last=False)
            self._cached -= len(old)
        return out

    def _positions(self, ids: Any) -> tuple[Any, Any]:
        """``(positions, known)``: where each id sits in the sorted indexed ids, and whether it is there."""
        import numpy as np

        doc_ids = self._doc_ids
        if len(doc_ids) == 0:
            return np.zeros(len(ids), dtype=np.int64), np.zeros(len(ids), dtype=bool)
        if doc_ids[-1] - doc_ids[0] + 1 == len(doc_ids):  # ids without gaps (most message tables): no search
            positions = np.clip(ids - doc_ids[0], 0, len(doc_ids) - 1)
        else:
            positions = np.minimum(np.searchsorted(doc_ids, ids), len(doc_ids) - 1)
        return positions, doc_ids[positions] == ids

    # ------------------------------------------------------------------ queries
    def _query_terms(self, words: list[str], chars: list[str]) -> list[tuple[PartWeights, list[tuple[int, float, str]], float]]:
        """Per part: ``(weights, [(term id, idf, feature)], share / ideal)`` of a query's stored
        features (``query_features``: its ``words`` and ``chars``)."""
        assert self._parts is not None  # ensure_fresh loaded them
        found = self._lookup([(WORD, t) for t in words] + [(CHAR, t) for t in chars])
        if self._links is not None:  # messages: df of the three-turn texts, from their postings
            lists = self._posting_lists([tid for tid, _ in found.values()])
            found = {k: (tid, len(lists[tid][0])) for k, (tid, _) in found.items()}
        out = []
        for part, feats in zip(self._parts, (words, chars)):
            stored = [(*found[(part.part, t)], t) for t in feats if (part.part, t) in found]
            ideal = part.ideal([df for _, df, _ in stored])
            if stored and ideal > 0:
                out.append((part, [(tid, part.idf(df), t) for tid, df, t in stored], part.share / ideal))
        return out

    def _scores(self, query: str) -> Any:
        """Relevance of ``query`` to every indexed memory (aligned with ``_doc_ids``), or None when the
        query has no stored feature."""
        import numpy as np

        if not query.strip() or self._doc_ids is None or len(self._doc_ids) == 0:
            return None
        words, chars = query_features(query)
        terms = self._query_terms(words, chars)
        if not terms:
            return None
        scores = np.zeros(len(self._doc_ids), dtype=np.float64)
        assert self._lengths is not None
        for part, stored, scale in terms:
            lists = self._posting_lists([tid for tid, _, _ in stored])
            hits = [(lists[tid], idf) for tid, idf, _ in stored if len(lists[tid][0])]
            if not hits:
                continue
            # every posting of the part in one pass: a numpy call per term costs more than its arithmetic
            positions = np.concatenate([p for (p, _), _ in hits])
            tf = np.concatenate([t for (_, t), _ in hits])
            idf = np.repeat([i for _, i in hits], [len(p) for (p, _), _ in hits])
            weights = scale * part.weight(idf, tf, self._lengths[part.part][positions])
            scores += np.bincount(positions, weights=weights, minlength=len(scores))
        if bm25.TOPIC_SHARE > 0 and self._links is None:
            self._add_topics(words, scores)
        return np.clip(scores, 0.0, 1.0)

    def _add_topics(self, words: list[str], scores: Any) -> None:
        """Add ``TOPIC_SHARE`` to the ``scores`` (in place) of the memories that already score above 0
        and hold a word of a topic the query's word features ``words`` name (``text.topics``)."""
        import numpy as np

        members = member_features(words)
        if not members:
            return
        found = self._lookup([(WORD, f) for f in members])
        lists = self._posting_lists([tid for tid, _ in found.values()])
        held = [p for p, _ in lists.values() if len(p)]
        if not held:
            return
        same = np.zeros(len(scores), dtype=bool)
        same[np.concatenate(held)] = True
        scores[same & (scores > 0)] += bm25.TOPIC_SHARE

    def relevance(self, query: str, ids: Sequence[int] | Any) -> Any:
        """Relevance (module docstring) of ``query`` to each memory in ``ids``.

        Returns a float numpy array aligned with ``ids``, values in [0, 1]; 0 for an id that is not an
        indexed (approved) memory, and all zeros for a query without indexable words.
        """
        return self.lookup(query, ids)[0]

    def lookup(self, query: str, ids: Sequence[int] | Any, k: int = 0) -> tuple[Any, list[tuple[int, float]]]:
        """One pass for a request: ``(relevance aligned with ids, top)`` where ``top`` is ``top(query, k)``
        computed from the same scores (the manifest needs both; the query is analysed once)."""
        import numpy as np

        self.ensure_fresh()
        with self._lock, self._reading():
            self._view(self._db)
            ids = np.asarray(ids, dtype=np.int64).reshape(-1)
            out = np.zeros(len(ids), dtype=np.float64)
            scores = self._scores(query)
            if scores is None:
                return out, []
            positions, known = self._positions(ids)
            out[known] = scores[positions[known]]
            return out, (self._best(scores, k) if k > 0 else [])

    def all_scores(self, query: str) -> tuple[Any, Any] | None:
        """``(ids, relevance)``: every indexed document's id (a sorted int64 numpy array) and its
        relevance to ``query`` (float64 in [0, 1], aligned), or None when the query has no stored
        feature. History recall smooths these along the session order."""
        self.ensure_fresh()
        with self._lock, self._reading():
            self._view(self._db)
            scores = self._scores(query)
            return None if scores is None else (self._doc_ids, scores)

    def document_frequencies(self, features: Iterable[str]) -> tuple[dict[str, int], int]:
        """``({feature: df}, N)``: how many indexed memories hold each word feature (a folded stem, as
        ``analysis.analyze_words`` writes it; 0 for one no memory holds) and how many memories are
        indexed. One read of the stored terms; brings the index up to date first."""
        wanted = list(dict.fromkeys(features))
        self.ensure_fresh()
        with self._lock, self._reading():
            self._view(self._db)
            found = self._lookup([(WORD, f) for f in wanted])
            n = 0 if self._doc_ids is None else len(self._doc_ids)
            return {f: (found[(WORD, f)][1] if (WORD, f) in found else 0) for f in wanted}, n

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` indexed memories most relevant to ``query``: ``(memory id, relevance)``, best
        first (ties: lower id), relevance > 0 only."""
        return self.lookup(query, [], k)[1] if k > 0 else []

    def _best(self, scores: Any, k: int) -> list[tuple[int, float]]:
        import numpy as np

        doc_ids = self._doc_ids
        # a partial sort: only the k best are ordered, however large the index
        cut = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        cut = cut[np.lexsort((doc_ids[cut], -scores[cut]))]
        return [(int(doc_ids[r]), float(scores[r])) for r in cut if scores[r] > 0]

    def similarity(self, ids: Sequence[int]) -> Any:
        """Pairwise cosine of indexed memories, ``WORD_SHARE`` · word cosine + the rest · character
        cosine, over their BM25 document weights: a ``len(ids)`` × ``len(ids)`` numpy array in
        [0, 1]; rows of ids that are not indexed are 0. Used to keep near-duplicates out of one pack."""
        import numpy as np

        self.ensure_fresh()
        with self._lock, self._reading():
            self._view(self._db)
            n = len(ids)
            out = np.zeros((n, n), dtype=np.float64)
            if n == 0 or self._parts is None:
                return out
            vectors = self._doc_vectors([int(i) for i in ids])
            for part in self._parts:
                present = [(r, v[part.part]) for r, i in enumerate(ids)
                           if (v := vectors.get(int(i))) is not None and len(v[part.part][0])]
                if not present:
                    continue
                term_ids = np.concatenate([v[0] for _, v in present])
                units = np.concatenate([v[1] for _, v in present])
                where = np.repeat([r for r, _ in present], [len(v[0]) for _, v in present])
                columns, inverse = np.unique(term_ids, return_inverse=True)
                # only features that two documents share add to a dot product off the diagonal: a
                # small dense block over those, multiplied without BLAS (its thread pool costs more
                # than the product on a busy two-core machine)
                in_two = np.bincount(inverse, minlength=len(columns)) >= 2
                shared = in_two[inverse]
                block = np.zeros((n, int(in_two.sum())), dtype=np.float64)
                block[where[shared], (np.cumsum(in_two) - 1)[inverse[shared]]] = units[shared]
                gram = np.einsum("ik,jk->ij", block, block)
                gram[np.diag_indices(n)] = 0.0
                gram[[r for r, _ in present], [r for r, _ in present]] = 1.0
                out += part.share * gram
            return np.clip(out, 0.0, 1.0)

    def _doc_vectors(self, ids: list[int]) -> dict[int, tuple[tuple[Any, Any], tuple[Any, Any]]]:
        """``id → per part (term ids, unit weights)`` of indexed memories: each part's BM25 document
        weights (from the text the memory was indexed with, the view's idf and average length)
        divided by their Euclidean norm, through a bounded cache cleared when the index moves."""
        import numpy as np

        missing = [i for i in dict.fromkeys(ids) if i not in self._vectors]
        if missing and self._parts is not None:
            texts = self._indexed_texts(missing)
            counted = {i: [Counter(f) for f in features(t)] for i, t in texts.items()}
            found = self._lookup((part, term) for counts in counted.values()
                                 for part, c in enumerate(counts) for term in c)
            for i, counts in counted.items():
                parts_out = []
                for part, c in zip(self._parts, counts):
                    hits = [(found[(part.part, t)], tf) for t, tf in c.items() if (part.part, t) in found]
                    tids = np.asarray([tid for (tid, _), _ in hits], dtype=np.int64)
                    idf = np.log1p([(part.n - df + 0.5) / (df + 0.5) for (_, df), _ in hits])
                    weights = part.weight(idf, np.asarray([tf for _, tf in hits], dtype=np.float64),
                                          float(sum(c.values())))
                    norm = float(np.sqrt((weights * weights).sum())) if len(hits) else 0.0
                    parts_out.append((tids, weights / norm) if norm > 0 else (tids[:0], weights[:0]))
                self._vectors[i] = (parts_out[0], parts_out[1])
            while len(self._vectors) > VECTOR_CACHE:
                self._vectors.popitem(last=False)
        return {i: self._vectors[i] for i in ids if i in self._vectors}

    def _indexed_texts(self, ids: Sequence[int]) -> dict[int, str]:
        wanted = sorted({int(i) for i in ids})
        found: dict[int, str] = {}
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start:start + _CHUNK]
            found.update(self._db.execute_sql(
                f"SELECT doc_id, text FROM ix_doc WHERE collection = ? AND doc_id IN ({','.join('?' * len(chunk))})",
                (self.collection, *chunk)).fetchall())
        return found

    def relevance_of_texts(self, query: str, texts: Iterable[str]) -> list[float]:
        """Relevance of ``query`` to texts that are not indexed (e.g. pending proposals), with the
        collection's idf and average lengths. Returns floats in [0, 1] aligned with ``texts``."""
        texts = list(texts)
        self.ensure_fresh()
        with self._lock, self._reading():
            self._view(self._db)
            if not texts or not query.strip() or self._parts is None:
                return [0.0] * len(texts)
            words, chars = query_features(query)
            terms = self._query_terms(words, chars)
            if not terms:
                return [0.0] * len(texts)
            topic = frozenset(member_features(words)) if bm25.TOPIC_SHARE > 0 else frozenset()
            out = []
            for text in texts:
                feats = features(text)
                counts = [Counter(f) for f in feats]
                total = 0.0
                for part, stored, scale in terms:
                    count, length = counts[part.part], len(feats[part.part])
                    total += sum(scale * part.weight(idf, count[t], length) for _, idf, t in stored if t in count)
                if total > 0 and not topic.isdisjoint(feats[0]):
                    total += bm25.TOPIC_SHARE
                out.append(min(1.0, max(0.0, float(total))))
            return out

    @property
    def stats(self) -> IndexStats:
        with self._lock:
            rows = 0 if self._doc_ids is None else len(self._doc_ids)
            features_seen = sum(1 for v in self._terms.values() if v is not None)
            return IndexStats(self._fits, self._updates, rows, features_seen, round(self._fit_seconds, 4))


def _decode(collection: str, blocks: Sequence[tuple[int, bytes]]) -> tuple[Any, Any]:
    """The posting blobs ``(block, data)`` of one term → ``(document ids, tf)``: int64 and float64
    numpy arrays in block order (``doc_index``'s layouts: uint16 pairs for memories, one numpy pass
    over every block's ``store.postings`` varints for messages)."""
    import numpy as np

    if not blocks:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    if collection != doc_index.MESSAGE:
        pairs = [np.frombuffer(d, dtype="<u2").reshape(-1, 2) for _, d in blocks]
        ids = np.concatenate([(np.int64(b) << doc_index.BLOCK_BITS) + p[:, 0].astype(np.int64)
                              for (b, _), p in zip(blocks, pairs)])
        return ids, np.concatenate([p[:, 1] for p in pairs]).astype(np.float64)
    raw = np.frombuffer(b"".join(d for _, d in blocks), dtype=np.uint8)
    ends = np.flatnonzero(raw < 0x80)
    if len(ends) == len(raw):
        values = raw.astype(np.int64)
    else:  # several bytes a number: 7 bits each, least significant first
        starts = np.concatenate(([0], ends[:-1] + 1))
        group = np.repeat(np.arange(len(ends)), ends - starts + 1)
        shifted = (raw & 0x7F).astype(np.int64) << (7 * (np.arange(len(raw)) - starts[group]))
        values = np.bincount(group, weights=shifted, minlength=len(ends)).astype(np.int64)
    firsts, counts, bigs = [], [], []
    at = 0
    for _ in blocks:  # each blob: n, k, n heads, k extra counts
        n, k = int(values[at]), int(values[at + 1])
        firsts.append(at + 2)
        counts.append(n)
        bigs.append(k)
        at += 2 + n + k
    n_of, k_of, first = np.asarray(counts), np.asarray(bigs), np.asarray(firsts)
    total = int(n_of.sum())
    within = np.arange(total) - np.repeat(np.cumsum(n_of) - n_of, n_of)
    heads = values[np.repeat(first, n_of) + within]
    steps = np.cumsum((heads >> 1) + 1)
    before = np.concatenate(([0], np.cumsum(n_of)[:-1]))  # index of each block's first head
    offsets = steps - np.repeat(np.where(before > 0, steps[np.maximum(before - 1, 0)], 0), n_of) - 1
    extra_within = np.arange(int(k_of.sum())) - np.repeat(np.cumsum(k_of) - k_of, k_of)
    tf = np.ones(total)
    tf[(heads & 1).astype(bool)] = values[np.repeat(first + n_of, k_of) + extra_within] + 2
    block_of = np.repeat(np.asarray([b for b, _ in blocks], dtype=np.int64), n_of)
    return (block_of << doc_index.BLOCK_BITS) + offsets, tf


_INDEXES: weakref.WeakKeyDictionary[Any, dict[str, MemoryIndex]] = weakref.WeakKeyDictionary()
_REGISTRY_LOCK = threading.Lock()


def get_index(store: MemoryStore, collection: str = doc_index.MEMORY) -> MemoryIndex:
    """The one ``MemoryIndex`` of ``store`` for ``collection`` (``"memory"``, or ``"message"``: the
    chat history, each turn with its session neighbours' text), created on first call; it reads
    nothing until queried."""
    with _REGISTRY_LOCK:
        per_store = _INDEXES.setdefault(store, {})
        index = per_store.get(collection)
        if index is None:
            index = per_store[collection] = MemoryIndex(store, collection)
        return index
