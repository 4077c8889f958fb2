"""The doctor's pair scan: which memories to compare, and ``facts.relate`` on each pair.

Per user (records of different users are never compared), records are first collapsed into
*units* of equal normalised text (those are duplicates outright). Comparing every pair of units
would be quadratic, so candidates come from four sources, and ``relate`` decides every one:

1. **similar words**: the ``k`` nearest units by TF-IDF cosine of the reader's content concepts
   (``Reading.content`` without the cue words: "likes blue" and "favourite colour is blue" share
   what they say), at or above ``CANDIDATE_COSINE``. Rows are multiplied in blocks of
   ``BLOCK`` (sparse × sparse) against their own user's rows only; no n×n matrix is built.
2. **same attribute**: units whose facts share a user, a subject and a one-valued attribute
   (residence, employer, a schedule…) are paired with the newest unit of that attribute and with the
   one before them, so "lives in Hanoi" meets "moved to Da Nang" without a shared word; a statement
   with "only" meets every unit of its attribute.
3. **exclusions**: a lasting state or a denial ("vegetarian", "an only child", "I never drink
   alcohol") is paired with the units that name what it excludes (meat, a sister, champagne); a
   one-off event with the lasting statements that share a category with it.
4. **small users**: a user with at most ``EXHAUSTIVE`` units has every pair compared.

The result keeps every pair ``relate`` did not call ``compatible``, with the cosine when known.

Memory (issue 31): units are taken in blocks of whole users (``BLOCK_UNITS``). A first pass reads
each block, adds its content terms to the counts the TF-IDF weights come from (document frequencies
over every unit, so a cosine does not depend on the blocks) and keeps the block's readings pickled
(a few bytes per reading instead of a few kilobytes of objects); a second pass takes each block's
readings back, finds its candidates, relates them and forgets the readings and the pair features
before the next block. Pairs never cross users, so the pairs found are the same whatever the blocks.
"""

from __future__ import annotations

import pickle
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bestie_tui.facts.knowledge import EXCLUDES, KNOWN_CATEGORIES, categories_of
from bestie_tui.facts.reader import Reading, read, remember
from bestie_tui.facts.relations import Relation, relate
from bestie_tui.store.records import MemoryRecord
from bestie_tui.text import words as textmod

#: Lowest TF-IDF cosine of a candidate pair from the similarity search.
CANDIDATE_COSINE = 0.4
#: Users with at most this many units have every pair compared.
EXHAUSTIVE = 3
#: Neighbours kept per unit in the similarity search.
DEFAULT_K = 6
#: Rows per block of the sparse product, at most.
BLOCK = 1024
#: Entries per block of the sparse product, at most (an upper bound from the terms' document
#: frequencies): about 50 bytes each while a block is ranked, so a block stays near 50 MiB however
#: many texts of one user share a common word (issue 31).
BLOCK_ENTRIES = 1_000_000
#: Units read and related at once, at most (one user's units are never split): the readings of one
#: block are held as objects while it is worked on, the others pickled (issue 31).
BLOCK_UNITS = 8192
#: Units of one attribute bucket, or naming one excluded category, looked at (the newest).
BUCKET_LIMIT = 200
#: Units an exclusion source is paired with (the newest naming what it excludes).
EXCLUSION_LIMIT = 20


@dataclass
class RelatedPair:
    """Two units of one user and how the newer relates to the older (``relation``); ``score`` is
    their TF-IDF cosine (``None`` when the pair did not come from the similarity search)."""

    older: int
    newer: int
    relation: Relation
    score: float | None


@dataclass
class PairScan:
    """Units (``members``: records of equal normalised text, by id; ``users``), the related pairs
    between them, and the TF-IDF rows (CSR, L2-normalised) whose dot product is a pair's cosine
    (``None`` when no unit has content). The units' readings are not kept (``facts.read`` them)."""

    members: list[list[MemoryRecord]] = field(default_factory=list)
    users: list[str] = field(default_factory=list)
    pairs: list[RelatedPair] = field(default_factory=list)
    vectors: Any = None
    #: per unit, the order of its statement: the newest member's creation time, then its id
    order: list[tuple] = field(default_factory=list)
    #: candidate pairs per source (``similar``, ``attribute``, ``exclusion``, ``event``, ``small``)
    candidates: dict[str, int] = field(default_factory=dict)

    def key(self, i: int) -> tuple:
        """Order of statements: the newest member's creation time, then its id."""
        return self.order[i]


