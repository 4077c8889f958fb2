"""The fact reader: what one short memory says, read without a language model, English and
Vietnamese (with or without diacritics).

``read(text)`` returns a ``Reading``:

* ``subject``: the owner, a named person (with a role: "my wife Linh", "bé Mai") or a thing
  ("the Atlas launch", "standup") — see ``subjects``;
* ``facts``: one ``Fact`` per attribute the text states: ``attribute`` (``residence``,
  ``employer``, ``schedule``, ``tool``, ``like``…; the table is ``ATTRIBUTES``), ``key`` (what the
  attribute is of: the tool kind, the favourite's noun, the event a schedule is for), ``value``
  (the words of the value, folded concepts) and its ``polarity``;
* the text's dates, times and amounts (``dates.quantities``);
* flags: negated, ended ("no longer", "stopped", "không còn", "đã bỏ"), change ("now",
  "switched", "từ nay"), fix ("turns out", "actually"), hedged ("I think", "hình như"), only,
  ever ("never been", "chưa bao giờ"), past ("used to", "từng"), plan ("would like to"), event (a
  one-off: "last night", "hôm qua"), habit ("every morning", "mỗi").

A text the reader cannot frame gets no facts and a ``note`` saying so; ``content`` (its content
concepts) still lets two such texts be compared word by word.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from bestie_tui.facts import dates
from bestie_tui.facts import lexicon_en as en
from bestie_tui.facts import lexicon_vi as vi
from bestie_tui.facts.attributes import ATTRIBUTES, Fact, Spec
from bestie_tui.facts.frames import content_keys, facts_of, modifies_noun, polarity_at
from bestie_tui.facts.knowledge import COUNTRIES, COUNTRIES_VI, EXCLUDES, IMPLIES, categories_of
from bestie_tui.facts.subjects import Subject, find_subject
from bestie_tui.facts.tokens import Tokens, units
from bestie_tui.text import words as textmod


@dataclass(frozen=True)
class Reading:
    """What ``read`` found in one text (see the module docstring)."""

    text: str
    lang: str
    subject: Subject
    facts: tuple[Fact, ...]
    quantities: frozenset[dates.Quantity]
    negated: bool
    ended: bool
    change: bool
    fix: bool
    hedged: bool
    only: bool
    ever: bool
    past: bool
    plan: bool
    event: bool
    habit: bool
    long_ago: bool
    #: content concepts and stems of the whole text (no function words, no flags)
    content: frozenset[str]
    #: the categories of every concept named (``knowledge.categories_of``), for exclusions
    mentions: frozenset[str]
    #: lasting states held (``knowledge.EXCLUDES`` keys), positive only, in the order of the text (a
    #: caller that reports the first state to clash reports the same one on every run)
    states: tuple[str, ...] = ()
    note: str | None = None
    implied: tuple[tuple[str, str, int], ...] = field(default=())
    #: what the text says a thing is used for or where ("để làm việc", "for work", "at home")
    purpose: frozenset[str] = frozenset()
    #: ``(concept, words as written)`` of each word unit, for reasons that quote the text
    words: tuple[tuple[str, str], ...] = ()
    #: an antonym cue ("hate", "ghét", "forbidden") rather than a negation word makes it negative
    antonym: bool = False
    #: "became", "trở thành": a change of state whatever the attribute
    became: bool = False


    @cached_property
    def norm(self) -> str:
        """``text.normalize(text)``: equal for the same text written differently."""
        return textmod.normalize(self.text)

    @property
    def readable(self) -> bool:
        return bool(self.facts)

    @property
    def polarity(self) -> int:
        return self.facts[0].polarity if self.facts else (-1 if self.negated else 1)


#: Readings kept (by exact text) before the cache starts over.
CACHE_SIZE = 262144
_cache: dict[str, Reading] = {}


def read(text: str, *, keep: bool = True) -> Reading:
    """Read one memory text (see the module docstring). Pure and cached (by the exact text); never
    raises. ``keep=False`` uses a cached reading but does not cache a new one (a pass over many
    texts read once, which should not hold them all: the doctor's noisy check, issue 31)."""
    found = _cache.get(text)
    if found is None:
        found = _read(text)
        if not keep:
            return found
        if len(_cache) >= CACHE_SIZE:
            _cache.clear()
        _cache[text] = found
    return found


def remember(readings: dict[str, Reading]) -> None:
    """Put readings made elsewhere (another process) into the cache; ``read`` returns them."""
    if len(_cache) + len(readings) > CACHE_SIZE:
        _cache.clear()
    _cache.update(readings)


def clear_cache() -> None:
    """Forget every cached reading (a process done reading, about to do something else with its
    memory: the doctor's second process before it hands its report back)."""
    _cache.clear()


def _read(text: str) -> Reading:
    tk = units(text)
    us = tk.units
    subject, start = find_subject(tk)
    flag_units: set[int] = set()
    for spans in tk.flags.values():
        for span in spans:
            flag_units.update(span)
    content = frozenset(content_keys(us, flag_units))
    mentions: set[str] = set()
    for n, u in enumerate(us):
        if u.is_word and not u.is_cue and polarity_at(tk, n) > 0:
            mentions |= categories_of(u.key)
    folds = [u.fold for u in us]
    grams = set(folds) | {a + " " + b for a, b in zip(folds, folds[1:])}
    if grams & COUNTRIES or tk.lang == "vi" and not tk.folded and (
            {u.words for u in us} | {a.words + " " + b.words for a, b in zip(us, us[1:])}) & COUNTRIES_VI:
        mentions.update({"country", "abroad"})
    negated = tk.has("neg")
    ended = tk.has("ended")
    facts = facts_of(tk, subject, start, flag_units)
    states = tuple(dict.fromkeys(
        [u.key for n, u in enumerate(us) if u.key in EXCLUDES and not modifies_noun(us, n) and polarity_at(tk, n) > 0]
        + (["sugar free"] if "sugar" in content and ("free" in content or "@free" in _keys(us)) else [])))
    implied = tuple(IMPLIES[u.key] for n, u in enumerate(us) if u.key in IMPLIES and _possessed_here(us, n, subject))
    event = (tk.has("event_times") or _event_verb(tk)) and not tk.has("habits")
    note = None if facts else _why_unread(tk, subject)
    purpose = _purpose(tk)
    return Reading(
        text=text, lang=tk.lang, subject=subject, facts=tuple(facts), quantities=dates.quantities(text),
        negated=negated, ended=ended, change=tk.has("change"), fix=tk.has("fix"), hedged=tk.has("hedges"),
        only=tk.has("only"), ever=tk.has("ever") and (negated or tk.lang == "vi"),
        past=tk.has("past") or _was(us, start) or _lived(us, start) or _had(us, start) and not tk.has("event_times")
        and not dates.quantities(text),
        plan=tk.has("plan"), event=event, habit=tk.has("habits"), long_ago=tk.has("long_ago"),
        content=content, mentions=frozenset(mentions), states=states, note=note, implied=implied, purpose=purpose,
        words=tuple((u.key, u.shown) for u in us if u.is_word),
        antonym=any(u.key in _ANTONYM_CUES for u in us),
        became=any(u.words in _BECAME for u in us))


_BECAME = frozenset({"became", "become", "becomes", "becoming", "trở", "thành"})
_ANTONYM_CUES = frozenset({"@dislike", "@avoid", "@forbidden", "@billed", "@closed", "@single"})
_PURPOSE_WORDS = frozenset({"for", "để", "de"})
_TIME_WORDS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                         "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
                         "saturday", "sunday", "today", "tomorrow", "tonight", "now", "good", "ever", "years",
                         "months", "weeks", "days", "hours", "a", "the", "ages", "long"})
