"""Memories proposed from a conversation turn: lasting statements the owner makes about themself.

Every turn goes through the one stripping step first (``injected.strip_injected``), so a memory
that the system injected into the prompt — a memory block, a pin, a summary — is never proposed
(nor reinforced) again. Deliberately narrow: over-remembering is a product bug, so chit-chat and
questions never become proposals.
"""

from __future__ import annotations

import re
from typing import Any

from bestie_tui.conversation.injected import strip_injected
from bestie_tui.conversation.sentences import split_sentences
from bestie_tui.errors import WriteRefusedError
from bestie_tui.store.binding import uses_store

# Lasting statements about oneself, English and Vietnamese.
_DURABLE = re.compile(
    r"\b(?:i\s+(?:always|never|usually|prefer|like|love|hate|dislike|want|need|work|live|use|am|'m)"
    r"|i'm|my\s+(?:name|job|wife|husband|partner|son|daughter|kid|dog|cat|birthday|favou?rite)"
    r"|call\s+me|remember\s+that|please\s+(?:always|never)|from\s+now\s+on"
    r"|we\s+decided|let'?s\s+go\s+with)\b"
    r"|(?:tôi|mình|em|anh)\s+(?:thích|muốn|ghét|là|luôn|không\s+thích|đang\s+làm|sống)|tên\s+(?:tôi|mình)|nhớ\s+là",
    re.IGNORECASE,
)

# The same statements in other languages, read by closed classes: a first-person pronoun or
# possessive (or, where the language drops the subject, a first-person verb form) with a verb of
# preference, residence, work, being or naming. Each group is the grammar of one language, no phrases.
#: Chinese: 我 (我们 for decisions), optional adverbs of degree, frequency or negation, then the verb.
_ZH = re.compile(
    r"我(?:们)?(?:也|都|很|非常|特别|最|比较|真的|一直|总是|从来|从不|平时|通常|经常|还|就|不|没|不太|现在|目前|已经|如今|从小|平常|一般)*"
    r"(?:喜欢|爱|热爱|讨厌|偏好|偏爱|更喜欢|受不了|住|生活|工作|上班|是|叫|姓|用|习惯|需要|想要|决定|对.{1,12}过敏|在.{1,20}(?:工作|上班|住|生活))"
    r"|我的(?:名字|工作|职业|生日|爱好|老婆|妻子|丈夫|老公|孩子|儿子|女儿|狗|猫)")
#: Japanese: a first-person pronoun as topic or subject, or (the subject dropped) a predicate of
#: liking, dislike, residence or work in a sentence whose topic is no one else (no other 「…は」).
_JA_SELF = re.compile(r"(?:私|わたし|わたくし|僕|ぼく|俺|おれ|うち)(?:は|が|の(?:名前|仕事|趣味|誕生日))")
_JA_PREDICATE = re.compile(
    r"(?:が|は|も)(?:大|一番)?(?:好き|嫌い|苦手|得意)|に住んで|に住む|で働いて|に勤めて|と(?:申します|いいます|言います)"
    r"|を(?:使って|飲んで|食べて)(?:います|いる)|アレルギー")
_JA_OTHER_TOPIC = re.compile(r"(?<![私しく僕ぼ俺れち])は")
#: Korean: a first-person pronoun (저/나 with a particle, 제/내 as possessive), or (the subject dropped)
#: a predicate of liking, dislike or residence in a sentence with no other topic (no other 「…은/는」).
_KO_SELF = re.compile(r"(?:^|\s)(?:저는|저도|제가|나는|나도|내가|제\s*이름|내\s*이름|저의|나의)")
_KO_PREDICATE = re.compile(r"좋아(?:해|하|합)|싫어(?:해|하|합)|살(?:아요|고\s*있|아|거든)|삽니다|일(?:해요|하고|합니다)|알레르기")
_KO_OTHER_TOPIC = re.compile(r"\S+(?<!저)(?<!나)[은는](?:\s|$)")
#: German, French and Spanish: a first-person subject (or Spanish's first-person verb forms, which
#: drop it) with a verb of preference, residence, work, being or naming; a first-person possessive
#: with name or work.
_EUROPEAN = re.compile(
    r"\bich\s+(?:\w+\s+)?(?:mag|liebe|hasse|bevorzuge|wohne|lebe|arbeite|bin|heiße|heisse|brauche|nutze|benutze"
    r"|verwende|spreche|trinke|esse|vertrage|möchte|will)\b|\bich\s+\w+\s+(?:gerne?|lieber|nie|immer)\b"
    r"|\bmein(?:e)?\s+(?:name|beruf|arbeit|frau|mann|hund|katze|geburtstag|lieblings\w*)\b"
    r"|\bj['’](?:aime|adore|habite|utilise|ai\s+(?:horreur|un|une|deux|trois)|travaille)\b"
    r"|\bje\s+(?:ne\s+)?(?:suis|préfère|prefere|déteste|deteste|vis|travaille|m['’]appelle|bois|mange|veux|parle"
    r"|supporte|n['’]aime|aime|adore|habite|utilise)\b"
    r"|\bmon\s+(?:nom|prénom|prenom|métier|metier|travail|mari|chien|chat|anniversaire)\b|\bma\s+(?:femme|fille)\b"
    r"|\b(?:me|no\s+me)\s+(?:llamo|gusta|gustan|encanta|encantan|dedico)\b|\bmi\s+(?:nombre|trabajo|esposa|esposo|marido"
    r"|perro|gato|cumpleaños|cumpleanos)\b"
    r"|(?:^|[¡¿]|\byo\s+|\bno\s+|\btambién\s+|\btambien\s+|\bsiempre\s+|\bnunca\s+)(?:vivo|trabajo|soy|prefiero"
    r"|odio|uso|hablo|bebo|como|tengo|estudio)\b",
    re.IGNORECASE,
)
#: Languages ``candidate_statements`` reads (the README names them).
LANGUAGES = ("English", "Vietnamese", "Chinese", "Japanese", "Korean", "German", "French", "Spanish")


