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


class StatusLine(Static):
    """One line of state, redrawn by ``show(status)`` from a ``StoreStatus``. The path comes last and
    is shortened from the left on a narrow terminal, so the policy and the paused flag always show."""

    _status = None

    def show(self, status) -> None:
        self._status = status
        self.refresh()

    def on_resize(self) -> None:
        self.refresh()

    def render(self) -> Text:
        status = self._status
        line = Text(no_wrap=True, overflow="crop")
        if status is None:
            return line
        line.append("write ", style="bold")
        line.append(status.write_policy)
        line.append("  │  ")
        if status.paused:
            line.append("PAUSED", style="bold reverse")
        else:
            line.append("memory active")
        tiers = status.tiers
        line.append(
            f"  │  core {tiers['core']} · working {tiers['working']} · archive {tiers['archive']}"
            f" · pending {tiers['pending']}  │  "
        )
        line.append("db ", style="bold")
        room = self.content_size.width - line.cell_len
        line.append(short_path(one_line(status.db_path), room))  # a path is data too
        return line
