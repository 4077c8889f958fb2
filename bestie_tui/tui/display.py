"""Showing stored data in the console: memory text is data, never markup, never escape sequences.

Everything a view draws from the database — memory text, kinds, users, channels, projects,
sessions, chat messages, summaries, doctor reasons, plan lines, digest text, file paths — goes
through this module, and nowhere else decides how:

* ``data(value)`` makes a ``rich.text.Text`` whose characters are exactly what is stored, with
  control and bidirectional-control characters shown as visible escapes (``\\x1b``, ``\\u202e``,
  ``text.words.printable``). A ``Text`` is never parsed as markup, and Rich passes ESC straight
  through to the terminal (it only drops a few controls such as BEL), hence the escapes;
* ``append(text, value, style)`` adds such data to a ``Text`` being built;
* ``markup(value)`` is for the few places that parse Textual markup from a string (a markup
  toast): visible escapes, then ``rich.markup.escape``;
* ``when(value, tz)`` shows a stored naive-UTC time on the owner's clock;
* times and flags have one style in every view (and the CLI): ``ago`` in lists ("3 days ago"),
  ``exact`` where a record is focused ("2026-12-01 07:30 +07 (3 days ago)"), ``yes_no`` for flags.
"""

from __future__ import annotations

import re
from datetime import datetime, tzinfo
from typing import Any

from rich.markup import escape
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


__all__ = ["shown", "one_line", "data", "append", "markup", "when", "ago", "exact", "yes_no"]
