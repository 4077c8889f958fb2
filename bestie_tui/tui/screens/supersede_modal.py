"""``SupersedeModal``: ask for the id of the memory that replaces another. Dismisses with that id,
or ``None`` if cancelled."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from bestie_tui.errors import BestieError
from bestie_tui.store.records import MemoryRecord

from ..display import data


class SupersedeModal(ModalScreen[int | None]):
    """One integer field. Enter checks the id against the store (it must exist, differ from the old
    one and be approved) and shows a one-line error in place if not; escape cancels.

    Args:
        old: the memory being superseded (its text is shown, literally).
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="supersede.cancel")]

    def __init__(self, old: MemoryRecord) -> None:
        super().__init__()
        self.old = old

    def compose(self) -> ComposeResult:
        with Vertical(id="supersede-dialog", classes="dialog"):
            yield Static(Text(f"Supersede #{self.old.id}", style="bold"), id="supersede-title")
            yield Static(data(self.old.text), id="supersede-old")
            yield Input(placeholder="id of the memory that replaces it", type="integer", id="supersede-id")
            yield Static("", id="supersede-error")
            yield Static(Text("enter confirms · esc cancels"), id="supersede-note")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        error = self.check(event.value.strip())
        if error:
            self.query_one("#supersede-error", Static).update(data(error))
        else:
            self.dismiss(int(event.value.strip()))

    def check(self, value: str) -> str | None:
        """The reason ``value`` cannot replace the old memory, or ``None`` if it can."""
        if not value.lstrip("-").isdigit():
            return "Type the id (a number) of the memory that replaces it."
        new_id = int(value)
        if new_id == self.old.id:
            return "A memory cannot supersede itself."
        try:
            new = self.app.store.get(new_id)
        except BestieError as exc:
            return str(exc)
        if new.status != "approved":
            return f"#{new_id} is {new.status}; only an approved memory can replace another."
        return None

    def action_cancel(self) -> None:
        self.dismiss(None)
