"""The status line: write policy, paused state, tier counts and the database path."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import Static

from ..display import one_line


def short_path(path: str, width: int) -> str:
    """``path`` with ``~`` for the home directory, cut from the left to ``width`` characters."""
    home = str(Path.home())
    if home != "/" and path.startswith(home + "/"):
        path = "~" + path[len(home):]
    if width <= 1:
        return ""
    return path if len(path) <= width else "…" + path[-(width - 1):]


#: Between two parts of the line.
SEPARATOR = "  │  "
#: The fewest characters of the path worth showing (``…/demo.db``); with less room the path and its
#: separator are left out.
MIN_PATH = 10
#: The fewest cells a part cut with "…" keeps; with less room it is left out.
MIN_PART = 6


def fit_parts(parts: list[Text], width: int) -> Text:
    """``parts`` joined by ``SEPARATOR`` as far as they fit in ``width`` cells: the first part that
    does not fit is cut with "…" (or left out with its separator when under ``MIN_PART`` cells would
    remain), and the ones after it are left out. The line never ends in a separator."""
    line = Text(no_wrap=True, overflow="crop")
    for n, part in enumerate(parts):
        sep = SEPARATOR if n else ""
        room = width - line.cell_len - len(sep)
        if part.cell_len <= room:
            line.append(sep)
            line.append_text(part)
            continue
        if room >= MIN_PART or not n:
            cut = part.copy()
            cut.truncate(max(1, room), overflow="ellipsis")
            line.append(sep)
            line.append_text(cut)
        break
    return line


class StatusLine(Static):
    """One line of state, redrawn by ``show(status)`` from a ``StoreStatus``. The path comes last and
    is shortened from the left on a narrow terminal, or left out (with its separator) when not even
    ``MIN_PATH`` characters of it fit, so the policy and the paused flag always show; a part that
    does not fit whole ends in "…", and the line never ends in a separator."""

    _status = None

    def show(self, status) -> None:
        self._status = status
        self.refresh()

    def on_resize(self) -> None:
        self.refresh()

    def render(self) -> Text:
        status = self._status
        if status is None:
            return Text()
        width = self.content_size.width
        policy = Text.assemble(("write ", "bold"), status.write_policy)
        state = Text("PAUSED", style="bold reverse") if status.paused else Text("memory active")
        tiers = status.tiers
        counts = Text(f"core {tiers['core']} · working {tiers['working']} · archive {tiers['archive']}"
                      f" · pending {tiers['pending']}")
        parts = [policy, state, counts]
        if getattr(status, "forget_requests", 0):  # the assistant asked; only the owner forgets
            parts.append(Text(f"forget asked {status.forget_requests}", style="bold"))
        room = width - fit_parts(parts, width).cell_len - len(SEPARATOR) - len("db ")
        if room >= MIN_PATH:  # a path is data too
            parts.append(Text.assemble(("db ", "bold"), short_path(one_line(status.db_path), room)))
        return fit_parts(parts, width)
