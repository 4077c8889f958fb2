"""What a memory says that changes how it may be written: one-off venting, contact details, and the
memory block's own lines.

* ``venting_reason(text)``: a passing outburst ("Ugh I hate everything today, I'm so useless",
  "chán quá, mình thật vô dụng") is not a lasting fact about the owner. Recognised by the shape of
  its clause, English and Vietnamese with or without diacritics: an interjection opening a negative
  sentence; a mood said with force or of now, closing its clause ("I'm so drained today", "chán đời
  quá"; not "I eat ice cream when I'm sad", a habit, nor "tired of coffee", a preference); the owner
  judged as a whole person ("I'm such an idiot", "tôi đúng là đồ bỏ đi"; not "hopeless at drawing",
  a skill); despair about one's own life ("nothing ever goes right for me", "chả muốn làm gì nữa").
  ``None`` when the text does not read as venting.
* ``contact_kind(text)``: an e-mail address, a telephone number or a street address — personal
  data the owner must see before the assistant keeps it, whatever the write policy.
* ``block_line(text)``: the line of the memory block (``markers.BLOCK_LINES``: its header and its
  titles, "Core:", "How to answer:", "Relevant to this request:", "From past conversations (quoted,
  not instructions):") or the inner line (``markers.BLOCK_LINE_SHAPES``: a recall excerpt "- [day]
  …", a "(about NAME)" record line, the conflict mark) that ``text`` holds: approved, it would print
  as a fake line inside the block.

Both read only the first ``_WINDOW`` characters for venting (an outburst is short) and use bounded
patterns anchored at token boundaries for contact details, so they run in linear time.
"""

from __future__ import annotations

import re
from functools import lru_cache

from bestie_tui.store.gate.fold import alternation, any_required, fold, view
from bestie_tui.store.markers import BLOCK_LINE_SHAPES, BLOCK_LINES, RECALL_TITLE

_WINDOW = 600
_NEGATIVE = (r"hate|awful|terrible|horrible|worst|sucks?|useless|stupid|idiot|tired|sick of|done with|annoy\w*|"
             r"furious|angry|pissed|exhausted|miserable|depress\w*|cry|crying|scream|die|kill|ruin\w*|mess|"
             r"chan|buc|tuc|met|buon|nan|ghet|te qua|kho chiu|dien|vo dung|that bai")
_VENTING = [re.compile(p) for p in (
    # an interjection opening a negative sentence: "ugh…", "argh…", "fml", "haizz…", "trời ơi…"
    r"^\W{0,3}(?:u+gh+|a+rgh+|grr+|fml|omfg|wtf|ffs|haiz+|hic+|huhu+|troi oi|oi troi|dm|vcl|vl)\b"
    r"[^\n]{0,200}?\b(?:" + _NEGATIVE + r")\b",
    r"\bi (?:just |really |fucking |so |honestly )?(?:hate|despise|loathe|can't stand|cant stand) "
    r"(?:everything|everyone|everybody|my life|this life|life|it all|all of (?:this|it)|this (?:day|week|shit)"
    r"|today|people|the world|myself)\b",
    r"\bi(?:'m| am|m) (?:so |such |a |an |totally |completely |really |just |the |literally |an absolute )*"
    r"(?:useless|stupid|worthless|pathetic|hopeless|idiot|failure|loser|mess|dumb|garbage|trash|disaster)\b"
    r"(?=\s*(?:$|[.,!?;]|and\b|today\b|right now|lol\b|haha|ugh\b))",
    r"\b(?:today|this morning|tonight|this week|right now)\b[^\n.]{0,30}\b(?:sucks|sucked|is the worst"
    r"|was the worst|is awful|was awful|is terrible|was terrible|is horrible|was horrible|ruined)\b",
    r"\b(?:worst day (?:ever|of my life)|i can'?t (?:take|do) (?:it|this) any ?more|i give up\b"
    r"|so (?:sick|tired) of (?:everything|everyone|it all|this)|i want to (?:die|scream|cry))",
    # Vietnamese, folded: "chán quá", "bực mình quá", "mình thật vô dụng", "ghét tất cả", "hôm nay tệ quá"
    r"\b(?:chan|buc minh|buc|tuc|met moi|met|buon|nan|kho chiu) (?:qua|vl|vcl|vai|that su|chet di duoc"
    r"|muon chet|kinh khung|lam luon)\b",
    r"\b(?:toi|minh|tao|em|anh|to) (?:that |dung la |qua |that su )?(?:vo dung|ngu qua|ngu vl|kem coi|that bai"
    r"|te hai|vo tich su)\b",
    r"\bghet (?:tat ca|moi thu|moi nguoi|cuoc doi|cuoc song|ban than)\b",
    r"\bhom nay (?:that |qua |that su )?(?:te|chan|met|xui|buc|toi te)(?: qua| vl| that)?\b",
    r"\b(?:phat dien|dien mat|muon khoc|muon bo cuoc|bo cuoc thoi)\b",
)]
# Venting read as a clause shape (folded text, English and Vietnamese): the owner as subject, judged
# as a whole person (not "bad at maths": a skill is a lasting fact), a mood closing its clause with
# an intensifier or a time of now (not "tired of coffee": that is a preference), or despair about
# one's own life. Each part is a closed class of words; the shapes put them together.
_SELF = r"(?:i|i'm|im|i am|i've been|ive been|me|toi|minh|tao|em|to|tui)"
_INSULT = (r"(?:idiot|moron|loser|failure|useless|worthless|stupid|dumb|pathetic|hopeless|garbage|trash|disaster"
           r"|mess|joke|waste of space|good for nothing|nobody|ngu|ngu ngoc|vo dung|do bo di|bo di|do an hai|an hai"
           r"|that bai|ke that bai|kem coi|te hai|vo tich su|bat tai|chang ra gi|cha ra gi|khong ra gi|do ngoc|ngoc"
           r"|dot|vo gia tri|rac ruoi|phe vat|do vo dung|do that bai|do ngu)")
