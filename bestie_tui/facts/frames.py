"""Frames: the attribute facts a memory text states, found from its cue words.

``facts_of(tokens, subject, start)`` returns ``attributes.Fact``s. Where they come from:

1. a possessed noun: "my laptop is a ThinkPad T14" (``tool``/``laptop``), "Linh's birthday: 9/4"
   (``birthday``), "my manager is Rosa" (``role``/``manager``), "our sprints are two weeks"
   (``of``/``sprint``);
2. a cue (a lexicon concept starting with ``@``): "lives in" → ``residence``, "work at" →
   ``employer``, "call me" → ``name``, "reply in" → ``reply language``… The value is the content
   after the cue up to the next cue, a comma or the end of its clause;
3. a brand or product (``knowledge.BRANDS``): "I use Safari" → ``tool``/``browser``;
4. a state word: "vegetarian" → ``diet``, "left-handed" → ``handedness``;
5. times with an event noun: "the retro is at 16:00", "họp nhóm sáng thứ Sáu" → ``schedule``;
6. failing all of these, the clause's verb and object: "I play chess in the park" →
   ``do``/``play`` = chess, park (eat, drink and have-a-coffee are one verb, ``consume``).

A fact's polarity counts the negations of its own segment (a clause cut at commas and colons, so
"Call me Quan, not Mr. Do" is not negated); an ended state ("no longer", "đã bỏ") is negative.
"""

from __future__ import annotations

import re

from bestie_tui.facts import dates
from bestie_tui.facts import lexicon_en as en
from bestie_tui.facts import lexicon_vi as vi
from bestie_tui.facts.attributes import (
    CONSUME_VERBS,
    CUE_ATTRIBUTE,
    CUE_VALENCE,
    CUE_VALUE,
    EVENT_NOUNS,
    GATHERINGS,
    JOBS,
    LANGUAGES,
    MEASURED,
    MEMBERSHIPS,
    NOUN_CUES,
    SCHOOLS,
    STATE_CONCEPTS,
    TIME_SPANS,
    TOOL_NOUNS,
    VEHICLES,
    Fact,
)
from bestie_tui.facts.knowledge import BRANDS
from bestie_tui.facts.subjects import AUX, COPULAS, Subject, is_copula
from bestie_tui.facts.tokens import Tokens, Unit

_PREPS = frozenset({"in", "at", "to", "on", "near", "into", "for", "of", "with", "by", "from", "as", "about",
                    "o", "tai", "sang", "ve", "den", "vao", "bang", "voi", "cho", "cua", "la", "tren", "toi"})
#: Words that end a value: what follows is another part of the sentence.
_VALUE_END = frozenset({"as", "because", "since", "when", "while", "after", "before", "until", "during", "via",
                        "for", "so", "but", "where", "which", "who", "vi", "de", "khi", "nhung", "tu", "with",
                        "rather", "instead", "than"})
#: Words that are never part of a value (flags, fillers): English stems …
FLAG_WORDS = frozenset({"now", "anymor", "anymore", "longer", "again", "instead", "actual", "actually", "realli",
                        "probabl", "mayb", "perhap", "still", "alway", "usual", "general", "ever", "roughly",
                        "around", "about", "approxim", "also", "even", "yet", "all", "a", "at", "good", "for",
                        "just", "please", "thanks", "new", "day", "not", "no", "never", "onli", "only", "recent",
                        "late", "today", "yesterday", "tonight", "ago", "last", "next", "sure", "main", "exact",
                        "precis", "big", "because"})
#: … and Vietnamese fillers, folded (they count only in a Vietnamese text: "Da Nang" keeps its "da").
VI_FLAG_WORDS = frozenset({"nua", "roi", "gio", "moi", "vua", "da", "dang", "se", "van", "con", "cung", "lai",
                           "thoi", "nhe", "a", "oi", "luon", "hien", "nay", "thi", "chi", "de", "nhu", "cu", "di",
                           "khong", "chua", "ko", "hoi"})
_TIME_KINDS = frozenset({"time", "weekday", "daypart", "date", "month"})
#: Month, day and day-part names: when a value holds, not the value ("moved to Hue in January",
#: "coffee every morning"). "Weekends" stays: "never works weekends" is about weekends.
_WHEN = frozenset({"january", "february", "march", "april", "june", "july", "august", "september", "october",
                   "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                   "sunday", "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays",
                   "morning", "mornings", "afternoon", "afternoons", "evening", "evenings", "night", "nights",
                   "sang", "chieu", "toi"})
#: Units of a duration: "for two months", "được hai tháng" say how long, not what.
_DURATION = frozenset({"thang", "nam", "tuan", "ngay", "month", "months", "year", "years", "week", "weeks", "day",
                       "days", "hour", "hours"})
_NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                 "eight": "8", "nine": "9", "ten": "10", "mot": "1", "hai": "2", "ba": "3", "bon": "4", "nam": "5",
                 "sau": "6", "bay": "7", "tam": "8", "chin": "9", "muoi": "10", "twelv": "12", "twenti": "20"}
_SEGMENT_STOPS = frozenset({",", ":"})


def cue_free(tk: Tokens) -> set[int]:
    """Units whose cue is cancelled by a longer flag phrase over them ("turns out", "in fact")."""
    out: set[int] = set()
    for name in ("fix", "hedges", "ended", "event_times", "long_ago", "plan", "past"):
        for span in tk.flags.get(name, ()):
            if len(span) > 1:
                out.update(span)
    return out


def content_keys(us, flag_units: set[int]) -> list[str]:
    """Content concepts and stems of ``us`` (cues keep their ``@``): no function words, flags,
    auxiliaries or pronouns."""
    out = []
    for n, u in enumerate(us):
        if not (u.is_word or u.is_cue) or u.key in en.FUNCTION or u.words in vi.FUNCTION or u.key in en.SELF:
            continue
        if n in flag_units and u.size == 1 and not u.is_cue:
            continue
        if u.key in FLAG_WORDS or u.words in AUX or u.words in COPULAS or u.vi and u.fold in VI_FLAG_WORDS:
            continue
        out.append(u.key)
    return out


