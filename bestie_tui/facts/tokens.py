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
from dataclasses import dataclass
from functools import lru_cache

from bestie_tui.facts import lexicon_en as en
from bestie_tui.facts import lexicon_vi as vi
from bestie_tui.text import words as textmod


@dataclass(frozen=True)
class Unit:
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

    @property
    def is_cue(self) -> bool:
        return self.key.startswith("@")

    @property
    def is_word(self) -> bool:
        return self.key[:1].isalnum()


@dataclass(frozen=True)
class Tokens:
    lang: str
    folded: bool
    units: tuple[Unit, ...]
    #: flag name → the unit positions each match covers (a tuple of index tuples)
    flags: dict[str, tuple[tuple[int, ...], ...]]

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
_CONTRACTIONS = [
    (re.compile(r"\b(can)'t\b", re.I), r"\1 not"), (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"\bshan't\b", re.I), "shall not"), (re.compile(r"n't\b", re.I), " not"),
    (re.compile(r"'m\b", re.I), " am"), (re.compile(r"'re\b", re.I), " are"), (re.compile(r"'ve\b", re.I), " have"),
    (re.compile(r"'ll\b", re.I), " will"), (re.compile(r"'d\b", re.I), " would"),
    (re.compile(r"\b(it|that|he|she|there|what|who|here|where|this)'s\b", re.I), r"\1 is"),
    (re.compile(r"\blet's\b", re.I), "let us"),
]
_TOKEN = re.compile(r"\$?\d+(?:[:.,/]\d+)*[^\W\d_]*|[^\W\d_]+(?:\d+[^\W\d_]*)*|'s\b|s'(?=\s)|[.;!?:,()]")
_CLAUSE_PUNCT = frozenset(".;!?()")


def _phrase_table(phrases, key) -> dict[tuple[str, ...], str]:
    table: dict[tuple[str, ...], str] = {}
    for phrase, tag in phrases:
        words = tuple(key(w) for w in phrase.replace("-", " ").split() if w)
        if words and words not in table:
            table[words] = tag
    return table


def _en_key(word: str) -> str:
    return textmod.stem(textmod.fold(word))


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
    longest = max(len(k) for t in (en_concepts, vi_raw, en_flags, vi_flags_raw) for k in t)
    return en_concepts, en_exact, vi_raw, vi_fold, en_flags, vi_flags_raw, vi_flags_fold, longest


def _words(text: str) -> list[tuple[str, bool, str]]:
    """``(word as written, capitalised, kind)`` with kind ``w`` (word), ``n`` (number), ``p`` (punct)."""
    t = text.replace("’", "'").replace("‘", "'")
    for pattern, repl in _CONTRACTIONS:
        t = pattern.sub(repl, t)
    out = []
    for m in _TOKEN.finditer(t):
        w = m.group(0)
        if w in ("'s", "s'"):
            out.append(("'s", False, "p"))
        elif w[0] in ".;!?:,()":
            out.append((w, False, "p"))
        else:
            w = w.lstrip("$")
            out.append((w.lower(), w[:1].isupper(), "n" if w[:1].isdigit() else "w"))
    return out


def detect_language(text: str) -> tuple[str, bool]:
    """``("vi", False)`` for Vietnamese with diacritics, ``("vi", True)`` without, else ``("en", False)``."""
    if _VI_LETTERS.search(text):
        return "vi", False
    folded = textmod.tokens(text)
    hits = sum(1 for t in folded if t in _VI_MARKERS)
    english = sum(1 for t in folded if t in ("the", "is", "my", "i", "a", "to", "and", "of", "in", "am", "are"))
    if hits >= 2 and hits > english:
        return "vi", True
    return "en", False


