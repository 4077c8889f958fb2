"""Text normalisation shared by search, duplicate detection and (later) the TF-IDF index.

Three views of a text:

* ``fold(text)``: Unicode NFKD, combining marks dropped, ``đ``→``d``, lower case. "Hà Nội" → "ha noi".
* ``normalize(text)``: ``fold`` plus punctuation removed and whitespace collapsed; two memories with
  the same ``normalize`` value are the same memory written differently (case, spacing, accents).
* ``search_terms(text)``: the tokens of ``normalize`` reduced by the Snowball English stemmer, so
  "replies"/"reply" and "concise"/"concisely" meet.
* ``index_tokens(text)``: ``tokens`` with every run of Chinese, Japanese or Korean characters cut
  into overlapping character pairs ("绿茶咖啡" → ``绿茶``, ``茶咖``, ``咖啡``): those scripts write
  words without spaces, so a word inside a run is found by its pairs (the CJK bigram analyzer of
  Lucene and Elasticsearch). What the index, the scorer and a search's query words are made of.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SPECIAL = str.maketrans({"đ": "d", "Đ": "d", "ß": "ss", "æ": "ae", "ø": "o", "ł": "l"})


def fold(text: str) -> str:
    """Lower-case ``text`` and strip accents (Vietnamese diacritics included). Returns a str."""
    if text.isascii():  # the same result: ASCII has no decomposition, combining mark or special letter
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.translate(_SPECIAL))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def tokens(text: str) -> list[str]:
    """Folded word tokens of ``text`` (letters and digits; punctuation splits words)."""
    return _WORD.findall(fold(text).replace("'", ""))


# Scripts written without spaces between words: Han (CJK ideographs, extensions A–F, compatibility
# ideographs), Hiragana, Katakana (with its phonetic extensions) and Hangul (syllables, and the jamo
# that ``fold``'s NFKD leaves of them). Korean puts spaces between phrases, but particles stick to the
# noun ("서울에" is "서울" + "에"), so its phrases are cut into pairs too.
_CJK_CHARS = ("\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
              "\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\U00020000-\U0003134f")
_CJK_RUN = re.compile(f"[{_CJK_CHARS}]+")
_HANGUL_JAMO = re.compile("[\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff]")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Chinese, Japanese or Korean character (Han, kana or Hangul)."""
    return _CJK_RUN.search(text) is not None


def split_cjk(token: str) -> list[str]:
    """One folded token with each run of CJK characters cut into overlapping character pairs
    ("github备份脚本" → ``github``, ``备份``, ``份脚``, ``脚本``); a run of one character stays
    itself, and the Latin or digit parts around a run are tokens of their own. Hangul that
    ``fold`` decomposed into jamo is composed back into syllables first, so a pair is two
    syllables. A token without CJK characters is returned alone."""
    if not _CJK_RUN.search(token):
        return [token]
    if _HANGUL_JAMO.search(token):
        token = unicodedata.normalize("NFC", token)
    out: list[str] = []
    at = 0
    for run in _CJK_RUN.finditer(token):
        if run.start() > at:
            out.append(token[at:run.start()])
        chars = run.group()
        out.extend([chars] if len(chars) == 1 else [chars[i:i + 2] for i in range(len(chars) - 1)])
        at = run.end()
    if at < len(token):
        out.append(token[at:])
    return out


def index_tokens(text: str) -> list[str]:
    """``tokens(text)`` with CJK runs cut into character pairs (``split_cjk``): the words of the
    persisted index, the scorer and a search's query. Returns a list of str."""
    return [piece for token in tokens(text) for piece in split_cjk(token)]


#: A search query keeps at most this many distinct words; the rest are dropped (not an error).
QUERY_MAX_WORDS = 32
#: A query word keeps at most this many characters (its prefix still matches as a prefix).
QUERY_MAX_WORD_CHARS = 64
#: Only this many characters of a query are read at all (a pasted page costs no more than this).
QUERY_MAX_CHARS = 4000


def query_words(text: str) -> list[str]:
    """The folded words a search uses from ``text``: distinct, in order, each cut to
    ``QUERY_MAX_WORD_CHARS`` characters, at most ``QUERY_MAX_WORDS`` of them, read from the first
    ``QUERY_MAX_CHARS`` characters. A longer query is cut, never refused: SQLite's parser and LIKE
    pattern limits are never reached. A run of CJK characters gives its character pairs
    (``index_tokens``). Returns ``[]`` for a query without words."""
    out: list[str] = []
    for token in index_tokens(text[:QUERY_MAX_CHARS]):
        word = token[:QUERY_MAX_WORD_CHARS]
        if word not in out:
            out.append(word)
            if len(out) == QUERY_MAX_WORDS:
                break
    return out


def cut_query(text: str) -> str:
    """``query_words(text)`` joined by spaces: the query a search, a filter or the scorer runs."""
    return " ".join(query_words(text))