#: Words that open a name rather than belong to it ("The Beatles" is "Beatles").
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "his", "her", "their", "this", "that", "these",
                          "those", "i"})


def value_of(us, i: int, end: int, skip: set[int]) -> tuple[frozenset[str], str]:
    """The value units in ``us[i:end]`` up to a comma, a cue or a value-ending word: content words,
    with joined short syllables ("ha noi" → ``hanoi``) and letters split from digits ("x13" →
    ``x``, ``13``)."""
    keys: list[str] = []
    shown: list[str] = []
    prev_short = None
    for n in range(i, end):
        u = us[n]
        if u.key in _SEGMENT_STOPS and keys:
            break
        if not u.is_word or u.is_cue:
            if u.is_cue and keys:
                break
            continue
        if u.key in _VALUE_END and keys:
            break
        if u.key in ("and", "va") and keys and n + 1 < end and _starts_predicate(us[n + 1]):
            break  # "loves durian and wants it …": the value ends where the next predicate starts
        nxt = us[n + 1] if n + 1 < end else None
        if (u.key in _NUMBER_WORDS or u.words[:1].isdigit()) and nxt is not None and nxt.fold in _DURATION:
            prev_short = None
            continue  # "hai tháng", "three months": how long, not what
        if u.fold in _DURATION and n > i and (us[n - 1].key in _NUMBER_WORDS or us[n - 1].words[:1].isdigit()):
            continue
        named = u.cap and n > 0 and nxt is not None and nxt.cap and nxt.is_word  # "New York", "Good Hope"
        # a capitalised word inside a name is part of it: "Can Tho", "Cần Thơ" (not "The", "My")
        in_name = named and u.key not in _DETERMINERS
        if u.key in en.FUNCTION and not in_name or u.key in _PREPS or u.key in FLAG_WORDS and not named \
                or u.key in en.SELF or u.fold in _WHEN \
                or u.vi and (u.words in vi.FUNCTION and not in_name or u.words in vi.SELF or u.fold in VI_FLAG_WORDS and not in_name) \
                or (n in skip and u.size == 1):
            prev_short = None
            continue
        key = _NUMBER_WORDS.get(u.key, u.key)
        keys.append(key)
        shown.append(u.shown)
        letters = "".join(c for c in key if c.isalpha())
        digits = "".join(c for c in key if c.isdigit())
        if letters and digits:
            keys += [letters, digits]
        if prev_short and len(key) <= 4 and key.isalpha():
            keys.append(prev_short + key)
        prev_short = key if len(key) <= 4 and key.isalpha() else None
    return frozenset(keys), " ".join(shown)


def _starts_predicate(u: Unit) -> bool:
    from bestie_tui.facts.subjects import VERBS

    return u.is_cue or u.words in AUX or u.stem in VERBS or u.key in en.SELF or u.words.endswith("s") and u.stem in VERBS


def clause_end(us, i: int) -> int:
    clause = us[i].clause if i < len(us) else 0
    j = i
    while j < len(us) and us[j].clause == clause:
        j += 1
    return j


def clause_start(us, i: int) -> int:
    j = min(i, len(us) - 1)
    while j > 0 and us[j - 1].clause == us[i].clause:
        j -= 1
    return j


def polarity_at(tk: Tokens, i: int) -> int:
    """−1 for an odd number of negations or an ended state in the segment of unit ``i`` (a clause cut
    at commas and colons), else +1."""
    if not tk.polarity:
        return 1
    return tk.polarity[min(max(i, 0), len(tk.polarity) - 1)]


def scoped_polarity(tk: Tokens, n: int) -> int:
    """The polarity of the cue at ``n``: a negation before another verb does not reach it ("I do not
    like living in a rural area" still lives there; "I don't have many chances to speak German"
    still speaks it). An ended state always does."""
    pol = polarity_at(tk, n)
    if pol > 0:
        return pol
    if any(j <= n for span in tk.flags.get("ended", ()) for j in span if _same_segment(tk, j, n)):
        us = tk.units
        if n > 0 and us[n - 1].key in ("and", "then") and us[n].words.split()[0].endswith("ed") and not any(
                j < n for span in tk.flags.get("neg", ()) for j in span if _same_segment(tk, j, n)):
            return 1  # "quit Grab and joined Shopee": the end does not reach the next thing done
        return pol
    from bestie_tui.facts.subjects import VERBS

    us = tk.units
    negs = [j for span in tk.flags.get("neg", ()) for j in span if j < n and _same_segment(tk, j, n)]
    if not negs:
        return pol
    for j in negs:
        between = us[j + 1:n]
        if not any(u.is_cue or u.stem in VERBS or u.words in ("have", "has", "had") and k < len(between) - 1
                   for k, u in enumerate(between)):
            return pol
    return 1


def _same_segment(tk: Tokens, a: int, b: int) -> bool:
    lo, hi = min(a, b), max(a, b)
    return all(tk.units[k].key not in _SEGMENT_STOPS and tk.units[k].clause == tk.units[lo].clause
               for k in range(lo, hi + 1))


def text_of(tk: Tokens) -> str:
    return tk.text


def _times(q: frozenset[dates.Quantity]) -> frozenset[str]:
    return frozenset(f"{x.kind}:{x.value}" for x in q if x.kind in _TIME_KINDS)


def _shown_times(q: frozenset[dates.Quantity]) -> str:
    return ", ".join(sorted(dates.show(x) for x in q if x.kind in _TIME_KINDS))


_BRAND_FIRST = frozenset(name.split()[0] for name in BRANDS)


