"""``PendingScreen``: the triage session over pending proposals. (Placeholder: being built.)"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from .base import BestieScreen


class PendingScreen(BestieScreen):
    VIEW_TITLE = "Pending"
    BINDINGS = []

    def compose_body(self) -> ComposeResult:
        yield Static("pending", id="pending-body")
