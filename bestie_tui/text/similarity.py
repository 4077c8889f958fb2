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
    q_terms = set(textmod.search_terms(query)) - STOP_TERMS
    if not q_terms or not candidates or k <= 0:
        return []
    term_sets = [set(terms.split()) - STOP_TERMS for _, terms in candidates]
    df = Counter(t for terms in term_sets for t in terms)
    n = len(candidates)

    def idf2(t: str) -> float:
        return (math.log((n + 1) / (df.get(t, 0) + 1)) + 1) ** 2

    q_norm = math.sqrt(sum(idf2(t) for t in q_terms))
    scored = []
    for (item, _), terms in zip(candidates, term_sets):
        shared = q_terms & terms
        if not shared:
            continue
        d_norm = math.sqrt(sum(idf2(t) for t in terms))
        scored.append((sum(idf2(t) for t in shared) / (q_norm * d_norm), item))
    best = heapq.nlargest(k, enumerate(scored), key=lambda pair: pair[1][0])
    return [(item, round(score, 4)) for _, (score, item) in best]