_PLACE = frozenset({"home", "office", "work", "school"})


def _purpose(tk: Tokens) -> frozenset[str]:
    """Content words after "for"/"để" (what something is used for) and the place after "at"."""
    us = tk.units
    out: set[str] = set()
    for n, u in enumerate(us):
        if u.words in _PURPOSE_WORDS or u.key in ("at", "tai") or u.words in ("ở",) and n > 2:
            for v in us[n + 1:n + 4]:
                if not (v.is_word or v.is_cue) or v.words[:1].isdigit() or v.fold in _TIME_WORDS:
                    break
                if v.key in en.FUNCTION or v.words in vi.FUNCTION:
                    continue
                if u.key in ("at", "tai", "ở") and v.key not in _PLACE:
                    break
                out.add(v.key.lstrip("@"))
    return frozenset(out)


def _possessed_here(us, n: int, subject: Subject) -> bool:
    """A relative named as one's own ("my wife", "vợ tôi", the subject's role): "looking for a
    husband" implies nothing."""
    if subject.role == us[n].key and subject.of is None:
        return True
    before = us[n - 1].key if n > 0 else ""
    after = us[n + 1].fold if n + 1 < len(us) else ""
    return before in ("my", "our", "'s") or after in ("toi", "minh")


def _was(us, start: int) -> bool:
    """"I was in the army", "We were neighbours": a past state (not "I was born …", an event)."""
    if start >= len(us) or us[start].words not in ("was", "were"):
        return False
    nxt = us[start + 1] if start + 1 < len(us) else None
    if nxt is not None and nxt.key in _MARITAL_STATES:
        return True  # "I was divorced", "I was married twice": a past state, not a change told in the passive
    if nxt is not None and (nxt.words.endswith(("ed", "en")) or nxt.words in ("cut", "set", "put", "moved")):
        return False  # "was cut to $3k", "was moved": a change, told in the passive
    return not any(u.key in ("@born", "@birthday") or u.words in ("born", "told", "given") for u in us)


