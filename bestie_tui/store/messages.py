"""The raw chat history side of ``MemoryStore``: appending messages (secrets redacted), listing
them by role or tolerant text query, and removing them (``message_forget``). A mixin:
``MemoryStore`` (``memory_store.py``) supplies ``clock``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, cast

from peewee import fn

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.gate import redact
from bestie_tui.store.message_forget import forget_messages, stating_messages
from bestie_tui.store.models import ROLES, Message
from bestie_tui.store.records import MessageRecord
from bestie_tui.store.support import _clamp, _message_record
from bestie_tui.text import words as textmod

if TYPE_CHECKING:  # pragma: no cover
    from bestie_tui.store.memory_store import MemoryStore


class StoreMessages:
    """Chat message methods of ``MemoryStore``."""

    if TYPE_CHECKING:  # supplied by ``MemoryStore``; declared here for the type checker only
        clock: Callable[[], datetime]

    def log_message(self, role: str, text: str, *, user: str | None = None, channel: str | None = None,
                    session: str | None = None, at: datetime | None = None) -> MessageRecord:
        """Append one chat message to the raw history, its secrets redacted first (``gate.redact``:
        "my PIN is 4821" is kept as "my PIN is [redacted: PIN]"), so no secret reaches the history.
        Returns the record as stored. Raises InvalidValueError for an unknown role, a text over
        ``limits.MESSAGE_TEXT_MAX`` characters or a user id that is not 1 to 200 printable characters
        (both checked before the text is read)."""
        if role not in ROLES:
            raise InvalidValueError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
        from bestie_tui.store.limits import check_message_text, check_user_id

        if isinstance(text, str):
            check_message_text(text)
        check_user_id(user)
        for what, value in (("message text", text), ("user", user), ("channel", channel), ("session", session)):
            textmod.check_encodable(value, what)
        text, _ = redact(text)
        row = Message.create(role=role, text=text, user=user, channel=channel, session=session,
                             created_at=at or self.clock(), terms=textmod.search_text(text))
        return _message_record(row)

    def messages(self, *, limit: int | None = 50, role: str | None = None, query: str | None = None,
                 offset: int = 0, user: str | None = None) -> list[MessageRecord]:
        """Chat messages, newest first, filtered by role, ``user`` (exactly that user's) and a
        tolerant text query. Raises InvalidValueError for an unknown role or a negative limit."""
        from bestie_tui.store.query import text_condition

        if role is not None and role not in ROLES:
            raise InvalidValueError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
        if limit is not None and limit < 0:
            raise InvalidValueError("--limit must be zero or more")
        q = Message.select()
        if role:
            q = q.where(Message.role == role)
        if user is not None:
            q = q.where(Message.user == user)
        if query:
            q = q.where(text_condition(query, Message.terms, fn.REPLACE(Message.terms, " ", "")))
        q = q.order_by(Message.created_at.desc(), Message.id.desc()).offset(_clamp(offset) or None)
        if limit is not None:
            q = q.limit(_clamp(limit))
        return [_message_record(r) for r in q]

    def forget_messages(self, ids: Iterable[int], *, actor: str = "owner") -> list[int]:
        """Remove chat messages from the history and its index, one undo step (``undo`` brings them
        back while ``memory.undoRetentionDays`` lasts). Returns their ids, sorted. Raises
        NotFoundError (an id names no message; nothing removed), InvalidValueError (no id)."""
        return forget_messages(cast("MemoryStore", self), ids, actor=actor)

    def stating_messages(self, memory_id: int) -> list[MessageRecord]:
        """The chat messages that state memory ``memory_id`` (``message_forget``), oldest first.
        Raises NotFoundError."""
        return stating_messages(cast("MemoryStore", self), memory_id)

    def message_count(self, user: str | None = None) -> int:
        """How many chat messages (only ``user``'s when given)."""
        q = Message.select()
        return (q.where(Message.user == user) if user is not None else q).count()
