"""Who a statement is about, when it is not the owner.

"My friend J said he doesn't like tennis" is J's preference, not the owner's; kept as the owner's
trait it would mislead every later reply. ``about_someone_else(text, user)`` names that person
from the start of the text, where a statement says who it is about:

* a relation of the owner's, English or Vietnamese, with its name if one follows: "my brother
  Nam lives in Đà Nẵng" → ``Nam``, "my mom's birthday is in June" → ``my mom``, "mẹ tôi thích hoa
  hồng" → ``mẹ tôi``, "bạn mình là Lan không ăn cay" → ``Lan``;
* a capitalised name followed by a verb of saying, liking or doing ("Linh loves durian", "J said
  …", "Lan thích cà phê") or by a possessive ("Minh's birthday is …").

Pets are not "someone else" here (a pet's name is the owner's fact). A name equal to the owner's
own user id is the owner. Only the first words are read, so the cost does not grow with the text.
"""

from __future__ import annotations

import re

from bestie_tui.store.gate.fold import fold, view

_HEAD = 240
_RELATIONS_EN = sorted((
    "mom", "mum", "mother", "dad", "father", "parents", "parent", "brother", "sister", "sibling", "wife", "husband",
    "son", "daughter", "kid", "kids", "child", "children", "friend", "best friend", "friends", "boyfriend",
    "girlfriend", "partner", "fiance", "fiancee", "boss", "manager", "colleague", "coworker", "co-worker",
    "teammate", "roommate", "flatmate", "neighbour", "neighbor", "grandma", "grandmother", "grandpa",
    "grandfather", "uncle", "aunt", "cousin", "niece", "nephew", "mother-in-law", "father-in-law", "in-laws",
    "teacher", "doctor", "landlord", "ex", "older brother", "younger brother", "older sister", "younger sister",
    "little brother", "little sister", "big brother", "big sister", "stepmother", "stepfather", "stepson",
    "stepdaughter", "classmate", "client", "mentor",
), key=len, reverse=True)
_RELATIONS_VI = sorted((
    "ban", "ban than", "ban gai", "ban trai", "nguoi yeu", "me", "ma", "bo", "ba", "cha", "anh trai", "chi gai",
    "em trai", "em gai", "anh", "chi", "em", "vo", "chong", "con trai", "con gai", "con", "sep", "dong nghiep",
    "ong", "ba noi", "ba ngoai", "ong noi", "ong ngoai", "co", "chu", "di", "cau", "bac", "hang xom",
    "ban cung phong", "thay", "co giao", "thay giao", "me chong", "me vo", "bo chong", "bo vo",
), key=len, reverse=True)
_REL_EN = re.compile(r"^\W{0,3}(?:(?:the )?(?:user|owner)'?s |my |our )(?P<rel>" + "|".join(map(re.escape, _RELATIONS_EN))
                     + r")(?![a-z\-])(?P<poss>'s)?")
_REL_VI = re.compile(r"^\W{0,3}(?P<rel>" + "|".join(_RELATIONS_VI) + r") (?:cua )?(?:toi|minh|em|anh|tao|to)(?![a-z])"
                     r"(?: (?:ten )?la)?")
_NAME_AFTER = re.compile(r",?\s{1,2}(?P<name>[^\W\d_][\w'\-]{0,24}(?: [^\W\d_][\w'\-]{0,24}){0,2})")
_TOKEN = re.compile(r"[^\W_][\w'’\-]*")

#: Verbs of saying, liking or living that, after a capitalised name, make it a person: "Linh loves
#: durian", "J said …", "Lan thích …" (not "Docker runs …"). Vietnamese as written, or without its
#: marks when the whole word is plain ASCII chat spelling ("thich"): folded, "Sông" (a river) would
#: be "sống" (to live).
_VERBS = frozenset((
    "said", "says", "told", "tells", "thinks", "thought", "believes", "likes", "loves", "hates", "dislikes",
    "prefers", "wants", "enjoys", "adores", "mentioned", "asked", "liked", "loved", "hated", "wanted", "lives",
    "lived", "studies", "speaks", "nói", "bảo", "kể", "thích", "yêu", "ghét", "muốn", "sống",
    "noi", "bao", "thich", "ghet", "muon",
))
#: A negation after the name counts when a verb of liking follows: "J doesn't like tennis".
_NEGATIONS = frozenset(("doesn't", "doesnt", "didn't", "didnt", "never", "can't", "cant", "cannot", "won't", "wont",
                        "không", "chưa", "chẳng", "khong", "chua"))
_LIKING = frozenset(("like", "love", "enjoy", "want", "eat", "drink", "speak", "hate", "thích", "ăn", "uống", "muốn",
                     "yêu", "ghét", "thich", "an", "uong", "muon", "ghet"))
