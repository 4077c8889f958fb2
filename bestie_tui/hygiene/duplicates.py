"""Duplicate groups: the records ``facts.relate`` calls duplicates, grouped without chaining.

Per user. The pairs come from the doctor's pair scan (``hygiene.pairs``); a group's ``level`` says
what joined it:

1. **exact**: identical text after trimming;
2. **normalized**: equal ``text.normalize`` (case, whitespace, punctuation, accents);
3. **frame**: the reader read the same fact in both (same subject, attribute and value: "User
   prefers Vietnamese." / "Always answer in Vietnamese"; "born on March 3rd" / "birthday: 3/3");
4. **similar**: texts the reader cannot frame, whose TF-IDF cosine reaches ``threshold``.

Rungs 1–2 are equivalence classes. The others are not transitive: linking every duplicate pair
would chain "I have a dog" → "I have a big dog" → "I have a big house" into one group. Groups
therefore grow by **complete linkage**: two clusters merge only when every cross pair is a
duplicate, so each group is a clique of the duplicate graph (Manning, Raghavan & Schütze,
*Introduction to Information Retrieval*, §17.2). A pair ``relate`` calls a contradiction or a
correction is never in a group: the contradiction finder and the corrections list report it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bestie_tui.hygiene.pairs import PairScan, RelatedPair, scan
from bestie_tui.store.records import MemoryRecord

#: TF-IDF cosine from which two texts the reader cannot frame are duplicates (tuned on MSC persona
#: facts; see benchmarks/doctor_msc.py).
DEFAULT_THRESHOLD = 0.8
DEFAULT_K = 6
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
    #: every link rests on strong evidence (``Relation.strong``): only then is merging a default
    strong: bool = True

    @property
    def ids(self) -> list[int]:
        return [m.id for m in self.members]

    def to_dict(self) -> dict:
        return {"user": self.user, "level": self.level, "score": round(self.score, 4), "ids": self.ids,
                "texts": [m.text for m in self.members], "strong": self.strong}


@dataclass
class OppositePair:
    """Two records whose words match but whose polarity is opposite (a negated twin)."""

    a: MemoryRecord
    b: MemoryRecord
    score: float


@dataclass
class DuplicateAnalysis:
    groups: list[DuplicateGroup] = field(default_factory=list)
    #: the pair scan the groups were built from (its other pairs feed contradictions and corrections)
    scan: PairScan = field(default_factory=PairScan)

    @property
    def opposite_pairs(self) -> list[OppositePair]:
        """Near-identical pairs kept apart because one negates the other."""
        out = []
        for p in self.scan.pairs:
            if p.relation.kind == "contradiction" and p.relation.basis in ("negation", "antonym"):
                out.append(OppositePair(self.scan.members[p.older][0], self.scan.members[p.newer][0],
                                        p.score if p.score is not None else 1.0))
        return out


def find_duplicates(records: Sequence[MemoryRecord], *, threshold: float = DEFAULT_THRESHOLD,
                    k: int = DEFAULT_K, norms: dict[int, str] | None = None,
                    progress: Callable[[float], None] | None = None) -> DuplicateAnalysis:
    """Group duplicate records per user (see the module docstring).

    Args:
        records: the records to compare (usually the active approved ones).
        threshold: TF-IDF cosine (0–1) at or above which two unframed records are "similar".
        k: neighbours kept per record in the similarity search.
        norms: ``{id: text.normalize(text)}`` if already known (the store keeps it), to save time.
        progress: called with a fraction 0–1 while the scan runs.

    Returns:
        ``DuplicateAnalysis`` with groups of two or more records, biggest first.
    """
    s = scan(records, norms=norms, threshold=threshold, k=k, progress=progress)
    return DuplicateAnalysis(groups=group(s), scan=s)


def group(s: PairScan) -> list[DuplicateGroup]:
    """Complete-linkage groups over the duplicate pairs of ``s`` (see the module docstring)."""
    n = len(s.members)
    dup: dict[tuple[int, int], RelatedPair] = {}
    for p in s.pairs:
        if p.relation.kind == "duplicate":
            dup[(min(p.older, p.newer), max(p.older, p.newer))] = p
    clusters: dict[int, list[int]] = {i: [i] for i in range(n)}
    owner = list(range(n))
    for (i, j), _p in sorted(dup.items(), key=lambda kv: (-(kv[1].score or 0.0), kv[0])):  # ties: by units
        a, b = owner[i], owner[j]
        if a == b:
            continue
        ma, mb = clusters[a], clusters[b]
        if len(ma) * len(mb) > MAX_LINK_CHECK:
            continue
        if all((min(x, y), max(x, y)) in dup for x in ma for y in mb):
            ma.extend(mb)
            for x in mb:
                owner[x] = a
            del clusters[b]
    out = []
    for idx in clusters.values():
        members = sorted((r for i in idx for r in s.members[i]), key=lambda r: r.id)
        if len(members) < 2:
            continue
        strong = True
        if len(idx) == 1:
            level = "exact" if len({r.text.strip() for r in members}) == 1 else "normalized"
            score = 1.0
        else:
            links = [dup[(min(x, y), max(x, y))] for x in idx for y in idx if x < y]
            level = "similar" if any(p.relation.basis == "words" for p in links) else "frame"
            score = _min_cosine(s, sorted(idx))
            strong = all(p.relation.strong for p in links)
        out.append(DuplicateGroup(s.users[idx[0]] or None, members, level, score, strong))
    out.sort(key=lambda g: (-len(g.members), g.members[0].id))
    return out


def _min_cosine(s: PairScan, idx: list[int]) -> float:
    """The lowest TF-IDF cosine between two units of a group (groups are small)."""
    if s.vectors is None:
        return 1.0
    block = s.vectors[idx]
    sims = (block @ block.T).toarray()
    return min(min(1.0, float(sims[a, b])) for a in range(len(idx)) for b in range(a + 1, len(idx)))


__all__ = ["DuplicateGroup", "DuplicateAnalysis", "OppositePair", "find_duplicates", "group", "DEFAULT_THRESHOLD"]
