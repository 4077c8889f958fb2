"""The one stripping step for everything the system itself put into a conversation.

A runtime logs what it sent, so the history it hands back carries its own injections: pinned blocks
(``pins.PIN_PREFIXES``), the memory block of ``assembly.build_context`` (wrapped as
``[MEMORY_BLOCK]`` or bare, starting with ``assembly.HEADER``), ``[CONTEXT_SUMMARY …]`` bodies — on
their own lines or flattened onto one. Proposing memories (``proposals``), compression
(``compress``) and the pack (``pack.build_pack``) all go through this module, so an injected
memory is never learned again, never summarised as if the user had said it, and never copied into
the next prompt.

* ``strip_injected(text)``: the text a person wrote, blocks removed (unchanged when there is none).
* ``strip_message(message)``: a message without injected text; ``None`` when nothing of its own is left.
* ``clean_history(messages, supplied=…)``: the whole history: blocks stripped from every turn, pin
  messages kept once (the newest of each prefix) unless the caller supplies that prefix itself, and
  a previous summary kept (its body stripped) for ``compress`` to merge.

Stripping too much is harmless, learning an injected memory again is not: an unterminated block
runs to the end of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bestie_tui.conversation.pins import CONTEXT_SUMMARY, PIN_PREFIXES, is_summary, pin_prefix
from bestie_tui.conversation.sentences import split_sentences
from bestie_tui.store.markers import CORE_TITLE, HEADER, INSTRUCTIONS_TITLE, WORKING_TITLE

_TAGS = sorted({p.strip("[]") for p in PIN_PREFIXES} | {CONTEXT_SUMMARY.strip("[")}, key=len, reverse=True)
_TAG = "|".join(re.escape(t) for t in _TAGS)
# A block is "[TAG" + "]" or " attrs]" … "[/TAG]"; without its closing marker it runs to the end.
_BLOCK = re.compile(r"\[(?P<tag>" + _TAG + r")(?:\]|[ \t][^\]\n]*\]).*?(?:\[/(?P=tag)\]|\Z)", re.DOTALL)
_CLOSING = re.compile(r"\[/(?:" + _TAG + r")\]")
_TITLES = (CORE_TITLE, INSTRUCTIONS_TITLE, WORKING_TITLE)


def _bare_end(text: str, start: int) -> int:
    """End of a bare memory block whose header ends at ``start``: the titles and ``- `` lines that
    follow it. Written on lines, an item is its line. Flattened onto one line, an item runs to the
    next `` - `` or title, and the last one to the end of its first sentence (a memory is one line,
    usually one sentence: what follows it is the person's own text)."""
    pos = start
    flat = not re.match(r"[ \t]*(?:\n|\Z)", text[start:])
    while True:
        rest = text[pos:]
        skip = len(rest) - len(rest.lstrip())
        if flat and "\n" in rest[:skip]:
            return pos  # a flattened block ends with its line
        k = pos + skip
        title = next((t for t in _TITLES if text.startswith(t, k)), None)
        if title:
            pos = k + len(title)
            continue
        if not text.startswith("- ", k):
            return pos
        line_end = text.find("\n", k)
        line_end = len(text) if line_end < 0 else line_end
        if not flat:
            pos = line_end
            continue
        nexts = [i for i in (text.find(" - ", k + 2, line_end), *(text.find(" " + t, k + 2, line_end) for t in _TITLES))
                 if i >= 0]
        if nexts:
            pos = min(nexts)
            continue
        first = split_sentences(text[k + 2:line_end])
        return k + 2 + (text[k + 2:line_end].find(first[0]) + len(first[0]) if first else 0)


def _strip_bare(text: str) -> str:
    out, pos = [], 0
    while True:
        i = text.find(HEADER, pos)
        if i < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:i] + "\n")
        pos = _bare_end(text, i + len(HEADER))


def has_injected(text: str) -> bool:
    """True when ``text`` holds a block the system injected (see ``strip_injected``)."""
    return bool(text) and (bool(_BLOCK.search(text)) or HEADER in text or bool(_CLOSING.search(text)))


def strip_injected(text: str) -> str:
    """``text`` without any pinned, memory (wrapped or bare) or ``[CONTEXT_SUMMARY …]`` block, on
    lines or flattened onto one, and without stray closing markers; blank runs left by a removed
    block collapse. A text without such a block comes back unchanged (its own blank lines too)."""
    if not has_injected(text or ""):
        return text or ""
    stripped = _strip_bare(_CLOSING.sub(" ", _BLOCK.sub(lambda m: "\n" if "\n" in m.group(0) else " ", text)))
    stripped = re.sub(r"\n[ \t]+", "\n", re.sub(r"[ \t]+\n", "\n", re.sub(r"[ \t]{2,}", " ", stripped)))
    return re.sub(r"\n\s*\n+", "\n", stripped).strip()


