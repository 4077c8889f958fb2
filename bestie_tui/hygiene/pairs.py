"""The doctor's pair scan: which memories to compare, and ``facts.relate`` on each pair.

Per user (records of different users are never compared), records are first collapsed into
*units* of equal normalised text (those are duplicates outright). Comparing every pair of units
would be quadratic, so candidates come from four sources, and ``relate`` decides every one:

1. **similar words**: the ``k`` nearest units by TF-IDF cosine of the reader's content concepts
   (``Reading.content``), at or above ``CANDIDATE_COSINE``. Rows are multiplied in blocks of
   ``BLOCK`` (sparse × sparse) against their own user's rows only; no n×n matrix is built.
2. **same attribute**: units whose facts share a user, a subject and a one-valued attribute
   (residence, employer, a schedule…) are paired with the newest unit of that attribute and with the
   one before them, so "lives in Hanoi" meets "moved to Da Nang" without a shared word.
3. **exclusions**: a lasting state or a denial ("vegetarian", "an only child", "I don't drink
   alcohol") is paired with the units that name what it excludes (meat, a sister, champagne).
4. **small users**: a user with at most ``EXHAUSTIVE`` units has every pair compared.

The result keeps every pair ``relate`` did not call ``compatible``, with the cosine when known.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bestie_tui.facts.knowledge import EXCLUDES, categories_of
from bestie_tui.facts.reader import Reading, read
from bestie_tui.facts.relations import Relation, relate
from bestie_tui.store.records import MemoryRecord
from bestie_tui.text import words as textmod

#: Lowest TF-IDF cosine of a candidate pair from the similarity search.
CANDIDATE_COSINE = 0.5
#: Users with at most this many units have every pair compared.
EXHAUSTIVE = 8
#: Neighbours kept per unit in the similarity search.
DEFAULT_K = 8
#: Rows per block of the sparse product.
BLOCK = 1024
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
    """Units (``members``: records of equal normalised text, by id; ``users``; ``readings`` of the
    first member), the related pairs between them, and the TF-IDF rows (CSR, L2-normalised) whose
    dot product is a pair's cosine (``None`` when no unit has content)."""

    members: list[list[MemoryRecord]] = field(default_factory=list)
    users: list[str] = field(default_factory=list)
    readings: list[Reading] = field(default_factory=list)
    pairs: list[RelatedPair] = field(default_factory=list)
    vectors: Any = None

    def key(self, i: int) -> tuple:
        """Order of statements: the newest member's creation time, then its id."""
        m = max(self.members[i], key=lambda r: (r.created_at, r.id))
        return (m.created_at, m.id)


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
    n = len(out.members)
    out.readings = [read(m[0].text) for m in out.members]
    if progress is not None:
        progress(0.3)
    candidates: dict[tuple[int, int], float | None] = {}
    sims, out.vectors = _similar(out, k)
    candidates.update(sims)
    for pair in _same_attribute(out) + _exclusions(out) + _small_users(out):
        candidates.setdefault(pair, None)
    if progress is not None:
        progress(0.7)
    for (i, j), score in candidates.items():
        older, newer = (i, j) if out.key(i) <= out.key(j) else (j, i)
        rel = relate(out.members[older][0].text, out.members[newer][0].text, similarity=score, threshold=threshold)
        if rel.kind != "compatible":
            out.pairs.append(RelatedPair(older, newer, rel, score))
    if progress is not None:
        progress(1.0)
    del n
    return out


def _similar(s: PairScan, k: int) -> tuple[dict[tuple[int, int], float], Any]:
    """Pairs ``(i, j)``, ``i < j``, of one user at or above ``CANDIDATE_COSINE``, best ``k`` per row."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    docs = [sorted(r.content) for r in s.readings]
    if not any(docs):
        return {}, None
    vec = TfidfVectorizer(analyzer=_identity, sublinear_tf=True, dtype=np.float32)
    x = vec.fit_transform(docs).tocsr()
    n = x.shape[0]
    users = s.users
    user_start, user_end = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    start = 0
    for i in range(1, n + 1):
        if i == n or users[i] != users[start]:
            user_start[start:i], user_end[start:i] = start, i
            start = i
    out: dict[tuple[int, int], float] = {}
    for b in range(0, n, BLOCK):
        e = min(n, b + BLOCK)
        ws, we = int(user_start[b]), int(user_end[e - 1])
        prod = (x[b:e] @ x[ws:we].T).tocoo()
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
    return out, x


def _identity(doc):
    return doc


def _subject_key(r: Reading) -> str:
    subject = r.subject
    if subject.kind == "person":
        return "person:" + (subject.name or "") + ":" + (subject.role or "") + ":" + (subject.of or "")
    return "owner-or-thing"


def _same_attribute(s: PairScan) -> list[tuple[int, int]]:
    """Source 2 of the module docstring."""
    buckets: dict[tuple, list[int]] = defaultdict(list)
    for i, r in enumerate(s.readings):
        for f in r.facts:
            if f.spec.single or f.attribute == "role":
                subject = "owner" if f.attribute == "role" else _subject_key(r)
                buckets[(s.users[i], subject, f.attribute, f.key if f.attribute != "schedule" else "")].append(i)
        for attribute, _value, _polarity in r.implied:
            buckets[(s.users[i], "owner-or-thing", attribute, "")].append(i)
    out: list[tuple[int, int]] = []
    for units in buckets.values():
        if len(units) < 2:
            continue
        units = sorted(set(units), key=s.key)[-BUCKET_LIMIT:]
        newest = units[-1]
        for a, b in zip(units, units[1:]):
            out.append((min(a, b), max(a, b)))
        out.extend((min(u, newest), max(u, newest)) for u in units[:-1])
    return out


def _exclusions(s: PairScan) -> list[tuple[int, int]]:
    """Source 3 of the module docstring."""
    named: dict[tuple[str, str], list[int]] = defaultdict(list)
    sources: list[tuple[int, set[str]]] = []
    for i, r in enumerate(s.readings):
        for c in r.mentions:
            named[(s.users[i], c)].append(i)
        if r.subject.role:
            for c in categories_of(r.subject.role):
                named[(s.users[i], c)].append(i)
        excluded: set[str] = set()
        for state in r.states:
            excluded |= EXCLUDES[state]
        for f in r.facts:
            if f.polarity < 0 or f.attribute == "fear":
                excluded |= set(f.value)
        if excluded:
            sources.append((i, excluded))
    out: list[tuple[int, int]] = []
    for i, excluded in sources:
        hits: set[int] = set()
        for c in excluded:
            units = named.get((s.users[i], c), ())
            hits.update(sorted(units, key=s.key)[-EXCLUSION_LIMIT:])
        out.extend((min(i, j), max(i, j)) for j in hits if j != i)
    return out


def _small_users(s: PairScan) -> list[tuple[int, int]]:
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
