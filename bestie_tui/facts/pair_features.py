"""What the doctor's model sees of two memories: ``features(older, newer)`` → ``{name: value}``.

Three layers, each computed without a language model and without scikit-learn:

* **the reader** (``facts.read``): whether the subjects agree, whether the two texts frame the same
  attribute, whether its values agree, the flags of each text (negated, ended, change, fix, hedged,
  only, ever, past, plan, event, habit, long ago, antonym, became), and the rule verdict of
  ``relations.rule_relation`` with what decided it;
* **the text**: overlap of accent-folded words, of content words and of the reader's concepts
  (Jaccard, Dice, containment), character 3- and 4-gram overlap, numbers and capitalised names
  agreeing or not, the lengths;
* **closed-class cues**: for each word of ``CUES`` (negations, change and end verbs, time and
  frequency words, aspect markers, pronouns, copulas, conjunctions — English and Vietnamese,
  accent-folded so a text typed without diacritics gives the same features), whether it is only in
  the newer text or only in the older one. Which of them matter, and how, is learned from labelled
  pairs (``benchmarks/fit_relations.py``), not written here.

Every value is a float; the names are stable (the shipped model refers to them by name; ``names``
lists them all, and a cue absent from ``features`` is 0) and the dictionary is built in a fixed
order, so the same texts give the same vector under any ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Set as AbstractSet
from difflib import SequenceMatcher
from functools import lru_cache

from bestie_tui.facts import dates
from bestie_tui.facts import lexicon_en as en
from bestie_tui.facts import lexicon_vi as vi
from bestie_tui.facts.reader import read
from bestie_tui.facts.subjects import same_subject
from bestie_tui.text import words as textmod

#: Closed-class cue words, accent-folded (the model learns what each one does in a pair).
CUES: tuple[str, ...] = tuple(dict.fromkeys((
    # English negation and ending
    "not", "no", "never", "nor", "none", "nothing", "without", "dont", "doesnt", "didnt", "isnt", "arent",
    "wasnt", "cant", "cannot", "wont", "longer", "anymore", "stopped", "quit", "gave", "ended", "left", "ex",
    "former",
    # English change, fix, time and frequency
    "now", "currently", "nowadays", "instead", "switched", "moved", "changed", "new", "started", "became",
    "just", "recently", "finally", "actually", "turns", "turned", "correction", "mistake", "wrong", "confirmed",
    "today", "tonight", "yesterday", "last", "this", "next", "ago", "since", "until", "from", "to", "once",
    "twice", "again", "only", "always", "every", "each", "usually", "often", "sometimes", "rarely", "daily",
    "weekly", "still", "used", "ever", "then", "soon", "will", "would", "want", "plan", "hope", "maybe",
    "probably", "think", "might", "because", "but", "also", "too", "both", "either", "except", "same", "other",
    "another", "one", "all", "any", "some", "more", "less", "than", "was", "were", "is", "are", "am", "be",
    "been", "has", "have", "had", "got", "get", "do", "did", "does", "prefer", "like", "love", "hate",
    "favourite", "favorite",
    # English pronouns and persons
    "i", "my", "me", "we", "our", "he", "she", "his", "her", "they", "their", "you", "your",
    # Vietnamese (folded): negation, ending, change, time, frequency, aspect, pronouns
    "khong", "chua", "chang", "ko", "dung", "con", "nua", "roi", "thoi", "bo", "ngung", "nghi", "gio", "bay",
    "nay", "moi", "vua", "da", "dang", "se", "doi", "chuyen", "sang", "thanh", "tu", "hom", "qua", "mai",
    "tuan", "thang", "nam", "truoc", "sau", "chi", "luon", "thuong", "hay", "tung", "van", "cung", "nhung",
    "vi", "bi", "duoc", "lan", "dot", "hoa", "ra", "thuc", "that", "nham", "minh", "toi", "em", "anh", "ban",
    "ho", "cua", "la", "o", "co", "lam", "ca", "het", "lai", "sap", "dinh", "muon", "thich", "ghet", "ngay",
    "sang", "toi", "khi", "hien", "bao", "gio", "lau",
)))
#: Reader flags compared between the two texts.
FLAGS = ("negated", "ended", "change", "fix", "hedged", "only", "ever", "past", "plan", "event", "habit",
         "long_ago", "antonym", "became")
#: Rule verdicts and what decided them (``Relation.kind`` / ``Relation.basis``).
RULE_KINDS = ("duplicate", "correction", "contradiction", "event_vs_state", "compatible")
RULE_BASES = ("same", "value", "negation", "antonym", "ended", "fix", "change", "event", "exclusion", "words",
              "text", "subject", "scope", "past", "plan", "many", "denied", "none")

_FUNCTION = frozenset(textmod.fold(w) for w in en.FUNCTION | vi.FUNCTION) | frozenset(CUES)
_CUE_SET = frozenset(CUES)
#: Bounds of the quadratic parts: quantity pairs compared, words aligned per text.
_QUANTITY_PAIRS = 400
_ALIGNED = 200
_NEGATIONS = frozenset(textmod.fold(w) for w in en.NEGATIONS | vi.NEGATIONS) | {"dont", "doesnt", "didnt", "isnt",
                                                                               "arent", "wasnt", "cant", "wont"}
_CUE_ORDER = {c: i for i, c in enumerate(CUES)}
#: Feature names built once (a pair's features are computed for every candidate pair of the doctor).
_FLAG_NAMES = tuple((flag, f"a_{flag}", f"b_{flag}", f"xor_{flag}") for flag in FLAGS)
_RULE_NAMES = tuple((kind, f"rule_{kind}") for kind in RULE_KINDS)
_BASIS_NAMES = tuple((basis, f"basis_{basis}") for basis in RULE_BASES)
_CUE_B = {c: f"cue_b_{c}" for c in CUES}
_CUE_A = {c: f"cue_a_{c}" for c in CUES}
@lru_cache(maxsize=1)
def _cue_stems() -> frozenset[str]:
    return frozenset(textmod.stem(c) for c in CUES)


def _cue_stem(word: str) -> str | None:
    """The stem of ``word`` when it is a form of a cue word ("prefers", "liked"), else ``None``."""
    stem = textmod.stem(word)
    return stem if stem in _cue_stems() else None


_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def _folded_words(text: str) -> list[str]:
    return textmod.tokens(text)


def _grams(text: str, n: int) -> set[str]:
    s = " " + " ".join(_folded_words(text)) + " "
    return {s[i:i + n] for i in range(max(0, len(s) - n + 1))}


def _jaccard(x: AbstractSet, y: AbstractSet) -> float:
    return len(x & y) / len(x | y) if x or y else 0.0


def _dice(x: AbstractSet, y: AbstractSet) -> float:
    return 2 * len(x & y) / (len(x) + len(y)) if x or y else 0.0


def _contain(x: AbstractSet, y: AbstractSet) -> float:
    return len(x & y) / min(len(x), len(y)) if x and y else 0.0


def _names(text: str) -> set[str]:
    """Capitalised words after the first, folded: the names a text mentions."""
    words = re.findall(r"[^\W_]+", text)
    return {textmod.fold(w) for w in words[1:] if w[:1].isupper() and not w.isupper() or len(w) > 1 and w.isupper()}


@lru_cache(maxsize=65536)
def _words_of(text: str) -> tuple[str, ...]:
    return tuple(_folded_words(text))


@lru_cache(maxsize=65536)
def _stems(text: str) -> frozenset[str]:
    return frozenset(textmod.stem(w) for w in _text_side(text)[1])


@lru_cache(maxsize=65536)
def _text_side(text: str) -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str], frozenset[str],
                                   frozenset[str]]:
    words = _words_of(text)
    tokens = frozenset(words)
    content = frozenset(w for w in words if w not in _FUNCTION and not w.isdigit() and _cue_stem(w) is None)
    numbers = frozenset(_NUMBER.findall(text))
    return tokens, content, numbers, frozenset(_names(text)), frozenset(_grams(text, 3)), frozenset(_grams(text, 4))


def features(older: str, newer: str, rule=None, frames=None) -> dict[str, float]:
    """The feature vector of the pair (``older`` stated first), by name (see the module docstring).

    Args:
        older, newer: the two memory texts.
        rule, frames: ``relations.rule_relation`` and ``relations.pair_frames`` of the pair (the
            caller's: ``relations.pair_features`` passes them; this module does not import it).

    Returns:
        ``{name: float}`` with the same names, in the same order, for every pair. Never raises.
    """
    a, b = read(older), read(newer)
    ta, ca, na, ma, g3a, g4a = _text_side(older)
    tb, cb, nb, mb, g3b, g4b = _text_side(newer)
    out: dict[str, float] = {}
    out["bias_len_a"] = math.log1p(len(ta))
    out["bias_len_b"] = math.log1p(len(tb))
    out["len_ratio"] = min(len(ta), len(tb)) / max(1, len(ta), len(tb))
    out["tok_jaccard"] = _jaccard(ta, tb)
    out["content_jaccard"] = _jaccard(ca, cb)
    out["content_dice"] = _dice(ca, cb)
    out["content_contain"] = _contain(ca, cb)
    out["content_only_a"] = math.log1p(len(ca - cb))
    out["content_only_b"] = math.log1p(len(cb - ca))
    out["content_shared"] = math.log1p(len(ca & cb))
    out["concept_dice"] = _dice(a.content, b.content)
    out["concept_contain"] = _contain(a.content, b.content)
    out["gram3_jaccard"] = _jaccard(g3a, g3b)
    out["gram4_jaccard"] = _jaccard(g4a, g4b)
    out["gram4_contain"] = _contain(g4a, g4b)
    out["numbers_both"] = float(bool(na and nb))
    out["numbers_shared"] = float(bool(na & nb))
    out["numbers_differ"] = float(bool(na and nb and na != nb))
    out["numbers_one_side"] = float(bool(na) != bool(nb))
    out["names_shared"] = float(bool(ma & mb))
    out["names_differ"] = float(bool(ma and mb and not ma & mb))
    out["names_new"] = float(bool(mb - ma))
    qa, qb = a.quantities, b.quantities
    few = len(qa) * len(qb) <= _QUANTITY_PAIRS  # the comparison is quadratic: a long text is not a memory
    out["quantities_agree"] = float(bool(qa and qb and few and dates.agree(qa, qb)))
    out["quantities_differ"] = float(bool(qa and qb and few and dates.differ(qa, qb)))
    # the reader
    subject = same_subject(a.subject, b.subject, a.content, b.content)
    out["subject_same"] = float(subject == "same")
    out["subject_different"] = float(subject == "different")
    out["both_owner"] = float(a.subject.kind == "owner" and b.subject.kind == "owner")
    out["readable_both"] = float(a.readable and b.readable)
    out["readable_none"] = float(not a.readable and not b.readable)
    if frames is None or rule is None:
        raise ValueError("features needs the rule verdict and the frames: use relations.pair_features")
    out["frames_shared"] = float(frames.shared)
    out["frames_single"] = float(frames.single)
    out["frames_same_value"] = float(frames.same_value)
    out["frames_other_value"] = float(frames.other_value)
    out["frames_polarity_differ"] = float(frames.polarity_differ)
    out["attributes_shared"] = float(frames.attributes_shared)
    for flag, name_a, name_b, name_xor in _FLAG_NAMES:
        fa, fb = bool(getattr(a, flag)), bool(getattr(b, flag))
        out[name_a] = float(fa)
        out[name_b] = float(fb)
        out[name_xor] = float(fa != fb)
    # alignment of the two word sequences (difflib's matching blocks, Ratcliff/Obershelp): one span
    # swapped inside a shared frame ("born in X" / "born in Y"), words only added, or a rewrite
    wa, wb = _words_of(older)[:_ALIGNED], _words_of(newer)[:_ALIGNED]  # alignment is quadratic: a memory's head
    codes = SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes()
    ops = [op for op in codes if op[0] != "equal"]
    kept = sum(i2 - i1 for tag, i1, i2, _, _ in codes if tag == "equal")
    frame = kept / max(1, min(len(wa), len(wb)))
    out["align_frame"] = frame
    out["align_blocks"] = math.log1p(len(ops))
    out["align_one_swap"] = float(len(ops) == 1 and ops[0][0] == "replace") * frame
    out["align_added_only"] = float(bool(ops) and all(op[0] == "insert" for op in ops)) * frame
    out["align_removed_only"] = float(bool(ops) and all(op[0] == "delete" for op in ops)) * frame
    swapped_b = {w for _, _, _, j1, j2 in ops for w in wb[j1:j2]}
    swapped_a = {w for _, i1, i2, _, _ in ops for w in wa[i1:i2]}
    out["align_negation_in_change"] = float(bool((swapped_a ^ swapped_b) & _NEGATIONS)) * frame
    out["align_number_in_change"] = float(any(w.isdigit() for w in swapped_a | swapped_b)) * frame
    # interactions a linear model cannot form itself: a cue matters by how much else the two share
    overlap = max(out["content_dice"], out["concept_dice"])
    out["x_negation_overlap"] = out["xor_negated"] * overlap
    out["x_antonym_overlap"] = out["xor_antonym"] * overlap
    out["x_change_overlap"] = float(b.change or b.ended or b.fix or b.became) * overlap
    out["x_change_frames"] = float(b.change or b.ended or b.fix or b.became) * out["frames_shared"]
    out["x_event_habit"] = float(b.event and (a.habit or not a.event))
    out["x_event_overlap"] = out["b_event"] * overlap
    out["x_numbers_differ_overlap"] = out["numbers_differ"] * overlap
    out["x_quantities_differ_overlap"] = out["quantities_differ"] * overlap
    out["x_only_overlap"] = float(a.only or b.only) * overlap
    out["x_same_value_subject"] = out["frames_same_value"] * out["subject_same"]
    out["x_other_value_single"] = out["frames_other_value"] * out["frames_single"]
    out["x_overlap_plain"] = overlap * float(not (a.negated or b.negated or b.change or b.ended or b.event))
    for kind, name in _RULE_NAMES:
        out[name] = float(rule.kind == kind)
    for basis, name in _BASIS_NAMES:
        out[name] = float(rule.basis == basis)
    # cues: only the ones present are listed (the rest are 0); in the order of ``CUES``
    for cue in sorted((tb - ta) & _CUE_SET, key=_CUE_ORDER.__getitem__):
        out[_CUE_B[cue]] = 1.0
    for cue in sorted((ta - tb) & _CUE_SET, key=_CUE_ORDER.__getitem__):
        out[_CUE_A[cue]] = 1.0
    return out


#: Character 4-gram Jaccard from which two texts are close whatever their words (``close``).
CLOSE_SPELLING = 0.15


#: Kinds of quantity that name what is measured (a time or a day is when, not what).
_MEASURES = frozenset({"length", "mass", "money", "age", "grade", "floor", "duration", "temperature"})

#: The reader's cue concepts that say how something is held, not what: "likes", "switched to",
#: "decided", "is allowed"; sharing one says nothing about the topic.
_GENERIC_CONCEPTS = frozenset({"@like", "@dislike", "@prefer", "@favourite", "@switch", "@move", "@learn", "@decide",
                               "@at", "@free", "@avoid", "@allowed", "@forbidden", "@join", "@open", "@closed",
                               "@related", "@approve", "@write", "@speak"})
#: Cue concepts of one kind of fact (general categories: a marital status, where one is from, work).
_TOPIC_OF = {"@named": "@name", "@single": "@marital", "@married": "@marital", "@divorced": "@marital",
             "@widowed": "@marital", "@engaged": "@marital", "@wedding": "@marital", "@born": "@hometown",
             "@workplace": "@employer", "@retired": "@employer"}


def _topics(concepts: frozenset[str]) -> set[str]:
    """The specific cue concepts of a reading (``_GENERIC_CONCEPTS`` left out), one per kind of fact."""
    return {_TOPIC_OF.get(c, c) for c in concepts if c.startswith("@") and c not in _GENERIC_CONCEPTS}


def _capitalised(text: str) -> set[str]:
    """Every capitalised word of ``text``, the first included, folded."""
    return {textmod.fold(w) for w in re.findall(r"[^\W_]+", text) if w[:1].isupper()}


def _whose(a, b, older: str, newer: str) -> set[str]:
    """The words that name a person both texts are about ("Linh" in "Linh is an engineer" / "Linh
    hates durian"): whose, not what. A word is a name here only when a reading takes it as a person,
    no reading takes it as the name of a thing ("The Harbor service" / "Harbor keeps …"), and both
    texts write it capitalised ("Rent is …" / "… our rent" share a topic). A thing read with a pronoun
    in it ("Call her Linh") is a misreading, not a thing."""
    names = {textmod.fold(w) for r in (a, b) if r.subject.kind == "person" for w in (r.subject.name or "").split()}
    things = {w for r in (a, b) if r.subject.kind == "thing" and not r.subject.words & _FUNCTION
              for w in r.subject.words}
    return (names - things) & _capitalised(older) & _capitalised(newer)


def close(older: str, newer: str, same_frame: bool = False) -> bool:
    """Whether two texts are close enough to matter, on the same topic: they share an accent-folded
    content word (or its stem), a concept of the reader that is not a number, a frame of the same
    attribute and key that is not a generic one (``same_frame``, the caller's: ``relations.close``
    works it out), a kind of measure (a temperature, an amount, a length), or enough of their
    spelling (``CLOSE_SPELLING``). A name alone is the same subject, not the same topic ("Linh is an
    engineer" / "Linh hates durian"); a time alone is when, not what; a number or a function word
    alone is nothing ("ticket number 2" / "2 dogs"). The doctor does not weigh texts that are not
    close: the rules' verdict stands."""
    a, b = read(older), read(newer)
    who = _whose(a, b, older, newer)
    if (_text_side(older)[1] & _text_side(newer)[1]) - who:
        return True
    if {c for c in a.content & b.content if not any(ch.isdigit() for ch in c) and not c.startswith("@")
            and c not in _FUNCTION} - who:  # not a pronoun read as a concept ("toi" typed for "tôi")
        return True
    if _topics(a.content) & _topics(b.content):
        return True  # "afraid of the dark" / "sợ … tắt đèn": one kind of fact, whatever the words
    if same_frame:
        return True
    if (_stems(older) & _stems(newer)) - {textmod.stem(w) for w in who}:
        return True  # "sleeper" / "sleep", "broken" / "broke"
    if {q.kind for q in a.quantities} & {q.kind for q in b.quantities} & _MEASURES:
        return True  # both name a measure: a temperature, an amount of money, a length, an age…
    return _jaccard(set(_text_side(older)[5]), set(_text_side(newer)[5])) >= CLOSE_SPELLING


def names() -> tuple[str, ...]:
    """Every feature name, in a fixed order: the dense ones as ``features`` gives them, then the cues
    (absent cues are 0 in ``features``)."""
    from types import SimpleNamespace

    blank = SimpleNamespace(kind="", basis="", shared=False, single=False, same_value=False, other_value=False,
                            polarity_differ=False, attributes_shared=False)
    dense = [k for k in features("x", "y", blank, blank) if not k.startswith("cue_")]
    return tuple(dense + [f"cue_b_{c}" for c in CUES] + [f"cue_a_{c}" for c in CUES])


__all__ = ["features", "names", "close", "CUES", "FLAGS", "CLOSE_SPELLING"]
