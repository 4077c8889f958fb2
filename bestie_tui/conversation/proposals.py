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
_KINDS = (
    (re.compile(r"\b(?:repl|answer|respond|trả\s+lời|language|tiếng|concise|short|formal)", re.I),
     "communication_preference"),
    (re.compile(r"\b(?:we\s+decided|let'?s\s+go\s+with|decid)", re.I), "decision"),
    (re.compile(r"\b(?:prefer|like|love|hate|dislike|thích|ghét)", re.I), "preference"),
    (re.compile(r"\b(?:my\s+name|call\s+me|i\s+am|i'm|tên|tôi\s+là)", re.I), "identity"),
)


def candidate_statements(text: str) -> list[str]:
    """Sentences of ``text`` (after ``strip_injected``) that state something lasting about the
    speaker; questions and sentences under three words are left out."""
    out = []
    for sentence in split_sentences(strip_injected(text)):
        sentence = sentence.strip(" -*•\t")
        if len(sentence.split()) < 3 or sentence.endswith("?"):
            continue
        if _DURABLE.search(sentence) and sentence not in out:
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