def _brand(us, lo: int, hi: int) -> tuple[str, int, int] | None:
    """``(kind, start, end)`` of the first brand or product name in ``us[lo:hi]``."""
    for n in range(lo, hi):
        if us[n].fold.split(" ")[0] not in _BRAND_FIRST:
            continue
        for size in (3, 2, 1):
            if n + size > hi:
                continue
            words = " ".join(u.fold for u in us[n:n + size] if u.is_word)
            if words in BRANDS:
                return BRANDS[words], n, n + size
    return None


_USE_WORDS = frozenset({"use", "uses", "using", "used", "have", "has", "had", "own", "owns", "drive", "drives",
                        "play", "plays", "check", "checks", "prefer", "prefers", "switch", "switched", "bought",
                        "quit", "stopped", "left", "live", "lives", "stored", "kept", "keep", "host", "hosted",
                        "dùng", "xài", "có", "chơi", "sử", "mua", "lái", "bỏ", "nghỉ", "is", "are", "là"})


def _uses(us, at: int) -> bool:
    """A brand is a tool the subject has when its clause says so: "I use Safari", "I own a Honda",
    "My phone is an iPhone" — not "I earn money on youtube"."""
    lo = clause_start(us, at)
    return any(u.words in _USE_WORDS for u in us[lo:at])


def _tool_kind(us, lo: int, hi: int, brand_kind: str) -> str:
    """A device noun named in the clause wins over the brand's kind ("Dell monitor" is a monitor)."""
    for u in us[lo:hi]:
        if u.key in TOOL_NOUNS:
            return u.key
    return brand_kind


def _fact(tk: Tokens, attribute: str, key: str, lo: int, hi: int, skip: set[int], at: int,
          value: frozenset[str] | None = None, text: str | None = None, valence: int = 1) -> Fact | None:
    if value is None:
        value, text = value_of(tk.units, lo, hi, skip)
    return Fact(attribute, key, value, text or "", valence * polarity_at(tk, at))


def _about_another(us, n: int, start: int) -> bool:
    """The cue at ``n`` is in a relative clause about another person: "I have a brother who lives in
    California", "I have an aunt that works as a nurse" (where the brother lives, not the owner)."""
    lo = clause_start(us, n)
    for r in range(max(lo, start), n):
        if us[r].words in ("who", "that", "whose") and r > 0 and (
                us[r - 1].key in en.PERSON_CONCEPTS or us[r - 1].words in _OTHER_PEOPLE):
            return True
    return False


#: Nouns of people that are not in the lexicon of relatives and roles.
_OTHER_PEOPLE = frozenset({"friend", "friends", "people", "someone", "person", "guy", "girl", "boy", "woman", "man",
                           "kids", "children", "neighbor", "neighbour"})


def facts_of(tk: Tokens, subject: Subject, start: int, flag_units: set[int]) -> list[Fact]:
    """The facts of a text (see the module docstring)."""
    us = tk.units
    free = cue_free(tk)
    skip = free | {j for j in flag_units if us[j].size == 1 and not us[j].is_cue}
    out: list[Fact] = []
    taken: set[int] = set()
    if subject.possessed:
        f = _possessed(tk, subject, start, skip)
        if f is not None:
            out.append(f)
            taken.update(range(0, clause_end(us, start)))
    cues = [n for n, u in enumerate(us) if u.is_cue and n not in free and n not in taken
            and not _about_another(us, n, start)]
    for k, n in enumerate(cues):
        end = clause_end(us, n)
        later = [m for m in cues[k + 1:] if m < end]
        hi = later[0] if later and us[n].key not in ("@like", "@prefer", "@at") else end
        f = _cue(tk, subject, n, hi, end, skip)
        if f is not None:
            out.append(f)
    brand = _brand(us, 0, len(us))
    if brand and not any(f.attribute == "tool" for f in out) and _uses(us, brand[1]):
        kind, b0, _ = brand
        end = clause_end(us, b0)
        value, text = value_of(us, b0, end, skip)
        out.insert(0, Fact("tool", _tool_kind(us, clause_start(us, b0), end, kind), value, text,
                           polarity_at(tk, b0)))
    for n, u in enumerate(us):
        if u.key in STATE_CONCEPTS and u.known and n not in free and not modifies_noun(us, n):
            attribute, state, valence = STATE_CONCEPTS[u.key]
            if attribute == "reply length" and not any(x.key in ("@reply", "@write", "answer") for x in us):
                continue  # "I am short": a height, not the length of replies
            if not any(f.attribute == attribute for f in out):
                out.append(Fact(attribute, "", frozenset({state}), u.words, valence * polarity_at(tk, n)))
    out += _measured_extra(tk, subject, out)
    handover = _handover(tk)
    if handover is not None:
        out = [f for f in out if f.attribute != "lead"] + [handover]
    commute = _commute(tk)
    if commute is not None and not any(f.attribute == "commute" for f in out):
        out.append(commute)
    sched = _schedule(tk, subject)
    if sched is not None and not any(f.attribute in ("schedule", "bedtime", "wake time", "birthday", "age",
                                                     "grade", "weight", "height", "work location")
                                     for f in out):
        out.append(sched)
    out = _drop_weak(out)
    if not out or tk.has("event_times") and all(f.attribute == "schedule" for f in out):
        # a one-off event says what was done, besides when: "had a steak last night at the team dinner"
        g = _generic(tk, subject, start, skip)
        if g is not None:
            out.append(g)
    return [r for f in out if f.value or f.attribute in ("allergy", "children", "marital") if (r := _refine(f))]


def modifies_noun(us, n: int) -> bool:
    """``us[n]`` is an adjective before a noun ("vegetarian food", "vegan options"), not a state."""
    nxt = us[n + 1] if n + 1 < len(us) else None
    return (nxt is not None and nxt.is_word and not nxt.is_cue and nxt.key not in en.FUNCTION
            and nxt.words not in vi.FUNCTION and nxt.key not in FLAG_WORDS and nxt.key not in ("who", "and", "but")
            and not nxt.words[:1].isdigit() and us[n].words.isascii() and nxt.words.isascii())