@dataclass
class _Block:
    """Units ``lo``..``hi`` of a scan (whole users) with their readings; indices are block-local."""

    users: list[str]
    readings: list[Reading]
    order: list[tuple]

    def key(self, i: int) -> tuple:
        return self.order[i]


def scan(records: Sequence[MemoryRecord], *, norms: dict[int, str] | None = None, threshold: float = 0.8,
         k: int = DEFAULT_K, progress: Callable[[float], None] | None = None) -> PairScan:
    """Collapse ``records`` into units, generate candidate pairs and relate each one.

    Args:
        records: the records to compare (usually the active approved ones).
        norms: ``{id: text.normalize(text)}`` when already known (the store keeps it).
        threshold: TF-IDF cosine from which two texts the reader cannot frame are duplicates
            (passed to ``relate`` as its ``threshold``).
        k: neighbours kept per unit in the similarity search.
        progress: called with a fraction 0–1 while the scan runs.

    Returns:
        A ``PairScan`` with every pair that is not ``compatible``.
    """
    out = PairScan()
    by_key: dict[tuple, list[MemoryRecord]] = defaultdict(list)
    for r in records:
        norm = norms.get(r.id) if norms else None
        by_key[(r.user or "", norm if norm is not None else textmod.normalize(r.text))].append(r)
    for key in sorted(by_key, key=lambda k_: k_[0]):
        out.members.append(sorted(by_key[key], key=lambda r: r.id))
        out.users.append(key[0])
        newest = max(by_key[key], key=lambda r: (r.created_at, r.id))
        out.order.append((newest.created_at, newest.id))
    spans = _user_spans(out.users, BLOCK_UNITS)
    terms = TermCounts()
    kept: list[bytes] = []
    for lo, hi in spans:  # pass 1: every unit's terms, for document frequencies over all of them
        texts = [m[0].text for m in out.members[lo:hi]]
        read_all(texts)
        readings = [read(t) for t in texts]
        for reading in readings:
            terms.add(sorted(c for c in reading.content if c[:1] != "@"))  # what is said, not the frame
        if len(spans) > 1:
            kept.append(pickle.dumps(dict(zip(texts, readings)), protocol=pickle.HIGHEST_PROTOCOL))
            del readings
            _forget()
    if progress is not None:
        progress(0.3)
    out.vectors = terms.rows() if terms.entries else None
    cost = _row_costs(out.vectors) if out.vectors is not None else None
    counts = dict.fromkeys(("similar", "attribute", "exclusion", "event", "small"), 0)
    for b, (lo, hi) in enumerate(spans):  # pass 2: block by block, candidates and their relations
        texts = [m[0].text for m in out.members[lo:hi]]
        if kept:
            remember(pickle.loads(kept[b]))
            kept[b] = b""
        block = _Block(out.users[lo:hi], [read(t) for t in texts], out.order[lo:hi])
        candidates: dict[tuple[int, int], float | None] = {}
        if out.vectors is not None:
            candidates.update(_similar(out, k, lo, hi, cost))
        counts["similar"] += len(candidates)
        for name, source in (("attribute", _same_attribute), ("exclusion", _exclusions), ("event", _events),
                             ("small", _small_users)):
            before = len(candidates)
            for i, j in source(block):
                candidates.setdefault((lo + i, lo + j), None)
            counts[name] += len(candidates) - before
        for (i, j), score in candidates.items():
            older, newer = (i, j) if out.key(i) <= out.key(j) else (j, i)
            rel = relate(out.members[older][0].text, out.members[newer][0].text, similarity=score,
                         threshold=threshold)
            if rel.kind != "compatible":
                out.pairs.append(RelatedPair(older, newer, rel, score))
        del block, candidates
        if len(spans) > 1:
            _forget()
        if progress is not None:
            progress(0.3 + 0.7 * (b + 1) / len(spans))
    out.candidates = counts
    return out


