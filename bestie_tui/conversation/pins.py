"""The pinned layer: machine messages with stable, public prefixes.

A pinned message is a ``system`` message whose content is one block::

    [USER_INFO]
    Name: An. Prefers Vietnamese replies.
    [/USER_INFO]

The prefixes below are **public API**: runtimes and parsers match them literally, so changing one is
an API change (add a new constant instead). They include every prefix the second design note
(BeGuru's "Memory, nén history & tầng context") calls public: FE spec, BUILD_STATE, MASTER,
USER_INFO, KYB, project context and resource digest, plus the Engineer pack's PRODUCT_PLAN and
CROSS_STACK segments and our own MEMORY_BLOCK and ARTIFACT. Pins are placed after history
compression and are never summarised. ``[CONTEXT_SUMMARY …]`` (the compressed history) is not a pin
but is machine text too.

Everything the system injects is removed by one step, ``injected.strip_injected`` /
``injected.clean_history``, before proposing memories, compressing or building a pack.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# The prefixes are defined once, in ``store.markers`` (the write gate refuses them in memory text,
# and the store may not import this package); they are re-exported here, where runtimes import them.
from bestie_tui.store.markers import (
    ARTIFACT,
    BUILD_STATE,
    CONTEXT_SUMMARY,
    CROSS_STACK,
    FE_SPEC,
    KYB,
    MASTER,
    MEMORY_BLOCK,
    PIN_PREFIXES,
    PRODUCT_PLAN,
    PROJECT_CONTEXT,
    RESOURCE_DIGEST,
    USER_INFO,
)

#: The seven prefixes the design note lists as public, under the note's own names.
NOTE_PREFIXES: dict[str, str] = {"FE spec": FE_SPEC, "BUILD_STATE": BUILD_STATE, "MASTER": MASTER,
                                 "USER_INFO": USER_INFO, "KYB": KYB, "project context": PROJECT_CONTEXT,
                                 "resource digest": RESOURCE_DIGEST}
#: Short names accepted by the CLI (``--pin user_info=…``) → prefix; the note's spellings
#: (``fe spec``, ``project context``, ``resource digest``) and ``spec``/``digest`` are accepted too.
PIN_KINDS: dict[str, str] = {p.strip("[]").lower(): p for p in PIN_PREFIXES}
PIN_ALIASES: dict[str, str] = {**{name.lower(): p for name, p in NOTE_PREFIXES.items()},
                               "spec": FE_SPEC, "digest": RESOURCE_DIGEST}


def pin_kind(name: str) -> str | None:
    """The prefix a pin name means (``user_info``, ``FE spec``, ``[KYB]``…), or ``None``."""
    key = str(name).strip()
    if key in PIN_PREFIXES:
        return key
    low = key.lower().replace("-", "_")
    return PIN_KINDS.get(low) or PIN_ALIASES.get(low.replace("_", " ")) or PIN_ALIASES.get(low)


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
    Only system messages are machine messages: a user who types ``[USER_INFO]`` makes no pin (and
    ``injected.strip_message`` takes the block out of their text)."""
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


def split_pins(messages: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(pinned messages, the rest)``, each in original order."""
    pins, rest = [], []
    for m in messages:
        (pins if is_pinned(m) else rest).append(m)
    return pins, rest


__all__ = [
    "USER_INFO", "KYB", "PROJECT_CONTEXT", "MEMORY_BLOCK", "FE_SPEC", "PRODUCT_PLAN", "MASTER", "BUILD_STATE",
    "CROSS_STACK", "RESOURCE_DIGEST", "ARTIFACT", "CONTEXT_SUMMARY", "PIN_PREFIXES", "NOTE_PREFIXES", "PIN_KINDS",
    "PIN_ALIASES", "pin_kind", "closing", "make_pin", "pin_prefix", "is_pinned", "is_summary", "split_pins",
]