def _handover(tk: Tokens) -> Fact | None:
    """"handed the mobile team over to Tuan": Tuan now leads the mobile team."""
    us = tk.units
    words = [u.words for u in us]
    for n, w in enumerate(words):
        if w in ("handed", "hand", "hands", "handing", "passed") and "over" in words[n + 1:n + 6]:
            over = words.index("over", n + 1)
            if over + 2 < len(us) and words[over + 1] == "to" and us[over + 2].cap:
                value, _ = value_of(us, n + 1, over, set())
                name = us[over + 2].fold
                return Fact("lead", " ".join(sorted(value)), frozenset({name}), us[over + 2].shown, 1)
    return None


def _commute(tk: Tokens) -> Fact | None:
    """A vehicle with a travel word: "I take the bus", "đi làm bằng xe máy", "ride my motorbike"."""
    us = tk.units
    for n, u in enumerate(us):
        if u.key in VEHICLES:
            before = {x.key for x in us[clause_start(us, n):n]} | {x.words for x in us[clause_start(us, n):n]}
            if before & {"take", "took", "ride", "rode", "drive", "drove", "go", "went", "by", "bằng", "đi", "chạy",
                         "di", "chay", "bang", "go to work", "commute", "@commute", "@workplace"}:
                return Fact("commute", "", frozenset({u.key}), u.words, polarity_at(tk, n))
    return None


_LANGUAGE_FRAMING = frozenset({"first", "onli", "only", "languag", "language", "pleas", "mainli", "main", "mostli"})


def _refine(f: Fact) -> Fact | None:
    """A school named as a value is the ``school`` attribute; a job after "is" is a title; a
    language the owner prefers or wants ("prefers Vietnamese", "wants Vietnamese-first") is the
    reply language (an assistant's owner means the language of its replies). And the other way:
    an event attended is no school ("attended a pride parade"), a club or a group joined no employer
    ("joined a chess club": one holds many memberships at once), and "works for a long time" names
    no employer at all (None)."""
    if f.attribute == "school" and f.value & GATHERINGS and not f.value & SCHOOLS:
        return Fact("do", "attend", f.value, f.value_text, f.polarity)
    if f.attribute == "employer" and f.value & MEMBERSHIPS:
        return Fact("do", "join", f.value, f.value_text, f.polarity)
    if f.attribute == "employer" and f.value <= TIME_SPANS:
        return None
    if f.attribute in ("prefer", "like") or f.attribute == "do" and f.key in ("want", "prefer", "need", "wish"):
        langs = f.value & LANGUAGES
        if langs and not (f.value - langs - _LANGUAGE_FRAMING):
            return Fact("reply language", "", langs, ", ".join(sorted(langs)), f.polarity)
    if (f.attribute in ("is", "learning") or f.attribute == "do" and f.key in ("go", "goe", "attend", "studi", "hoc")) \
            and f.value & SCHOOLS:
        return Fact("school", "", f.value, f.value_text, f.polarity)
    if f.attribute == "is" and f.value & JOBS:
        return Fact("title", "", f.value, f.value_text, f.polarity)
    return f


def _measured_extra(tk: Tokens, subject: Subject, out: list[Fact]) -> list[Fact]:
    """An age or a weight a person states without its cue word ("lên 7 rồi", "down to 76 kg")."""
    if subject.kind not in ("owner", "person") and subject.words & EVENT_NOUNS:
        return []
    have = {f.attribute for f in out}
    extra = []
    words = [u.words for u in tk.units]
    for x in dates.in_order(text_of(tk)):  # the first age or weight named, on every run
        old_at = next((k for k, w in enumerate(words) if w.endswith("old")), None)
        if x.kind == "age" and (old_at is not None and old_at + 1 < len(words) and tk.units[old_at + 1].is_word
                                or "was" in words or "since" in words or "at age" in " ".join(words)):
            continue  # "a 10 year old son", "I was 18 when …", "at age 18": not the subject's age now
        if x.kind == "age" and subject.kind == "owner" and any(
                u.key in en.PERSON_CONCEPTS or u.words in _OTHER_PEOPLE for u in tk.units):
            continue  # "I have a girl aged 10": the child's age
        if x.kind == "age" and "age" not in have:
            extra.append(Fact("age", "", frozenset({f"age:{x.value}"}), dates.show(x), 1))
        elif x.kind == "mass" and "weight" not in have and not set(words) & _LIFTS:  # "bench press 345 pounds"
            extra.append(Fact("weight", "", frozenset({f"mass:{x.value}"}), dates.show(x), 1))
    return extra


_FEET_INCHES = re.compile(r"\d\s*['′’]\s*\d")
_COLOURS = frozenset({"red", "blue", "green", "yellow", "purple", "pink", "orange", "black", "white", "grey", "gray",
                      "brown", "silver", "gold", "navy", "beige", "dark", "light", "bright"})
#: Words of lifting or carrying: the mass said with them is a load, not the subject's weight.
_LIFTS = frozenset({"lift", "lifts", "lifted", "press", "presses", "squat", "squats", "deadlift", "carry", "carries",
                    "bench", "curl", "pull", "push"})
_WEAK = frozenset({"like", "prefer", "location", "switch", "named", "residence", "employer", "lead",
                   "written language", "consume"})


def _drop_weak(facts: list[Fact]) -> list[Fact]:
    """A like/prefer/at fact beside a stronger one about the same words is the stronger one's frame."""
    strong = [f for f in facts if f.attribute not in _WEAK]
    if not strong:
        return facts
    out = []
    for f in facts:
        if f.attribute in ("like", "prefer", "location", "switch", "named", "residence") and any(
                s.value & f.value or not f.value or s.attribute in ("tool", "theme", "reply language", "name",
                                                                    "emoji", "reply length") for s in strong):
            continue
        out.append(f)
    return out


