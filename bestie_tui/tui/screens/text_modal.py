"""``TextModal``: one record's whole text, scrollable, where a list shows it cut (a message at 80
columns). Dismissed by esc, enter or q."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class TextModal(ModalScreen[None]):
    """Show ``text`` (a ``rich.text.Text`` built with ``display.append``/``data``: never markup)."""

    BINDINGS = [
        Binding("escape,enter,q", "close", "Close", id="text.close"),
        Binding("j,down", "scroll('down')", "Down", id="text.down", show=False),
        Binding("k,up", "scroll('up')", "Up", id="text.up", show=False),
    ]

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="text-dialog", classes="dialog"):
            with VerticalScroll(id="text-body"):
                yield Static(self.text, id="text-content")
            yield Static(Text("esc, enter or q closes · j / k scroll", style="dim"), id="text-hint")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, where: str) -> None:
        body = self.query_one("#text-body", VerticalScroll)
        body.scroll_relative(y=1 if where == "down" else -1, animate=False)
