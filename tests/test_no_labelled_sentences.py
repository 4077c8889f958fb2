"""No sentence of the labelled pairs lives in the code or the tests (issue 28).

``../shared/data/memory_pairs_dev.jsonl`` and ``memory_pairs_train.jsonl`` are for measuring and
fitting; tests load them by path and write their own sentences. A labelled sentence copied into a
test or a docstring grows the reader towards that sentence, so the dev score stops saying how well
it reads other people's. This test reads every file under ``tests/`` and ``bestie_tui/`` and fails
on any labelled sentence found there whole: compared after lower-casing, dropping diacritics and
punctuation, starting where a sentence or a string starts and ending where one ends ("I live in
Hue now" does not contain "I live in Hue.").
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

from tests.conftest import shared_data

ROOT = Path(__file__).resolve().parents[1]
LABELLED = ("memory_pairs_dev.jsonl", "memory_pairs_train.jsonl")
SCANNED = ("tests", "bestie_tui")

_WORD = re.compile(r"[^\W_]+")
#: A ``\\n`` written inside a string literal, read as the line break it stands for.
_ESCAPED_NEWLINE = "\x1e\x1e"
#: What can stand right before a sentence that starts a string, a line, a list item or a comment.
_OPENERS = frozenset("\"'`“‘([{<>\n\x1e#*•-")
#: What can stand right after a sentence that ends without its own full stop.
_CLOSERS = frozenset("\"'`”’)]}>\n\x1e/|—–→;")


def fold(text: str) -> str:
    """Lower case without diacritics (``đ`` is ``d``); punctuation stays, so sentence ends stay."""
    decomposed = unicodedata.normalize("NFD", text.lower().replace("đ", "d"))
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn")


def sentence_words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(fold(text)))


def labelled_sentences() -> dict[tuple[str, ...], str]:
    """Each labelled sentence (as words) → where it is from (``d040a``: pair d040, side a)."""
    out: dict[tuple[str, ...], str] = {}
    for name in LABELLED:
        for line in shared_data(name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                pair = json.loads(line)
                for side in ("a", "b"):
                    out.setdefault(sentence_words(pair[side]), f"{pair['id']}{side} {pair[side]!r}")
    return out


def _opens(text: str, start: int) -> bool:
    j = start - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    return j < 0 or text[j] in _OPENERS or text[j] in ".!?;:"


def _closes(text: str, end: int) -> bool:
    if end < len(text) and text[end] in ".!?…":
        return True
    while end < len(text) and text[end] in " \t":
        end += 1
    return end == len(text) or text[end] in _CLOSERS


def copies_in(text: str, sentences: dict[tuple[str, ...], str]) -> list[tuple[int, str]]:
    """``(line, origin)`` of every labelled sentence that ``text`` holds as a whole sentence."""
    folded = fold(text).replace("\\n", _ESCAPED_NEWLINE)  # "…tea.\n" in a string literal ends a sentence
    found = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(folded)]
    words = [w for w, _, _ in found]
    by_first: dict[str, list[tuple[str, ...]]] = {}
    for sentence in sentences:
        if sentence:
            by_first.setdefault(sentence[0], []).append(sentence)
    out = []
    for i, word in enumerate(words):
        for sentence in by_first.get(word, ()):
            n = len(sentence)
            if tuple(words[i:i + n]) == sentence and _opens(folded, found[i][1]) \
                    and _closes(folded, found[i + n - 1][2]):
                out.append((folded.count("\n", 0, found[i][1]) + 1, sentences[sentence]))
    return out


def test_the_checker_finds_whole_sentences_only():
    sentences = {sentence_words("I live in Hue."): "x1a", sentence_words("Tôi thích mèo."): "x2b"}
    assert copies_in('CASES = ["I live in Hue.", "other"]', sentences) == [(1, "x1a")]
    assert copies_in("First line.\nSo: i LIVE in hue! Then more.", sentences) == [(2, "x1a")]
    assert copies_in('"Toi thich meo"', sentences) == [(1, "x2b")]  # typed without diacritics
    assert copies_in('text = "x\\nTôi thích mèo.\\nok"', sentences) == [(1, "x2b")]
    assert copies_in('"I live in Hue now."', sentences) == []
    assert copies_in('"Sometimes I live in Hue."', sentences) == []
    assert copies_in('"I live in Hue, near the river."', sentences) == []


def test_no_labelled_sentence_is_copied_into_the_code_or_the_tests():
    sentences = labelled_sentences()
    assert len(sentences) > 1000  # both files, read whole
    copies = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            copies += [f"{path.relative_to(ROOT)}:{line}: {origin}" for line, origin in copies_in(text, sentences)]
    assert not copies, "labelled sentences copied (write your own):\n" + "\n".join(copies)
