"""Who a statement is about, when it is not the owner.

"My friend J said he doesn't like tennis" is J's preference, not the owner's; kept as the owner's
trait it would mislead every later reply. ``about_someone_else(text, user)`` names that person
from the start of the text, where a statement says who it is about:

* a relation of the owner's, English or Vietnamese, with its name if one follows: "my brother
  Nam lives in Đà Nẵng" → ``Nam``, "my mom's birthday is in June" → ``my mom``, "mẹ tôi thích hoa
  hồng" → ``mẹ tôi``, "bạn mình là Lan không ăn cay" → ``Lan``;
* a capitalised name followed by a verb of saying, liking or doing ("Linh loves durian", "J said
  …", "Lan thích cà phê") or by a possessive ("Minh's birthday is …").

The clause is read past its openers of time and place ("Yesterday", "Last week,", "At dinner",
"Hôm qua", "Tối qua ở quán,"), and a reported clause counts wherever its reporting verb or its
attribution sits ("Jazz is boring, my coworker Linh says", "According to my mom, …", "Theo mẹ tôi
thì …", "Hôm qua em trai tôi bảo …"), with or without Vietnamese marks.

Pets are not "someone else" here (a pet's name is the owner's fact). A name equal to the owner's
own user id, or to a name the owner gave as their own ("My name is Alice": ``decision.owner_names``),
is the owner. Only the first ``_HEAD`` characters are read, so the cost does not grow with the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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


def _is_owner(name: str, user: str | None, names: frozenset[str] = frozenset()) -> bool:
    folded = fold(name)
    if folded in names or folded.split()[0] in names:
        return True
    if user is None:
        return False
    return folded == fold(user) or folded.split()[0] == fold(user)


# Openers of time and place before the clause's subject: "Yesterday", "Last week,", "At dinner",
# "On the way home,", "Hôm qua", "Tối qua ở quán,". A preposition's phrase runs to a comma or to the
# subject ("my …", a capitalised name); at most three openers are read.
_OPENER_EN = re.compile(
    r"\W{0,3}(?i:(?:yesterday|today|tonight|earlier|recently|lately|apparently|also|and|so|but|oh|btw|by the way|fyi"
    r"|this morning|this afternoon|this evening|the other day|once|again)(?![a-z])"
    r"|(?:last|this|next|that|one) (?:night|week|weekend|month|year|time|morning|evening|day|summer|winter)"
    r"|(?:\d{1,2}|two|three|four|five|a few|some) (?:days|weeks|months|years) ago"
    r"|(?:on|at|in|during|after|before|over|around|from|since|when|while|as|back in|at the) [^,.;:!?\n]{1,40}?)"
    r"(?=,|\s(?i:my|our|the user's|the owner's) |\s[A-Z])(?![a-z])[ \t]*,?[ \t]*")
_OPENER_VI = re.compile(
    r"\W{0,3}(?:hom qua|hom nay|hom kia|hom truoc|toi qua|toi nay|sang nay|chieu nay|trua nay|dem qua|tuan truoc"
    r"|tuan nay|thang truoc|nam ngoai|nam truoc|luc nay|vua roi|bua truoc|dao nay|gan day|hoi truoc"
    r"|(?:luc|trong|o|khi|sau|truoc|tai|hoi|bua) [^,.;:!?\n]{1,30}?(?=,|\s(?:" + "|".join(_RELATIONS_VI) + r") (?:cua )?"
    r"(?:toi|minh|em|anh|tao|to)(?![a-z])))(?![a-z])[ \t]*,?[ \t]*")


def _after_openers(nfc: str, folded: str) -> int:
    """Where the clause's subject starts once its openers of time and place are passed (0: none)."""
    pos = 0
    for _ in range(3):
        m = _OPENER_EN.match(nfc, pos) if nfc[pos:pos + 1].isascii() else None
        m = m if m and m.end() > pos else _OPENER_VI.match(folded, pos)
        if not m or m.end() <= pos:
            break
        pos = m.end()
    return pos


#: Verbs that report someone's words or thoughts: wherever they sit in the clause, the person before
#: them is the one the statement is about ("…, my sister said", "my friend Nam once told me…").
_REPORTING = ("said", "says", "told", "tells", "mentioned", "mentions", "thinks", "thought", "claims", "claimed",
              "swears", "swore", "admitted", "admits", "complained", "complains", "explained", "insists", "insisted",
              "added", "joked", "confessed", "wrote", "texted", "noi", "bao", "ke", "than", "khoe", "tam su",
              "nhan", "viet")
_REPORTED_EN = re.compile(r"(?:^|[,;:]\s*|\s)(?:my|our) (?P<rel>" + "|".join(map(re.escape, _RELATIONS_EN))
                          + r")(?![a-z\-])(?P<gap>(?: [^\s,.;:!?]{1,24}){0,3}?) (?:" + "|".join(_REPORTING) + r")(?![a-z])")