def _user_spans(users: list[str], size: int) -> list[tuple[int, int]]:
    """Ranges ``[lo, hi)`` of ``users`` (sorted, so each user's units are contiguous) covering it in
    order, each of whole users and at most ``size`` units unless one user alone has more."""
    out: list[tuple[int, int]] = []
    lo = start = 0
    n = len(users)
    for i in range(1, n + 1):
        if i == n or users[i] != users[start]:  # a user's units are [start, i)
            if i - lo > size and start > lo:
                out.append((lo, start))
                lo = start
            start = i
    if lo < n:
        out.append((lo, n))
    return out


def _forget() -> None:
    """Drop the readings and pair features cached for the block just done (the caches are pure:
    a text read again reads the same)."""
    from bestie_tui.facts import pair_features, relations
    from bestie_tui.facts.reader import clear_cache

    clear_cache()
    relations.clear_cache()
    for cached in (relations._relate, pair_features._words_of, pair_features._stems, pair_features._text_side):
        cached.cache_clear()


class TermCounts:
    """Term counts of documents added one by one (``add``), as CSR parts with a shared vocabulary:
    the raw counts ``tfidf_rows`` weighs, without holding the documents themselves."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.indptr: list[int] = [0]
        self.indices: list[int] = []
        self.counts: list[int] = []

    @property
    def entries(self) -> int:
        return len(self.indices)

    def add(self, doc: list[str]) -> None:
        tf: dict[int, int] = {}
        for term in doc:
            col = self.vocab.setdefault(term, len(self.vocab))
            tf[col] = tf.get(col, 0) + 1
        self.indices.extend(tf)
        self.counts.extend(tf.values())
        self.indptr.append(len(self.indices))

    def rows(self):
        """L2-normalised TF-IDF rows of the documents added (see ``tfidf_rows``)."""
        import numpy as np
        from scipy.sparse import csr_matrix

        n = len(self.indptr) - 1
        x = csr_matrix((np.asarray(self.counts, dtype=np.float32), np.asarray(self.indices, dtype=np.int32),
                        np.asarray(self.indptr, dtype=np.int64)), shape=(n, max(1, len(self.vocab))))
        df = np.bincount(x.indices, minlength=x.shape[1]).astype(np.float32)
        idf = np.log((1 + n) / (1 + df)) + 1
        x.data = (1 + np.log(x.data)) * idf[x.indices]
        norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
        norms[norms == 0] = 1
        x.data /= np.repeat(norms, np.diff(x.indptr)).astype(np.float32)
        return x


def tfidf_rows(docs: list[list[str]]):
    """L2-normalised TF-IDF rows (scipy CSR, float32) of term lists: sublinear tf (1 + ln tf) and
    smoothed idf ln((1 + N) / (1 + df)) + 1, the weighting of scikit-learn's ``TfidfVectorizer``
    with ``sublinear_tf=True`` (computed here so the doctor does not import scikit-learn)."""
    counts = TermCounts()
    for doc in docs:
        counts.add(doc)
    return counts.rows()


#: From this many unread texts on, half of them are read in a second process (two cores).
PARALLEL_FROM = 6000


def read_all(texts: list[str]) -> None:
    """Read every text once (``facts.read`` caches them). With ``PARALLEL_FROM`` texts or more
    not read yet and two CPUs or more, a second process (``read_worker``) reads half of them while
    this one reads the rest; its readings come back pickled into the cache. Any failure there
    falls back to reading here."""
    import os
    import pickle
    import subprocess
    import sys

    from bestie_tui.facts.reader import _cache

    todo = list(dict.fromkeys(t for t in texts if t not in _cache))
    if len(todo) < PARALLEL_FROM or (os.cpu_count() or 1) < 2:
        for t in todo:
            read(t)
        return
    mine, theirs = todo[: len(todo) // 2], todo[len(todo) // 2:]
    try:
        worker = subprocess.Popen([sys.executable, "-m", "bestie_tui.hygiene.read_worker"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert worker.stdin is not None and worker.stdout is not None
        worker.stdin.write(pickle.dumps(theirs, protocol=pickle.HIGHEST_PROTOCOL))
        worker.stdin.close()
    except OSError:
        worker = None
    for t in mine:
        read(t)
    if worker is not None:
        try:
            assert worker.stdout is not None
            remember(pickle.loads(worker.stdout.read()))
        except Exception:  # noqa: BLE001 - the second process is an optimisation; reading here is always right
            pass
        finally:
            worker.wait()
    for t in theirs:
        read(t)


def _similar(s: PairScan, k: int, lo: int, hi: int, cost) -> dict[tuple[int, int], float]:
    """Pairs ``(i, j)``, ``i < j``, of units ``lo``..``hi`` (whole users) of one user at or above
    ``CANDIDATE_COSINE``, best ``k`` per row, by the rows of ``s.vectors``; ``cost`` is
    ``_row_costs(s.vectors)``."""
    import numpy as np

    x = s.vectors
    users = s.users
    user_start = np.zeros(x.shape[0], dtype=np.int64)
    user_end = np.zeros(x.shape[0], dtype=np.int64)
    start = lo
    for i in range(lo + 1, hi + 1):
        if i == hi or users[i] != users[start]:
            user_start[start:i], user_end[start:i] = start, i
            start = i
    out: dict[tuple[int, int], float] = {}
    window: tuple[int, int, Any] = (-1, -1, None)
    for b, e in _blocks(cost, lo, hi):
        ws, we = int(user_start[b]), int(user_end[e - 1])
        if window[:2] != (ws, we):
            window = (ws, we, x[ws:we].T.tocsr())  # one user's rows serve many blocks: transposed once
        prod = (x[b:e] @ window[2]).tocoo()
        rows, cols, vals = prod.row + b, prod.col + ws, prod.data
        keep = (cols != rows) & (vals >= CANDIDATE_COSINE - 1e-6) & (user_start[rows] == user_start[cols])
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
        if rows.size == 0:
            continue
        order = np.lexsort((-vals, rows))
        rows, cols, vals = rows[order], cols[order], vals[order]
        first = np.r_[0, np.flatnonzero(np.diff(rows)) + 1]
        rank = np.arange(rows.size) - np.repeat(first, np.diff(np.r_[first, rows.size]))
        top = rank < k
        for r, c, v in zip(rows[top].tolist(), cols[top].tolist(), vals[top].tolist()):
            pair = (r, c) if r < c else (c, r)
            out[pair] = max(out.get(pair, 0.0), min(1.0, v))
    return out


def _row_costs(x):
    """Per row of ``x``, an upper bound of its product's entries with every row: the sum over its
    terms of each term's document frequency (numpy array)."""
    import numpy as np

    df = np.bincount(x.indices, minlength=x.shape[1]).astype(np.int64)
    rows = np.repeat(np.arange(x.shape[0]), np.diff(x.indptr))
    return np.bincount(rows, weights=df[x.indices], minlength=x.shape[0])


