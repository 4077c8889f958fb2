"""The sizes bestie accepts, in one place (the README's "Limits" section lists them).

Each limit is refused with a one-line ``InvalidValueError`` / ``ImportFormatError`` before anything
is written; a search query over its limit is cut instead (``text.words.query_words``).
"""

from __future__ import annotations

from bestie_tui.errors import InvalidValueError

#: Characters in one memory's text (after trimming), on every write path: propose, add, edit,
#: import, extraction and the console.
MEMORY_TEXT_MAX = 4000

#: The largest memory id (SQLite's and most clients' signed 32-bit integer). An import holding a
#: larger id is refused, not renumbered: an id names one memory in the history, undo and whatever
#: the assistant remembers of it, so a silent renumbering would point those at the wrong memory.
MEMORY_ID_MAX = 2**31 - 1

#: Bytes in one import file; a larger file is refused before it is read.
IMPORT_FILE_MAX = 100 * 1024 * 1024

#: Digits in a whole number read from an import file or a setting: far below Python's own
#: 4,300-digit conversion limit, and far above any count or id bestie stores.
INT_DIGITS_MAX = 18


def check_memory_text(text: str, what: str = "memory text") -> None:
    """Raise ``InvalidValueError`` when ``text`` (trimmed) is longer than ``MEMORY_TEXT_MAX``."""
    size = len(text.strip())
    if size > MEMORY_TEXT_MAX:
        raise InvalidValueError(f"{what} is {size:,} characters; at most {MEMORY_TEXT_MAX:,} are kept "
                                "(split it into several memories)")


def check_memory_id(value: int) -> None:
    """Raise ``InvalidValueError`` when a new memory id would exceed ``MEMORY_ID_MAX``."""
    if value > MEMORY_ID_MAX:
        raise InvalidValueError(f"memory ids are exhausted (the next would be {value}; at most {MEMORY_ID_MAX})")
