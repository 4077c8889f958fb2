"""The status line: write policy, paused state, tier counts and the database path."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class StatusLine(Static):
    """One line of state, redrawn by ``show(status)`` from a ``StoreStatus``. The path comes last, so
    a narrow terminal cuts the path rather than the policy or the paused flag."""

    def show(self, status) -> None:
        line = Text(no_wrap=True, overflow="ellipsis")
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
        line.append(status.db_path)
        self.update(line)