_REPORTED_VI = re.compile(r"(?:^|[,;:]\s*|\s)(?P<who>(?P<rel>" + "|".join(_RELATIONS_VI) + r") (?:cua )?"
                          r"(?:toi|minh|em|anh|tao|to))(?![a-z])(?P<gap>(?: [^\s,.;:!?]{1,16}){0,2}?) (?:"
                          + "|".join(_REPORTING) + r")(?![a-z])")
_HEARD_EN = re.compile(r"(?:according to|heard from|per|as) (?:my|our) (?P<rel>" + "|".join(map(re.escape, _RELATIONS_EN))
                       + r")(?![a-z\-])")
_HEARD_VI = re.compile(r"(?:theo(?: loi)?|nghe|nhu) (?P<who>(?P<rel>" + "|".join(_RELATIONS_VI)
                       + r") (?:cua )?(?:toi|minh|em|anh|tao|to))(?![a-z])")


def _reported(nfc: str, folded: str, user: str | None, names: frozenset[str]) -> str | None:
    """The relation (and name) of someone whose words the clause reports, wherever the reporting verb
    or the attribution sits: "…, my sister said", "According to my mom, …", "theo mẹ tôi thì …"."""
    for pattern in (_HEARD_EN, _REPORTED_EN):
        m = pattern.search(folded)
        if m:
            gap = m.groupdict().get("gap") or ""
            name = _name_at(nfc, m.end("rel")) if gap.strip() and folded.isascii() else None
            if name and not _is_owner(name, user, names):
                return name
            return "my " + m.group("rel")
    for pattern in (_HEARD_VI, _REPORTED_VI):
        m = pattern.search(folded)
        if m:
            return nfc[m.start("who"):m.end("who")] if len(nfc) == len(folded) else m.group("who")
    return None


def about_someone_else(text: str, user: str | None = None, names: frozenset[str] = frozenset()) -> str | None:
    """The person ``text`` is about when it is not the owner ("J", "my brother", "mẹ tôi"), or
    ``None`` (the owner, or nobody can tell). The clause is read past its openers of time and place
    ("Yesterday at dinner, my sister said …"), and a reported clause counts wherever its reporting
    verb sits ("…, my friend Nam said", "According to my mom, …").

    Args:
        text: a memory text.
        user: the owner's user id; a name equal to it is the owner.
        names: the owner's own names, folded (``"alice"``: "Alice likes durian" is the owner's).
    """
    head = view((text or "")[:_HEAD])
    nfc, folded = head.nfc, head.folded
    start = _after_openers(nfc, folded) if head.aligned else 0
    found = _about_at(nfc[start:], folded[start:], user, names)
    if found is None and start:
        found = _about_at(nfc, folded, user, names)
    return found or _reported(nfc, folded, user, names)


def _about_at(nfc: str, folded: str, user: str | None, names: frozenset[str]) -> str | None:
    for pattern in (_REL_EN, _REL_VI):
        m = pattern.match(folded)
        if m:
            name = None if m.groupdict().get("poss") else _name_at(nfc, m.end())
            if name and not _is_owner(name, user, names):
                return name
            if pattern is _REL_EN:  # one spelling per person: "my dad", however it was written
                return "my " + m.group("rel")
            phrase = nfc[m.start("rel"):m.end()]
            return re.sub(r"\s+(?:tên\s+)?là$", "", phrase.strip())
    return _named_subject(nfc, user, names)


def _named_subject(nfc: str, user: str | None, names: frozenset[str] = frozenset()) -> str | None:
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
    return None if _is_owner(who, user, names) else who


# How the owner states their own name: "My name is Alice", "I'm called Alice", "call me Alice",
# "tên tôi là Lan", "mình tên Lan" (folded).
_OWN_NAME = re.compile(r"(?:my name is|my name's|i am called|i'm called|im called|call me|people call me"
                       r"|ten (?:cua )?(?:toi|minh|em|anh|to) la|(?:toi|minh|em|anh|to) ten(?: la)?"
                       r"|goi (?:toi|minh|em|anh|to) la)\s+(?P<name>[a-z][a-z'\-]{0,24}(?: [a-z][a-z'\-]{0,24}){0,2})")
_NAME_STOP = re.compile(r"\s+(?:and|but|or|from|at|in|va|nhung|o|the|a)(?:\s.*)?$")
#: The owner's names are read from at most this many of a user's approved memories that mention one.
NAME_ROWS = 50
#: What such a memory holds (``LIKE``, so ASCII letters in any case): the words a name is given with.
NAME_CUES = ("name", "tên", "ten", "call", "gọi")


def names_given(texts: Iterable[str]) -> frozenset[str]:
    """The names the owner gives as their own in ``texts`` ("My name is Alice", "tên tôi là Lan"),
    folded, each with its first word alone ("alice nguyen", "alice")."""
    names: set[str] = set()
    for text in texts:
        for m in _OWN_NAME.finditer(fold(text)):
            name = _NAME_STOP.sub("", m.group("name")).strip()
            if name:
                names.add(name)
                names.add(name.split()[0])
    return frozenset(names)