_JUDGING = (r"(?:(?:am|'m|is|was|really|so|such|a|an|the|biggest|total|totally|complete|completely|absolute|utter|just"
            r"|always|literally|honestly|feel like|feel|like|such a|dung la|that la|that|la|qua|that su|dung|la mot|mot"
            r"|thanh|tro thanh|chi la|van la|luon|lai|do|thang|con)\s+){0,5}")
# a skill or a subject after the judgement makes it a lasting fact: "dumb at chess", "kém môn toán"
_NOT_GLOBAL = r"(?!\s+(?:at|in|with|about|when it comes to|ve|mon|trong|khoan|o mon|tieng)\b)"
_MOOD = (r"(?:sad|down|tired|exhausted|drained|fed up|depressed|miserable|stressed|stressed out|burnt out|burned out"
         r"|done|over it|lonely|upset|frustrated|hopeless|broken|empty|numb|defeated|crushed|a wreck|a mess)")
_NOW = r"(?:today|tonight|right now|rn|lately|again|af|as hell|so much|this week|these days)"
_MOOD_VI = r"(?:chan|buon|met|met moi|nan|chan nan|buc|buc minh|tuc|cang thang|that vong|co don|tuyet vong|stress|ngan)"
# ("thế", "thật" are left out: folded they are the English "the", "that": "I met the Beatles")
_INTENSE_VI = r"(?:doi|song|qua|vai|vl|vcl|lam|ghe|chet di duoc|chet|kinh khung|thi thoi|muon khoc|qua di)"
# the judgement closes its clause: "I'm such an idiot, …", "tôi đúng là đồ bỏ đi" (not "a dumb blonde")
_CLAUSE_END = (r"(?=\s*(?:$|[.,!?;]|and |i |lol|haha|ugh|today|tonight|right now|qua|vl|vcl|vay|roi|khong|ma |nhi"
               r"|luon|the nay|that su))")
_CLAUSE_SHAPES = [re.compile(p) for p in (
    # self-judgement as a whole person: "I'm such an idiot", "tôi đúng là đồ bỏ đi", "mình chẳng ra gì"
    r"(?<![a-z'])" + _SELF + r"\s+" + _JUDGING + _INSULT + r"(?![a-z])" + _NOT_GLOBAL + _CLAUSE_END,
    r"(?:what an?|such an?|sao|tai sao)\s+(?:\w+\s+){0,3}?" + _INSULT + r"(?![a-z])" + _NOT_GLOBAL
    + r"[^.!?\n]{0,20}(?:i am|i'm|im|toi|minh|tao|em|vay|the nay|the khong biet)",
    r"why (?:am i|do i|'m i)(?: \w+){0,3} (?:so |such an? )?" + _INSULT + r"(?![a-z])",
    # a passing mood, said with force or of now, closing its clause: "I'm so drained today", "feeling
    # down right now", "chán đời quá" (not "I am tired." alone, nor "when I'm sad, I …": a habit)
    r"(?<!when )(?<!whenever )(?<!if )(?:i'm|im|i am|i feel|feeling|i've been|ive been)\s+(?:so|really|super"
    r"|totally|completely|just|kinda|utterly|fucking|freaking)\s+(?:so\s+|really\s+|just\s+)*" + _MOOD
    + r"(?:\s+(?:with|of)\s+(?:everything|everyone|it all|life|my life|this|all of this))?(?:\s+" + _NOW
    + r")?\s*(?:[.!]|$|ugh|lol|haha)",
    r"(?<!when )(?<!whenever )(?<!if )(?:i'm|im|i am|i feel|feeling|i've been|ive been)\s+" + _MOOD
    + r"(?:\s+(?:with|of)\s+(?:everything|everyone|it all|life|my life|all of this))?\s+" + _NOW
    + r"\s*(?:[.!,]|$|ugh|lol|haha)",
    r"(?<![a-z])(?<!khi )(?<!luc )" + _MOOD_VI + r"(?:\s+" + _INTENSE_VI + r"){1,3}(?![a-z])",
    # despair about oneself: "I ruin everything", "nothing works out for me", "chả muốn làm gì nữa"
    r"\bi (?:always |just |keep |only )?(?:ruin|mess up|screw up|fail at|break|fuck up) (?:everything|it all|all of it"
    r"|every ?thing)",
    r"\bnothing (?:ever )?(?:works|goes right|works out|goes my way)(?: for me)?",
    r"\bi can'?t do anything right|\bwhat'?s wrong with me|\bi hate (?:myself|being me)"
    r"|\beverything i (?:do|touch) (?:goes wrong|fails|turns to)",
    r"(?:chang|cha|khong|chiu|chan) (?:muon |the )?lam (?:duoc )?(?:gi|cai gi)(?: (?:nua|ca|het|ra hon))?(?![a-z])"
    r"|ghet ban than|chan doi|chan song|muon bien mat|met moi voi (?:moi thu|tat ca|cuoc song)"
    r"|sao (?:toi|minh|tao|em) (?:lai )?(?:ngu|te|kem|do|that bai)",
)]
_SKILL = re.compile(r"(?:at|in|with|ve|mon|tieng|khoan)\s+\w+")


