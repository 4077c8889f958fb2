"""How to answer: whether a memory tells the assistant how to reply — in which language, at what
length, in what tone or format, or how to address the owner — rather than what the owner's life
holds. Such a memory applies to every answer (a standing instruction, ``retrieval.assembly``).

``manner_of(text)`` returns the aspect (``language``, ``length``, ``tone``, ``format``, ``address``)
or ``None``. It is read from closed classes and general categories, English and Vietnamese:

* a **form of address**: "call me / her X", "address me as", "refer to me as", "gọi mình là",
  "xưng em" (a pronoun of address after *xưng*) — not "call me back" or "call me at 9";
* a **reply word** (answer, reply, respond, explain, tone, wording; "trả lời", "phản hồi",
  "giải thích", "văn phong") together with a **manner word** of one of the categories: a language
  name ("Vietnamese", "tiếng Anh"), a length ("short", "concise", "detailed", "ngắn gọn"), a tone
  ("formal", "casual", "lịch sự", "thẳng vào vấn đề", "vòng vo") or a format ("bullet points",
  "markdown", "emoji", "có dấu", "đánh số");
* an **imperative to the assistant** (keep, use, be, avoid, always, never, please; "hãy", "đừng")
  with a manner word that means nothing but a way of writing ("bullet", "emoji", "formal",
  "concise"; not "long" or "list", which name other things too);
* the fact reader's own attributes of replies (``reply language``, ``reply length``, ``emoji``).

Vietnamese phrases are matched with their marks when the text carries marks, and folded when it is
typed without them, so "co dau" (typed bare) reads as "có dấu" but "cô dâu" (a bride) does not.
"""

from __future__ import annotations

import re
from functools import lru_cache

from bestie_tui.facts.attributes import LANGUAGES
from bestie_tui.facts.reader import read
from bestie_tui.text.words import fold

#: The aspects ``manner_of`` names, in the order it looks for them.
ASPECTS = ("address", "language", "length", "tone", "format")

# Words that make a text about the assistant's replies (EN stems by prefix, VI phrases whole).
_REPLY_EN = ("answer", "repl", "respon", "explain", "explanation", "tone", "wording", "phrasing")
_REPLY_PHRASES_EN = ("talk to me", "speak to me", "write to me", "message me", "text me", "talk with me",
                     "speak with me")
_REPLY_VI = ("trả lời", "viết", "phản hồi", "giải thích", "văn phong", "giọng văn", "giọng điệu", "nói chuyện",
             "nhắn cho mình", "nhắn cho tôi", "nhắn cho em", "nhắn tin cho mình", "nhắn tin cho tôi", "liệt kê")

# Manner categories. EN: whole words. VI: phrases.
_LENGTH_EN = frozenset({"short", "shorter", "brief", "briefly", "concise", "concisely", "terse", "succinct",
                        "long", "longer", "lengthy", "verbose", "detailed", "detail", "sentence", "sentences",
                        "paragraph", "paragraphs", "words", "one-liner", "oneliner", "tldr"})
_TONE_EN = frozenset({"formal", "formally", "informal", "casual", "casually", "friendly", "polite", "politely",
                      "warm", "blunt", "direct", "playful", "serious", "professional", "gentle", "honest",
                      "tone", "humour", "humor", "sarcasm", "sarcastic", "cheerful"})
_FORMAT_EN = frozenset({"bullet", "bullets", "list", "lists", "table", "tables", "markdown", "heading",
                        "headings", "emoji", "emojis", "emoticon", "emoticons", "numbered", "bold", "plain",
                        "diacritics", "accents", "step", "steps", "example", "examples", "summary", "code",
                        "format", "formatting", "latex"})
_LENGTH_VI = ("ngắn gọn", "ngắn", "súc tích", "dài dòng", "dài", "chi tiết", "vài câu", "một câu")
_TONE_VI = ("trang trọng", "lịch sự", "thân mật", "thân thiện", "nghiêm túc", "vui vẻ", "thẳng thắn", "nhẹ nhàng",
            "thẳng vào vấn đề", "vào thẳng vấn đề", "vòng vo", "rào đón", "lan man")
_FORMAT_VI = ("gạch đầu dòng", "danh sách", "bảng", "ví dụ", "từng bước", "có dấu", "không dấu",
              "biểu tượng cảm xúc", "emoji", "in đậm", "định dạng", "đánh số")
#: Manner words that mean nothing but a way of writing: enough with an imperative alone.
_PLAIN_MANNER_EN = frozenset({"bullet", "bullets", "markdown", "emoji", "emojis", "emoticon", "emoticons",
                              "formal", "formally", "informal", "casual", "casually", "polite", "politely",
                              "concise", "concisely", "brief", "briefly", "terse", "succinct", "verbose",
                              "diacritics", "headings", "tldr"})
