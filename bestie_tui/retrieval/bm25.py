"""The BM25 weighting over the persisted index's counts: the constants (``K1``, ``B``, ``CHAR_K1``,
``CHAR_B``, ``WORD_SHARE``), the idf, document weights and the query's best possible score. The
formulas and how the constants were chosen are in the docstring of ``bestie_tui.retrieval.index``,
which re-exports the constants. numpy is imported inside functions; nothing here needs scipy or
scikit-learn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from bestie_tui.store.doc_index import CHAR, WORD
from bestie_tui.text.analysis import QUERY_STOP_WORDS  # noqa: F401  (re-exported)

#: BM25 term-frequency saturation of the word part.
K1 = 0.6
#: BM25 length normalisation of the word part (0 = none, 1 = full); memories are short and similar.
B = 0.2
#: BM25 saturation and length normalisation of the character part (the usual defaults).
CHAR_K1 = 1.2
CHAR_B = 0.75
#: Share of the word part in relevance; the character part has the rest.
WORD_SHARE = 0.5
#: Added to the relevance of a memory that already shares a feature with a request and holds a word
#: of a topic the request names (``text.topics``: food, travel, work…); chosen two-fold on shared
#: data (``benchmarks/retrieval_topics.py``). 0 turns it off.
TOPIC_SHARE = 0.1


@dataclass(frozen=True)
class PartWeights:
    """BM25 of one part (words or characters): ``k1``, ``b``, the part's ``share`` of relevance and
    the collection's document count ``n`` and average feature count ``avglen``."""

    part: int
    k1: float
    b: float
    share: float
    n: int
    avglen: float

    def idf(self, df: int) -> float:
        """``ln(1 + (N − df + 0.5) / (df + 0.5))`` (Robertson & Zaragoza, 2009)."""
        return math.log1p((self.n - df + 0.5) / (df + 0.5))

    def ideal(self, dfs: Sequence[int]) -> float:
        """The most a document could score for a query of these features: ``Σ idf · (k1 + 1)``."""
        return sum(self.idf(df) for df in dfs) * (self.k1 + 1)

    def weight(self, idf, tf, length):
        """``idf · tf·(k1 + 1) / (tf + k1·(1 − b + b·length/avglen))``; numpy arrays or floats."""
        return idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * length / self.avglen))


def parts(n: int, word_total: int, char_total: int) -> tuple[PartWeights, PartWeights]:
    """The word and character ``PartWeights`` of a collection of ``n`` documents with these total
    feature counts (average length at least 1, as a collection of empty texts would otherwise divide by 0)."""
    n = max(n, 0)
    return (PartWeights(WORD, K1, B, WORD_SHARE, n, max(word_total / max(n, 1), 1.0)),
            PartWeights(CHAR, CHAR_K1, CHAR_B, 1 - WORD_SHARE, n, max(char_total / max(n, 1), 1.0)))


__all__ = ["K1", "B", "CHAR_K1", "CHAR_B", "WORD_SHARE", "TOPIC_SHARE", "QUERY_STOP_WORDS", "PartWeights", "parts",
           "WORD", "CHAR"]
