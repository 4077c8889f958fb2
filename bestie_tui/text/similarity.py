"""Light-weight similarity for the triage view: IDF-weighted cosine over binary term sets.

No scikit-learn here, so the store stays fast to import. For a query set Q and a document set D
(stemmed terms, ``text.search_terms``), with idf(t) = ln((N + 1) / (df(t) + 1)) + 1 over the N
candidates (the smoothed IDF of scikit-learn's ``TfidfVectorizer``):

    score = Σ_{t ∈ Q∩D} idf(t)² / ( sqrt(Σ_{t∈Q} idf(t)²) · sqrt(Σ_{t∈D} idf(t)²) )

which is the cosine of the two binary TF-IDF vectors, in [0, 1].
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

from bestie_tui.text import words as textmod

T = TypeVar("T")

# Function words that carry no topic. Negations ("not", "no", "never", "không", "chưa") are kept on
# purpose: "likes durian" and "does not like durian" must not look identical.
STOP_TERMS = frozenset(
    "a an the and or of to in on at for with by from is are was were be been am i me my we our you your "
    "he she it they them their this that these those user owner has have had do doe did as so just also "
    "about into than then there here very really".split()
)


def rank_similar(query: str, candidates: Sequence[tuple[T, str]], k: int) -> list[tuple[T, float]]:
    """Rank ``candidates`` (item, space-separated stemmed terms) by IDF cosine to ``query``.

    Returns up to ``k`` ``(item, score)`` with score > 0, best first.
    """
    return TermSets(candidates).rank(query, k)


class TermSets:
    """Candidates prepared once for many ``rank`` calls (the console's Pending view ranks every
    proposal against the same approved set): their term sets, document frequencies and an inverted
    map, so a ranking scores only the candidates that share a term with the query.

    Args:
        candidates: ``(item, space-separated stemmed terms)``.
    """

    def __init__(self, candidates: Sequence[tuple[T, str]]):
        self.items = [item for item, _ in candidates]
        self.sets = [frozenset(terms.split()) - STOP_TERMS for _, terms in candidates]
        self.df: Counter[str] = Counter(t for terms in self.sets for t in terms)
        self.holders: dict[str, list[int]] = {}
        for i, terms in enumerate(self.sets):
            for t in terms:
                self.holders.setdefault(t, []).append(i)

    def rank(self, query: str, k: int, without: frozenset[int] | set[int] = frozenset()) -> list[tuple[T, float]]:
        """``rank_similar(query, candidates, k)`` over the candidates whose positions are not in
        ``without`` (their terms leave the document frequencies too). Same formula, same order."""
        q_terms = set(textmod.search_terms(query)) - STOP_TERMS
        n = len(self.sets) - len(without)
        if not q_terms or n <= 0 or k <= 0:
            return []
        df = self.df
        # the few left-out candidates' terms, subtracted on lookup (copying the whole vocabulary's
        # counts per call cost more than the ranking at 100,000 candidates)
        removed = Counter(t for i in without for t in self.sets[i])
        memo: dict[str, float] = {}

        def idf2(t: str) -> float:
            found = memo.get(t)
            if found is None:
                found = memo[t] = (math.log((n + 1) / (df.get(t, 0) - removed.get(t, 0) + 1)) + 1) ** 2
            return found

        q_norm = math.sqrt(sum(idf2(t) for t in q_terms))
        sharing = sorted({i for t in q_terms for i in self.holders.get(t, ()) if i not in without})
        scored = []
        for i in sharing:
            terms = self.sets[i]
            d_norm = math.sqrt(sum(idf2(t) for t in terms))
            scored.append((sum(idf2(t) for t in q_terms & terms) / (q_norm * d_norm), self.items[i]))
        best = heapq.nlargest(k, enumerate(scored), key=lambda pair: pair[1][0])
        return [(item, round(score, 4)) for _, (score, item) in best]