def _durable(sentence: str) -> bool:
    """Whether ``sentence`` states something lasting about the speaker, in one of ``LANGUAGES``."""
    if _DURABLE.search(sentence) or _ZH.search(sentence) or _EUROPEAN.search(sentence):
        return True
    if _JA_SELF.search(sentence):
        return True
    if _JA_PREDICATE.search(sentence) and not _JA_OTHER_TOPIC.search(_JA_PREDICATE.sub("", sentence)):
        return True
    if _KO_SELF.search(sentence):
        return True
    return bool(_KO_PREDICATE.search(sentence) and not _KO_OTHER_TOPIC.search(sentence))


_KINDS = (
    (re.compile(r"\b(?:repl|answer|respond|trả\s+lời|language|tiếng|concise|short|formal)", re.I),
     "communication_preference"),
    (re.compile(r"\b(?:we\s+decided|let'?s\s+go\s+with|decid)|我们决定", re.I), "decision"),
    (re.compile(r"\b(?:prefer|like|love|hate|dislike|thích|ghét|mag|liebe|hasse|bevorzug\w*|gerne?|lieber|aime|adore"
                r"|déteste|deteste|préfère|prefere|gusta|gustan|encanta|encantan|odio|prefiero)\b"
                r"|喜欢|爱|讨厌|偏好|好き|嫌い|苦手|좋아|싫어", re.I), "preference"),
    (re.compile(r"\b(?:my\s+name|call\s+me|i\s+am|i'm|tên|tôi\s+là|heiße|heisse|mein\s+name|ich\s+bin"
                r"|m['’]appelle|mon\s+nom|je\s+suis|me\s+llamo|mi\s+nombre|soy)\b"
                r"|我叫|我姓|我是|我的名字|と申します|といいます|の名前|이름|입니다", re.I), "identity"),
)

#: Sentence ends of Chinese and Japanese (full-width), which no space follows.
_CJK_END = re.compile(r"(?<=[。！？])")
#: A CJK character: each counts as a word when a sentence's length is measured.
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _words(sentence: str) -> int:
    """Words of ``sentence``: its space-separated words, a CJK character counting as one."""
    cjk = len(_CJK_CHAR.findall(sentence))
    return len(_CJK_CHAR.sub(" ", sentence).split()) + cjk


def candidate_statements(text: str) -> list[str]:
    """Sentences of ``text`` (after ``strip_injected``) that state something lasting about the
    speaker in one of ``LANGUAGES``; questions and sentences under three words (a CJK character
    counts as one) are left out."""
    out = []
    for line in split_sentences(strip_injected(text)):
        for sentence in _CJK_END.split(line):
            sentence = sentence.strip(" -*•\t")
            if _words(sentence) < 3 or sentence.endswith(("?", "？")):
                continue
            if _durable(sentence) and sentence not in out:
                out.append(sentence)
    return out


def guess_kind(sentence: str) -> str:
    """``communication_preference``, ``decision``, ``preference``, ``identity`` or ``note``."""
    return next((kind for pattern, kind in _KINDS if pattern.search(sentence)), "note")


@uses_store
def propose_from_turn(store, turn: dict[str, Any] | str, *, user: str | None = None,
                      channel: str | None = None, project: str | None = None,
                      session: str | None = None) -> list:
    """Propose memories from one user turn (an OpenAI-shaped message or its text).

    The one stripping step (``injected.strip_injected``) runs first, so recalled memories are never proposed
    (nor reinforced) again. Only ``user`` turns are read: the assistant's words are not the owner's
    facts. Each statement goes through ``store.propose``, so through the one write gate
    (``store.gate.check_write``): a sentence it refuses — a secret, one-off venting, an injected
    block — is skipped (nothing is written), one it queues is pending.

    Returns:
        list of ``ProposalResult`` (``pending``/``approved``/``duplicate``), one per statement.

    Raises:
        PolicyError: memory is paused or writePolicy is deny (from ``store.propose``).
    """
    if isinstance(turn, dict):
        if turn.get("role", "user") != "user":
            return []
        content = turn.get("content", turn.get("text"))
        text = content if isinstance(content, str) else " ".join(
            str(p.get("text", "")) for p in content or [] if isinstance(p, dict))
        user = user or turn.get("user") or turn.get("name")
    else:
        text = str(turn)
    results = []
    for sentence in candidate_statements(text):
        try:
            results.append(store.propose(sentence, guess_kind(sentence), user=user, channel=channel,
                                         project=project, session=session, source="conversation"))
        except WriteRefusedError:  # the gate's refusal (SecretRefusedError is one)
            continue
    return results
