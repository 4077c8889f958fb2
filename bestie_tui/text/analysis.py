"""TF-IDF building blocks shared by scoring, the doctor and the triage view.

scikit-learn is imported inside ``make_vectorizer`` only, so importing this module is cheap.

* ``NEGATIONS``: words that flip meaning, English and Vietnamese (accent-folded). Kept as features:
  scikit-learn's English stop-word list drops "not", "no" and "never", which would make
  "I am vegan" and "I am not a vegan" the same vector.
* ``STOP_WORDS``: scikit-learn's English list plus common Vietnamese function words, minus negations.
* ``analyze_words(text)``: folded, stemmed word tokens without stop words; a negation is glued to the
  next content word as well (``not_vegan``) so negated statements get their own features.
"""

from __future__ import annotations

from functools import lru_cache

from bestie_tui.text import words as textmod

NEGATIONS = frozenset({
    "not", "no", "never", "nor", "none", "nothing", "nobody", "neither", "nowhere", "cannot", "without",
    "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "wont", "cant", "havent", "hasnt",
    "hadnt", "shouldnt", "wouldnt", "couldnt",
    # Vietnamese, accent-folded: không, chưa, chẳng, chả, đừng, chớ
    "khong", "chua", "chang", "cha", "dung", "cho",
})

_VIETNAMESE_FUNCTION_WORDS = {
    "la", "va", "cua", "cho", "voi", "nhung", "cac", "mot", "nhu", "thi", "ma", "o", "tai", "trong",
    "toi", "ban", "anh", "chi", "em", "minh", "nay", "do", "de", "duoc", "se", "da", "dang", "rat",
}


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """English (scikit-learn's list) and Vietnamese function words, with every negation removed."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    words = {textmod.normalize(w).replace(" ", "") for w in ENGLISH_STOP_WORDS}
    return frozenset((words | _VIETNAMESE_FUNCTION_WORDS) - NEGATIONS)


def analyze_words(text: str) -> list[str]:
    """Word features of ``text``: stemmed content words, and ``neg_<word>`` after a negation.

    Contractions are folded first ("don't" → "dont"), so they count as negations.
    """
    stops = stop_words()
    out: list[str] = []
    negate = False
    for token in textmod.tokens(text):
        if token in NEGATIONS:
            out.append(token)
            negate = True
            continue
        if token in stops:
            continue
        stemmed = textmod.stem(token)
        out.append(stemmed)
        if negate:
            out.append("neg_" + stemmed)
            negate = False
    return out


def analyze_words_and_bigrams(text: str) -> list[str]:
    """``analyze_words`` plus each pair of neighbouring features (``"egg coffe"``): phrases such as
    names and places weigh more than their words scattered over a text. Adds about 1.5 points of
    recall@10 on LoCoMo (``benchmarks/retrieval_locomo.py``)."""
    words = analyze_words(text)
    return words + [a + " " + b for a, b in zip(words, words[1:])] + joined_syllables(text)


@lru_cache(maxsize=1)
def _english_stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


#: Longest token (characters) that counts as a syllable when joining runs of them.
SYLLABLE_MAX = 4


def joined_syllables(text: str) -> list[str]:
    """Runs of 2–3 neighbouring short alphabetic tokens written as one word: "Hà Nội" → ``hanoi``,
    "Đà Nẵng" → ``danang``, "Hồ Chí Minh" → ``hochi``, ``chiminh``, ``hochiminh``. Vietnamese names
    are written in syllables, and people type them joined ("hanoi"); without this a query word and
    the stored syllables share no word feature."""
    toks = textmod.tokens(text)
    english = _english_stop_words()
    out: list[str] = []
    for size in (2, 3):
        for i in range(len(toks) - size + 1):
            run = toks[i:i + size]
            if all(t.isalpha() and len(t) <= SYLLABLE_MAX and t not in english for t in run):
                out.append("".join(run))
    return out


def make_vectorizer(*, char_ngrams: bool = True, min_df: int = 1, word_bigrams: bool = False,
                    char_weight: float = 1.0):
    """A scikit-learn transformer: word TF-IDF (``analyze_words``, unigrams; with ``word_bigrams``
    also neighbouring pairs) plus, optionally, character 3–5-grams within word boundaries over the
    accent-folded text, each L2-normalised, the character part scaled by ``char_weight``, and
    concatenated (normalise the rows again to get cosines). Fit with ``.fit_transform(texts)`` →
    sparse matrix (n_texts × n_features).
    """
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import FeatureUnion

    analyzer = analyze_words_and_bigrams if word_bigrams else analyze_words
    word = TfidfVectorizer(analyzer=analyzer, sublinear_tf=True, min_df=min_df, dtype=np.float32)
    if not char_ngrams:
        return word
    char = TfidfVectorizer(analyzer="char_wb", preprocessor=textmod.fold, ngram_range=(3, 5),
                           sublinear_tf=True, min_df=min_df, dtype=np.float32)
    return FeatureUnion([("word", word), ("char", char)],
                        transformer_weights={"word": 1.0, "char": char_weight})