def _blocks(cost, lo: int, hi: int) -> list[tuple[int, int]]:
    """Row ranges ``[b, e)`` covering ``lo``..``hi`` in order: at most ``BLOCK`` rows, and (but for a
    single row) at most ``BLOCK_ENTRIES`` entries in their product with every row by ``cost``
    (``_row_costs``). A row's candidates do not depend on the block it is in, so the pairs are the
    same whatever the bound."""
    import numpy as np

    out = []
    b = lo
    while b < hi:
        total = np.cumsum(cost[b:min(hi, b + BLOCK)])
        e = b + max(1, int(np.searchsorted(total, BLOCK_ENTRIES, side="right")))
        out.append((b, e))
        b = e
    return out


def _subject_key(r: Reading) -> str:
    """People by name (else by role), so "my daughter Mai" and "Mai" share a bucket."""
    subject = r.subject
    if subject.kind == "person":
        return "person:" + (subject.of or "") + ":" + (subject.name or subject.role or "")
    return "owner-or-thing"


def _same_attribute(s: _Block) -> list[tuple[int, int]]:
    """Source 2 of the module docstring; a statement with "only" is paired with every unit of its
    attribute (the newest ``BUCKET_LIMIT``), since any other value contradicts it."""
    buckets: dict[tuple, list[int]] = defaultdict(list)
    only: list[tuple[int, tuple]] = []

    def key_of(i: int, r: Reading, f) -> tuple:
        subject = "owner" if f.attribute == "role" else _subject_key(r)
        return (s.users[i], subject, f.attribute, f.key if f.attribute not in ("schedule", "do") else "")

    only_keys = {key_of(i, r, f) for i, r in enumerate(s.readings) if r.only for f in r.facts}
    for i, r in enumerate(s.readings):
        for f in r.facts:
            key = key_of(i, r, f)
            if f.spec.single or f.attribute == "role" or key in only_keys:
                buckets[key].append(i)
                if r.only:
                    only.append((i, key))
        for attribute, _value, _polarity in r.implied:
            buckets[(s.users[i], "owner-or-thing", attribute, "")].append(i)
    out: list[tuple[int, int]] = []
    newest_of: dict[tuple, list[int]] = {}
    for key, units in buckets.items():
        if len(units) < 2:
            continue
        units = newest_of[key] = sorted(set(units), key=s.key)[-BUCKET_LIMIT:]
        newest = units[-1]
        for a, b in zip(units, units[1:]):
            out.append((min(a, b), max(a, b)))
        out.extend((min(u, newest), max(u, newest)) for u in units[:-1])
    for i, key in only:
        out.extend((min(i, j), max(i, j)) for j in newest_of.get(key, ()) if j != i)
    return out


