"""Cutting a long report into messages a chat API accepts: on line boundaries where it can, inside
a line only when one line alone is too long, never inside a surrogate pair when counting UTF-16.
``bestie_tui.maintenance.delivery`` re-exports these names.
"""

from __future__ import annotations

from collections.abc import Callable


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit Telegram counts in (an emoji outside the BMP is 2)."""
    return len(text.encode("utf-16-le")) // 2


def split_message(text: str, limit: int, measure: Callable[[str], int] = len) -> list[str]:
    """Split ``text`` into parts of at most ``limit`` units (``measure``: characters by default),
    breaking only between lines; a single line longer than ``limit`` is cut inside, never between
    the two halves of a surrogate pair. Empty lines at the edges of a part are dropped.

    Returns:
        ``[text]`` when it fits, else the parts in order (none empty).
    Raises:
        ValueError: ``limit`` < 1.
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    if measure(text) <= limit:
        return [text]
    parts: list[str] = []
    current = ""
    for line in text.split("\n"):
        for piece in _cut_line(line, limit, measure):
            candidate = piece if not current else current + "\n" + piece
            if measure(candidate) <= limit:
                current = candidate
                continue
            if current.strip():
                parts.append(current.strip("\n"))
            current = piece
    if current.strip():
        parts.append(current.strip("\n"))
    return parts


def _cut_line(line: str, limit: int, measure: Callable[[str], int]) -> list[str]:
    if measure(line) <= limit:
        return [line]
    pieces, start = [], 0
    while start < len(line):
        end = min(len(line), start + limit)
        while measure(line[start:end]) > limit:
            end -= 1
        pieces.append(line[start:end])
        start = end
    return pieces
