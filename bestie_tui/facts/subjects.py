"""Who or what a memory is about: the owner, a named person (with their role: "my wife Linh", "bé
Mai", "anh Tuấn"), or a thing ("the Atlas project", "standup", "nhóm").

``find_subject(tokens)`` returns the ``Subject`` and the position of the first unit after it. A
possessive is followed through: "Mai's birthday" is about Mai (the attribute is ``birthday``),
"Mai's best friend" is about another person (Mai's friend), "my phone" is the owner's.
"""

from __future__ import annotations

from dataclasses import dataclass

from bestie_tui.facts import lexicon_en as en
from bestie_tui.facts import lexicon_vi as vi
from bestie_tui.facts.tokens import Tokens, Unit
from bestie_tui.text import words as textmod

#: Copulas, auxiliaries and modals (words as written): where a subject ends.
COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "being", "am", "become", "became", "becomes", "là"})
AUX = frozenset({"can", "could", "will", "would", "should", "must", "may", "might", "do", "does", "did", "has",
                 "have", "had", "not", "never", "no", "only", "always", "usually", "still", "also", "just",
                 "really", "often", "sometimes", "rarely", "shall", "ought", "cannot", "ever", "already"})
#: Common English verbs (stems): the end of a thing's noun phrase ("The contract ends …").
VERBS = frozenset("""
end start use happen take run leave come go get make keep give see know think feel want need like work live
play teach learn speak read write eat drink cook drive ride walk sleep wake organis organiz manag lead handl
support wear plan migrat mov move switch chang join approv decid agre bill charg cost pay open close skip deploy
ship push releas review meet call check send receiv prefer hate love enjoy own grow train prepar happen goe go
went took had ate drank tri stay ask pet visit turn becom quit stop report belong run runs deliv handov hand
""".split())
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "our", "my", "every", "each", "some"})
_VI_TIME = frozenset({"sáng", "trưa", "chiều", "tối", "đêm", "thứ", "chủ", "nhật", "hôm", "nay", "qua", "tuần",
                      "này", "trước", "năm", "ngoái", "mỗi", "hàng", "hằng", "ngày", "nào", "cũng", "từ", "giờ",
                      "hai", "ba", "tư", "sáu", "bảy", "cn", "hiện", "tháng", "sau", "đó", "lúc", "vào", "khi"})
_VI_VERBS = frozenset({"là", "có", "ở", "sống", "làm", "dùng", "học", "đi", "ăn", "uống", "thích", "nói", "biết",
                       "bị", "nuôi", "mở", "dạy", "chạy", "quyết", "định", "vừa", "mới", "đã", "đang", "sẽ",
                       "không", "chưa", "chỉ", "vẫn", "còn", "hút", "tập", "chuyển", "đổi", "dọn", "nghỉ", "cao",
                       "nặng", "lên", "tròn", "cưới", "kết", "lập", "thức", "ngủ", "dậy", "phải", "từng", "cho",
                       "được", "muốn", "cần", "chủ", "quản", "phụ", "trách", "lùi", "họp", "gọi", "trả", "xưng",
                       "luôn", "sợ", "ghét", "yêu", "mê", "thử", "lỡ", "sang", "bay", "tên", "sinh", "nằm",
                       "viết", "nhận", "gửi", "bàn", "dị"})


def is_copula(u: Unit) -> bool:
    """"is", "are", "là" — and "la", its spelling in Vietnamese written without diacritics."""
    return u.words in COPULAS or u.vi and u.fold == "la"


@dataclass(frozen=True)
class Subject:
    """``kind``: ``owner``, ``person`` or ``thing``; ``name``: a person's name (folded); ``role``: a
    person's relation to the owner or to ``of`` (``wife``, ``friend``); ``words``: a thing's words;
    ``possessed``: what of the subject the text is about ("my phone" → ``phone``)."""

    kind: str
    name: str | None = None
    role: str | None = None
    of: str | None = None
    words: frozenset[str] = frozenset()
    possessed: tuple[str, ...] = ()

    def label(self) -> str:
        if self.kind == "owner":
            return "owner"
        if self.kind == "person":
            parts = [p for p in (self.name.title() if self.name else None,
                                 f"{self.of.title()}'s {self.role}" if self.of and self.role else
                                 (f"owner's {self.role}" if self.role else None)) if p]
            return " / ".join(parts) if parts else "a person"
        return " ".join(sorted(self.words)) or "a thing"


