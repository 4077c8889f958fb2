"""Evidence that a working memory is about what a request asks: the content words they share.

Relevance (``retrieval.index``) orders memories by BM25 over stemmed words and character n-grams;
it is never 0 for a memory that shares the grams of "is" or "the" with a request, and a request's
words that no memory holds do not count in its best possible score, so a single common word ("what
does 'ubiquitous' *mean*" / "… *means* the CI runner is flaky") can reach the relevance floor alone.
A working memory enters a pack only on **evidence of the same topic** (``judge``):

* **two content words** of the request, at least one of them neither a number (digits, or a
  Vietnamese numeral: "hai", "mười") nor a word of time ("Sông Hồng" + "database", "staging" +
  "cluster", "Saturday" + "run"; not "tháng" + "năm"), or **the request's one word** when
  it has only one that is neither a number nor a word of time ("coffee?", "is bamboo up?"), or
* **one rare word**: held by at most ``rare_share`` of the memories, smoothed as ``(df + 1) / (N + 1)``
  (a word of 2 memories out of 38 is 7.7 %; in a store of fewer than 19 memories no word is rare), and
  neither a number nor a word of time ("morning", "years", "times": when, not what), or
* **one name**: a word the request writes with a capital letter inside a sentence and the memory
  capitalises too ("What did *Melanie* paint?"), or the memory's ``Name:`` label or the person it is
  ``about``.

A run of Chinese, Japanese or Korean characters counts as its overlapping character pairs (the
index's words, ``text.words.split_cjk``), so "咖啡" meets "我喜欢喝绿茶，不喜欢咖啡".

Content words are the request's words less function words (the fact reader's closed classes in
English and Vietnamese, the stop words of the index, negations), the index's question-framing words
and the words that ask what a word means ("mean", "nghĩa"). Words meet by their stems (Snowball),
a compound written apart or hyphenated meets the word written as one ("de-stress" / "destress"), and
a category of the fact reader's knowledge meets its members ("language" / "Vietnamese", "pet" / "cat").

**Accents.** A text is *written with marks* when it holds any Vietnamese (or other) diacritic.
Two texts written with marks compare words as written: "Quảng" is not "Quang", "hợp" not "hộp".
Where either text is typed without marks, words meet folded (``text.words.fold``): "quang nam"
finds "Quảng Nam", "Hồ Tây" finds "ho tay".

Core records are not judged (they apply to every request); a working memory without evidence may
still enter beside a session neighbour that has it (``retrieval.signals``). With the semantic extra,
meaning has a say (``retrieval.meaning.Gate``, applied in ``retrieval.assembly``): a memory close
enough in meaning needs no shared word, and one whose shared words are only two, or one rare word,
is no evidence when it is far in meaning ("how *far* is Mars" / "six years so *far*"). Evidence that
is ``whole`` — the request's one word, a name, three words or more — stands whatever the model says.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from bestie_tui.facts import lexicon_en as en
from bestie_tui.facts import lexicon_vi as vi
from bestie_tui.facts.knowledge import categories_of
from bestie_tui.retrieval.cues import speaker_of
from bestie_tui.text import words as textmod
from bestie_tui.text.analysis import NEGATIONS, QUERY_STOP_WORDS, english_stop_words, stop_words

#: Share of the memories a single shared word may be in and still be evidence alone (``score.rareShare``).
RARE_SHARE = 0.1

#: Vietnamese question words (who, what, which, where, why, how many) beside the reader's function words.
_VI_QUESTION = frozenset({"ai", "gì", "nào", "đâu", "sao", "bao", "nhiêu", "mấy", "chăng", "hả", "à", "ư", "nhỉ"})
#: Words that ask what a word means: the word asked about is the topic, not "mean".
_MEANING = frozenset({"mean", "means", "meant", "meaning", "nghĩa"})
#: Words of time, English and Vietnamese: a time alone says when, not what.
_TIME = frozenset("""
    second seconds minute minutes hour hours day days night nights morning mornings noon afternoon
    afternoons evening evenings week weeks weekend weekends month months year years decade decades
    century centuries today tonight tomorrow yesterday time times once twice ago daily weekly monthly
    yearly annual season seasons spring summer autumn fall winter monday tuesday wednesday thursday
    friday saturday sunday january february march april may june july august september october
    november december
    giây phút giờ tiếng ngày đêm sáng trưa chiều tối tuần tháng năm hôm nay mai qua sớm muộn lần thứ mùng rằm
    """.split())
#: Vietnamese numerals ("hai" is two, "mười" ten): numbers written as words, like digits ("tư" is
#: left out: also "private"; "ba" is also "dad" in the south, but "three" far more often).
_VI_NUMBERS = frozenset("một hai ba bốn lăm sáu bảy tám chín mười mươi trăm nghìn ngàn triệu tỷ rưỡi".split())
#: The numerals that stay numbers typed without marks (folded "bay", "sau", "muoi" are also "fly",
#: "after", "salt").
_FOLDED_NUMBERS = frozenset("mot hai ba bon chin tram nghin trieu".split())
#: Words that say how the owner stands towards something or how much, not what it is: stance verbs
#: ("loves jazz" / "loves the sea" share no topic), Vietnamese degree words and classifiers ("dài
#: *nhất*", "*chiếc* xe").
_STANCE = frozenset("""
    love loves loved loving prefer prefers preferred hate hates hated enjoy enjoys enjoyed dislike dislikes
    disliked adore adores
    thích ghét mê muốn ưa nhất hơn cái chiếc
    """.split())
#: Vietnamese grammatical words written with marks whose folded form the function lists hold only
#: unmarked, or not at all: the passive "bị", negations, aspect and modal words, the imperative and
#: politeness words of a request ("hãy", "xin", "giúp"), "làm" (do).
_VI_GRAMMAR = frozenset("bị không chưa chẳng chả đừng rồi nên cần phải hay ấy hãy xin giúp làm".split())
_WRITTEN_FUNCTION = frozenset(w.casefold() for w in en.FUNCTION | vi.FUNCTION | _VI_QUESTION | _STANCE | _VI_GRAMMAR)
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;…]\s+|\n)[\W_]*$")
_CLITICS = frozenset({"s", "re", "ve", "ll", "d", "m"})


@lru_cache(maxsize=1)
def _folded_time() -> frozenset[str]:
    return frozenset(textmod.fold(w) for w in _TIME)


@lru_cache(maxsize=1)
def _folded_function() -> frozenset[str]:
    return frozenset(textmod.fold(w) for w in _WRITTEN_FUNCTION) | stop_words() | NEGATIONS


def marked(text: str) -> bool:
    """Whether ``text`` is written with diacritics (any combining mark, or "đ")."""
    return "đ" in text.casefold() or any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", text))


@dataclass(frozen=True)
class Word:
    """One content word of a text: its ``written`` key (the stem as written, marks kept), its
    ``folded`` key (the stem of the folded word), the ``plain`` folded word, and what it is: a
    ``number``, a word of ``time``, a ``name`` (capitalised inside a sentence), ``capital``
    (capitalised anywhere)."""

    written: str
    folded: str
    plain: str = ""
    number: bool = False
    time: bool = False
    name: bool = False
    capital: bool = False


@dataclass(frozen=True)
class Words:
    """The content words of one text (``words_of``): ``single`` by key, ``joined`` neighbouring pairs
    written as one word (compounds), and whether the text is ``marked``."""

    single: dict[str, Word]
    joined: dict[str, Word]
    marked: bool
    #: a word that is part of a name of two or more capitalised words ("Quảng" of "Quảng Ninh") → that
    #: name, folded and joined ("quangninh"); keyed by the word's folded stem
    names: dict[str, str] = field(default_factory=dict)
    #: typed without marks and plainly English (``_plainly_english``)
    english: bool = False


def _clean(token: str) -> str:
    """``token`` (lower case) without its clitic: "what's" → "what", "don't" → "dont"."""
    token = token.replace("’", "'")
    head, _, tail = token.partition("'")
    if not tail:
        return token
    if tail == "t" and head.endswith("n"):
        return head + "t"
    return head if tail in _CLITICS else head + tail


def _tokens(nfc: str) -> Iterable[tuple[re.Match, str]]:
    """``(match, token)`` of each word of ``nfc``; a word holding CJK characters gives its pieces
    (``text.words.split_cjk``: the runs' character pairs), each with the word's match."""
    for match in _TOKEN.finditer(nfc):
        raw = match.group(0)
        if textmod.has_cjk(raw):
            yield from ((match, piece) for piece in textmod.split_cjk(raw))
        else:
            yield match, raw


@lru_cache(maxsize=65536)
def words_of(text: str, request: bool = False) -> Words:
    """The content words of ``text`` (module docstring); ``request``: also leave out the index's
    question-framing words and the words that ask what a word means."""
    nfc = unicodedata.normalize("NFC", text)
    has_marks = marked(nfc)
    function = _folded_function()
    single: dict[str, Word] = {}
    runs: list[list[str]] = [[]]  # runs of neighbouring content words, for compounds
    capitals: list[list[str]] = [[]]  # runs of neighbouring capitalised words: names of several words
    for match, raw in _tokens(nfc):
        low = _clean(raw.casefold())
        folded = textmod.fold(low)
        if low in _WRITTEN_FUNCTION or folded in function and (not has_marks or low == folded):
            runs.append([])
            capitals.append([])
            continue
        runs[-1].append(low)
        if raw[:1].isupper() and not any(c.isdigit() for c in low):
            capitals[-1].append(folded)
        else:
            capitals.append([])
        if request and (folded in QUERY_STOP_WORDS or low in _MEANING or folded in _MEANING):
            continue
        number = any(c.isdigit() for c in low) or low in _VI_NUMBERS or not has_marks and folded in _FOLDED_NUMBERS
        capital = raw[:1].isupper() and not number
        word = Word(low if low != folded else textmod.stem(low), textmod.stem(folded), folded, number,
                    low in _TIME or not has_marks and folded in _folded_time(),
                    capital and not _SENTENCE_START.search(nfc[:match.start()]), capital)
        key = word.written if has_marks else word.folded
        old = single.get(key)
        if old is not None:
            word = Word(word.written, word.folded, word.plain, word.number, word.time, word.name or old.name,
                        word.capital or old.capital)
        single[key] = word
    joined: dict[str, Word] = {}
    for run in runs:  # "Hà Nội" → "hanoi", "de-stress" → "destress", "road trip" → "roadtrip"
        for size in (2, 3):
            for n in range(len(run) - size + 1):
                both = "".join(run[n:n + size])
                if both.isalpha():
                    folded = textmod.fold(both)
                    word = Word(both if both != folded else textmod.stem(both), textmod.stem(folded), folded)
                    joined.setdefault(word.written if has_marks else word.folded, word)
    names = {textmod.stem(part): "".join(run) for run in capitals if len(run) >= 2 for part in run}
    english = not has_marks and _plainly_english([raw.casefold() for _, raw in _tokens(nfc)])
    return Words(single, joined, has_marks, names, english)


def _plainly_english(tokens: list[str]) -> bool:
    """Two or more English function words, and more of them than Vietnamese ones typed bare ("can",
    "be" are English; "sap vao dong roi, can chuan bi gi cho thang be" is Vietnamese)."""
    english = sum(1 for t in tokens if t in english_stop_words())
    return english >= 2 and english > sum(1 for t in tokens if t in _folded_vietnamese())


@lru_cache(maxsize=1)
def _folded_vietnamese() -> frozenset[str]:
    return frozenset(textmod.fold(w.casefold()) for w in vi.FUNCTION | _VI_QUESTION | _VI_GRAMMAR)


@dataclass(frozen=True)
class Shared:
    """A content word of the request that the memory holds: ``word`` (the request's), and whether it
    is a ``name`` (capitalised inside the request and in the memory, or the memory's label or ``about``)."""

    word: Word
    name: bool


def shared(request: str, text: str, about: str | None = None) -> list[Shared]:
    """The content words of ``request`` that ``text`` holds (module docstring: stems, compounds,
    accents), once each, in the request's order. ``about``: the person the memory is bound to."""
    q, m = words_of(request, True), words_of(text)
    folded = not (q.marked and m.marked)
    # a side typed without marks meets marked words folded; but a plainly English one meets a marked
    # word only when it is a name ("Hue" / "Huế", not "cat" / "cất")
    bare = folded and (q.english or m.english)

    def key(w: Word) -> str:
        return w.folded if folded else w.written

    def marked_word(w: Word) -> bool:
        return w.written != w.folded and not w.capital

    def other_name(w: Word) -> bool:
        """The request's word is part of a name of several words, the memory's of another one."""
        theirs, mine = m.names.get(w.folded), q.names.get(w.folded)
        # one name may hold the other: a sentence's first word is capitalised too ("Calls Kubernetes YAML")
        return theirs is not None and mine is not None and mine not in theirs and theirs not in mine

    asked = {w.folded for w in q.single.values()}
    people: set[str] = set()
    for person in (speaker_of(text), about):  # named whole: "Sông Hồng:" is not named by "sông"
        parts = {textmod.stem(textmod.fold(w)) for w in (person or "").split()}
        if parts and parts <= asked:
            people |= parts
    mine = {key(w): w for w in m.single.values()}
    joined = {key(w) for w in m.joined.values()}
    # what the memory names belongs to categories the request may name ("Vietnamese" → "language")
    # (a word written with marks is looked up as written: folded, "cất" would be a "cat", and a pet)
    kinds = {textmod.stem(c) for w in m.single.values()
             for c in categories_of(w.plain if w.written == w.folded else w.written) if c != w.plain}
    out: dict[str, Shared] = {}
    for w in q.single.values():
        k = key(w)
        if k in mine:
            own = mine[k]
            if bare and (marked_word(w) or marked_word(own)) or other_name(w):
                continue  # "cat" is not "cất"; "Quảng" of "Quảng Ninh" is not "Quảng" of "Quảng Nam"
            out.setdefault(w.folded, Shared(w, own.folded in people or w.name and own.capital))
        elif k in joined or w.folded in kinds:
            out.setdefault(w.folded, Shared(w, False))
    for w in q.joined.values():  # "road trip" in the request, "roadtrip" in the memory
        k = key(w)
        if k in mine and w.folded not in out:
            out[w.folded] = Shared(w, False)
    return list(out.values())


@dataclass(frozen=True)
class Evidence:
    """Why a memory may (``enough``) or may not enter a request: the shared ``words`` (the request's
    folded stems) and ``why`` in a few words."""

    words: tuple[str, ...]
    enough: bool
    why: str
    #: the memory holds all the request asks (its one word), a name it names, or three of its words:
    #: not words met by chance, whatever a model of meaning says (``retrieval.meaning.Gate``)
    whole: bool = False
    #: the shared words as the request writes them, folded but not stemmed (what the manifest shows)
    plain: tuple[str, ...] = ()


def judge(request: str, text: str, frequency: Callable[[str], tuple[int, int]], *, about: str | None = None,
          rare_share: float = RARE_SHARE) -> Evidence:
    """Whether memory ``text`` shows evidence of the topic of ``request`` (module docstring).

    Args:
        frequency: ``feature → (memories holding it, memories in all)`` for the index's word features
            (folded stems); only called for a single shared word.
        about: the person the memory is bound to (``MemoryRecord.about``).
        rare_share: the largest smoothed share ``(df + 1) / (N + 1)`` of a rare word (0–1).
    """
    found = shared(request, text, about)
    words = tuple(s.word.folded for s in found)
    plain = tuple(s.word.plain for s in found)
    topical = [s for s in found if not s.word.number]
    if not topical:
        return Evidence(words, False, "no word of the request" if not found else "only a number in common")
    if len(found) >= 2 and any(not s.word.time for s in topical):
        return Evidence(words, True, f"{len(found)} words in common", whole=len(topical) >= 3, plain=plain)
    if len(found) >= 2:
        return Evidence(words, False, "only words of time and numbers in common")
    only = topical[0]
    asked = [w for w in words_of(request, True).single.values() if not (w.number or w.time)]
    if len(asked) == 1 and not only.word.time:
        return Evidence(words, True, "the request's one word", whole=True, plain=plain)  # "coffee?": all
    if only.name:
        return Evidence(words, True, "a name in common", whole=True, plain=plain)
    if only.word.time:
        return Evidence(words, False, f"only '{only.word.folded}', a word of time, in common")
    df, n = frequency(only.word.folded)
    if (df + 1) / (n + 1) <= rare_share:
        return Evidence(words, True, f"a rare word in common ({df} of {n} memories)", plain=plain)
    return Evidence(words, False, f"only '{only.word.folded}' in common ({df} of {n} memories hold it)")


def judge_all(request: str, texts: Iterable[tuple[int, str, str | None]],
              frequencies: Callable[[list[str]], tuple[dict[str, int], int]],
              rare_share: float = RARE_SHARE) -> dict[int, Evidence]:
    """``judge`` for each ``(id, text, about)``: ``id → Evidence``. ``frequencies(features) → ({feature:
    df}, N)`` is called once, for the words that are the only one a memory shares with the request."""
    texts = list(texts)
    alone = {s[0].word.folded for _, text, about in texts
             if len(s := [x for x in shared(request, text, about) if not x.word.number]) == 1}
    df, n = frequencies(sorted(alone)) if alone else ({}, 0)
    return {i: judge(request, text, lambda w: (df.get(w, 0), n), about=about, rare_share=rare_share)
            for i, text, about in texts}


__all__ = ["Evidence", "Shared", "Word", "Words", "judge", "judge_all", "marked", "shared", "words_of", "RARE_SHARE"]