def _after_copula(us, j: int, end: int) -> int:
    while j < end and (is_copula(us[j]) or us[j].key in (":", "called", "@named") or us[j].words in AUX):
        j += 1
    return j


def _possessed(tk: Tokens, subject: Subject, start: int, skip: set[int]) -> Fact | None:
    """"my phone is …", "Linh's birthday: …", "my manager is …", "our sprints are …"."""
    us = tk.units
    p = subject.possessed
    end = clause_end(us, start) if start < len(us) else len(us)
    j = _after_copula(us, start, end)
    linked = j > start or start >= len(us)
    cue = p[0] if p and p[0] in NOUN_CUES else None
    tool = next((w for w in p if w in TOOL_NOUNS), None)
    if tool:
        if linked and j < end and all(u.words in _COLOURS for u in us[j:end] if u.is_word):
            return None  # "My car is black": its colour, not which car
        return _fact(tk, "tool", tool, j, end, skip, j) if linked else None
    if cue is not None:
        attribute = CUE_ATTRIBUTE.get(cue, cue[1:])
        if attribute in MEASURED:
            return _measure(tk, attribute, j, end, skip)
        if attribute == "blood type":
            return _blood_type(tk, j, end)
        if not linked:
            return None
        key = " ".join(w for w in p[1:] if not w.startswith("@"))
        if attribute == "favourite":
            return _fact(tk, "favourite", key or ("food" if cue == "@favourite food" else ""), j, end, skip, j)
        return _fact(tk, attribute, key, j, end, skip, j)
    if p[0] in en.PERSON_CONCEPTS and linked:
        return _fact(tk, "role", p[0], j, end, skip, j)
    times = _times(dates.quantities(text_of(tk)))
    if times and (any(w in EVENT_NOUNS for w in p) or not linked):
        return Fact("schedule", " ".join(sorted(p)), times, _shown_times(dates.quantities(text_of(tk))),
                    polarity_at(tk, start))
    if not linked:
        verb = tk.units[start] if start < len(tk.units) else None
        if verb is None or verb.is_cue or not verb.is_word:
            return None
        return _fact(tk, "of", " ".join(sorted(p)) + " " + verb.key, start + 1, end, skip, start)
    return _fact(tk, "of", " ".join(sorted(p)), j, end, skip, j)


def _cue(tk: Tokens, subject: Subject, n: int, hi: int, end: int, skip: set[int]) -> Fact | None:
    us = tk.units
    cue = us[n].key
    attribute = CUE_ATTRIBUTE.get(cue)
    if attribute is None:
        return None
    lo = clause_start(us, n)
    if cue in ("@free", "@billed", "@allowed", "@forbidden", "@open", "@closed") and subject.kind != "thing":
        return None  # "I am close with my mom", "I babysit for free": a price or a rule belongs to a thing
    if cue in CUE_VALUE:
        word, valence = CUE_VALUE[cue]
        return Fact(attribute, "", frozenset({word}), word, valence * scoped_polarity(tk, n))
    if cue in ("@favourite", "@favourite food"):
        j = n + 1
        noun = us[j].key if j < len(us) and us[j].is_word and cue == "@favourite" else ""
        k = _after_copula(us, j + (1 if noun else 0), end)
        if k < end and k > j:
            return _fact(tk, "favourite", noun or "food", k, end, skip, n)
        return _fact(tk, "favourite", noun or "food", lo, n, skip, n)
    if cue in ("@reply", "@write", "@speak"):
        langs = frozenset(u.key for u in us[lo:end] if u.key in LANGUAGES)
        if cue == "@speak":
            return Fact("languages", "", langs, ", ".join(sorted(langs)), scoped_polarity(tk, n)) if langs else None
        if langs:
            name = "reply language" if cue == "@reply" else "written language"
            return Fact(name, "", langs, ", ".join(sorted(langs)), scoped_polarity(tk, n))
        return None
    if cue == "@learn":
        grade = next((x for x in dates.in_order(text_of(tk)) if x.kind == "grade"), None)
        if grade is not None:
            return Fact("grade", "", frozenset({f"grade:{grade.value}"}), dates.show(grade), scoped_polarity(tk, n))
        return _fact(tk, "learning", "", n + 1, end, skip, n)
    if cue in ("@birthday", "@wedding") and modifies_noun(us, n):
        return None  # "a birthday party", "birthday cake": not a birthday
    if cue == "@age" and (n > 0 and us[n - 1].is_word and us[n - 1].key not in en.FUNCTION
                          and not us[n - 1].words[:1].isdigit() and us[n - 1].words not in COPULAS
                          or n + 1 < len(us) and us[n + 1].is_word and not us[n].words.startswith("turn")
                          or _past_age(us, n)):
        return None  # "the drinking age", "a 7 year old daughter", "I was 18 when …": not the subject's age now
    if attribute in MEASURED:
        return _measure(tk, attribute, n + 1, end, skip)
    if cue == "@blood type":
        return _blood_type(tk, n + 1, end)
    if cue == "@at":
        return _at(tk, subject, n, hi, end, skip)
    if cue in ("@move", "@switch"):
        return _switch(tk, subject, n, end, skip)
    if cue in ("@employer", "@workplace"):
        value, text = value_of(us, n + 1, hi, skip)
        if value & {"office", "home", "remote"}:
            place = "home" if value & {"home", "remote"} else "office"
            return Fact("work location", "", frozenset({place}), place, scoped_polarity(tk, n))
        if cue == "@workplace":
            return None  # "I work in a big city": not a workplace the reader knows
        return Fact("employer", "", value, text, scoped_polarity(tk, n))
    if cue == "@lead":
        value, _ = value_of(us, n + 1, end, skip)
        before = [u for u in us[lo:n] if u.is_word]
        if before and (before[-1].words in ("he", "she", "they", "it") or not before[-1].cap):
            return None  # "he runs it now": who "he" is, the clause does not say
        who = frozenset({subject.name}) if subject.name else frozenset()
        return Fact("lead", " ".join(sorted(value)), who, subject.label(), scoped_polarity(tk, n)) if who else None
    if cue == "@manager":
        value, text = value_of(us, n + 1, hi, skip)
        return Fact("role", "manager", value, text, scoped_polarity(tk, n))
    if cue == "@allergy":
        value, text = value_of(us, n + 1, hi, skip)
        value -= {"gi", "anyth", "anything"}
        if not value:
            seg = n
            while seg > lo and us[seg - 1].key not in _SEGMENT_STOPS:
                seg -= 1
            value, text = value_of(us, seg, n, skip)
        if not value and not any(u.key in _SEGMENT_STOPS for u in us):
            # "I can't have walnuts because I'm allergic": what the text names
            value = frozenset(u.key for u in us if u.is_word and not u.is_cue and u.key not in en.FUNCTION
                              and u.key not in FLAG_WORDS and u.key not in CONSUME_VERBS and u.words not in AUX
                              and u.key not in en.SELF and u.words not in vi.FUNCTION)
            text = ", ".join(sorted(value))
        return Fact("allergy", "", value, text, scoped_polarity(tk, n))
    if cue == "@hometown":
        value, text = value_of(us, n + 1, hi, skip)
        return Fact("hometown", "", value, text, scoped_polarity(tk, n)) if value else None
    value, text = value_of(us, n + 1, hi, skip)
    if not value and cue in ("@like", "@prefer") and subject.kind == "thing" and subject.words:
        value, text = frozenset(subject.words), " ".join(sorted(subject.words))  # "Blue is preferred."
    if cue == "@named" and subject.kind == "person" and subject.role:
        attribute = "name"  # "Mai's teacher is called Ms. Thao"
    return Fact(attribute, "", value, text, CUE_VALENCE.get(cue, 1) * scoped_polarity(tk, n))