OWNER = Subject("owner")
#: Nouns that name the kind of a thing rather than which one ("the Kite project", "Kite's deadline").
GENERIC_THINGS = frozenset({"project", "deadline", "deliver", "team", "company", "meeting", "schedule", "plan",
                            "date", "report", "task", "launch", "release", "thing", "work", "job", "quy"})


def _is_name(u: Unit, nxt: Unit | None, first: bool, flagged: bool = False) -> bool:
    """A capitalised word outside the lexicon that is followed by a verb, a possessive or a name."""
    if not u.cap or not u.is_word or u.is_cue or u.key in en.PERSON_CONCEPTS or u.words[:1].isdigit() or flagged:
        return False
    if first and u.words in en.EVENT_VERBS:
        return False
    w = u.words
    if w in en.SELF or w.endswith(("ing", "ed")) and first:
        return False
    if w in _PRONOUNS:
        return False
    if w in en.FUNCTION or w in vi.FUNCTION:  # "An turned 6": a name that is also a word, before a verb
        return nxt is not None and (nxt.is_cue or nxt.words in COPULAS or nxt.stem in VERBS) and not nxt.cap
    if u.key in _CONCEPT_NAMES or textmod.fold(w) in _MONTHS_DAYS:
        return False
    if nxt is None:
        return not first
    if nxt.words in ("are", "were") and w.endswith("s"):
        return False  # "Teams are billed …": a plural noun, not a name
    if not first:
        return True
    return (nxt.key in ("'s", "(", ",", "and") or nxt.is_cue or nxt.words in COPULAS or nxt.words in AUX
            or nxt.stem in VERBS or nxt.words in _VI_VERBS or nxt.key in ("from", "nha", "nhà")
            or (nxt.cap and nxt.is_word))


#: Pronouns of other people (a group or someone unnamed), never the owner.
_OTHERS = frozenset({"they", "people", "everyone", "everybody", "someone", "somebody", "nobody", "others"})
_ANIMALS = frozenset({"dog", "cat", "parrot", "hamster", "horse", "rabbit", "goldfish", "bird", "pet"})
_PRONOUNS = frozenset({"it", "this", "that", "there", "here", "what", "who", "they", "these", "those", "he", "she",
                       "we", "you", "i", "one", "someone", "everyone", "nobody", "people"})
_MONTHS_DAYS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                          "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
                          "saturday", "sunday", "mon", "tue", "wed", "thu", "fri", "sat", "sun"})
_CONCEPT_NAMES = frozenset(v for v in list(en.PHRASES.values()) + list(en.EXACT.values()) if not v.startswith("@")) \
    | frozenset(v for v in vi.PHRASES.values() if not v.startswith("@"))


def _skip_lead(us: tuple[Unit, ...], tk: Tokens) -> int:
    """Position after what can open a text before its subject: hedges ("I think"), fixes ("Got
    tested:"), time phrases ("From now on,", "Năm ngoái", "After the reorg"), "please"."""
    lead: set[int] = set()
    pronoun_spans: set[int] = set()
    for flag in ("hedges", "fix", "event_times", "habits", "change", "plan", "long_ago", "ended"):
        for span in tk.flags.get(flag, ()):
            if flag == "ended" and len(span) == 1 and us[span[0]].words in en.NEGATIONS:
                continue
            lead.update(span)
            if len(span) > 1:
                pronoun_spans.update(span)
    # a fronted phrase before a comma, with no verb or pronoun in it: "Starting this quarter, …"
    for k in range(1, min(7, len(us))):
        if us[k].key == ",":
            head = us[:k]
            tail = us[k + 1] if k + 1 < len(us) else None
            pronoun_after = tail is not None and (tail.key in ("i", "we") or tail.words in vi.SELF)
            if pronoun_after and not any(u.key in en.SELF or u.words in vi.SELF for u in head):
                return k + 1  # "Hôm qua đi sinh nhật bạn, tôi có ăn …"
            if not any(u.words in COPULAS or u.key in en.SELF or u.words in vi.SELF or u.stem in VERBS
                       and u.words not in ("start", "starting") or u.is_cue and u.key not in ("@like",)
                       or u.words in _VI_VERBS or u.vi and u.cap for u in head):
                return k + 1
            break
    i = 0
    while i < len(us):
        u = us[i]
        if i in lead and (u.key not in ("i", "toi", "we", "my") or i in pronoun_spans):
            i += 1
            continue
        if u.key in (",", ":") or u.words in ("please", "so", "also", "ok", "pls", "hãy") or u.words in _VI_TIME \
                or u.words in _MONTHS_DAYS \
                or u.words.rstrip("s") in _MONTHS_DAYS or u.words[:1].isdigit():
            i += 1
            continue
        if u.key == "@at" and u.vi and i <= 3:  # "Hôm nay ở tiệc công ty tôi thử …": a place before the subject
            ahead = next((j for j in range(i + 1, min(len(us), i + 6)) if us[j].words in vi.SELF), None)
            if ahead is not None:
                i = ahead
                continue
        if u.words in ("after", "before", "since", "from", "starting", "following", "during") and i == 0:
            j = i + 1
            while j < len(us) and j < i + 5 and not (us[j].key in en.SELF or us[j].cap and us[j].is_word
                                                       and us[j].words not in _MONTHS_DAYS):
                j += 1
            if j < len(us) and j < i + 5:
                i = j
                continue
        break
    return i


