"""The fact reader's first step: a memory text as *units* — words and phrases looked up in the
English and Vietnamese lexicons — and the *flags* its words raise (negation, an ended state, a
change, a fix, a hedge, "only", "never", a past habit, a plan, a one-off time, a habit).

``units(text)`` returns a ``Tokens``: the language (``en`` / ``vi``), whether the Vietnamese is
written without diacritics, the units in order, and the flag phrases found with the units they
cover. Contractions are expanded first ("don't" → "do not", "I'm" → "I am"), and a possessive
"'s" becomes its own unit (``'s``) so "Mai's birthday" reads as Mai + possessive + birthday.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from bestie_tui.facts import lexicon_en as en
from bestie_tui.facts import lexicon_vi as vi
from bestie_tui.text import words as textmod


class Unit(NamedTuple):
    """One word or lexicon phrase. ``key`` is its concept (``wife``), cue (``@live``) or, for a word
    outside the lexicon, its stem (English) or folded syllable (Vietnamese); ``stem`` is the stem or
    folded form of a one-word unit (``""`` for a phrase); ``words`` is the text as written (lower
    case); ``cap`` says the first word was capitalised; ``clause`` numbers the clause it is in."""

    key: str
    stem: str
    words: str
    cap: bool
    clause: int
    start: int
    size: int = 1
    #: ``words`` folded (no diacritics)
    fold: str = ""
    #: the key is a cue (``@live``)
    is_cue: bool = False
    #: a word or phrase, not punctuation or a cue
    is_word: bool = True
    #: the words with their capitals, as the text has them (for showing values)
    shown: str = ""
    #: the unit is in a Vietnamese text
    vi: bool = False
    #: the unit was found in a lexicon (its key is a concept or a cue, not a bare stem)
    known: bool = False


@dataclass(frozen=True)
class Tokens:
    text: str
    lang: str
    folded: bool
    units: tuple[Unit, ...]
    #: flag name → the unit positions each match covers (a tuple of index tuples)
    flags: dict[str, tuple[tuple[int, ...], ...]]
    #: the polarity (+1/−1) of the segment each unit is in (see ``frames.polarity_at``)
    polarity: tuple[int, ...] = ()

    def has(self, flag: str) -> bool:
        return bool(self.flags.get(flag))

    def covered(self, flag: str) -> set[int]:
        return {i for span in self.flags.get(flag, ()) for i in span}


_VI_LETTERS = re.compile(r"[àáảãạăằắẳẵặâầấẩẫậèéẻẽẹêềếểễệìíỉĩịòóỏõọôồốổỗộơờớởỡợùúủũụưừứửữựỳýỷỹỵđ]", re.I)
_VI_MARKERS = frozenset({"toi", "cua", "la", "khong", "duoc", "nha", "voi", "song", "lam", "hoc", "nay", "roi",
                         "minh", "bi", "cung", "thich", "dung", "cho", "chua", "nguoi", "ngay", "thu", "sang",
                         "lich", "cat", "toc", "con", "me", "vo", "chong", "bo", "o", "co", "mot", "hai", "ba",
                         "bao", "gio", "phai", "vien", "nam", "cong", "ty", "viec", "tu", "xa", "an",
                         "uong", "di", "ve", "nuoc", "ngoai", "tuan", "tieng", "dt"})
_EN_MARKERS = frozenset({"the", "is", "my", "i", "a", "to", "and", "of", "in", "am", "are", "me", "at", "for", "owner",
                         "user", "s", "was", "has", "have", "with", "on", "it", "food", "favourite", "favorite"})
_CONTRACTIONS = [
    (re.compile(r"\b(can)'t\b", re.I), r"\1 not"), (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"\bshan't\b", re.I), "shall not"), (re.compile(r"n't\b", re.I), " not"),
    (re.compile(r"'m\b", re.I), " am"), (re.compile(r"'re\b", re.I), " are"), (re.compile(r"'ve\b", re.I), " have"),
    (re.compile(r"'ll\b", re.I), " will"), (re.compile(r"'d\b", re.I), " would"),
    (re.compile(r"\b(it|that|he|she|there|what|who|here|where|this)'s\b", re.I), r"\1 is"),
    (re.compile(r"\blet's\b", re.I), "let us"),
    (re.compile(r"\b(Mr|Mrs|Ms|Dr|Prof)\.(?=\s+[A-Z])"), r"\1"),  # "Ms. Thao": a title, not the end of a sentence
]
_TOKEN = re.compile(r"\$?\d+(?:[:.,/]\d+)*[^\W\d_]*|[^\W\d_]+(?:\d+[^\W\d_]*)*|'s\b|s'(?=\s)|[.;!?:,()]")
_CLAUSE_PUNCT = frozenset(".;!?()")


class _Table:
    """Phrases (tuples of word keys) → tag: one-word phrases in a dict, longer ones as one compiled
    alternation (longest first) matched over the space-joined keys of a text, so a text is scanned
    once in C instead of trying every length at every word."""

    def __init__(self, phrases: Iterable[tuple[str, str]], key: Callable[[str], str]) -> None:
        self.single: dict[str, str] = {}
        self.multi: dict[str, str] = {}
        for phrase, tag in phrases:
            words = tuple(key(w) for w in phrase.replace("-", " ").split() if w)
            if len(words) == 1:
                self.single.setdefault(words[0], tag)
            elif words:
                self.multi.setdefault(" ".join(words), tag)
        alternatives = sorted(self.multi, key=lambda p: (-len(p), p))
        self.pattern = re.compile(r"(?<!\S)(?:" + "|".join(re.escape(p) for p in alternatives) + r")(?!\S)") \
            if alternatives else None

    def matches(self, keys: list[str], starts: list[int]) -> dict[int, tuple[int, str]]:
        """``{word position: (number of words, tag)}`` of the multi-word phrases in ``keys``."""
        out: dict[int, tuple[int, str]] = {}
        if self.pattern is None or len(keys) < 2:
            return out
        joined = " ".join(keys)
        for m in self.pattern.finditer(joined):
            at = _position(starts, m.start())
            if at is not None:
                out[at] = (m.group(0).count(" ") + 1, self.multi[m.group(0)])
        return out


def _starts(keys: list[str]) -> list[int]:
    out, at = [], 0
    for k in keys:
        out.append(at)
        at += len(k) + 1
    return out


def _position(starts: list[int], offset: int) -> int | None:
    import bisect

    i = bisect.bisect_left(starts, offset)
    return i if i < len(starts) and starts[i] == offset else None


def _phrase_table(phrases, key) -> _Table:
    return _Table(phrases, key)


@lru_cache(maxsize=262144)
def fold(word: str) -> str:
    """``text.fold`` of one word, cached (the reader folds the same words over and over)."""
    return textmod.fold(word)


@lru_cache(maxsize=262144)
def _en_key(word: str) -> str:
    return textmod.stem(fold(word))


def _flag_phrases(module) -> list[tuple[str, str]]:
    out = [(w, "!neg") for w in module.NEGATIONS]
    for name in ("ENDED", "CHANGE", "FIX", "HEDGES", "ONLY", "EVER", "PAST", "PLAN", "EVENT_TIMES", "HABITS",
                 "LONG_AGO"):
        out += [(p, "!" + name.lower()) for p in getattr(module, name) if "…" not in p]
    return out


@lru_cache(maxsize=1)
def _tables():
    en_concepts = _phrase_table(en.PHRASES.items(), _en_key)
    en_exact = _phrase_table(en.EXACT.items(), textmod.fold)
    vi_raw = _phrase_table(vi.PHRASES.items(), str.lower)
    vi_fold = _phrase_table(vi.PHRASES.items(), textmod.fold)
    en_flags = _phrase_table(_flag_phrases(en), textmod.fold)
    vi_flags_raw = _phrase_table(_flag_phrases(vi), str.lower)
    vi_flags_fold = _phrase_table(_flag_phrases(vi), textmod.fold)
    return en_concepts, en_exact, vi_raw, vi_fold, en_flags, vi_flags_raw, vi_flags_fold


#: "dairy-free", "gluten-free": one word naming a thing without what it names first.
_FREE_OF = re.compile(r"\b([^\W\d_]+)-free\b", re.IGNORECASE)


def _free_of(m: re.Match[str]) -> str:
    """``dairy-free`` → ``dairyfree``, so that "loves dairy-free cake" mentions no dairy; a state the
    knowledge tables name ("sugar-free" as a diet) stays two words."""
    from bestie_tui.facts.knowledge import EXCLUDES

    return m.group(0) if f"{m.group(1).lower()} free" in EXCLUDES else m.group(1) + "free"


def _words(text: str) -> list[tuple[str, bool, str, str]]:
    """``(word in lower case, capitalised, kind, word as written)`` with kind ``w`` (word), ``n``
    (number), ``p`` (punct)."""
    t = text.replace("’", "'").replace("‘", "'")
    if "-free" in t.lower():
        t = _FREE_OF.sub(_free_of, t)
    if "'" in t:
        for pattern, repl in _CONTRACTIONS:
            t = pattern.sub(repl, t)
    out = []
    for m in _TOKEN.finditer(t):
        w = m.group(0)
        if w in ("'s", "s'"):
            out.append(("'s", False, "p", "'s"))
        elif w[0] in ".;!?:,()":
            out.append((w, False, "p", w))
        else:
            w = w.lstrip("$")
            out.append((w.lower(), w[:1].isupper(), "n" if w[:1].isdigit() else "w", w))
    return out


def detect_language(text: str, folded: list[str] | None = None) -> tuple[str, bool]:
    """``("vi", False)`` for Vietnamese with diacritics, ``("vi", True)`` without, else ``("en", False)``."""
    if folded is None:
        folded = textmod.tokens(text)
    if _VI_LETTERS.search(text):
        english = sum(1 for t in folded if t in _EN_MARKERS)
        viet = sum(1 for t in folded if t in _VI_MARKERS)
        return ("en", False) if english >= 2 and english > viet else ("vi", False)
    hits = sum(1 for t in folded if t in _VI_MARKERS)
    english = sum(1 for t in folded if t in _EN_MARKERS)
    if hits >= 2 and hits > english:
        return "vi", True
    return "en", False


@lru_cache(maxsize=131072)
def units(text: str) -> Tokens:
    """Read ``text`` into units and flags (see the module docstring). Pure and cached."""
    en_concepts, en_exact, vi_raw, vi_fold, en_flags, vi_flags_raw, vi_flags_fold = _tables()
    words = _words(text)
    raw = [w[0] for w in words]
    folds = [fold(w) for w in raw]
    lang, folded_vi = detect_language(text, folds)
    stems = [_en_key(w) if k == "w" else w for w, _, k, _ in words]
    is_vi = lang == "vi"
    vi_table = (vi_fold if folded_vi else vi_raw) if lang == "vi" else None
    vi_keys = folds if folded_vi else raw
    starts_raw, starts_fold, starts_stem = _starts(raw), _starts(folds), _starts(stems)
    # multi-word phrases: the longest at each position, Vietnamese before English as written
    # before English stems
    phrases: dict[int, tuple[int, str]] = {}
    tables = [(en_concepts, stems, starts_stem), (en_exact, folds, starts_fold)]
    if vi_table is not None:
        tables.append((vi_table, vi_keys, starts_fold if folded_vi else starts_raw))
    for table, keys, starts in tables:
        for at, (n, tag) in table.matches(keys, starts).items():
            if lang == "vi" and table is not vi_table and any(_vi_syllable(folds[j]) for j in range(at, at + n)):
                continue
            if at not in phrases or n >= phrases[at][0]:
                phrases[at] = (n, tag)
    out: list[Unit] = []
    clause = 0
    i = 0
    while i < len(words):
        w, cap, kind, written = words[i]
        if kind == "p":
            if w in _CLAUSE_PUNCT:
                clause += 1
            out.append(Unit(w, w, w, False, clause, i, 1, w, False, False, w, is_vi, False))
            i += 1
            continue
        if w in en.CLAUSE_WORDS or (lang == "vi" and w in vi.CLAUSE_WORDS and not (
                w == "còn" and i > 0 and words[i - 1][0] in ("không", "chẳng", "chả", "vẫn"))):
            clause += 1  # ("không còn": "no longer", not "as for")
        n, key = phrases.get(i, (1, ""))
        if n == 1:
            tag = None
            if vi_table is not None and not (folded_vi and folds[i] in vi.FOLDED_AMBIGUOUS
                                             and not _possessive_context(folds, i)
                                             and not _verb_before_at(folds, i)):
                tag = vi_table.single.get(vi_keys[i])
            # in Vietnamese a capitalised word inside the text is a name ("Long Biên"), not English
            if tag is None and (lang == "en" or not _vi_syllable(folds[i]) and not (
                    cap and i > 0 and not written.isupper())):
                tag = en_exact.single.get(folds[i]) or en_concepts.single.get(stems[i])
            if tag == "@engaged" and (folds[i] != "engaged" or i + 1 < len(folds) and folds[i + 1] in
                                      ("in", "with", "by", "during", "throughout")):
                tag = None  # "engaging in", "stay engaged with": attention, not an engagement to marry
            known = tag is not None
            key = tag or (stems[i] if lang == "en" or not _vi_syllable(folds[i]) else folds[i])
        else:
            known = True
        cue = key[0] == "@"
        if n == 1:
            out.append(Unit(key, stems[i], raw[i], cap, clause, i, 1, folds[i], cue, not cue, written, is_vi, known))
        else:
            out.append(Unit(key, "", " ".join(raw[i:i + n]), cap, clause, i, n, " ".join(folds[i:i + n]), cue,
                            not cue, " ".join(x[3] for x in words[i:i + n]), is_vi, True))
        i += n
    vi_flags = (vi_flags_fold if folded_vi else vi_flags_raw) if lang == "vi" else None
    flags = _flags(out, raw, folds, starts_raw, starts_fold, folded_vi, en_flags, vi_flags)
    if lang == "vi" and flags.get("ended"):
        # "Minh thôi" (just Minh): "thôi" closing a clause is a particle, not "stopped"
        kept = tuple(span for span in flags["ended"] if not (
            len(span) == 1 and out[span[0]].fold == "thoi" and (span[0] + 1 == len(out) or not out[span[0] + 1].is_word
                                                               and not out[span[0] + 1].is_cue)))
        flags = {**flags, "ended": kept} if kept else {k: v for k, v in flags.items() if k != "ended"}
    return Tokens(text, lang, folded_vi, tuple(out), flags, _polarities(out, flags))


@lru_cache(maxsize=1)
def _vi_syllables() -> frozenset[str]:
    words = {textmod.fold(w) for phrase in list(vi.PHRASES) + list(vi.FUNCTION) + list(vi.SELF)
             + list(vi.HONORIFICS) + list(vi.NEGATIONS) for w in phrase.split()}
    for name in ("ENDED", "CHANGE", "FIX", "HEDGES", "ONLY", "EVER", "PAST", "PLAN", "EVENT_TIMES", "HABITS"):
        words |= {textmod.fold(w) for p in getattr(vi, name) for w in p.split()}
    return frozenset(words | _VI_MARKERS)


_FOLDED_NEG = frozenset(textmod.fold(w) for w in vi.NEGATIONS)
#: Folded syllables that are a flag word with their marks but far more often another word without
#: them: "dung" is "đừng" (don't) and also "dùng" (use), "dựng" (build), "đúng" (right).
_FOLDED_NOT_FLAGS = frozenset({"dung"})


def _possessive_context(folds: list[str], i: int) -> bool:
    """A kinship word or "ở" right before or after "tôi"/"mình": "me toi" is "mẹ tôi", "toi o" is "tôi ở"."""
    around = {folds[i - 1] if i > 0 else "", folds[i + 1] if i + 1 < len(folds) else ""}
    return bool(around & {"toi", "minh"})


#: Folded verbs after which (within three syllables) "o" is "ở" (at): "lam o" is "làm ở" (works
#: at), "lam ke toan o" "làm kế toán ở", "hoc o" "học ở".
_AT_AFTER = frozenset({"lam", "hoc", "song", "day"})


def _verb_before_at(folds: list[str], i: int) -> bool:
    """Folded "o" shortly after a verb that takes a place (``_AT_AFTER``): "ở", not another word."""
    return folds[i] == "o" and bool(set(folds[max(0, i - 3):i]) & _AT_AFTER)


def _vi_syllable(folded: str) -> bool:
    """A folded syllable that Vietnamese uses (so, in a Vietnamese text, not an English word)."""
    return folded in _vi_syllables()


_SEGMENT_STOPS = frozenset({",", ":"})
#: Cues that start a new step after "and" ("quit Grab and joined Shopee", "nghỉ FPT và chuyển sang
#: Viettel"): an ended state or a negation before them does not reach them.
_NEW_STEP = frozenset({"@join", "@switch", "@move"})


def _polarities(out: list[Unit], flags) -> tuple[int, ...]:
    """Per unit, the polarity of its segment (a clause cut at commas and colons): −1 for an ended
    state or an odd number of negations in it."""
    ended = {j for span in flags.get("ended", ()) for j in span}
    neg_spans = flags.get("neg", ())
    pol = [1] * len(out)
    lo = 0
    neg_at = {j for span in neg_spans for j in span}
    splits = {k for k in range(1, len(out) - 1) if out[k].key in ("and", "or", "va") and (
        k + 1 in neg_at or out[k + 1].key in ("i", "we", "toi") or out[k + 1].key in _NEW_STEP)}
    for hi in range(len(out) + 1):
        if hi == len(out) or out[hi].key in _SEGMENT_STOPS or hi in splits or (
                hi > lo and out[hi].clause != out[lo].clause):
            seg = range(lo, hi)
            if any(j in ended for j in seg):
                value = -1
            else:
                value = -1 if sum(1 for span in neg_spans if any(lo <= j < hi for j in span)) % 2 else 1
            for j in seg:
                pol[j] = value
            if hi < len(out) and (out[hi].key in _SEGMENT_STOPS or hi in splits):
                pol[hi] = value
                lo = hi + 1
            else:
                lo = hi
    return tuple(pol)


def _flags(out: list[Unit], raw, folds, starts_raw, starts_fold, folded_vi, en_flags, vi_flags):
    """Flag phrases over the words (longest first, left to right); a flag never matches inside a
    multi-word lexicon phrase ("left" in "left-handed" is not "left" the job), unless it is the
    longer of the two ("turns out" over "turn")."""
    unit_at: dict[int, int] = {}
    inside: set[int] = set()
    for n, u in enumerate(out):
        for j in range(u.start, u.start + u.size):
            unit_at[j] = n
            if u.size > 1:
                inside.add(j)
    candidates: dict[int, tuple[int, str]] = dict(en_flags.matches(folds, starts_fold))
    vi_keys = folds if folded_vi else raw
    if vi_flags is not None:
        for at, hit in vi_flags.matches(vi_keys, starts_fold if folded_vi else starts_raw).items():
            if at not in candidates or hit[0] > candidates[at][0]:
                candidates[at] = hit
    found: dict[str, list[tuple[int, ...]]] = {}
    i = 0
    while i < len(raw):
        hit = candidates.get(i)
        if hit is None:
            tag = en_flags.single.get(folds[i]) or (vi_flags.single.get(vi_keys[i]) if vi_flags is not None and not (
                folded_vi and (vi_keys[i] in vi.FOLDED_AMBIGUOUS or vi_keys[i] in _FOLDED_NOT_FLAGS)) else None)
            hit = (1, tag) if tag is not None and i not in inside else None
        if hit is not None and hit[1] == "!change" and folds[i] == "new" and i + 1 in unit_at \
                and out[unit_at[i]].cap and out[unit_at[i + 1]].cap and unit_at[i + 1] != unit_at[i]:
            hit = None  # "New York", "New Delhi": a name, not a change
        if hit is not None and i + hit[0] < len(folds) and (
                hit[1] == "!ended" and " ".join(folds[i:i + hit[0]]) == "no more" and folds[i + hit[0]] == "than"
                or hit[1] == "!change" and folds[i] in ("move", "moves", "moving", "moved")
                and folds[i + hit[0]] in ("beyond", "past")):
            hit = None  # "no more than 30 rooms" is a bound, "move beyond tradition" a figure: no end, no move
        if hit is not None:
            n, tag = hit
            span = range(i, i + n)
            covered = tuple(sorted({unit_at[j] for j in span if j in unit_at}))
            if any(j in inside for j in span) and not any(out[u].size <= n for u in covered):
                i += 1
                continue
            found.setdefault(tag[1:], []).append(covered)
            if tag == "!ever" and any(w in en.NEGATIONS or w in vi.NEGATIONS or w in _FOLDED_NEG
                                      for w in raw[i:i + n]):
                found.setdefault("neg", []).append(covered)  # "have never", "chưa bao giờ" negate too
            i += n
        else:
            i += 1
    return {k: tuple(v) for k, v in found.items()}


__all__ = ["Unit", "Tokens", "units", "detect_language", "fold"]
