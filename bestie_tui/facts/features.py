"""What a short memory says, read without a language model: its relation, polarity, content terms,
an attribute/value frame, and whether it reports an event or a lasting state.

Used by the duplicate ladder (``hygiene.duplicates``) and the contradiction finder (``hygiene.contradictions``).

* **relation**: the predicate class, from small lexicons: ``PREF`` (like, love, enjoy, prefer,
  favourite; Vietnamese thích, yêu), ``HAVE`` (have, own), ``BE`` (am, is, are). Antonyms
  (hate, dislike, ghét) are ``PREF`` with negative valence, so "loves X" / "hates X" share a relation.
* **polarity**: +1 or -1: the valence of the relation times -1 per negation word (English "not",
  "never", "don't"…; Vietnamese không, chưa, chẳng, chả, đừng, chớ, matched on the unfolded word so
  "dùng" (use) is not mistaken for "đừng" (don't)).
* **core terms**: ``vectors.analyze_words`` features with negations removed and the relation as one
  token (``rel_pref``…). Two statements equal except for a negation have equal core terms.
* **frame**: ``(attribute, value, exclusive)`` for statements about a one-valued attribute: reply
  language, favourite <thing>, colour preference, name, age, place of residence. ``exclusive`` marks
  a predicate that admits one value at a time (prefer, favourite, answer in…), unlike "like".
* **event / state**: an event is in the past tense or carries a time expression ("had steak on
  Friday"); a diet state is vegetarian/vegan/sober. ``conflict_items`` lists what a state excludes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from bestie_tui.text import words as textmod
from bestie_tui.text.analysis import NEGATIONS, analyze_words, stop_words

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

#: English negations (the folded Vietnamese ones of ``vectors.NEGATIONS`` are ambiguous once folded).
EN_NEGATIONS = frozenset(w for w in NEGATIONS if w not in {"khong", "chua", "chang", "cha", "dung", "cho"})
#: Vietnamese negations as written (with diacritics), plus common unaccented chat spellings.
VI_NEGATIONS = frozenset({"không", "chưa", "chẳng", "chả", "đừng", "chớ", "khong", "ko", "hông", "hong"})

# Stems (``text.stem`` of folded tokens) → relation class and valence.
_PREF_POS = {"like", "love", "enjoy", "prefer", "favorit", "favourit", "fond", "ador", "thich", "yeu", "fan"}
_PREF_NEG = {"hate", "dislik", "detest", "loath", "despis", "ghet", "abhor"}
_HAVE = {"have", "has", "had", "own", "got", "ive", "possess"}
_BE = {"am", "is", "are", "was", "were", "be", "im", "la"}
#: Words that only report who said it ("user mentioned they…"): dropped from the core terms.
_REPORTING = {"user", "owner", "mention", "said", "say", "state", "note", "told", "tell", "express",
              "indic", "remark", "report", "claim", "ive", "im", "id", "ill", "youv", "theyr", "realli",
              "alway", "usual", "generally", "general", "actual", "definit", "also"}

LANGUAGES = {
    "english": "english", "vietnamese": "vietnamese", "french": "french", "spanish": "spanish",
    "german": "german", "chinese": "chinese", "mandarin": "chinese", "japanese": "japanese",
    "korean": "korean", "thai": "thai", "italian": "italian", "portuguese": "portuguese",
    "russian": "russian", "arabic": "arabic", "hindi": "hindi", "indonesian": "indonesian",
    "dutch": "dutch",
}
_VI_LANGUAGES = {("tieng", "viet"): "vietnamese", ("tieng", "anh"): "english", ("tieng", "phap"): "french",
                 ("tieng", "trung"): "chinese", ("tieng", "nhat"): "japanese", ("tieng", "han"): "korean"}
_REPLY_VERBS = {"answer", "repli", "reply", "respond", "write", "communic", "languag",
                "tra", "loi"}  # Vietnamese "trả lời" (answer), folded
_EXCLUSIVE = {"prefer", "favorit", "favourit", "want", "first", "onli", "alway", "answer", "repli", "loi",
              "respond", "write"}
COLOURS = {"red", "blue", "green", "yellow", "purple", "pink", "orange", "black", "white", "grey", "gray",
           "brown", "teal", "violet", "turquoise", "maroon", "navy", "beige", "gold", "silver"}

#: Diet/abstinence states and the items an event or preference would contradict them with.
#: English items are stems (``text.stem`` of folded words); Vietnamese items are matched on the word
#: as written, with its diacritics: folded, "cà" (in cà phê, coffee) would be "cá" (fish).
_MEAT = {"meat", "steak", "beef", "pork", "chicken", "bacon", "ham", "burger", "hamburg", "sausag", "lamb",
         "turkey", "veal", "ribs", "rib", "brisket", "pepperoni", "salami",
         "thịt", "bò", "gà", "heo", "lợn", "vịt"}
_FISH = {"fish", "salmon", "tuna", "shrimp", "seafood", "sushi", "crab", "lobster", "cá", "tôm", "cua", "mực"}
_ANIMAL = {"chees", "milk", "egg", "butter", "yogurt", "honey", "dairi", "cream", "sữa", "trứng", "mật"}
_ALCOHOL = {"beer", "wine", "whiskey", "whiski", "vodka", "cocktail", "alcohol", "rum", "tequila", "gin",
            "champagn", "drunk", "bia", "rượu"}
STATES = {
    "vegetarian": _MEAT | _FISH,
    "vegan": _MEAT | _FISH | _ANIMAL,
    "sober": _ALCOHOL,
}
_ITEMS = STATES["vegan"] | _ALCOHOL
_STATE_WORDS = {"vegetarian": "vegetarian", "veggi": "vegetarian", "vegan": "vegan", "sober": "sober",
                "teetot": "sober", "chay": "vegetarian"}  # "chay" as written (ăn chay); folded "chạy" is "run"
_NUMBERS = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve",
            "twenty", "hundred", "thousand", "mot", "hai", "ba", "bon", "nam"}
_PEOPLE = {"mom", "mother", "dad", "father", "parent", "brother", "sister", "sibl", "wife", "husband",
           "son", "daughter", "kid", "child", "children", "friend", "boyfriend", "girlfriend", "partner",
           "boss", "grandma", "grandpa", "grandmoth", "grandfath", "uncl", "aunt", "cousin", "famili",
           "dog", "cat", "pet"}
_PAST_VERBS = {"had", "ate", "drank", "ordered", "tried", "went", "cooked", "grilled", "got", "bought",
               "made", "enjoyed"}
_TIME_WORDS = {"yesterday", "today", "tonight", "monday", "tuesday", "wednesday", "thursday", "friday",
               "saturday", "sunday", "weekend", "last", "ago", "morning", "lunch", "dinner", "breakfast",
               "hôm", "tuần", "trước"}  # Vietnamese as written: hôm qua (yesterday), tuần trước (last week)


@dataclass(frozen=True)
class Frame:
    """A one-valued attribute statement: ``attribute`` (e.g. ``language``), ``value`` (folded text)."""

    attribute: str
    value: str
    exclusive: bool


@dataclass(frozen=True)
class FactFeatures:
    """The reading of one memory text (see the module docstring)."""

    core: tuple[str, ...]
    #: Who the statement is about: ``self`` or a relative/friend named first ("my brother has…").
    subject: str
    relation: str | None
    polarity: int
    negated: bool
    frame: Frame | None
    event: bool
    state: str | None
    #: Lexicon keys of the diet/alcohol items named (English stems, Vietnamese words as written).
    items: frozenset[str]
    #: Tokens that carry a number (digits anywhere in the token, or a number word), sorted: two
    #: statements with different numbers are different facts ("Erin0" / "Erin1", "2 dogs" / "3 dogs").
    numbers: tuple[str, ...] = ()
    #: ``(item key, the word as written)`` for each of ``items``, for messages ("cheese", not "chees").
    item_words: tuple[tuple[str, str], ...] = ()

    def written(self, keys) -> str:
        """The words of ``keys`` (item keys) as written in the text, sorted and comma-separated."""
        return ", ".join(sorted({word for key, word in self.item_words if key in keys}))


def _vi_negation(raw_tokens: list[str]) -> int:
    return sum(1 for t in raw_tokens if t in VI_NEGATIONS)


@lru_cache(maxsize=131072)
def read_fact(text: str) -> FactFeatures:
    """Read one memory text. Pure and cached (keyed by the exact text).

    Returns:
        ``FactFeatures``; ``core`` may be empty for a text of only stop words.
    """
    lowered = text.lower().replace("'", "").replace("’", "")
    raw = _WORD.findall(lowered)
    folded = [textmod.fold(t) for t in raw]
    stems = [textmod.stem(t) for t in folded]
    negations = _vi_negation(raw) + sum(1 for t in folded if t in EN_NEGATIONS)

    relation, valence = None, 1
    for s in stems:
        if s in _PREF_POS or s in _PREF_NEG:
            relation, valence = "PREF", (-1 if s in _PREF_NEG else 1)
            break
    if relation is None:
        if any(s in _HAVE for s in stems):
            relation = "HAVE"
        elif any(s in _BE for s in stems):
            relation = "BE"
    polarity = valence * (-1 if negations % 2 else 1)

    core: list[str] = []
    for feat in analyze_words(text):
        if feat in NEGATIONS or feat.startswith("neg_") or feat in _REPORTING:
            continue
        if feat in _PREF_POS or feat in _PREF_NEG or feat in _HAVE or feat in _BE:
            continue
        core.append(feat)
    # Numbers are stop words for search, but "two sons" is not "a son".
    core.extend("num_" + t for t in folded if t in _NUMBERS or t.isdigit())
    if relation:
        core.append("rel_" + relation.lower())
    subject = "self"
    if len(folded) > 1 and folded[0] in ("my", "our") and textmod.stem(folded[1]) in _PEOPLE:
        subject = textmod.stem(folded[1])
    state = None
    if polarity > 0:
        for s in stems:
            if s in _STATE_WORDS and (s != "chay" or "chay" in raw):
                state = _STATE_WORDS[s]
                break
    item_words: list[tuple[str, str]] = []
    if state is None:
        for word, stem in zip(raw, stems):
            key = word if word in _ITEMS else stem if stem in _ITEMS and word.isascii() else None
            if key is not None:
                item_words.append((key, word))
    items = frozenset(key for key, _ in item_words)
    event = bool(items) and (bool(set(raw) & _PAST_VERBS) or bool(set(folded) & _TIME_WORDS)
                             or bool(set(raw) & _TIME_WORDS))
    return FactFeatures(core=tuple(core), subject=subject, relation=relation, polarity=polarity, negated=negations % 2 == 1,
                        frame=_frame(folded, stems, relation), event=event, state=state, items=items,
                        item_words=tuple(item_words),
                        numbers=tuple(sorted(t for t in folded if t in _NUMBERS or any(c.isdigit() for c in t))))


_CLAUSE = re.compile(r"[;:,.!?]+|\s(?:and|but|so|while|because|though|although|và|nhưng)\s")
#: Auxiliaries skipped between a subject and its verb ("I do not drink…", "Linh has never liked…").
_AUX = {"do", "does", "did", "dont", "doesnt", "didnt", "will", "would", "can", "cant", "could", "should",
        "has", "have", "had", "hasnt", "havent", "really", "still", "now", "also", "always", "usually",
        "just", "no", "longer", "to", "cung", "van", "se", "da", "dang", "rat"}
_SELF = {"", "i", "user", "the user", "owner", "the owner", "toi", "minh", "em", "anh"}
#: After "user said/mentioned…", these pronouns are the user too.
_REPORTED = {"they", "he", "she"}
#: Time adverbs that do not change what a clause claims ("I do not drink coffee anymore").
_TEMPORAL = {"anymore", "anymor", "now", "longer", "again", "lately", "nowadays", "currently", "nữa", "nua"}
#: Verbs whose object does not make a claim on its own ("I am a…", "I have a…" are left to the
#: negated-twin search, where the whole statement must match).
_NO_CLAIM = _BE | {"want", "need", "think", "feel", "get", "go", "make", "use", "let", "suggest", "say", "tell"}


@dataclass(frozen=True)
class Claim:
    """One clause read as subject–verb–object with its polarity: ``("linh", "PREF", "durian", +1)``
    for "Linh loves durian"; ``("self", "drink", "coffe", -1)`` for "I do not drink coffee anymore".
    ``object`` is every content stem after the verb in the clause (sorted, space-separated), so
    "the color blue" and "the color red" are different objects."""

    subject: str
    verb: str
    object: str
    polarity: int
    #: a negation word in the clause (``polarity`` may still be +1: "never hates")
    negated: bool = False


@lru_cache(maxsize=131072)
def read_claims(text: str) -> tuple[Claim, ...]:
    """The subject–verb–object claims of ``text``, one per clause that has a verb and an object.

    A clause is split at punctuation and at and/but/so…; a clause without a subject inherits the
    first clause's ("Linh hates durian; never suggest it" is all about Linh). The verb is the first
    content word after the subject and auxiliaries (preference verbs and their antonyms are one verb,
    ``PREF``, with a valence); the object is the set of content words after it in the clause (time
    adverbs such as "anymore" left out). Polarity is the valence times −1
    per negation *in that clause*, so an extra clause elsewhere does not flip it. Pure and cached.
    """
    stops = stop_words()
    out: list[Claim] = []
    first_subject = None
    for n, clause in enumerate(_CLAUSE.split(text.lower().replace("'", "").replace("’", ""))):
        raw = _WORD.findall(clause)
        folded = [textmod.fold(t) for t in raw]
        negations = _vi_negation(raw) + sum(1 for t in folded if t in EN_NEGATIONS)
        subject_words: list[str] = []
        verb = None
        objects: set[str] = set()
        valence = 1
        reported = False
        for word, token in zip(raw, folded):
            if token in EN_NEGATIONS or word in VI_NEGATIONS or token in _AUX:
                continue
            stem = textmod.stem(token)
            if verb is None:
                if subject_words and subject_words[-1] in ("my", "our"):
                    subject_words.append(stem)  # "my brother …": the brother is the subject
                elif stem in _REPORTING and token not in _SELF:
                    reported = True  # "User mentioned they like…": who reported it is not the claim
                    continue
                elif stem in _PREF_POS or stem in _PREF_NEG:
                    verb, valence = "PREF", (-1 if stem in _PREF_NEG else 1)
                elif token in ("my", "our") or (not subject_words and token in _SELF and n == 0):
                    subject_words.append(token)
                elif token in stops:
                    if token in _SELF:
                        subject_words.append(token)
                elif not subject_words and n == 0 and word == raw[0] and text[:1].isupper() and len(raw) > 2 \
                        and stem not in _PREF_POS and token.isalpha() and not _looks_like_verb(stem):
                    subject_words.append(token)  # a name opening the text: "Linh loves…"
                else:
                    verb = stem
            elif token not in stops and token not in _TEMPORAL and word not in _TEMPORAL:
                objects.add(stem)
        self_words = _SELF | (_REPORTED if reported else set())
        named = [w for w in subject_words if w not in ("my", "our") and w not in self_words]
        subject = " ".join(named) or "self"
        if n == 0:
            first_subject = subject
        elif not subject_words:
            subject = first_subject or "self"
        if verb and objects and verb not in _NO_CLAIM:
            out.append(Claim(subject, verb, " ".join(sorted(objects)), valence * (-1 if negations % 2 else 1), negations % 2 == 1))
    return tuple(out)


def _looks_like_verb(stem: str) -> bool:
    return stem in _HAVE or stem in _BE or stem in _PAST_VERBS


def _frame(folded: list[str], stems: list[str], relation: str | None) -> Frame | None:
    joined = " ".join(folded)
    exclusive = bool(set(stems) & _EXCLUSIVE)
    language = next((LANGUAGES[t] for t in folded if t in LANGUAGES), None)
    if language is None:
        for a, b in zip(folded, folded[1:]):
            if (a, b) in _VI_LANGUAGES:
                language = _VI_LANGUAGES[(a, b)]
                break
    # A language is a reply-language preference only with a preference or reply verb:
    # "I speak French" states a skill, "answer in French" / "prefers French" a preference.
    if language and (relation == "PREF" or set(stems) & (_REPLY_VERBS | {"want"})):
        return Frame("language", language, exclusive)
    m = re.search(r"favou?rite (\w+) (?:is|are|was|would be) (?:a |an |the )?(.+)", joined)
    if m:
        return Frame(_attribute(m.group(1)), _value(m.group(2)), True)
    m = re.search(r"(?:^|\b)(?:i )?(?:\w+ )?(.+?) (?:is|are) my favou?rite (\w+)", joined)
    if m:
        return Frame(_attribute(m.group(2)), _value(m.group(1)), True)
    colour = [t for t in folded if t in COLOURS]
    if relation == "PREF" and len(colour) == 1:
        return Frame("colour", colour[0], exclusive)
    m = re.search(r"\bmy name is (\w+)|\b(?:call me|i am called|im called) (\w+)", joined)
    if m:
        return Frame("name", m.group(1) or m.group(2), True)
    m = re.search(r"\b(?:i am|im|i m) (\d{1,3}) (?:years|yrs|year)", joined)
    if m:
        return Frame("age", m.group(1), True)
    m = re.search(r"\b(?:i|user|they|he|she) (?:currently )?lives? in (?:a |an |the )?(.+)", joined)
    if m:
        return Frame("residence", _value(m.group(1)), True)
    return None


def _attribute(word: str) -> str:
    word = textmod.stem(word)
    return {"color": "colour", "colour": "colour"}.get(word, word)


_VALUE_END = re.compile(r"\b(?:with|and|near|because|but|since|where|when|for|so)\b")


def _value(phrase: str) -> str:
    """The value part of a frame: the content terms before a conjunction ("hanoi" of "hanoi with my wife")."""
    phrase = _VALUE_END.split(phrase, maxsplit=1)[0]
    terms = [f for f in analyze_words(phrase) if f not in NEGATIONS and not f.startswith("neg_")]
    return " ".join(terms) or textmod.normalize(phrase)


__all__ = ["FactFeatures", "Frame", "Claim", "read_fact", "read_claims", "STATES", "LANGUAGES", "COLOURS"]