def _past_age(us, n: int) -> bool:
    """An age said with "was"/"were", after "since" or "at": a past age ("since I was 22", "at age 18")."""
    lo = clause_start(us, n)
    return any(u.words in ("was", "were", "since") for u in us[lo:n]) or n > 0 and us[n - 1].words == "at"


def _measure(tk: Tokens, attribute: str, j: int, end: int, skip: set[int]) -> Fact | None:
    """Ages, grades, weights, heights, bed and wake times, birthdays and birth years: from the
    quantities of the text, so "23:00" and "11 pm", "1m65" and "165 cm" are one value. A bare hour
    for a bedtime is in the evening ("before 11" is 23:00)."""
    wanted = MEASURED[attribute]
    # by the kinds the attribute prefers, then in the order of the text ("lớp 3, phòng 12": 3)
    found = sorted((x for x in dates.in_order(text_of(tk)) if x.kind in wanted), key=lambda x: wanted.index(x.kind))
    pol = polarity_at(tk, max(0, min(j, len(tk.units) - 1)))
    if attribute == "birth":
        for x in found:
            name = "birthday" if x.kind == "date" else "birth year"
            return Fact(name, "", frozenset({f"{x.kind}:{x.value}"}), dates.show(x), pol)
        value, text = value_of(tk.units, j, end, skip)
        return Fact("hometown", "", value, text, pol) if value else None
    if not found:
        return None
    x = found[0]
    if x.kind == "number":
        hour = float(x.value)  # type: ignore[arg-type]
        if attribute in ("bedtime", "wake time") and hour <= 12:
            minutes = int(hour % 12 + (12 if attribute == "bedtime" and 6 <= hour <= 12 else 0)) * 60
            x = dates.Quantity("time", minutes)
        elif attribute in ("bedtime", "wake time"):
            return None
    return Fact(attribute, "", frozenset({f"{x.kind}:{x.value}"}), dates.show(x), pol)


def _blood_type(tk: Tokens, j: int, end: int) -> Fact | None:
    us = tk.units
    for u in us[j:end]:
        w = u.words.upper().rstrip("+-")
        if w in ("A", "B", "AB", "O"):
            return Fact("blood type", "", frozenset({w.lower()}), u.words.upper(), polarity_at(tk, j))
    return None


def _at(tk: Tokens, subject: Subject, n: int, hi: int, end: int, skip: set[int]) -> Fact | None:
    """Vietnamese "ở"/"tại": where someone lives (right after the subject), works ("làm … ở"), or
    where a thing is ("văn phòng ở tầng 7")."""
    us = tk.units
    lo = clause_start(us, n)
    before = [u for u in us[lo:n] if u.is_word]
    value, text = value_of(us, n + 1, hi, skip)
    pol = polarity_at(tk, n)
    floor = next((x for x in dates.in_order(text_of(tk)) if x.kind == "floor"), None)
    if floor is not None:
        return Fact("location", "floor", frozenset({f"floor:{floor.value}"}), dates.show(floor), pol)
    if any(u.key == "work" for u in before):
        if value & {"office", "home", "remote"}:
            place = "home" if value & {"home", "remote"} else "office"
            return Fact("work location", "", frozenset({place}), place, pol)
        return Fact("employer", "", value, text, pol)
    if any(u.key == "@hometown" for u in before):
        return Fact("hometown", "", value, text, pol)
    if subject.kind in ("owner", "person") and value and all(u.key in ("family", "home") or u.words in vi.SELF
                                                              or u.fold in ("toi", "minh")
                                                              or u.cap for u in before):
        return Fact("residence", "", value, text, pol)
    return Fact("location", "", value, text, pol) if value else None