#: What "NAME's …" must name for NAME to be a person ("Minh's birthday", not "Sông Hồng's latency").
_PERSONAL = frozenset((
    "birthday", "wife", "husband", "partner", "name", "age", "phone", "email", "address", "favourite", "favorite",
    "job", "kids", "kid", "son", "daughter", "mom", "mum", "dad", "mother", "father", "parents", "brother", "sister",
    "boyfriend", "girlfriend", "friend", "friends", "dog", "cat", "allergy", "allergies", "diet", "hobby",
    "hobbies", "wedding", "anniversary", "family", "house", "flat", "apartment", "car", "school", "team", "boss",
    "health", "surgery", "flight",
))
#: Capitalised words that are not someone else's name.
_NOT_NAMES = frozenset((
    "i", "i'm", "im", "i've", "ive", "i'd", "id", "user", "users", "owner", "the", "a", "an", "my", "our", "we",
    "you", "he", "she", "they", "it", "this", "that", "these", "those", "there", "here", "bestie", "assistant",
    "always", "never", "please", "remember", "note", "call", "keep", "avoid", "don't", "dont", "do", "prefers",
    "likes", "loves", "uses", "lives", "works", "wants", "needs", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december", "english", "vietnamese", "french", "today", "tomorrow",
    "yesterday", "everyone", "everybody", "nobody", "someone", "people", "ok", "okay", "yes", "no", "also",
    "then", "so", "but", "and", "if", "when", "after", "before", "now", "from", "since", "until",
    # Vietnamese pronouns and function words, as written (folded, "mình" would be the name Minh)
    "tôi", "mình", "em", "anh", "chị", "tớ", "tao", "bọn", "chúng", "ông", "bà", "cô", "chú", "mọi", "người",
    "ai", "cả", "nhà", "gia", "hôm", "sáng", "tối", "lúc", "khi", "nếu", "vì", "nhưng", "và", "hay", "thì", "là",
    "toi", "to", "ban", "bạn",
))


def _not_a_name(word: str) -> bool:
    lowered = word.lower().strip("'’")
    return lowered in _NOT_NAMES or fold(lowered) in _NOT_NAMES and lowered.isascii()


def _name_at(nfc: str, start: int) -> str | None:
    m = _NAME_AFTER.match(nfc, start)
    if not m or nfc.isupper():  # IN CAPITALS, every word looks like a name
        return None
    words = []
    for word in m.group("name").split():
        if not word[0].isupper() or _not_a_name(word) or word.lower() in _VERBS:
            break
        words.append(word)
    return " ".join(words) or None


def _is_owner(name: str, user: str | None) -> bool:
    if user is None:
        return False
    return fold(name) == fold(user) or fold(name).split()[0] == fold(user)


def about_someone_else(text: str, user: str | None = None) -> str | None:
    """The person ``text`` is about when it is not the owner ("J", "my brother", "mẹ tôi"), or
    ``None`` (the owner, or nobody can tell).

    Args:
        text: a memory text.
        user: the owner's user id; a name equal to it is the owner.
    """
    head = view((text or "")[:_HEAD])
    nfc, folded = head.nfc, head.folded
    for pattern in (_REL_EN, _REL_VI):
        m = pattern.match(folded)
        if m:
            name = None if m.groupdict().get("poss") else _name_at(nfc, m.end())
            if name and not _is_owner(name, user):
                return name
            if pattern is _REL_EN:  # one spelling per person: "my dad", however it was written
                return "my " + m.group("rel")
            phrase = nfc[m.start("rel"):m.end()]
            return re.sub(r"\s+(?:tên\s+)?là$", "", phrase.strip())
    return _named_subject(nfc, user)


def _named_subject(nfc: str, user: str | None) -> str | None:
    if nfc.isupper():
        return None
    tokens = _TOKEN.findall(nfc[:_HEAD].lstrip(" \"'“*-•"))[:6]
    name: list[str] = []
    for n, token in enumerate(tokens):
        bare = token.removesuffix("'s").removesuffix("’s")
        word = bare.lower().replace("’", "'")
        following = tokens[n + 1].lower() if n + 1 < len(tokens) else ""
        if name and (word in _VERBS or (word in _NEGATIONS and following in _LIKING)):
            break
        if not bare[:1].isupper() or _not_a_name(bare) or len(name) == 3:
            return None
        name.append(bare)
        if bare != token:  # a possessive counts when a personal thing follows: "Minh's birthday"
            if following not in _PERSONAL:
                return None
            break
    else:
        return None
    if not name:
        return None
    who = " ".join(name)
    if len(name) == len(tokens):  # nothing after the name
        return None
    return None if _is_owner(who, user) else who