#: Verbs that open a telegraphic note about the owner ("Quit Fortnite for good", "Joined Vela Labs in 2021").
_TELEGRAPHIC = frozenset({"quit", "stop", "start", "join", "switch", "move", "rebook", "left", "gave", "got",
                          "becam", "promot", "reschedul", "chang", "migrat", "turn"})


def find_subject(tk: Tokens) -> tuple[Subject, int]:
    """The subject of the first clause and the position after it (see the module docstring)."""
    us = tk.units
    i = _skip_lead(us, tk)
    determined = False
    while i < len(us) and us[i].words in _DETERMINERS - {"our", "my"}:
        i += 1
        determined = True
    if i >= len(us):
        return OWNER, len(us)
    flagged = {j for spans in tk.flags.values() for span in spans for j in span}
    if i > 0 and 0 in flagged and us[0].cap and us[0].words not in ("now", "today", "yesterday", "these", "from") \
            and tk.lang == "en" and us[0].stem in _TELEGRAPHIC:
        return OWNER, i
    if tk.lang == "vi":
        return _vi_subject(us, i)
    return _en_subject(us, i, flagged, determined)


def _take_possessed(us, i: int) -> tuple[tuple[str, ...], int]:
    """Words after a possessive up to a copula or verb: ("favourite", "band"), ("phone",)."""
    out: list[str] = []
    while i < len(us) and us[i].key not in (",", ":", ".", ";") and not is_copula(us[i]) \
            and us[i].words not in AUX and (not out or us[i].stem not in VERBS) and (not out or not us[i].is_cue):
        if us[i].key not in _DETERMINERS:
            out.append(us[i].key)
        i += 1
        if len(out) >= 3:
            break
    return tuple(out), i


