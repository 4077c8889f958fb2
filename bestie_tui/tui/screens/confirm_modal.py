"""``ConfirmModal``: a yes/no question. Dismisses with ``True`` (y/enter on Yes) or ``False``."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..display import data


class ConfirmModal(ModalScreen[bool]):
    """Ask before a destructive or bulk action.

    Args:
        question: plain text (never markup) stating what will happen.
        confirm_label: the label of the confirming button.
    """

    BINDINGS = [
        Binding("y", "confirm", "Yes", id="confirm.yes"),
        Binding("n,escape", "cancel", "No", id="confirm.no"),
    ]

    def __init__(self, question: str, confirm_label: str = "Yes") -> None:
        super().__init__()
        self.question = question
        self.confirm_label = confirm_label

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Static(data(self.question), id="confirm-question")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.confirm_label} (y)", variant="error", id="confirm-yes")
                yield Button("Cancel (n)", id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