_MARITAL_STATES = frozenset({"@married", "@divorced", "@engaged", "@widowed", "@single"})


def _lived(us, start: int) -> bool:
    """"I lived in the Midwest", "I worked at a bank": the simple past of a lasting state."""
    return start < len(us) and us[start].words in ("lived", "worked", "studied", "resided")


def _had(us, start: int) -> bool:
    """"My wife had breast cancer", "I had a dog": a past state. Not "had to", "had never", nor a
    thing had done ("had my appendix removed"), nor a dated one-off (the caller checks the dates)."""
    if start + 1 >= len(us) or us[start].words != "had" or us[start + 1].words in _HAD_AUX:
        return False
    return not any(u.words.endswith("ed") or u.words in ("done", "taken", "cut", "made") for u in us[start + 2:])


_HAD_AUX = frozenset({"to", "been", "never", "already", "just", "not", "no", "ever", "got"})


def _keys(us) -> set[str]:
    return {u.key for u in us}


def _why_unread(tk: Tokens, subject: Subject) -> str:
    if not any(u.is_word for u in tk.units):
        return "cannot read: no words"
    return "cannot read: no attribute the reader knows"


def _event_verb(tk: Tokens) -> bool:
    """A past-tense verb of a one-off event at the start of a clause or after its subject."""
    us = tk.units
    if tk.lang == "vi":
        return any(u.words in vi.EVENT_VERBS and u.words in ("lỡ", "thử") for u in us)
    for i, u in enumerate(us):
        if u.words in en.EVENT_VERBS and (i == 0 or us[i - 1].key in ("i", "we", "and", ",", ";", ":") or
                                           us[i - 1].cap):
            return bool(dates.quantities(" ".join(x.words for x in us)) or tk.has("event_times"))
    return False


__all__ = ["Reading", "Fact", "Spec", "ATTRIBUTES", "read", "remember", "attribute_words"]


def attribute_words(reading: Reading) -> frozenset[str]:
    """Search terms (``text.search_terms`` of folded words) that texts stating the same attributes
    as ``reading`` tend to contain: the words of every cue phrase of each attribute ("live", "move",
    "sống", "dọn" for a residence), the fact's key ("standup") and, for a tool, the brands of its
    kind. The store looks older memories up by them, so "moved to Da Nang" finds "lives in Hanoi"."""
    out: set[str] = set()
    by_attribute = _cue_words_by_attribute()
    for f in reading.facts:
        out |= by_attribute.get(f.attribute, frozenset())
        out |= {w for w in textmod.search_terms(f.key)} if f.key else set()
        if f.attribute == "tool":
            out |= _brand_words().get(f.key, frozenset())
    return frozenset(w for w in out if len(w) > 1 and w not in _TOO_COMMON)


#: Words of cue phrases that almost every text has: no use for finding a memory.
_TOO_COMMON = frozenset({"in", "is", "to", "with", "go", "at", "on", "of", "the", "a", "an", "me", "my", "for",
                         "sang", "ve", "den", "vao", "tai", "o", "cho", "la", "co", "nha", "home", "be", "by"})


def _cue_words_by_attribute() -> dict[str, frozenset[str]]:
    global _CUE_WORDS
    if _CUE_WORDS is None:
        from bestie_tui.facts.attributes import CUE_ATTRIBUTE

        words: dict[str, set[str]] = {}
        for phrase, tag in list(en.PHRASES.items()) + list(vi.PHRASES.items()):
            attribute = CUE_ATTRIBUTE.get(tag)
            if attribute is None:
                continue
            names = {"switch": ("residence", "tool", "schedule", "title"), "birth": ("birthday", "birth year"),
                     "location": ("residence", "location")}.get(attribute, (attribute,))
            for name in names:
                words.setdefault(name, set()).update(textmod.search_terms(phrase))
        _CUE_WORDS = {k: frozenset(v) for k, v in words.items()}
    return _CUE_WORDS


def _brand_words() -> dict[str, frozenset[str]]:
    from bestie_tui.facts.knowledge import BRANDS

    out: dict[str, set[str]] = {}
    for name, kind in BRANDS.items():
        out.setdefault(kind, set()).update(textmod.search_terms(name))
    return {k: frozenset(v) for k, v in out.items()}


_CUE_WORDS: dict[str, frozenset[str]] | None = None