@lru_cache(maxsize=131072)
def units(text: str) -> Tokens:
    """Read ``text`` into units and flags (see the module docstring). Pure and cached."""
    en_concepts, en_exact, vi_raw, vi_fold, en_flags, vi_flags_raw, vi_flags_fold, longest = _tables()
    lang, folded_vi = detect_language(text)
    words = _words(text)
    raw = [w for w, _, _ in words]
    fold = [textmod.fold(w) for w in raw]
    stems = [_en_key(w) if k == "w" else w for w, _, k in words]
    vi_table = (vi_fold if folded_vi else vi_raw) if lang == "vi" else {}
    vi_keys = fold if folded_vi else raw
    out: list[Unit] = []
    clause = 0
    i = 0
    while i < len(words):
        w, cap, kind = words[i]
        if kind == "p":
            if w in _CLAUSE_PUNCT:
                clause += 1
            out.append(Unit(w, w, w, False, clause, i))
            i += 1
            continue
        if w in en.CLAUSE_WORDS or (lang == "vi" and w in vi.CLAUSE_WORDS):
            clause += 1
        found = None
        for n in range(min(longest, len(words) - i), 0, -1):
            if any(words[j][2] == "p" for j in range(i, i + n)):
                continue
            tag = vi_table.get(tuple(vi_keys[i:i + n])) if vi_table else None
            if tag is not None and folded_vi and n == 1 and fold[i] in vi.FOLDED_AMBIGUOUS:
                tag = None
            if tag is None and (lang == "en" or not any(_vi_syllable(fold[j]) for j in range(i, i + n))):
                tag = en_exact.get(tuple(fold[i:i + n])) or en_concepts.get(tuple(stems[i:i + n]))
            if tag is not None:
                found = (n, tag)
                break
        if found:
            n, key = found
        else:
            n = 1
            key = stems[i] if lang == "en" or not _vi_syllable(fold[i]) else fold[i]
        out.append(Unit(key, stems[i] if n == 1 else "", " ".join(raw[i:i + n]), cap, clause, i, n))
        i += n
    flags = _flags(out, raw, fold, stems, lang, folded_vi, en_flags, vi_flags_raw if not folded_vi else vi_flags_fold,
                   longest)
    return Tokens(lang, folded_vi, tuple(out), flags)


@lru_cache(maxsize=1)
def _vi_syllables() -> frozenset[str]:
    words = {textmod.fold(w) for phrase in list(vi.PHRASES) + list(vi.FUNCTION) + list(vi.SELF)
             + list(vi.HONORIFICS) + list(vi.NEGATIONS) for w in phrase.split()}
    for name in ("ENDED", "CHANGE", "FIX", "HEDGES", "ONLY", "EVER", "PAST", "PLAN", "EVENT_TIMES", "HABITS"):
        words |= {textmod.fold(w) for p in getattr(vi, name) for w in p.split()}
    return frozenset(words | _VI_MARKERS)


_FOLDED_NEG = frozenset(textmod.fold(w) for w in vi.NEGATIONS)


def _vi_syllable(folded: str) -> bool:
    """A folded syllable that Vietnamese uses (so, in a Vietnamese text, not an English word)."""
    return folded in _vi_syllables()


def _flags(out: list[Unit], raw, fold, stems, lang, folded_vi, en_flags, vi_flags, longest):
    """Flag phrases over the words; a flag never matches inside a multi-word lexicon phrase
    ("left" in "left-handed" is not "left" the job)."""
    inside: set[int] = set()
    unit_at: dict[int, int] = {}
    for n, u in enumerate(out):
        for j in range(u.start, u.start + u.size):
            unit_at[j] = n
            if u.size > 1:
                inside.add(j)
    found: dict[str, list[tuple[int, ...]]] = {}
    vi_keys = fold if folded_vi else raw
    i = 0
    while i < len(raw):
        hit = None
        for n in range(min(longest, len(raw) - i), 0, -1):
            span = range(i, i + n)
            if any(raw[j] in ".;!?:,()'s" and raw[j] != "s" for j in span):
                continue
            tag = en_flags.get(tuple(fold[i:i + n]))
            if tag is None and lang == "vi":
                tag = vi_flags.get(tuple(vi_keys[i:i + n]))
            if tag is None:
                continue
            units_covered = tuple(sorted({unit_at[j] for j in span if j in unit_at}))
            # a flag phrase inside a longer lexicon phrase does not count, unless it is the longer one
            if any(j in inside for j in span) and not any(out[u].size <= n for u in units_covered):
                continue
            if n == 1 and i in inside:
                continue
            hit = (n, tag, units_covered)
            break
        if hit:
            n, tag, covered = hit
            found.setdefault(tag[1:], []).append(covered)
            if tag == "!ever" and any(w in en.NEGATIONS or w in vi.NEGATIONS or textmod.fold(w) in _FOLDED_NEG
                                      for w in raw[i:i + n]):
                found.setdefault("neg", []).append(covered)  # "have never", "chưa bao giờ" negate too
            i += n
        else:
            i += 1
    return {k: tuple(v) for k, v in found.items()}


__all__ = ["Unit", "Tokens", "units", "detect_language"]
