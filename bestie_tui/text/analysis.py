"""Analyzers shared by the persisted index, scoring, the doctor and the triage view.

scikit-learn is imported inside ``make_vectorizer`` only; its English stop-word list is read from
its own file without importing scikit-learn (``english_stop_words``), so the query path stays light.

* ``NEGATIONS``: words that flip meaning, English and Vietnamese (accent-folded). Kept as features:
  scikit-learn's English stop-word list drops "not", "no" and "never", which would make
  "I am vegan" and "I am not a vegan" the same vector.
* ``STOP_WORDS``: scikit-learn's English list plus common Vietnamese function words, minus negations.
* ``analyze_words(text)``: folded, stemmed word tokens without stop words; a negation is glued to the
  next content word as well (``not_vegan``) so negated statements get their own features. A run of
  Chinese, Japanese or Korean characters gives its overlapping character pairs
  (``words.index_tokens``), so "咖啡" is found inside "我喜欢喝绿茶，不喜欢咖啡".
* ``features(text)``: the two feature lists the index stores per document — words and word pairs
  (``analyze_words_and_bigrams``) and character 3–5-grams within word boundaries (``char_ngrams``).
"""

from __future__ import annotations

import os
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
def english_stop_words() -> frozenset[str]:
    """scikit-learn's English stop-word list (the Glasgow IR group's), read from its module file
    ``sklearn/feature_extraction/_stop_words.py`` without importing the ``sklearn`` package, whose
    import costs seconds on a loaded two-core machine. Falls back to the ordinary import when the
    file is not where it is expected (an unusual install).

    Raises:
        ImportError: scikit-learn is not installed.
    """
    import importlib.util

    spec = importlib.util.find_spec("sklearn")  # finds the package without running its __init__
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in locations:
        path = os.path.join(folder, "feature_extraction", "_stop_words.py")
        if os.path.exists(path):
            module_spec = importlib.util.spec_from_file_location("_bestie_sklearn_stop_words", path)
            if module_spec is not None and module_spec.loader is not None:
                module = importlib.util.module_from_spec(module_spec)
                module_spec.loader.exec_module(module)
                return frozenset(module.ENGLISH_STOP_WORDS)
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """English (scikit-learn's list) and Vietnamese function words, with every negation removed."""
    words = {textmod.normalize(w).replace(" ", "") for w in english_stop_words()}
    return frozenset((words | _VIETNAMESE_FUNCTION_WORDS) - NEGATIONS)


def analyze_words(text: str) -> list[str]:
    """Word features of ``text``: stemmed content words, and ``neg_<word>`` after a negation.

    Contractions are folded first ("don't" → "dont"), so they count as negations; CJK runs are
    cut into character pairs (``words.index_tokens``).
    """
    return _analyze(textmod.index_tokens(text))


def _analyze(pieces: list[str]) -> list[str]:
    """``analyze_words`` of a text whose ``index_tokens`` are ``pieces``."""
    stops = stop_words()
    out: list[str] = []
    negate = False
    for token in pieces:
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
    return _words_and_bigrams(text, textmod.tokens(text))


def _words_and_bigrams(text: str, toks: list[str]) -> list[str]:
    """``analyze_words_and_bigrams`` of ``text`` whose ``tokens`` are ``toks`` (read once for both)."""
    pieces = toks if text.isascii() else [piece for token in toks for piece in textmod.split_cjk(token)]
    words = _analyze(pieces)
    return words + [a + " " + b for a, b in zip(words, words[1:])] + _joined(toks)


#: Longest token (characters) that counts as a syllable when joining runs of them.
SYLLABLE_MAX = 4


def joined_syllables(text: str) -> list[str]:
    """Runs of 2–3 neighbouring short alphabetic tokens written as one word: "Hà Nội" → ``hanoi``,
    "Đà Nẵng" → ``danang``, "Hồ Chí Minh" → ``hochi``, ``chiminh``, ``hochiminh``. Vietnamese names
    are written in syllables, and people type them joined ("hanoi"); without this a query word and
    the stored syllables share no word feature. Tokens holding CJK characters take no part (their
    character pairs already are their words)."""
    return _joined(textmod.tokens(text))


def _joined(toks: list[str]) -> list[str]:
    """``joined_syllables`` of a text whose ``tokens`` are ``toks``: each token judged once."""
    english = english_stop_words()
    short = [t.isalpha() and len(t) <= SYLLABLE_MAX and t not in english and not textmod.has_cjk(t) for t in toks]
    out: list[str] = []
    for size in (2, 3):
        for i in range(len(toks) - size + 1):
            if all(short[i:i + size]):
                out.append("".join(toks[i:i + size]))
    return out


def char_ngrams(text: str) -> list[str]:
    """Character 3–5-grams within word boundaries of the folded text (scikit-learn's ``char_wb``
    analyzer: each word padded with one space, a word shorter than n gives itself padded), word by
    word through a cache — memories repeat their words, and building the n-grams of every word of
    100,000 memories afresh was most of an index build. A CJK run counts as its character pairs
    (``words.split_cjk``), so a query word inside a run meets the run's n-grams."""
    out: list[str] = []
    folded = textmod.fold(text)
    if folded.isascii():  # no CJK run to cut
        for word in folded.split():
            out.extend(_word_char_ngrams(word))
        return out
    for word in folded.split():
        for piece in textmod.split_cjk(word):
            out.extend(_word_char_ngrams(piece))
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


#: Words that frame a question rather than name its topic ("When *did* …", "What *kind* of …"), dropped
#: from queries only (documents keep them); the English stop-word list already drops what/when/who.
#: Worth about 1.3 points of LoCoMo turn recall@10, none on observations.
QUERY_STOP_WORDS = frozenset({"did", "does", "likely", "kind", "type"})


def features(text: str) -> tuple[list[str], list[str]]:
    """``(word features, character features)`` of a document, duplicates kept (their counts are the
    term frequencies): ``analyze_words_and_bigrams(text)`` and ``char_ngrams(text)``."""
    return _words_and_bigrams(text, textmod.tokens(text)), char_ngrams(text)


def query_features(query: str) -> tuple[list[str], list[str]]:
    """``features`` of a query after ``QUERY_STOP_WORDS`` are dropped, each feature once, in order."""
    text = " ".join(t for t in textmod.tokens(query) if t not in QUERY_STOP_WORDS)
    words, chars = features(text)
    return list(dict.fromkeys(words)), list(dict.fromkeys(chars))


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