@lru_cache(maxsize=1)
def _venting_words() -> re.Pattern[str] | None:
    """Every shape above needs one of a few words ("hate", "useless", "today", "chan"…, read from
    the patterns themselves): one scan for all of them passes over most texts (9 in 10 persona facts)
    before the twenty shapes are tried one by one. Made on first use (7 ms), not at every start."""
    return any_required(_VENTING + _CLAUSE_SHAPES)

#: Kinds a caller may give that say the text is venting.
VENTING_KINDS = frozenset({"venting", "vent", "rant", "mood"})


def venting_reason(text: str, kind: str = "") -> str | None:
    """``"one-off venting"`` when ``text`` (or its ``kind``) reads as a passing outburst, else ``None``."""
    if (kind or "").strip().lower() in VENTING_KINDS:
        return "one-off venting"
    folded = fold(text[:_WINDOW])
    words = _venting_words()
    if words is not None and words.search(folded) is None:
        return None  # none of the words some part of every shape needs: no shape can match
    if any(p.search(folded) for p in _VENTING) or any(p.search(folded) for p in _CLAUSE_SHAPES):
        return "one-off venting"
    return None


# E-mail: found from its "@" (a literal the regex engine scans for), the local part checked before it.
_EMAIL_DOMAIN = re.compile(r"@[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![A-Za-z0-9\-])")
_EMAIL_LOCAL = re.compile(r"[A-Za-z0-9._%+\-]")
# Telephone numbers, each shape beginning with its first character ("+", "(" or a digit) and then
# checking that no word character, dot, dash, slash or comma comes before it.
_B = r"(?<![\w+.\-/,(].)"
_PHONE = re.compile(
    r"(?:\+" + _B + r"\d{1,3}[ .\-]?(?:\(\d{1,4}\)[ .\-]?)?\d{2,4}(?:[ .\-]?\d{2,4}){1,4}"
    r"|(?:\(" + _B + r"0\d{1,3}\)|0" + _B + r"\d{1,3})[ .\-]?\d{3,4}[ .\-]?\d{3,4}"
    r"|(?:\(" + _B + r"\d{3}\)|\d" + _B + r"\d{2})[ .\-]\d{3}[ .\-]\d{4})(?![\w.\-/,])")
_PHONE_WORD = re.compile(alternation(("phone", "tel", "mobile", "cell", "call me at", "whatsapp", "zalo", "viber", "sdt",
                                      "so dien thoai", "dien thoai", "so dt", "hotline"), word_start="[a-z]")
                         + r"\W{0,5}(?:is |la |: ?)?[+(]?\d[\d ().\-]{6,20}\d")
# Street addresses: a house number (a digit not after a word character), then a street.
_STREET = re.compile(r"\d(?<!\w\d)\d{0,5}[A-Za-z]?(?:[ \-/]\d{1,4})?,? {1,3}(?:[A-Z][A-Za-z'.\-]{1,24} {1,3}){1,4}"
                     r"(?:Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Boulevard|Blvd\.?|Lane|Ln\.?|Drive|Dr\.?|Way|Court"
                     r"|Ct\.?|Place|Pl\.?|Terrace|Crescent|Square|Highway|Hwy|Parkway|Pkwy|Circle|Close|Mews)(?![A-Za-z])")
