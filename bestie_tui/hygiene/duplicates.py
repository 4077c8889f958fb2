"""Duplicate groups as a ladder: exact text, normalised text, same fact frame, then TF-IDF cosine.

Per user (records of different users are never compared). The rungs:

1. **exact**: identical text after trimming.
2. **normalized**: equal ``text.normalize`` (case, whitespace, punctuation, accents).
3. **frame**: the same one-valued attribute with the same value and polarity (``facts.Frame``):
   "User prefers Vietnamese." and "Always answer in Vietnamese" both say language = vietnamese.
4. **similar**: TF-IDF cosine of the *core terms* (``facts.read_fact``: ``vectors.analyze_words``
   features without negations, the relation as one token) at or above ``threshold``, for two
   statements with the same polarity and a compatible relation (equal, or one has none).

Rungs 1–3 are equivalence relations, so their classes are unions. Rung 4 is not transitive: linking
every pair above the threshold would chain "I have a dog" → "I have a big dog" → "I have a big
house" into one group. Groups therefore grow by **complete linkage**: two clusters merge only when
every cross pair is above the threshold, so each group is a clique of the similarity graph
(Manning, Raghavan & Schütze, *Introduction to Information Retrieval*, §17.2).

Neighbour search never builds an n×n matrix: rows are processed in blocks of ``BLOCK`` and each
block is multiplied (sparse × sparse) only with the rows of its own users; each row keeps its best
``k`` neighbours. The relation token is left out of that product (one shared "rel_be" column would
make it dense) and added back per pair.

Records whose numbers differ (``FactFeatures.numbers``: digits anywhere in a token, number words)
are never linked by rungs 3–4: "Erin0 … number 0" and "Erin1 … number 1" are different facts.

A pair that is near-identical except for polarity ("I am vegan." / "I am not a vegan.") is never
linked: it is returned in ``opposite_pairs`` for the contradiction finder instead.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bestie_tui.facts.reader import FactFeatures, read_fact
from bestie_tui.store.records import MemoryRecord
from bestie_tui.text import words as textmod

#: Default TF-IDF cosine threshold of rung 4 (tuned on MSC persona facts; see benchmarks/doctor_msc.py).
DEFAULT_THRESHOLD = 0.8
#: Core-term cosine at or above which two statements of opposite polarity are negated twins.
OPPOSITE_THRESHOLD = 0.8
#: Neighbours kept per record in the similarity search.
DEFAULT_K = 10
#: Rows per block of the sparse product.
BLOCK = 1024
#: Largest |A|·|B| checked when two clusters try to merge (bigger merges are refused: no giant groups).
MAX_LINK_CHECK = 4096

LEVELS = ("exact", "normalized", "frame", "similar")


@dataclass
class DuplicateGroup:
    """Records that say the same thing. ``members`` are ordered by id; ``level`` is the highest rung
    needed to join them (``exact`` < ``normalized`` < ``frame`` < ``similar``); ``score`` is the
    lowest TF-IDF cosine between two members (1.0 for a group of equal normalised texts)."""

    user: str | None
    members: list[MemoryRecord]
    level: str
    score: float

    @property
    def ids(self) -> list[int]:
        return [m.id for m in self.members]

    def to_dict(self) -> dict:
        return {"user": self.user, "level": self.level, "score": round(self.score, 4), "ids": self.ids,
                "texts": [m.text for m in self.members]}


@dataclass
class OppositePair:
    """Two records whose core terms match (cosine ``score``) but whose polarity is opposite."""

    a: MemoryRecord
    b: MemoryRecord
    score: float


@dataclass
class DuplicateAnalysis:
    groups: list[DuplicateGroup] = field(default_factory=list)
    #: Near-identical pairs kept apart because one negates the other (one representative pair per unit pair).
    opposite_pairs: list[OppositePair] = field(default_factory=list)
    #: Feature reading of each record id (shared with the contradiction finder).
    features: dict[int, FactFeatures] = field(default_factory=dict)


class _Units:
    """Records collapsed by (user, normalised text): the unit of the similarity search."""

    def __init__(self, records: Sequence[MemoryRecord], norms: dict[int, str] | None):
        by_key: dict[tuple, list[MemoryRecord]] = defaultdict(list)
        for r in records:
            norm = norms.get(r.id) if norms else None
            by_key[(r.user or "", norm if norm is not None else textmod.normalize(r.text))].append(r)
        keys = sorted(by_key, key=lambda k: k[0])
        self.members = [sorted(by_key[k], key=lambda r: r.id) for k in keys]
        self.users = [k[0] for k in keys]
        self.features = [read_fact(m[0].text) for m in self.members]


def find_duplicates(records: Sequence[MemoryRecord], *, threshold: float = DEFAULT_THRESHOLD,
                    k: int = DEFAULT_K, norms: dict[int, str] | None = None,
                    progress: Callable[[float], None] | None = None) -> DuplicateAnalysis:
    """Group duplicate records per user (see the module docstring for the ladder).

    Args:
        records: the records to compare (usually active approved, unpinned ones).
        threshold: TF-IDF cosine (0–1) at or above which two records are "similar".
        k: neighbours kept per record.
        norms: ``{id: text.normalize(text)}`` if already known (the store keeps it), to save time.
        progress: called with a fraction 0–1 while the similarity search runs.

    Returns:
        ``DuplicateAnalysis`` with groups of two or more records, biggest first.
    """
    units = _Units(records, norms)
    n = len(units.members)
    analysis = DuplicateAnalysis()
    for m, f in zip(units.members, units.features):
        for r in m:
            analysis.features[r.id] = f
    if n == 0:
        return analysis
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    level = [("exact" if len({r.text.strip() for r in m}) == 1 else "normalized") for m in units.members]
    frame_of: dict[tuple, int] = {}
    for i, f in enumerate(units.features):
        if f.frame is not None:
            key = (units.users[i], f.frame.attribute, f.frame.value, f.polarity, f.numbers)
            if key in frame_of:
                parent[find(i)] = find(frame_of[key])
            else:
                frame_of[key] = i
    edges, opposite, vectors = _neighbour_pairs(units, threshold, k, progress)
    edge_score = {(i, j): s for i, j, s in edges}
    clusters: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        clusters[find(i)].append(i)
    for i, j, _score in sorted(edges, key=lambda e: -e[2]):
        a, b = find(i), find(j)
        if a == b:
            continue
        ma, mb = clusters[a], clusters[b]
        if len(ma) * len(mb) > MAX_LINK_CHECK:
            continue
        if all((min(x, y), max(x, y)) in edge_score or _same_frame(units, x, y) for x in ma for y in mb):
            parent[b] = a
            ma.extend(mb)
            del clusters[b]
    for idx in clusters.values():
        members = sorted((r for i in idx for r in units.members[i]), key=lambda r: r.id)
        if len(members) < 2:
            continue
        if len(idx) == 1:
            lvl, score = level[idx[0]], 1.0
        else:
            # pairs joined by the frame rung have no edge: their cosine is computed here (groups are small)
            pair_scores = [edge_score.get((min(x, y), max(x, y))) for x in idx for y in idx if x < y]
            frame_joined = any(v is None for v in pair_scores)
            cells = sorted(idx)
            if vectors is not None and frame_joined:
                block = vectors[cells]
                sims = (block @ block.T).toarray()
                pair_scores = [min(1.0, float(sims[a, b])) for a in range(len(cells)) for b in range(a + 1, len(cells))]
            score = min(v for v in pair_scores if v is not None) if any(v is not None for v in pair_scores) else 1.0
            lvl = "frame" if frame_joined and all(units.features[i].frame for i in idx) else "similar"
        analysis.groups.append(DuplicateGroup(units.users[idx[0]] or None, members, lvl, score))
    analysis.groups.sort(key=lambda g: (-len(g.members), g.members[0].id))
    for i, j, score in opposite:
        analysis.opposite_pairs.append(OppositePair(units.members[i][0], units.members[j][0], score))
    return analysis


def _same_frame(units: _Units, x: int, y: int) -> bool:
    fx, fy = units.features[x].frame, units.features[y].frame
    return (fx is not None and fy is not None and fx.attribute == fy.attribute and fx.value == fy.value
            and units.features[x].polarity == units.features[y].polarity
            and units.features[x].numbers == units.features[y].numbers)


def _neighbour_pairs(units: _Units, threshold: float, k: int,
                     progress) -> tuple[list[tuple[int, int, float]], list[tuple[int, int, float]], Any]:
    """``(similar_edges, opposite_edges, vectors)``: lists of ``(i, j, cosine)`` with ``i < j``, and the
    L2-normalised TF-IDF rows (CSR, relation token included) whose dot product is that cosine."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    feats = units.features
    docs = [f.core for f in feats]
    if not any(docs):
        return [], [], None
    vec = TfidfVectorizer(analyzer=_identity, sublinear_tf=True, dtype=np.float32)
    x = vec.fit_transform(docs).tocsc()
    vocab = vec.vocabulary_
    rel_cols = [vocab[c] for c in ("rel_pref", "rel_have", "rel_be") if c in vocab]
    n = x.shape[0]
    rel_id = np.full(n, -1, dtype=np.int64)
    rel_w = np.zeros(n, dtype=np.float32)
    for col in rel_cols:
        column = x[:, col]
        rows = column.nonzero()[0]
        rel_id[rows] = col
        rel_w[rows] = column.toarray().ravel()[rows]
    from scipy.sparse import diags

    mask = np.ones(x.shape[1], dtype=np.float32)
    mask[rel_cols] = 0
    content = (x @ diags(mask)).tocsr()
    content.eliminate_zeros()
    polarity = np.array([f.polarity for f in feats], dtype=np.int8)
    subject_codes: dict[str, int] = {}
    subject = np.array([subject_codes.setdefault(f.subject, len(subject_codes)) for f in feats], dtype=np.int32)
    number_codes: dict[tuple, int] = {}
    numbers = np.array([number_codes.setdefault(f.numbers, len(number_codes)) for f in feats], dtype=np.int32)
    users = units.users
    user_start, user_end = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    start = 0
    for i in range(1, n + 1):
        if i == n or users[i] != users[start]:
            user_start[start:i], user_end[start:i] = start, i
            start = i
    low = min(threshold, OPPOSITE_THRESHOLD)
    similar: list[tuple[int, int, float]] = []
    opposite: list[tuple[int, int, float]] = []
    for s in range(0, n, BLOCK):
        e = min(n, s + BLOCK)
        ws, we = int(user_start[s]), int(user_end[e - 1])
        prod = (content[s:e] @ content[ws:we].T).tocoo()
        rows, cols = prod.row + s, prod.col + ws
        sims = prod.data + np.where(rel_id[rows] == rel_id[cols], rel_w[rows] * rel_w[cols], 0)
        keep = (cols > rows) & (sims >= low - 1e-6) & (user_start[rows] == user_start[cols])
        rows, cols, sims = rows[keep], cols[keep], sims[keep]
        compatible = ((rel_id[rows] == rel_id[cols]) | (rel_id[rows] < 0) | (rel_id[cols] < 0)) & (
            subject[rows] == subject[cols]) & (numbers[rows] == numbers[cols])
        rows, cols, sims = rows[compatible], cols[compatible], sims[compatible]
        same = polarity[rows] == polarity[cols]
        opp = ~same & (rel_id[rows] == rel_id[cols]) & (sims >= OPPOSITE_THRESHOLD - 1e-6)
        for r, c, v in _top_k(rows[same], cols[same], sims[same], k):
            if v >= threshold - 1e-6:
                similar.append((r, c, min(1.0, v)))
        for r, c, v in _top_k(rows[opp], cols[opp], sims[opp], k):
            opposite.append((r, c, min(1.0, v)))
        if progress is not None:
            progress(e / n)
    return similar, opposite, x.tocsr()


def _top_k(rows, cols, sims, k: int) -> Iterable[tuple[int, int, float]]:
    """The best ``k`` pairs of each row (numpy arrays in, python tuples out)."""
    import numpy as np

    if rows.size == 0:
        return []
    order = np.lexsort((-sims, rows))
    rows, cols, sims = rows[order], cols[order], sims[order]
    first = np.r_[0, np.flatnonzero(np.diff(rows)) + 1]
    rank = np.arange(rows.size) - np.repeat(first, np.diff(np.r_[first, rows.size]))
    keep = rank < k
    return zip(rows[keep].tolist(), cols[keep].tolist(), sims[keep].tolist())


def _identity(doc):
    return doc


__all__ = ["DuplicateGroup", "DuplicateAnalysis", "OppositePair", "find_duplicates", "DEFAULT_THRESHOLD"]
