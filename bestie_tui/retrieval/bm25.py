"""The BM25 machinery under ``MemoryIndex``: the weighting constants (``K1``, ``B``, ``CHAR_K1``,
``CHAR_B``, ``WORD_SHARE``, ``QUERY_STOP_WORDS``), one fitted BM25 part (``_Part``), a fit of the word
and character parts together (``_Fitted``), the cached character n-gram analyzer, and the sparse
dot-product and L2 helpers. The formulas and how the constants were chosen are in the docstring of
``bestie_tui.retrieval.index``, which re-exports the constants. numpy, scipy and scikit-learn are imported
inside functions, so importing this module stays cheap.
"""

from __future__ import annotations

from functools import lru_cache

#: BM25 term-frequency saturation of the word part.
K1 = 0.6
#: BM25 length normalisation of the word part (0 = none, 1 = full); memories are short and similar.
B = 0.2
#: BM25 saturation and length normalisation of the character part (the usual defaults).
CHAR_K1 = 1.2
CHAR_B = 0.75
#: Share of the word part in relevance; the character part has the rest.
WORD_SHARE = 0.5
#: Words that frame a question rather than name its topic ("When *did* …", "What *kind* of …"), dropped
#: from queries only (memories keep them); the English stop-word list already drops what/when/who.
#: Worth about 1.3 points of LoCoMo turn recall@10, none on observations.
QUERY_STOP_WORDS = frozenset({"did", "does", "likely", "kind", "type"})


class _Part:
    """One BM25 part: a fitted ``CountVectorizer``, its idf, average length and CSC row weights."""

    def __init__(self, vectorizer, texts: list[str], k1: float, b: float):
        import numpy as np

        self.vectorizer, self.k1, self.b = vectorizer, k1, b
        counts = vectorizer.fit_transform(texts)  # ValueError when no text has a feature
        n = counts.shape[0]
        df = np.bincount(counts.indices, minlength=counts.shape[1])
        self.idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
        self.avglen = max(float(counts.sum()) / max(n, 1), 1.0)
        weighted = self.weigh(counts)
        self.rows = weighted.tocsc()
        self.by_row = weighted  # CSR too: near-duplicate checks read whole rows (``similarity``)

    @property
    def width(self) -> int:
        return self.rows.shape[1]

    def weigh(self, counts):
        """BM25 document weights of a count matrix (CSR out), with the fitted idf and length."""
        import numpy as np

        counts = counts.tocsr().astype(np.float32)
        lengths = np.asarray(counts.sum(axis=1)).ravel()
        norm = self.k1 * (1 - self.b + self.b * lengths / self.avglen)
        tf = counts.data
        counts.data = (self.idf[counts.indices] * tf * (self.k1 + 1)
                       / (tf + np.repeat(norm, np.diff(counts.indptr)).astype(np.float32)))
        return counts

    def query(self, text: str, share: float):
        """(columns, weights) of ``text``: each feature once, scaled so a perfect match gives ``share``."""
        import numpy as np

        cols = np.unique(self.vectorizer.transform([text]).indices)
        ideal = float(self.idf[cols].sum()) * (self.k1 + 1)
        if ideal <= 0:
            return None
        return cols, np.full(len(cols), share / ideal, dtype=np.float32)


class _Fitted:
    """One fit: the word part and the character part (``_Part``), or None where nothing was found."""

    def __init__(self, texts: list[str]):
        import numpy as np
        from sklearn.feature_extraction.text import CountVectorizer

        from bestie_tui.text.analysis import analyze_words_and_bigrams

        words = CountVectorizer(analyzer=analyze_words_and_bigrams, dtype=np.float32)
        chars = CountVectorizer(analyzer=_char_ngrams, dtype=np.float32)
        self.words = _Part(words, texts, K1, B)  # raises ValueError when every text is stop words
        self.chars: _Part | None
        try:
            self.chars = _Part(chars, texts, CHAR_K1, CHAR_B)
        except ValueError:  # no text has a word of three letters or more
            self.chars = None

    def transform(self, texts: list[str]):
        """(word rows, char rows) of texts outside the fit, CSR, with the fitted idf and length."""
        words = self.words.weigh(self.words.vectorizer.transform(texts))
        chars = self.chars.weigh(self.chars.vectorizer.transform(texts)) if self.chars is not None else None
        return words, chars

    def query(self, query: str):
        """(word columns, word weights, char columns, char weights) of ``query``, or None."""
        from bestie_tui.text import words as textmod

        query = " ".join(t for t in textmod.tokens(query) if t not in QUERY_STOP_WORDS)
        words = self.words.query(query, WORD_SHARE)
        chars = self.chars.query(query, 1 - WORD_SHARE) if self.chars is not None else None
        if words is None and chars is None:
            return None
        return (*(words or (None, None)), *(chars or (None, None)))


def _char_ngrams(text: str) -> list[str]:
    """Character 3–5-grams within word boundaries of the folded text: scikit-learn's ``char_wb``
    analyzer, word by word through a cache — memories repeat their words, and building the n-grams
    of every word of 100,000 memories afresh was most of the index build."""
    from bestie_tui.text import words as textmod

    out: list[str] = []
    for word in textmod.fold(text).split():
        out.extend(_word_char_ngrams(word))
    return out


@lru_cache(maxsize=1 << 18)
def _word_char_ngrams(word: str) -> tuple[str, ...]:
    padded = " " + word + " "
    grams = []
    for n in range(3, 6):
        if n >= len(padded):  # as scikit-learn: a short word is one n-gram, itself padded
            grams.append(padded)
            break
        grams.extend(padded[i:i + n] for i in range(len(padded) - n + 1))
    return tuple(grams)


def _dot_columns(matrix, cols, vals):
    """``matrix[:, cols] @ vals`` for a CSC matrix; zeros when there are no columns."""
    import numpy as np

    if cols is None or matrix is None or matrix.shape[0] == 0:
        return np.zeros(matrix.shape[0] if matrix is not None else 0, dtype=np.float64)
    return np.asarray(matrix[:, cols] @ vals, dtype=np.float64).ravel()


def _dot_rows(matrix, cols, vals, width: int):
    """``matrix @ q`` for a CSR matrix and a sparse query given as columns/values."""
    import numpy as np

    if cols is None or matrix is None or matrix.shape[0] == 0:
        return np.zeros(matrix.shape[0] if matrix is not None else 0, dtype=np.float64)
    dense = np.zeros(width, dtype=np.float32)
    dense[cols] = vals
    return np.asarray(matrix @ dense, dtype=np.float64).ravel()


def _l2(matrix):
    from sklearn.preprocessing import normalize

    return normalize(matrix.tocsr(), norm="l2", copy=False)
