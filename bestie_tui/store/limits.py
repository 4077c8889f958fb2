"""The sizes bestie accepts, in one place (the README's "Limits" section lists them).

Each limit is refused with a one-line ``InvalidValueError`` / ``ImportFormatError`` before anything
is written; a search query over its limit is cut instead (``text.words.query_words``).
"""

from __future__ import annotations

import re

from bestie_tui.errors import InvalidValueError

#: Characters in one memory's text (after trimming), on every write path: propose, add, edit,
#: import, extraction and the console.
MEMORY_TEXT_MAX = 4000

#: The largest memory id (SQLite's and most clients' signed 32-bit integer). An import holding a
#: larger id is refused, not renumbered: an id names one memory in the history, undo and whatever
#: the assistant remembers of it, so a silent renumbering would point those at the wrong memory.
MEMORY_ID_MAX = 2**31 - 1

#: Bytes in one import file (JSON, or one OpenClaw Markdown file); a larger file is refused from its
#: size alone, before any of it is read.
IMPORT_FILE_MAX = 100 * 1024 * 1024

#: Characters in one chat message, on every path: ``log_message`` (the API, ``bestie memory log``,
#: MCP ``log_message``) and every import. A longer one is refused, not cut.
MESSAGE_TEXT_MAX = 20_000

#: Characters in a user id: 1 to this many, every one printable (no ESC, newline or other control).
USER_ID_MAX = 200

#: Characters in one line of an OpenClaw Markdown file: a longer line could only be a bullet over
#: ``MEMORY_TEXT_MAX``, so the file is refused there and the rest is never read.
MARKDOWN_LINE_MAX = 4 * MEMORY_TEXT_MAX

#: Digits in a whole number read from an import file or a setting: far below Python's own
#: 4,300-digit conversion limit, and far above any count or id bestie stores.
INT_DIGITS_MAX = 18


def stripped_length(text: str) -> int:
    """``len(text.strip())`` without copying ``text``: a 50 MB text costs a few milliseconds and
    64 KiB, not a second copy of itself."""
    if len(text) <= 65536:
        return len(text.strip())
    found = _LEADING_SPACE.match(text)  # ``\s*`` always matches
    lead = found.end() if found else 0
    end = len(text)
    while end > lead:
        piece = text[max(lead, end - 65536):end]
        kept = piece.rstrip()
        end -= len(piece) - len(kept)
        if kept:
            break
    return max(0, end - lead)


_LEADING_SPACE = re.compile(r"\s*")


def check_memory_text(text: str, what: str = "memory text") -> None:
    """Raise ``InvalidValueError`` when ``text`` (trimmed) is longer than ``MEMORY_TEXT_MAX``; costs
    no copy of ``text`` (``stripped_length``)."""
    size = stripped_length(text)
    if size > MEMORY_TEXT_MAX:
        raise InvalidValueError(f"{what} is {size:,} characters; a memory holds at most {MEMORY_TEXT_MAX:,}, "
                                "so nothing was saved (split it into several memories)")


def message_text_problem(text: str, what: str = "message text") -> str | None:
    """The one line that refuses ``text`` as a chat message (longer than ``MESSAGE_TEXT_MAX``), or
    ``None``. Reads only its length."""
    if len(text) > MESSAGE_TEXT_MAX:
        return (f"{what} is {len(text):,} characters; a message holds at most {MESSAGE_TEXT_MAX:,} "
                "(split it into several messages)")
    return None


def check_message_text(text: str, what: str = "message text") -> None:
    """Raise ``InvalidValueError`` when ``text`` is longer than ``MESSAGE_TEXT_MAX``."""
    problem = message_text_problem(text, what)
    if problem:
        raise InvalidValueError(problem)


def user_id_problem(user: object, what: str = "user id") -> str | None:
    """The one line that refuses ``user`` as a user id, or ``None`` for ``None`` and a good id: 1 to
    ``USER_ID_MAX`` printable characters (no ESC, newline, tab or other control character). The
    line never echoes the id. Reads at most ``USER_ID_MAX`` characters."""
    if user is None:
        return None
    rule = f"a user id is 1 to {USER_ID_MAX} printable characters"
    if not isinstance(user, str):
        return f"{what} must be text; {rule}"
    if not user.strip():
        return f"{what} is empty; {rule}"
    if len(user) > USER_ID_MAX:
        return f"{what} is {len(user):,} characters; {rule}"
    if not user.isprintable():
        return f"{what} holds a control character (ESC, a newline, a tab…) or an unreadable byte; {rule}"
    return None


def check_user_id(user: object, what: str = "user id") -> None:
    """Raise ``InvalidValueError`` when ``user`` is not a good user id (``user_id_problem``)."""
    problem = user_id_problem(user, what)
    if problem:
        raise InvalidValueError(problem)


def check_memory_id(value: int) -> None:
    """Raise ``InvalidValueError`` when a new memory id would exceed ``MEMORY_ID_MAX``."""
    if value > MEMORY_ID_MAX:
        raise InvalidValueError(f"memory ids are exhausted (the next would be {value}; at most {MEMORY_ID_MAX})")