def _events(s: _Block) -> list[tuple[int, int]]:
    """A one-off event and the lasting statements of its user that share a category with it
    ("asked for a Vietnamese translation today" / "prefers replies in English": languages)."""
    from bestie_tui.facts.relations import categories_named

    by_category: dict[tuple[str, str], list[int]] = defaultdict(list)
    events: list[tuple[int, set[str]]] = []
    for i, r in enumerate(s.readings):
        cats = categories_named(r)
        if r.event:
            events.append((i, cats))
        else:
            for c in sorted(cats):
                by_category[(s.users[i], c)].append(i)
    out: list[tuple[int, int]] = []
    for i, cats in events:
        for c in sorted(cats):
            units = by_category.get((s.users[i], c), ())
            out.extend((min(i, j), max(i, j)) for j in units[-EXCLUSION_LIMIT:])
    return out


def _exclusions(s: _Block) -> list[tuple[int, int]]:
    """Source 3 of the module docstring. Only categories the knowledge tables know are indexed
    (a denial of "cold weather" excludes nothing to look for), and per user and category only the
    newest ``EXCLUSION_LIMIT`` sources meet the newest ``EXCLUSION_LIMIT`` units that name it."""
    sources: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, r in enumerate(s.readings):
        excluded: set[str] = set()
        for state in r.states:
            excluded |= EXCLUDES[state]
        for f in r.facts:
            if f.polarity < 0 or f.attribute == "fear":
                excluded |= {v for v in f.value if v in KNOWN_CATEGORIES}
        for attribute, _value, _polarity in r.implied:
            excluded.add(attribute)
        for c in sorted(excluded):
            sources[(s.users[i], c)].append(i)
    if not sources:
        return []
    named: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, r in enumerate(s.readings):
        user = s.users[i]
        for c in r.mentions:
            if (user, c) in sources:
                named[(user, c)].append(i)
        if r.subject.role:
            for c in categories_of(r.subject.role):
                if (user, c) in sources:
                    named[(user, c)].append(i)
        for f in r.facts:
            if (user, f.attribute) in sources:
                named[(user, f.attribute)].append(i)
    out: list[tuple[int, int]] = []
    for key, units in sources.items():
        targets = named.get(key)
        if not targets:
            continue
        for i in sorted(units, key=s.key)[-EXCLUSION_LIMIT:]:
            out.extend((min(i, j), max(i, j)) for j in sorted(targets, key=s.key)[-EXCLUSION_LIMIT:] if j != i)
    return out


def _small_users(s: _Block) -> list[tuple[int, int]]:
    """Source 4 of the module docstring."""
    out: list[tuple[int, int]] = []
    start = 0
    n = len(s.users)
    for i in range(1, n + 1):
        if i == n or s.users[i] != s.users[start]:
            if 2 <= i - start <= EXHAUSTIVE:
                out.extend((a, b) for a in range(start, i) for b in range(a + 1, i))
            start = i
    return out


__all__ = ["RelatedPair", "PairScan", "scan", "CANDIDATE_COSINE", "EXHAUSTIVE"]