_PLAIN_MANNER_VI = ("gạch đầu dòng", "ngắn gọn", "súc tích", "có dấu", "không dấu", "trang trọng",
                    "lịch sự", "biểu tượng cảm xúc", "emoji", "vòng vo", "rào đón", "lan man", "thẳng vào vấn đề",
                    "vào thẳng vấn đề", "đánh số")
#: English phrases that mean nothing but a way of writing ("get to the point", "no beating around the bush").
_PLAIN_MANNER_PHRASES_EN = ("get to the point", "straight to the point", "right to the point", "around the bush",
                            "no waffle", "without waffle", "no fluff")
_IMPERATIVE_EN = frozenset({"keep", "use", "be", "avoid", "always", "never", "please", "dont", "no", "stop",
                            "skip", "prefer", "prefers", "wants", "want", "likes", "dislikes", "hates"})
_IMPERATIVE_VI = ("hãy", "đừng", "luôn", "không dùng", "dùng", "tránh", "thích", "muốn")
# Address: EN "call|address|refer to" + object pronoun; VI "gọi <pronoun> là", "xưng <pronoun>".
_OBJECT_PRONOUNS = r"(?:me|her|him|them|us)"
_NOT_A_NAME = frozenset({"back", "at", "on", "in", "before", "after", "when", "if", "later", "tomorrow", "today",
                         "tonight", "now", "again", "about", "from", "with", "every", "each", "up", "by",
                         "during", "between", "only", "once", "twice", "anytime", "whenever", "until", "and",
                         "or", "but", "to", "for", "the", "a", "an"})
_ADDRESS_EN = re.compile(rf"\b(?:call|calls|address|addresses|refer\s+to)\s+{_OBJECT_PRONOUNS}\s+(?:as\s+)?"
                         r"['\"‘“]?([^\W\d_][\w'.-]*)")
_VI_PRONOUNS = ("mình", "tôi", "em", "anh", "chị", "tớ", "con", "cháu", "bạn", "cô", "chú", "ông", "bà")
_ADDRESS_VI = ("xưng hô",) + tuple(f"xưng {p}" for p in _VI_PRONOUNS) + tuple(f"gọi {p} là" for p in _VI_PRONOUNS)
_READER_ATTRIBUTES = {"reply language": "language", "reply length": "length", "emoji": "format"}
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")


def manner_of(text: str) -> str | None:
    """The aspect of replies ``text`` sets — ``"address"``, ``"language"``, ``"length"``, ``"tone"`` or
    ``"format"`` — or ``None`` when it is not about how to answer (module docstring). Pure; cached
    per text; linear in ``len(text)`` besides the fact reader's own read."""
    return _manner(text or "")


@lru_cache(maxsize=4096)
def _manner(text: str) -> str | None:
    low = " ".join(text.lower().replace("’", "'").split())
    marked = fold(low) != low  # typed with marks: Vietnamese phrases must keep theirs
    hay = low if marked else fold(low)

    def has(phrases: tuple[str, ...]) -> bool:
        return any(re.search(rf"(?<!\w){re.escape(p if marked else fold(p))}(?!\w)", hay) for p in phrases)

    words = [w.replace("'", "") for w in _WORD.findall(fold(low))]
    word_set = set(words)
    if _address(low, hay, has):
        return "address"
    reply = (any(w.startswith(_REPLY_EN) for w in words) or has(_REPLY_PHRASES_EN) or has(_REPLY_VI))
    languages = bool(word_set & LANGUAGES) or re.search(r"(?<!\w)tiếng\s+\w" if marked else r"(?<!\w)tieng\s+\w", hay)
    aspects = (("language", bool(languages)),
               ("length", bool(word_set & _LENGTH_EN) or has(_LENGTH_VI)),
               ("tone", bool(word_set & _TONE_EN) or has(_TONE_VI)),
               ("format", bool(word_set & _FORMAT_EN) or has(_FORMAT_VI)))
    if reply:
        found = next((name for name, present in aspects if present), None)
        if found:
            return found
    imperative = bool(words) and (words[0] in _IMPERATIVE_EN or has(_IMPERATIVE_VI))
    if imperative and (word_set & _PLAIN_MANNER_EN or has(_PLAIN_MANNER_VI) or has(_PLAIN_MANNER_PHRASES_EN)):
        return next((name for name, present in aspects if present), "format")
    return _from_reader(text)


def _address(low: str, hay: str, has) -> bool:
    for m in _ADDRESS_EN.finditer(low):
        if fold(m.group(1)).strip("'.") not in _NOT_A_NAME:
            return True
    return has(_ADDRESS_VI)


def _from_reader(text: str) -> str | None:
    """The fact reader's attributes of replies (it reads "wants Vietnamese-first" as a reply language)."""
    for fact in read(text).facts:
        aspect = _READER_ATTRIBUTES.get(fact.attribute)
        if aspect:
            return aspect
    return None


__all__ = ["ASPECTS", "manner_of"]