def _switch(tk: Tokens, subject: Subject, n: int, end: int, skip: set[int]) -> Fact | None:
    """A move or a switch: to a place (residence), a time (schedule), a brand (tool), a language, a
    job ("chuyển sang làm PM": title) or a floor (location)."""
    us = tk.units
    q = dates.quantities(text_of(tk))
    pol = polarity_at(tk, n)
    j = n + 1
    old: frozenset[str] = frozenset()
    if j + 1 < end and us[j].words in ("away", "out") and us[j + 1].words in ("from", "of"):
        old, shown = value_of(us, j + 2, end, skip)  # "moving away from Montano": it no longer holds
        return Fact("residence", "", frozenset({"elsewhere"}), f"away from {shown}", pol, old_value=old)
    if j < end and (us[j].key == "from" or us[j].vi and us[j].fold == "tu"):
        k = j + 1
        while k < end and us[k].key != "to" and not (us[k].vi and us[k].fold in _VI_TO):
            k += 1
        old, _ = value_of(us, j + 1, k, skip)
        j = k + 1 if k < end and us[k].vi and us[k].fold in _VI_TO else k
    value, text = value_of(us, j, end, skip)
    floor = next((x for x in dates.in_order(text_of(tk)) if x.kind == "floor"), None)
    if floor is not None:
        return Fact("location", "floor", frozenset({f"floor:{floor.value}"}), dates.show(floor), pol)
    brand = _brand(us, n + 1, end)
    if brand:
        kind, b0, _ = brand
        v, t = value_of(us, b0, end, skip)
        return Fact("tool", _tool_kind(us, clause_start(us, n), end, kind), v, t, pol)
    langs = frozenset(u.key for u in us[clause_start(us, n):end] if u.key in LANGUAGES)
    if langs:
        return Fact("reply language" if any(u.key == "@reply" for u in us) else "languages", "", langs,
                    ", ".join(sorted(langs)), pol)
    times = _times(q)
    if times and (subject.kind == "thing" or any(u.key in EVENT_NOUNS for u in us[n:end]) or not value):
        event = frozenset(subject.words) if subject.kind == "thing" else frozenset(
            u.key for u in us[n + 1:end] if u.key in EVENT_NOUNS)
        return Fact("schedule", " ".join(sorted(event)), times, _shown_times(q), pol)
    work = next((i for i in range(n, end) if us[i].key == "work"), None)
    if work is not None:
        v, t = value_of(us, work + 1, end, skip)
        return Fact("title", "", v, t, pol)
    moved_to = j + 1 < end and us[j].vi and us[j].fold in _VI_TO and us[j + 1].cap  # "chuyển ra Hà Nội"
    if subject.kind in ("owner", "person") and (us[n].key == "@move" or old and _all_named(us, j, end) or moved_to) \
            and not any(u.key in _NOT_PLACES or u.fold in _NOT_PLACES for u in us[n:end]) \
            and not (us[n].key == "@move" and _moves_a_thing(subject, us, n, end)):
        # "moved to …"; "chuyển từ Huế vào Cần Thơ" (a switch from one named place to another); not
        # "moved from Project Atlas to Project Borealis", which moves no home
        return Fact("residence", "", value, text, pol, old_value=old)
    return Fact("switch", "", value, text, pol, old_value=old) if value else None


#: What may follow "my"/"our" and still be the household that moves ("my family moved").
_HOUSEHOLD = frozenset({"family", "home", "house", "household", "kids", "children", "parents", "gia dinh", "nha"})
def _moves_a_thing(subject: Subject, us, n: int, end: int) -> bool:
    """The move is of something the owner has, not of the owner's home: "my office moved", "our gym
    moved" (what of the subject moved is not the household), or "I moved my car to the garage" (the
    verb takes an object: a determiner and a noun that is not the household)."""
    if subject.possessed and not set(subject.possessed) & _HOUSEHOLD:
        return True
    k = n + 1
    if k < end and us[k].is_word and us[k].fold in _DETERMINERS:  # the thing moved
        nxt = us[k + 1] if k + 1 < end else None
        return nxt is not None and nxt.is_word and nxt.fold not in _HOUSEHOLD and nxt.key not in _HOUSEHOLD
    return False


#: Nouns of work and organisation (general categories, EN and folded VI): a move between two of them
#: ("moved to the payments team", "chuyển sang dự án mới") is no move of home.
_NOT_PLACES = frozenset({"project", "team", "department", "dept", "branch", "role", "position", "job", "group",
                         "squad", "unit", "division", "channel", "repo", "repository", "desk", "shift", "class",
                         "office", "floor", "server", "cluster", "bank", "account", "school",
                         "course", "phase", "sprint", "stage", "tier", "plan", "board", "queue",
                         "du an", "nhom", "phong", "ban", "bo phan", "lop", "khoa"})


#: Vietnamese words for "to" after "từ X" (from X): into, out to, over to, to, back to.
_VI_TO = frozenset({"vao", "ra", "sang", "den", "ve", "toi", "len", "xuong"})


def _all_named(us, i: int, end: int) -> bool:
    """The words of ``us[i:end]`` up to a time word or the end are capitalised (a place's name)."""
    words = []
    for u in us[i:end]:
        if not u.is_word or u.fold in _WHEN or u.fold in ("thang", "nam", "tuan", "hom", "last", "in", "on"):
            break
        words.append(u)
    return bool(words) and all(u.cap for u in words)


def _schedule(tk: Tokens, subject: Subject) -> Fact | None:
    """A time or a day with an event: "the retro is at 16:00", "I go to the gym on Mondays"."""
    q = dates.quantities(text_of(tk))
    times = _times(q)
    if not times:
        return None
    words = set(subject.words) if subject.kind == "thing" else set()
    events = {u.key for u in tk.units if u.key in EVENT_NOUNS} | {w for w in subject.possessed if w in EVENT_NOUNS}
    if not events and not (words and words & EVENT_NOUNS):
        return None
    return Fact("schedule", " ".join(sorted(words | events)), times, _shown_times(q), polarity_at(tk, 0))


def _main_verb(us, start: int, end: int) -> int:
    """The first verb after the subject; a have-form is the verb when a noun follows it."""
    j = start
    while j < end:
        u = us[j]
        if u.words in ("have", "has", "had", "got") and not _next_is_verb(us, j + 1, end):
            return j
        if u.words in AUX or u.key in ("not", "no", "never") or u.words in vi.NEGATIONS or u.key in FLAG_WORDS \
                or not u.is_word or u.key in en.SELF:
            j += 1
            continue
        return j
    return end