def clip(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters with a trailing "…" when it was longer: how a message
    quotes a user's query without repeating a pasted page."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def normalize(text: str) -> str:
    """Folded tokens joined by one space: the key for "same text, written differently"."""
    return " ".join(tokens(text))


def same_text(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are one text written differently: case, spacing and punctuation aside,
    and a word typed without its accents ("muc" for "Mực"); but not two words with other accents, nor
    other symbols inside a word, which ``normalize`` folds together ("dị ứng bơ" is avocado, "dị ứng
    bò" beef; "C++" is not "C"). ``normalize`` finds the candidates (an indexed column); this decides."""
    wa, wb = _exact_words(a), _exact_words(b)
    return len(wa) == len(wb) and all(_one_spelling(x, y) for x, y in zip(wa, wb))


_EXACT_WORD = re.compile(r"[\w+#]+")


def _exact_words(text: str) -> list[str]:
    return _EXACT_WORD.findall(unicodedata.normalize("NFC", text or "").casefold())


def _one_spelling(x: str, y: str) -> bool:
    """The same word as written, or one of them typed without accents (``fold``)."""
    return x == y or x == fold(y) or y == fold(x)


def spelling_differences(a: str, b: str) -> list[tuple[str, str]]:
    """Word pairs ``(in a, in b)`` that ``fold`` makes alike but that are other words as written
    ("bơ" / "bò", "c++" / "c"): what ``normalize`` cannot see. A word typed without its accents
    ("muc" for "mực") is no difference. Empty when ``same_text(a, b)``."""
    wa, wb = _exact_words(a), _exact_words(b)
    only_a = [w for w in dict.fromkeys(wa) if w not in wb]
    only_b = [w for w in dict.fromkeys(wb) if w not in wa]
    folded_b: dict[str, str] = {}
    for w in only_b:
        folded_b.setdefault("".join(_WORD.findall(fold(w))), w)  # "c++" and "c" both fold to "c"
    return [(w, folded_b[key]) for w in only_a if (key := "".join(_WORD.findall(fold(w)))) in folded_b
            and not _one_spelling(w, folded_b[key])]


_LOCAL = threading.local()


def _stemmer():
    """This thread's Snowball stemmer: one object keeps its state in attributes while it stems, so
    two threads sharing it (the console's Doctor and Cleanup workers) broke each other's words."""
    found = getattr(_LOCAL, "stemmer", None)
    if found is None:
        import snowballstemmer

        found = _LOCAL.stemmer = snowballstemmer.stemmer("english")
    return found


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """Snowball (Porter 2) English stem of one folded token; digits and short tokens unchanged."""
    if len(token) <= 3 or not token.isalpha():
        return token
    return _stemmer().stemWord(token)


def search_terms(text: str) -> list[str]:
    """Stemmed, folded tokens of ``text``: what search matches on."""
    return [stem(t) for t in tokens(text)]


def search_text(text: str) -> str:
    """Space-separated ``search_terms`` with a leading and trailing space (for word-boundary LIKE)."""
    return " " + " ".join(search_terms(text)) + " "


# C0/C1 controls, and the invisible bidirectional controls that can reorder what a line appears to say.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def yes_no(value: object) -> str:
    """The one yes/no style of every view and the CLI: ``yes`` or ``no`` (``None`` reads ``no``)."""
    return "yes" if value else "no"


def printable(text: str) -> str:
    """Show control characters (ESC, BEL…) and bidi controls (U+202E…) as visible ``\\x1b`` /
    ``\\u202e`` escapes: a terminal never runs them and a line never reads backwards."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                        else f"\\u{ord(m.group()):04x}", text)


# What json.dumps(ensure_ascii=False) leaves raw but a terminal acts on or that makes a line read
# backwards: DEL, C1 controls (U+009B is CSI), line/paragraph separators and the bidi controls.
_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_text(value, **options) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)`` safe to print: besides the C0 controls
    json escapes itself, DEL, C1 controls and bidi/line-separator characters become ``\\uXXXX``
    escapes. Still valid JSON: ``json.loads`` gives back exactly ``value`` (these characters can
    only occur inside strings, where a ``\\u`` escape means the same character)."""
    import json

    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False, **options))


def check_encodable(value: str | None, what: str) -> None:
    """Raise ``InvalidValueError`` when ``value`` cannot be stored as the same text on every engine:
    lone surrogates (how Python carries bytes that were not valid UTF-8 on the command line) or a
    NUL character (U+0000: SQLite would keep it, PostgreSQL's text type refuses it, so bestie refuses
    it on both and a database can always move from one to the other). Tab, newline and the other
    control characters are stored, and shown as visible escapes (``printable``)."""
    if not isinstance(value, str):
        return  # None, or a wrong type that the caller's own type check reports
    if "\x00" in value:
        from bestie_tui.errors import InvalidValueError

        raise InvalidValueError(f"{what} holds a NUL character (U+0000), which bestie does not store; "
                                "nothing was saved (remove it and try again)")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        from bestie_tui.errors import InvalidValueError

        raise InvalidValueError(f"{what} is not valid UTF-8 text (check the terminal's encoding)") from None