def _en_subject(us, i: int, flagged: set[int], determined: bool = False) -> tuple[Subject, int]:
    u = us[i]
    nxt = us[i + 1] if i + 1 < len(us) else None
    if u.key in ("my", "our") or (u.key in ("user", "owner") and nxt is not None and nxt.key == "'s"):
        j = i + 1 if u.key in ("my", "our") else i + 2
        if j < len(us) and us[j].key in en.PERSON_CONCEPTS:
            role = us[j].key
            j += 1
            if j < len(us) and us[j].key == "(":
                j += 1
            name = None
            if j < len(us) and us[j].cap and us[j].is_word and not us[j].is_cue and us[j].words not in COPULAS:
                name = us[j].fold
                j += 1
            after = us[j + 1] if j + 1 < len(us) else None
            if j < len(us) and (us[j].words in COPULAS or us[j].key == ":") and name is None and after is not None \
                    and (after.cap or after.words in en.HONORIFICS or after.key == "@named"):
                return Subject("owner", possessed=(role,)), j  # "my manager is Rosa" (not "my son was born")
            if j < len(us) and us[j].key == "'s":
                possessed, k = _take_possessed(us, j + 1)  # "my son's birthday"
                return Subject("person", name=name, role=role, possessed=possessed), k
            return Subject("person", name=name, role=role), j
        if j < len(us) and us[j].key in _ANIMALS and j + 1 < len(us) and (us[j + 1].stem in VERBS or us[j + 1].is_cue
                                                                            or us[j + 1].words in COPULAS):
            return Subject("person", role=us[j].key), j + 1  # "My dog likes hilly hiking", "My dog is vegan": the dog's
        if j + 2 < len(us) and us[j].is_word and not us[j].is_cue and us[j + 1].key == "'s":
            # "My dog's name is Bucket", "My shop's name is …": the dog's, the shop's, not the owner's
            possessed, k = _take_possessed(us, j + 2)
            if us[j].key in _ANIMALS:
                return Subject("person", role=us[j].key, possessed=possessed), k
            return Subject("thing", words=frozenset({us[j].key}), possessed=possessed, of="my"), k
        possessed, j = _take_possessed(us, j)
        return Subject("owner", possessed=possessed), j
    if u.key in ("his", "her", "their") and nxt is not None and nxt.key in en.PERSON_CONCEPTS:
        return Subject("person", role=nxt.key, of=u.key), i + 2  # "His father speaks Chinese"
    if u.key in en.SELF or u.key in ("user", "owner") or u.key in en.THIRD and u.key in ("he", "she"):
        if u.key in ("he", "she"):
            return Subject("person", name=None, role=u.key), i + 1
        j = i + 1
        if j < len(us) and us[j].key == "and" and j + 1 < len(us):
            j += 2
        return OWNER, j
    if u.words in en.HONORIFICS and nxt is not None and nxt.cap:
        return Subject("person", name=nxt.fold), i + 2
    if u.words in _OTHERS and not any("me" in v.words.split() for v in us[i + 1:i + 4]):
        # "They do not approve of …": others, not the owner ("People call me Tom" is the owner's name)
        return Subject("person", name=u.words), i + 1
    if not determined and _is_name(u, nxt, first=(i == 0 or not us[i - 1].is_word), flagged=i in flagged):
        name = u.fold
        j = i + 1
        if nxt is not None and nxt.key == "'s":
            j += 1
            if j < len(us) and us[j].key in en.PERSON_CONCEPTS:
                return Subject("person", role=us[j].key, of=name), j + 1
            possessed, j = _take_possessed(us, j)
            return Subject("person", name=name, possessed=possessed), j
        if nxt is not None and nxt.key == "and" and i + 2 < len(us) and us[i + 2].key == "i":
            return OWNER, i + 3  # "Tom and I got married"
        if nxt is not None and nxt.key == "(":
            j = i + 2
            while j < len(us) and us[j].key != ")":
                j += 1
            j += 1
        while j < len(us) and us[j].cap and us[j].is_word and not us[j].is_cue and us[j].words not in COPULAS:
            j += 1  # a surname
        if j < len(us) and us[j].key == "from":
            j += 2  # "Sarah from finance"
        return Subject("person", name=name), j
    if (u.words in en.EVENT_VERBS or u.words.endswith("ed") and u.stem in VERBS or u.stem in VERBS
            and u.cap and i == 0 and u.words not in ("deploy", "deploys")):
        return OWNER, i  # telegraphic: "Took a cab …", "Stayed up until 3 am …"
    # a thing: its words up to the verb
    words: list[str] = []
    j = i
    while j < len(us):
        v = us[j]
        if v.key in (",", ":", ".", ";", "(", ")") or v.words in COPULAS or v.words in AUX or v.is_cue \
                or (v.stem in VERBS and words) or v.key in ("'s",) and words:
            break
        if v.is_word and v.key not in _DETERMINERS and v.key not in en.FUNCTION and not v.words[:1].isdigit() \
                and v.words not in _MONTHS_DAYS:
            words.append(v.key)
        elif words and v.words.isdigit():
            words.append(v.words)  # which one: "room 12", "item number 40" (not room 14, not item 1)
        j += 1
    if j < len(us) and us[j].key == "'s":
        possessed, k = _take_possessed(us, j + 1)
        return Subject("thing", words=frozenset(words), possessed=possessed), k
    if not words:
        return OWNER, i  # telegraphic: "Quit Fortnite for good", "Switched to Safari"
    if j >= len(us) or us[j].key in (".", ";", "!", "?"):
        return Subject("thing"), j  # a noun phrase alone ("red apple pie"): no subject, no predicate
    return Subject("thing", words=frozenset(words)), j


