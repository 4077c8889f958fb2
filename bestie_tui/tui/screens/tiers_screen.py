"""``TiersScreen``: core / working / archive lists with a detail panel. (Placeholder: being built.)"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from .base import BestieScreen


class TiersScreen(BestieScreen):
    VIEW_TITLE = "Tiers"
    BINDINGS = []

    def compose_body(self) -> ComposeResult:
        yield Static("tiers", id="tiers-body")
