"""Text views the gate's rules read, built once per text, and a regex helper.

``view(text)`` returns a ``TextView``: the NFC form of the text and its *folded* copy (lower case,
diacritics dropped, đ → d, typographic quotes, dashes and no-break spaces → ASCII), which the
English and Vietnamese word rules read so that "mật khẩu" and "mat khau" are one keyword.
Folding is Unicode decomposition (NFD) and an ASCII encode that drops the combining marks — both
in C, about 0.1 s for 1 MB of Vietnamese. The folded copy has the NFC text's length except where
a character has no ASCII form (emoji, CJK); ``TextView.nfc_span`` maps a folded span back then.

``alternation(words)`` writes a word list as a prefix tree ("pass(?:word|wd|code)…"): the regex
engine rejects a position on its first letters instead of trying every word in turn.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

# Typographic characters people paste, each replaced by one ASCII character (lengths stay equal).
_PUNCT = (("\u00a0", " "), ("\u202f", " "), ("\u2007", " "), ("\u2009", " "), ("\u2002", " "), ("\u2003", " "),
          ("\u3000", " "), ("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"'), ("\u2013", "-"),
          ("\u2014", "-"), ("\u2026", "."), ("\u00ab", '"'), ("\u00bb", '"'), ("đ", "d"), ("Đ", "D"),
          ("\u00d8", "O"), ("\u00f8", "o"), ("\u0141", "L"), ("\u0142", "l"), ("\u00df", "s"), ("\u00e6", "a"),
          ("\u00c6", "A"), ("\u2022", "*"))
_CHUNK = 512


def _fold_chunk(nfc: str) -> str:
    for a, b in _PUNCT:
        if a in nfc:
            nfc = nfc.replace(a, b)
    return unicodedata.normalize("NFD", nfc).encode("ascii", "ignore").decode("ascii").lower()


@dataclass
class TextView:
    """``nfc``: the text in NFC; ``folded``: its folded copy (see the module docstring)."""

    nfc: str
    folded: str
    _marks: list[int] = field(default_factory=list, repr=False)

    @property
    def aligned(self) -> bool:
        """True when every folded offset is the same NFC offset."""
        return len(self.folded) == len(self.nfc)

    def nfc_index(self, i: int) -> int:
        """The NFC offset of folded offset ``i``."""
        if self.aligned:
            return i
        if not self._marks:  # folded offset at the start of each chunk of the NFC text
            pos, marks = 0, []
            for start in range(0, len(self.nfc), _CHUNK):
                marks.append(pos)
                pos += len(_fold_chunk(self.nfc[start:start + _CHUNK]))
            self._marks = marks
        chunk = max(0, bisect.bisect_right(self._marks, i) - 1)
        start, pos = chunk * _CHUNK, self._marks[chunk]
        for offset, ch in enumerate(self.nfc[start:start + _CHUNK]):
            width = len(_fold_chunk(ch))
            if pos + width > i:
                return start + offset
            pos += width
        return min(len(self.nfc), start + _CHUNK)

    def nfc_span(self, start: int, end: int) -> tuple[int, int]:
        if self.aligned:
            return start, end
        return self.nfc_index(start), self.nfc_index(max(start, end - 1)) + 1


@lru_cache(maxsize=4)
def view(text: str) -> TextView:
    """The ``TextView`` of ``text`` (cached: the gate's rules share one view per text)."""
    nfc = text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)
    if nfc.isascii():
        return TextView(nfc, nfc.lower())
    folded = "".join(_fold_chunk(nfc[i:i + 262144]) for i in range(0, len(nfc), 262144))
    return TextView(nfc, folded)


def fold(text: str) -> str:
    """The folded copy of ``text`` (lower case, no diacritics)."""
    return view(text).folded


def alternation(words, word_start: str | None = None) -> str:
    """A regex alternation of ``words`` (literal text) as a prefix tree, longest match first.

    With ``word_start`` (a character class such as ``[a-z0-9]``), a word only matches where the
    character before it is not in that class. The check is written after each word's first letter,
    so the pattern still begins with literals, which the regex engine finds by a fast scan."""
    tree: dict = {}
    for word in set(words):
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    after_first = f"(?<!{word_start}.)" if word_start else ""
    return _emit(tree, after_first)


def _emit(node: dict, after_first: str = "") -> str:
    branches = []
    end = "" in node
    for ch in sorted(k for k in node if k):
        branches.append(re.escape(ch) + after_first + _emit(node[ch]))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if end:
        return "(?:" + body + ")?"
    return body


def required_literals(pattern: re.Pattern[str]) -> list[str] | None:
    """Literal strings one of which every match of ``pattern`` holds, read from its parsed form
    (Python's own regex parser): the most telling of its mandatory parts — a run of literal
    characters, an alternation whose every branch holds one, a group or a repetition of at least
    once around one. ``None`` when no part is sure (or the pattern ignores case): then no text can
    be passed over. A text holding none of the literals cannot match."""
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        from re import _constants as codes  # type: ignore[attr-defined]
        from re import _parser as parser  # type: ignore[attr-defined]

        return _mandatory(parser.parse(pattern.pattern, pattern.flags), codes)
    except (ImportError, AttributeError, TypeError, ValueError):  # another Python's parser: no shortcut
        return None


def _mandatory(items: Any, codes: Any) -> list[str] | None:
    found: list[list[str]] = []
    run = ""
    repeats = tuple(getattr(codes, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                    if hasattr(codes, name))
    for op, arg in items:
        if op is codes.LITERAL:
            run += chr(arg)
            continue
        if run:
            found.append([run])
            run = ""
        part: list[str] | None = None
        if op is codes.SUBPATTERN and not arg[1] & re.IGNORECASE:
            part = _mandatory(arg[3], codes)
        elif op is codes.BRANCH:
            branches = [_mandatory(branch, codes) for branch in arg[1]]
            part = sorted({s for b in branches if b for s in b}) if all(branches) else None
        elif op in repeats and arg[0] >= 1:
            part = _mandatory(arg[2], codes)
        if part:
            found.append(part)
    if run:
        found.append([run])
    # the most telling part: its shortest literal the longest, then the fewest literals
    return max(found, key=lambda lits: (min(map(len, lits)), -len(lits))) if found else None


def any_required(patterns: list[re.Pattern[str]]) -> re.Pattern[str] | None:
    """One pattern that finds any of ``required_literals`` of every pattern in ``patterns``: a text it
    does not match matches none of them. ``None`` when a pattern has no sure literal."""
    literals: set[str] = set()
    for pattern in patterns:
        found = required_literals(pattern)
        if not found:
            return None
        literals.update(found)
    return re.compile(alternation(literals))