def _vi_subject(us, i: int) -> tuple[Subject, int]:
    if i > 0 and us[i].key not in en.PERSON_CONCEPTS and not us[i].cap:
        # after a time or place ("Hôm nay ở tiệc công ty tôi thử …"), the pronoun close by is the subject
        ahead = next((j for j in range(i, min(len(us), i + 3)) if us[j].words in vi.SELF), None)
        if ahead is not None:
            i = ahead
    u = us[i]
    nxt = us[i + 1] if i + 1 < len(us) else None
    w = u.words
    if w in vi.SELF or textmod.fold(w) in ("toi", "minh", "nguoi dung") or u.key in ("family",):
        return OWNER, i + 1
    if u.is_cue and " toi" in f" {u.fold} ":
        return OWNER, i  # a cue that holds the owner: "Tên tôi là Minh" ("my name is"), read from the cue
    if u.is_cue and nxt is not None and nxt.key in en.PERSON_CONCEPTS and i + 2 < len(us) \
            and us[i + 2].fold in ("toi", "minh"):
        return Subject("person", role=nxt.key, possessed=(u.key,)), i + 3  # "Sinh nhật vợ tôi …"
    if u.key in en.PERSON_CONCEPTS or u.key in ("child",):
        j = i + 1
        if j < len(us) and us[j].fold in ("toi", "minh", "nha toi", "cua toi"):
            j += 1
            if j < len(us) and us[j].words == "là":
                return Subject("owner", possessed=(u.key,)), j  # "Trưởng nhóm tôi là anh Khoa"
            name = None
            if j < len(us) and us[j].key == "@named" and j + 1 < len(us) and us[j + 1].cap:
                j += 1  # "Con gái tôi tên Mai, …"
            if j < len(us) and us[j].cap and us[j].is_word:
                name = us[j].fold
                j += 1
            return Subject("person", name=name, role=u.key), j
    if w in vi.HONORIFICS and nxt is not None and nxt.cap and nxt.is_word:
        return Subject("person", name=nxt.fold, role=None), i + 2
    if u.cap and u.is_word and not u.is_cue and textmod.fold(w) not in _VI_TIME_FOLDED \
            and u.key not in _CONCEPT_NAMES and w not in _VI_VERBS:
        name = textmod.fold(w)
        j = i + 1
        if j < len(us) and us[j].fold in ("nha toi", "nha", "toi"):
            j += 1
            if j < len(us) and us[j].fold == "toi":
                j += 1
        return Subject("person", name=name), j
    # a thing (nhóm, công ty, dự án Kite …), or a possessed attribute before "của tôi"
    words: list[str] = []
    j = i
    while j < len(us):
        v = us[j]
        if v.key in (",", ":", ".", ";") or v.words in _VI_VERBS or v.is_cue and words \
                or v.fold in _FOLDED_VI_STOPS:
            break
        if v.fold in ("cua", "toi") and words:
            if v.fold == "cua":
                j += 1
            if j < len(us) and us[j].fold == "toi":
                return Subject("owner", possessed=tuple(words)), j + 1
            break
        if v.is_word and v.words not in vi.FUNCTION:
            words.append(v.key)
        j += 1
    if j < len(us) and us[j].fold == "toi" and words:
        return Subject("owner", possessed=tuple(words)), j + 1
    if not words:
        return OWNER, i
    return Subject("thing", words=frozenset(words)), j


_VI_TIME_FOLDED = frozenset(textmod.fold(w) for w in _VI_TIME)
#: In a text without diacritics, folded negations and verbs end a thing's words too.
_FOLDED_VI_STOPS = frozenset(textmod.fold(w) for w in vi.NEGATIONS | {"là", "có", "ở", "cho", "phải", "được", "dùng",
                                                                      "làm", "sống", "đi", "học"})


def same_subject(a: Subject, b: Subject, content_a: frozenset[str], content_b: frozenset[str]) -> str:
    """``same``, ``different`` or ``unknown``: owner and owner are the same; two people are the same
    when a name or (without names) a role agrees; two things when the words of one are among the
    other's (or among the other text's words)."""
    if a.kind == "owner" and b.kind == "owner":
        return "same"
    if a.kind == "person" and b.kind == "person":
        if (a.of or b.of) and (a.of != b.of or a.role != b.role):
            return "different"
        if a.name and b.name:
            return "same" if a.name == b.name or a.name in b.name.split() or b.name in a.name.split() else "different"
        if a.role and b.role:
            return "same" if a.role == b.role else "different"
        if (a.name and not a.role and b.role and not b.name) or (b.name and not b.role and a.role and not a.name):
            return "different"  # "my brother" / "Linh": nothing says they are one person
        return "unknown"
    if a.kind == "thing" and b.kind == "thing":
        if not a.words or not b.words:
            return "unknown"
        if a.words <= b.words or b.words <= a.words or a.words <= content_b or b.words <= content_a:
            return "same"
        only_a, only_b = a.words - b.words - GENERIC_THINGS, b.words - a.words - GENERIC_THINGS
        if only_a and only_b:
            return "different"  # "the mobile app" / "the web app", "design review" / "budget review"
        return "different" if not (a.words & b.words) else "unknown"
    if {a.kind, b.kind} == {"owner", "person"}:
        return "different"
    thing = a if a.kind == "thing" else b
    if {a.kind, b.kind} == {"owner", "thing"} and thing.of == "my" and thing.possessed:
        return "different"  # "My shop's name is …" / "My name is Lee"
    return "unknown"


__all__ = ["Subject", "OWNER", "find_subject", "same_subject", "COPULAS", "AUX", "VERBS", "is_copula"]