def _next_is_verb(us, j: int, end: int) -> bool:
    while j < end and (us[j].key in ("not", "never", "no") or us[j].words in AUX and us[j].words not in
                       ("have", "has", "had")):
        j += 1
    return j < end and (us[j].words in ("been", "had", "got") or us[j].words.endswith("ed") or us[j].is_cue)


def _generic(tk: Tokens, subject: Subject, start: int, skip: set[int]) -> Fact | None:
    """The first verb after the subject and its object (see the module docstring)."""
    us = tk.units
    end = clause_end(us, start) if start < len(us) else len(us)
    j = _main_verb(us, start, end)
    if j >= end:
        return None
    verb: Unit = us[j]
    pol = polarity_at(tk, j)
    if j in tk.covered("ended"):
        # "stopped playing tennis" is about playing; "đã bỏ cà phê", "quit Fortnite" about any verb
        if tk.lang == "vi" and us[j].fold in ("khong", "chang") and j + 1 < end and us[j + 1].fold == "con":
            j += 1  # "khong con" folded: the negation is not in the Vietnamese lexicon's own spelling
        nxt = us[j + 1] if j + 1 < end else None
        if nxt is not None and nxt.is_word and (nxt.words.endswith("ing") or nxt.stem in _VERBS_OF_ACTIVITY
                                                or nxt.key in CONSUME_VERBS or nxt.words in ("ăn", "uống")
                                                or tk.lang == "vi" and nxt.fold in ("an", "uong")):
            j += 1  # "không còn uống cà phê": about drinking
            verb = nxt
        else:
            value, text = value_of(us, j + 1, end, skip)
            return Fact("do", "", value, text, pol) if value else None
    value, text = value_of(us, j + 1, end, skip)
    if is_copula(verb):
        if not value:
            return None
        person_value = value & en.PERSON_CONCEPTS
        if person_value and subject.kind == "person" and subject.name:
            return Fact("role", sorted(person_value)[0], frozenset({subject.name}), subject.name.title(), pol)
        # the number is the value itself ("I am 32"), not one said later ("a housewife since I was 22")
        numbers = [x for x in dates.in_order(text) if x.kind == "number"]
        if subject.kind in ("person", "owner") and len(value) == 1 and numbers and not _FEET_INCHES.search(tk.text) \
                and float(numbers[0].value) <= 120:  # type: ignore[arg-type]
            return Fact("age", "", frozenset({f"age:{numbers[0].value}"}), str(numbers[0].value), pol)
        if subject.kind == "person" and subject.role and any(u.cap for u in us[j + 1:end] if u.is_word) \
                and not (j + 1 < end and (us[j + 1].key in _PREPS or us[j + 1].is_cue)):  # "is in Paris": a place
            return Fact("name", "", value, text, pol)
        if subject.kind == "thing":
            return Fact("of", " ".join(sorted(subject.words)), value, text, pol)
        nxt = next((u for u in us[j + 1:end] if u.is_word), None)
        if nxt is not None and nxt.words == "from":
            return Fact("hometown", "", value, text, pol)
        if nxt is not None and nxt.words in ("in", "at") and any(u.cap for u in us[j + 1:end] if u.is_word):
            return Fact("location", "", value, text, pol)
        return Fact("is", "", value, text, pol)
    if not value:
        return None
    key = verb.key.lstrip("@")
    vehicles = value & VEHICLES
    if vehicles and (key in ("take", "ride", "drive", "go", "di", "chay") or verb.words in ("đi", "chạy")):
        return Fact("commute", "", frozenset(vehicles), ", ".join(sorted(vehicles)), pol)
    if value & {"office", "home"} and key in ("go", "went", "come", "work", "di", "lam", "stay"):
        place = "home" if "home" in value else "office"
        return Fact("work location", "", frozenset({place}), place, pol)
    if verb.words in ("have", "has", "had", "own", "got", "có", "nuôi") or key in ("own", "nuoi"):
        if value & {"dog", "cat", "goldfish", "hamster", "parrot", "golden retriever", "rabbit", "fish"}:
            return Fact("pets", "", value, text, pol)
        first = next((u for u in us[j + 1:end] if u.is_word and u.key not in en.FUNCTION
                      and u.key not in _NUMBER_WORDS and not u.words[:1].isdigit()), None)
        if value & {"child", "son", "daughter"} and first is not None and first.key in ("child", "son", "daughter"):
            kinds = frozenset(value & {"child", "son", "daughter"})  # "a son" and "two daughters" are not one fact
            return Fact("children", "", kinds, text, pol)
        if value & _FOOD and verb.words in ("have", "has", "had"):
            return Fact("do", "consume", value, text, pol)
        return Fact("have", "", value, text, pol)
    if key in CONSUME_VERBS or verb.words in ("ăn", "uống"):
        return Fact("do", "consume", value, text, pol)
    return Fact("do", key, value, text, pol)


_VERBS_OF_ACTIVITY = frozenset({"play", "drink", "eat", "smoke", "learn", "studi", "work", "use", "take", "go",
                                "run", "tap", "hoc", "an", "uong", "hut", "choi", "lam", "di"})
_FOOD = frozenset({"coffee", "tea", "green tea", "milk", "beer", "wine", "alcohol", "spirits",
                   "cake", "candy", "dessert", "chocolate", "ice cream", "soda",
                   "cocktail", "meat", "red meat", "beef", "pork", "lamb", "chicken", "fish", "shrimp", "egg",
                   "dairy", "gluten", "sugar", "sweets", "fried", "spicy", "seafood"})

__all__ = ["facts_of", "content_keys", "value_of", "polarity_at", "FLAG_WORDS", "cue_free"]
