"""The pinned layer: machine messages with stable, public prefixes, and their stripping.

A pinned message is a ``system`` message whose content is one block::

    [USER_INFO]
    Name: An. Prefers Vietnamese replies.
    [/USER_INFO]

The prefixes below are **public API**: runtimes and parsers match them literally, so changing one is
an API change (add a new constant instead). Pins are placed after history compression and are never
summarised. ``[CONTEXT_SUMMARY …]`` (the compressed history) is not a pin but is machine text too.

Before anything proposes memories from a conversation, ``strip_injected`` removes every pinned,
injected-memory and summary block, so a recalled memory is never learned again
(``propose_from_turn`` does this).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from bestie_tui.store.binding import uses_store

#: What the runtime knows about the owner (name, language, time zone…).
USER_INFO = "[USER_INFO]"
#: The current project's goal and constraints.
PROJECT_CONTEXT = "[PROJECT_CONTEXT]"
#: Where a multi-turn job stands (done, next, blocked).
BUILD_STATE = "[BUILD_STATE]"
#: The long-term memory block rendered by ``assembly.build_context``.
MEMORY_BLOCK = "[MEMORY_BLOCK]"
#: A digest of resources the conversation refers to (links, uploaded files).
RESOURCE_DIGEST = "[RESOURCE_DIGEST]"
#: An excerpt of an on-disk artifact (plan or state file); its first line is ``path: …``.
ARTIFACT = "[ARTIFACT]"
#: Opening of the compressed-history message: ``[CONTEXT_SUMMARY turns=N from=… to=…]``.
CONTEXT_SUMMARY = "[CONTEXT_SUMMARY"

#: Every pin prefix, in the order a context pack places them.
PIN_PREFIXES: tuple[str, ...] = (USER_INFO, PROJECT_CONTEXT, MEMORY_BLOCK, BUILD_STATE, RESOURCE_DIGEST, ARTIFACT)
#: Short names accepted by the CLI (``--pin user_info=…``) → prefix.
PIN_KINDS: dict[str, str] = {p.strip("[]").lower(): p for p in PIN_PREFIXES}

_TAGS = [p.strip("[]") for p in PIN_PREFIXES] + [CONTEXT_SUMMARY.strip("[")]
# A block is "[TAG" + "]" or " attrs]" … "[/TAG]". An unterminated block runs to the end of the text:
# stripping too much is harmless, learning an injected memory again is not.
_BLOCK = re.compile(
    r"\[(?P<tag>" + "|".join(_TAGS) + r")(?:\]|\s[^\]\n]*\]).*?(?:\[/(?P=tag)\]|\Z)", re.DOTALL)


def closing(prefix: str) -> str:
    """The closing marker of a block: ``[USER_INFO]`` → ``[/USER_INFO]``."""
    return "[/" + prefix.strip("[]") + "]"


def make_pin(prefix: str, body: str) -> dict[str, str]:
    """A pinned ``system`` message ``{"role": "system", "content": "[PREFIX]\\nbody\\n[/PREFIX]"}``.

    Raises:
        InvalidValueError: ``prefix`` is not one of ``PIN_PREFIXES``.
    """
    if prefix not in PIN_PREFIXES:
        from bestie_tui.errors import InvalidValueError

        raise InvalidValueError(f"unknown pin prefix {prefix!r}; use one of {', '.join(PIN_PREFIXES)}")
    return {"role": "system", "content": f"{prefix}\n{body.strip()}\n{closing(prefix)}"}


def _content(message: dict[str, Any]) -> str:
    content = message.get("content", message.get("text"))
    return content if isinstance(content, str) else ""


def pin_prefix(message: dict[str, Any]) -> str | None:
    """The pin prefix a ``system`` message starts with (leading whitespace ignored), or ``None``.
    Only system messages are machine messages: a user who types ``[USER_INFO]`` is just talking."""
    if message.get("role") != "system":
        return None
    text = _content(message).lstrip()
    return next((p for p in PIN_PREFIXES if text.startswith(p)), None)


def is_pinned(message: dict[str, Any]) -> bool:
    """True for a machine message of the pinned layer (never summarised)."""
    return pin_prefix(message) is not None


def is_summary(message: dict[str, Any]) -> bool:
    """True for a ``system`` message that is a ``[CONTEXT_SUMMARY …]`` (a previous compression's)."""
    if message.get("role") != "system":
        return False
    text = _content(message).lstrip()
    return text.startswith(CONTEXT_SUMMARY) and text[len(CONTEXT_SUMMARY):][:1] in ("]", " ")


def strip_injected(text: str) -> str:
    """``text`` without any pinned, injected-memory or ``[CONTEXT_SUMMARY …]`` block (blank runs
    collapsed). A memory block injected bare — ``assembly.build_context(...).render()`` without the
    ``[MEMORY_BLOCK]`` wrapper — is recognised by its header and removed too. What is left is what a
    person actually wrote."""
    stripped = _BLOCK.sub("\n", text or "")
    stripped = _bare_memory_block().sub("\n", stripped)
    return re.sub(r"\n\s*\n+", "\n", stripped).strip()


@lru_cache(maxsize=1)
def _bare_memory_block() -> re.Pattern:
    from bestie_tui.retrieval.assembly import CORE_TITLE, HEADER, WORKING_TITLE

    titles = "|".join(re.escape(t) for t in (CORE_TITLE, WORKING_TITLE))
    return re.compile(re.escape(HEADER) + r"(?:\n[ \t]*(?:" + titles + r"|- [^\n]*))*")


# ------------------------------------------------------------------ proposals from a conversation
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# Lasting statements about oneself, English and Vietnamese. Deliberately narrow: over-remembering
# is a product bug, so chit-chat and questions never become proposals.
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
    for sentence in _SENTENCE.split(strip_injected(text)):
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

    Pinned and injected-memory blocks are stripped first, so recalled memories are never proposed
    (nor reinforced) again. Only ``user`` turns are read: the assistant's words are not the owner's
    facts. A sentence the secret guard refuses is skipped (nothing is written).

    Returns:
        list of ``ProposalResult`` (``pending``/``approved``/``duplicate``), one per statement.

    Raises:
        PolicyError: memory is paused or writePolicy is deny (from ``store.propose``).
    """
    from bestie_tui.errors import SecretRefusedError

    if isinstance(turn, dict):
        if turn.get("role", "user") != "user":
            return []
        text = _content(turn)
        user = user or turn.get("user") or turn.get("name")
    else:
        text = str(turn)
    results = []
    for sentence in candidate_statements(text):
        try:
            results.append(store.propose(sentence, guess_kind(sentence), user=user, channel=channel,
                                         project=project, session=session, source="conversation"))
        except SecretRefusedError:
            continue
    return results


def split_pins(messages: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(pinned messages, the rest)``, each in original order."""
    pins, rest = [], []
    for m in messages:
        (pins if is_pinned(m) else rest).append(m)
    return pins, rest
