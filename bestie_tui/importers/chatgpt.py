"""ChatGPT's data export, ``conversations.json``: a list of conversations, each a ``mapping`` of
message nodes (``{"message": {"author": {"role"}, "content": {"parts"}, "create_time"}, "parent"}``)
whose visible thread runs from ``current_node`` back to the root.

Only the history comes in: the user's and the assistant's visible messages with their times, the
conversation's id as the session. System messages (the instructions ChatGPT puts before a
conversation, the owner's custom instructions) and every message marked
``metadata.is_visually_hidden_from_conversation`` are left out: the owner never saw them in the
thread, and history recall must not quote them as something said. Nothing becomes a memory here;
``propose_from_turn`` or the owner decides that.
"""

from __future__ import annotations

from typing import Any

from bestie_tui.errors import ImportFormatError
from bestie_tui.importers.common import envelope, utc_iso

#: The roles of the messages a conversation shows its owner (``system`` and ``tool`` are not shown).
VISIBLE_ROLES = ("user", "assistant")


def looks_like(data: Any) -> bool:
    return isinstance(data, list) and bool(data) and all(isinstance(c, dict) and "mapping" in c for c in data)


def _thread(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The messages of the visible thread, oldest first (all of them by time without ``current_node``)."""
    if isinstance(current, str) and current in mapping:
        chain, seen = [], set()
        while isinstance(current, str) and current in mapping and current not in seen:
            seen.add(current)
            chain.append(mapping[current])
            current = mapping[current].get("parent")
        nodes = list(reversed(chain))
    else:
        nodes = sorted((n for n in mapping.values() if isinstance(n, dict)),
                       key=lambda n: float((n.get("message") or {}).get("create_time") or 0))
    return [n["message"] for n in nodes if isinstance(n, dict) and isinstance(n.get("message"), dict)]


def _hidden(message: dict[str, Any]) -> bool:
    """Whether ChatGPT keeps ``message`` out of the thread it shows (``is_visually_hidden_from_conversation``)."""
    metadata = message.get("metadata")
    return isinstance(metadata, dict) and bool(metadata.get("is_visually_hidden_from_conversation"))


def _text(message: dict[str, Any]) -> str:
    content = message.get("content") or {}
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        text = content.get("text") if isinstance(content, dict) else None
        return text if isinstance(text, str) else ""
    return "\n".join(p for p in parts if isinstance(p, str)).strip()


def convert(data: Any, user: str | None = None, where: str = "conversations.json") -> dict[str, Any]:
    """Every visible user and assistant message of every conversation (system, tool, hidden and
    empty messages left out), bound to ``user``, channel ``chatgpt`` and the conversation's id as the
    session.

    Raises:
        ImportFormatError: not a ChatGPT export, or a bad time.
    """
    if not looks_like(data):
        raise ImportFormatError(f"{where} is not a ChatGPT conversations.json (a list of conversations with a \"mapping\")")
    messages = []
    for c, conversation in enumerate(data):
        mapping = conversation.get("mapping")
        if not isinstance(mapping, dict):
            raise ImportFormatError(f"{where}: conversation {c} has no message mapping")
        session = str(conversation.get("conversation_id") or conversation.get("id") or conversation.get("title") or c)
        fallback = conversation.get("create_time")
        for message in _thread(mapping, conversation.get("current_node")):
            role = (message.get("author") or {}).get("role")
            text = _text(message)
            if role not in VISIBLE_ROLES or not text or _hidden(message):
                continue
            at = utc_iso(message.get("create_time") or fallback, f"{where}: conversation {c} message time")
            if at is None:
                raise ImportFormatError(f"{where}: conversation {c} has a message without a time")
            messages.append({"role": role, "text": text, "user": user, "channel": "chatgpt", "session": session,
                             "created_at": at})
    return envelope([], messages)