def _content_of(message: dict[str, Any]) -> Any:
    return message.get("content", message.get("text"))


def strip_message(message: dict[str, Any]) -> dict[str, Any] | None:
    """``message`` with injected blocks removed from its text (a string, or the ``text`` of each
    content part). The same dict when nothing was injected; a copy when something was; ``None`` when
    only injected text was there and the message carries no tool call or tool result."""
    key = "content" if "content" in message else "text"
    content = _content_of(message)
    if isinstance(content, str):
        if not has_injected(content):
            return message
        clean: Any = strip_injected(content)
        empty = not clean
    elif isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        if not any(has_injected(t) for t in texts):
            return message
        clean = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                text = strip_injected(part["text"])
                if text:
                    clean.append({**part, "text": text})
            else:
                clean.append(part)
        empty = not clean
    else:
        return message
    if empty and not (message.get("tool_calls") or message.get("role") == "tool"):
        return None
    return {**message, key: clean if not empty else ""}


@dataclass
class Cleaned:
    """What ``clean_history`` kept. ``messages`` in order, ``positions`` the input index of each;
    ``stripped``: input indices whose text lost injected blocks; ``dropped``: input indices left out
    (only injected text, or a pin the caller supplies or a newer copy replaces); ``kinds``: what was
    removed, counted (``memory block``, ``pin USER_INFO``, ``summary``…)."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    stripped: list[int] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        """``"removed 12 injected blocks (memory block ×12)"`` or ``""``."""
        n = sum(self.kinds.values())
        if not n:
            return ""
        detail = ", ".join(f"{k} ×{v}" for k, v in sorted(self.kinds.items(), key=lambda kv: -kv[1]))
        return f"removed {n} injected block{'s' if n != 1 else ''} ({detail})"


def _count_blocks(text: str, kinds: dict[str, int]) -> None:
    for m in _BLOCK.finditer(text):
        tag = m.group("tag")
        name = {"MEMORY_BLOCK": "memory block", "CONTEXT_SUMMARY": "summary"}.get(tag, f"pin {tag}")
        kinds[name] = kinds.get(name, 0) + 1
    rest = _BLOCK.sub("\n", text)
    if HEADER in rest:
        kinds["memory block"] = kinds.get("memory block", 0) + rest.count(HEADER)


def clean_history(messages: Iterable[dict[str, Any]], *, supplied: Iterable[str] = ()) -> Cleaned:
    """Strip what the system injected from a chat history (see the module docstring).

    Args:
        messages: OpenAI-shaped dicts (already validated), oldest first.
        supplied: pin prefixes the caller adds itself (``build_pack``: its own pins, the memory block
            and artifacts); history copies of those are dropped.

    Returns:
        ``Cleaned``. Untouched messages are the same dicts; a previous ``[CONTEXT_SUMMARY …]`` stays
        (its body stripped of any block quoted in it) so that compression can merge it.
    """
    items = list(messages)
    supplied = set(supplied)
    newest: dict[str, int] = {}
    for i, m in enumerate(items):
        prefix = pin_prefix(m)
        if prefix:
            newest[prefix] = i
    out = Cleaned()
    for i, m in enumerate(items):
        prefix = pin_prefix(m)
        if prefix:
            if prefix in supplied or newest[prefix] != i:
                out.dropped.append(i)
                name = "memory block" if prefix.strip("[]") == "MEMORY_BLOCK" else f"pin {prefix.strip('[]')}"
                out.kinds[name] = out.kinds.get(name, 0) + 1
                continue
            kept: dict[str, Any] | None = m
        elif is_summary(m):
            kept = _clean_summary(m, out.kinds)
        else:
            content = _content_of(m)
            for text in ([content] if isinstance(content, str) else
                         [p.get("text") for p in content if isinstance(p, dict)] if isinstance(content, list) else []):
                if isinstance(text, str) and has_injected(text):
                    _count_blocks(text, out.kinds)
            kept = strip_message(m)
        if kept is None:
            out.dropped.append(i)
            continue
        if kept is not m:
            out.stripped.append(i)
        out.messages.append(kept)
        out.positions.append(i)
    return out


def _clean_summary(message: dict[str, Any], kinds: dict[str, int]) -> dict[str, Any]:
    """A previous summary with any block quoted inside its body removed (the header stays)."""
    content = str(_content_of(message) or "")
    head, sep, body = content.lstrip().partition("\n")
    end = "[/CONTEXT_SUMMARY]"
    inner = body.rstrip()
    inner = inner[: -len(end)] if inner.endswith(end) else inner
    if not has_injected(inner):
        return message
    _count_blocks(inner, kinds)
    return {**message, "content": f"{head}\n{strip_injected(inner)}\n{end}" if sep else content}
