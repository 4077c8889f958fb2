"""Showing stored data in the console: memory text is data, never markup, never escape sequences.

Everything a view draws from the database — memory text, kinds, users, channels, projects,
sessions, chat messages, summaries, doctor reasons, plan lines, digest text, file paths — goes
through this module, and nowhere else decides how:

* ``data(value)`` makes a ``rich.text.Text`` whose characters are exactly what is stored, with
  control and bidirectional-control characters shown as visible escapes (``\\x1b``, ``\\u202e``,
  ``text.words.printable``). A ``Text`` is never parsed as markup, and Rich passes ESC straight
  through to the terminal (it only drops a few controls such as BEL), hence the escapes;
* ``append(text, value, style)`` adds such data to a ``Text`` being built;
* ``pasted(text)`` is what a paste types into a text box: the same visible escapes;
* ``markup(value)`` is for the few places that parse Textual markup from a string (a markup
  toast): visible escapes, then ``rich.markup.escape``;
* ``when(value, tz)`` shows a stored naive-UTC time on the owner's clock;
* times and flags have one style in every view (and the CLI): ``ago`` in lists ("3 days ago"),
  ``exact`` where a record is focused ("2026-12-01 07:30 +07 (3 days ago)"), ``yes_no`` for flags;
  ``exact_text`` draws the focused form so that "(3 days ago)" is never broken across lines;
* ``KeepTogether(chunks)`` lays out pieces that must not be broken (a command, a time, "(3 days
  ago)") side by side where they fit and one under another where they do not.
"""

from __future__ import annotations

import re
from datetime import datetime, tzinfo
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markup import escape
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text

from bestie_tui.text.clock import ago, exact, show
from bestie_tui.text.words import printable, yes_no

_SPACES = re.compile(r"\s+")


def shown(value: Any) -> str:
    """``value`` as the characters to draw: control and bidi characters as visible escapes (line
    breaks kept, a tab as four spaces, ``\\r\\n`` as one line break)."""
    text = "" if value is None else str(value)
    return printable(text.replace("\r\n", "\n").replace("\t", "    "))


def pasted(text: str) -> str:
    """What a paste puts in a text box: its characters with line breaks as ``\\n`` (a terminal sends
    a pasted line break as ``\\r``) and every other control or bidi character as the visible escape
    ``shown`` draws (``\\x1b``), so the box shows what will be stored and stores what it shows."""
    return shown(text.replace("\r\n", "\n").replace("\r", "\n"))


def _shown_pieces(text: str) -> list[tuple[str, str]]:
    """``(stored characters, what shown draws for them)`` for each piece of ``text``, in order, so that
    ``"".join(shown for _, shown in pieces) == shown(text)``."""
    pieces: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        if text.startswith("\r\n", i):
            pieces.append(("\r\n", "\n"))
            i += 2
            continue
        c = text[i]
        pieces.append((c, "    " if c == "\t" else printable(c)))
        i += 1
    return pieces


def unshown(edited: str, original: str) -> str:
    """The stored text for ``edited``, an edit of ``shown(original)``: what the owner left as it was
    drawn is ``original``'s own characters again (an ESC shown as ``\\x1b`` stays an ESC, a tab
    shown as spaces a tab), and what the owner typed is taken as typed (typing ``\\x1b`` gives those
    four characters). Matched with ``difflib.SequenceMatcher`` on the drawn text; a drawn escape the
    owner changed in part is taken as drawn."""
    from difflib import SequenceMatcher

    pieces = _shown_pieces(original)
    drawn = "".join(d for _, d in pieces)
    if drawn == "".join(c for c, _ in pieces):
        return edited  # nothing was drawn differently: the edit is the text
    starts: dict[int, tuple[int, str, str]] = {}  # drawn offset → (end, stored, drawn) of a piece
    at = 0
    for stored, shown_piece in pieces:
        starts[at] = (at + len(shown_piece), stored, shown_piece)
        at += len(shown_piece)
    out: list[str] = []
    for op, a0, a1, b0, b1 in SequenceMatcher(None, drawn, edited, autojunk=False).get_opcodes():
        if op != "equal":
            out.append(edited[b0:b1])
            continue
        i = a0
        while i < a1:
            piece = starts.get(i)
            if piece is not None and piece[0] <= a1:  # a whole piece kept: its stored characters
                out.append(piece[1])
                i = piece[0]
            else:  # part of a drawn escape: as drawn
                out.append(drawn[i])
                i += 1
    return "".join(out)


def one_line(value: Any) -> str:
    """``shown`` with line breaks and runs of whitespace folded into single spaces."""
    return _SPACES.sub(" ", shown(value))


def data(value: Any, style: str | Style = "", *, single_line: bool = False, **text_options: Any) -> Text:
    """Stored data as a ``Text`` (never markup; controls visible). ``single_line`` folds line breaks."""
    return Text(one_line(value) if single_line else shown(value), style=style, **text_options)


def append(text: Text, value: Any, style: str | Style | None = None, *, single_line: bool = False) -> Text:
    """Append stored data to ``text`` (never markup; controls visible). Returns ``text``."""
    text.append(one_line(value) if single_line else shown(value), style=style)
    return text


def markup(value: Any) -> str:
    """Stored data for a string that Textual parses as markup: ``[bold]`` stays literal text."""
    return escape(shown(value))


def when(value: datetime | None, tz: tzinfo, *, seconds: bool = False) -> str:
    """A stored naive-UTC time on the owner's clock, e.g. ``2026-12-01 07:30 +07``; ``-`` for none."""
    return show(value, tz, seconds=seconds)


class KeepTogether:
    """A Rich renderable: ``chunks`` (``Text`` or ``str``) left to right, ``separator`` between two
    on the same line, a line break only between chunks. A chunk wider than the whole width is
    wrapped as any text would be (there is no better choice); every other one stays whole.

    Rich breaks a line at any space, a non-breaking one included, so "(2 months ago)" would wrap
    as "(2 months" / "ago)"; this keeps such pieces whole instead."""

    def __init__(self, chunks, separator: str = " ", style: str | Style = "") -> None:
        self.chunks = [chunk if isinstance(chunk, Text) else Text(chunk) for chunk in chunks if chunk]
        self.separator = separator
        self.style = style

    def lines(self, width: int) -> list[Text]:
        """The chunks packed into lines of at most ``width`` cells (one may be wider: it wraps)."""
        lines: list[Text] = []
        for chunk in self.chunks:
            if lines and lines[-1].cell_len + len(self.separator) + chunk.cell_len <= width:
                lines[-1].append(self.separator)
                lines[-1].append_text(chunk)
            else:
                lines.append(chunk.copy())
        return lines

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        if not self.chunks:
            return Measurement(0, 0)
        widths = [chunk.cell_len for chunk in self.chunks]
        whole = sum(widths) + len(self.separator) * (len(widths) - 1)
        return Measurement(min(max(widths), options.max_width), min(whole, options.max_width))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n", style=self.style).join(self.lines(options.max_width))


def exact_text(value: datetime | None, tz: tzinfo, now: datetime, *, seconds: bool = False) -> KeepTogether:
    """``exact`` as a renderable whose "(3 days ago)" goes under the time, whole, when both do not
    fit on one line (never "(3 days" / "ago)")."""
    if value is None:
        return KeepTogether(["-"])
    return KeepTogether([show(value, tz, seconds=seconds), f"({ago(value, now)})"])


__all__ = ["KeepTogether", "exact_text", "shown", "one_line", "data", "append", "markup", "when", "ago", "exact", "yes_no"]