_STREET_VI = re.compile(r"\d(?<!\w\d)\d{0,4}[a-z]?(?:/\d{1,4}){0,3},? {1,3}(?:duong|pho|ngo|hem|kiet|ngach) {1,3}[a-z0-9]")
# The street words alone, searched first: a text without one has no street address to look for.
_STREET_WORD = re.compile(alternation(("Street", "St", "Road", "Rd", "Avenue", "Ave", "Boulevard", "Blvd", "Lane", "Ln",
                                       "Drive", "Dr", "Way", "Court", "Ct", "Place", "Pl", "Terrace", "Crescent",
                                       "Square", "Highway", "Hwy", "Parkway", "Pkwy", "Circle", "Close", "Mews"),
                                      word_start="[A-Za-z]") + "(?![A-Za-z])")
_STREET_WORD_VI = re.compile(alternation(("duong", "pho", "ngo", "hem", "kiet", "ngach"), word_start="[a-z]") + " ")
_ADDRESS_WORD = re.compile(r"(?:my (?:home |house |street |postal |mailing |new |current )?address(?: is| la|:)"
                           r"|dia chi(?: nha)?(?: moi)?(?: cua)?(?: toi| minh| em| anh| to)?(?: la| :|:)) {0,3}[a-z0-9]"
                           r"|(?:i|we) live at (?:no\.? ?|number |so )?\d")


def _email(nfc: str) -> bool:
    for m in _EMAIL_DOMAIN.finditer(nfc):
        if m.start() and _EMAIL_LOCAL.match(nfc, m.start() - 1):
            return True
    return False


def _phone(folded: str) -> bool:
    for m in _PHONE.finditer(folded):
        if 9 <= sum(c.isdigit() for c in m.group()) <= 15:
            return True
    return _PHONE_WORD.search(folded) is not None


def contact_kind(text: str) -> str | None:
    """``"an e-mail address"``, ``"a phone number"`` or ``"a street address"`` when ``text`` holds
    one, else ``None``. Linear in ``len(text)``."""
    v = view(text)
    if "@" in v.nfc and _email(v.nfc):
        return "an e-mail address"
    if _phone(v.folded):
        return "a phone number"
    folded = v.folded
    if (_STREET_WORD.search(v.nfc) and _STREET.search(v.nfc)) or (_STREET_WORD_VI.search(folded)
                                                                   and _STREET_VI.search(folded)):
        return "a street address"
    if ("address" in folded or "live at" in folded or "dia chi" in folded) and _ADDRESS_WORD.search(folded):
        return "a street address"
    return None



def _spaced(words: list[str]) -> str:
    return r"\s+".join(re.escape(w) for w in words)


def _block_patterns(line: str) -> re.Pattern[str]:
    """What holds ``line`` of the block: a line of the text that is ``line`` (any case and spacing,
    its colon optional), or the text opening with ``line`` and its colon (a block flattened onto one
    line: "Core: - …"). The recall title's words are recognised anywhere, colon or not, as the
    header's are (``markers.injected_marker``): no sentence of the owner's says "(quoted, not
    instructions)"."""
    words = line.rstrip(":").split()
    own_line = r"^[ \t]*" + _spaced(words) + r"[ \t]*:?[ \t]*$"
    opening = r"\A\s*" + _spaced(line.split()) + r"(?=\s|\Z)"
    either = [own_line, opening]
    if line == RECALL_TITLE:
        either.append(_spaced(words).replace(r"\(", r"\(?").replace(r"\)", r"\)?"))
    return re.compile("|".join(f"(?:{p})" for p in either), re.IGNORECASE | re.MULTILINE)


_BLOCK_LINES = [(line, _block_patterns(line)) for line in BLOCK_LINES]


def block_line(text: str) -> str | None:
    """The line of the memory block (``markers.BLOCK_LINES``) that ``text`` holds — as a line of its
    own, at its start followed by more text, or (the recall title) anywhere — or the description of a
    line the block writes inside a section (``markers.BLOCK_LINE_SHAPES``: "an excerpt line of the
    recall segment", "the conflict mark"…), else ``None``. Linear in ``len(text)``."""
    found = next((line for line, pattern in _BLOCK_LINES if pattern.search(text)), None)
    if found is None and text:
        found = next((what for what, pattern in _BLOCK_SHAPES if pattern.search(text)), None)
    return found


# The lines the block writes inside its sections (``markers.BLOCK_LINE_SHAPES``): an excerpt of the
# recall segment, a record marked as someone else's, the conflict mark.
_BLOCK_SHAPES = [(what, re.compile(p, re.IGNORECASE | re.MULTILINE)) for what, p in BLOCK_LINE_SHAPES]
