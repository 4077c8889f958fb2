"""``EditMemoryModal``: edit a memory's text. Dismisses with the new text, or ``None`` if cancelled."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from ..display import data, shown, unshown


class EditMemoryModal(ModalScreen[str | None]):
    """A multi-line editor. ctrl+s saves, escape cancels. Text that would be refused stays in the
    editor with the reason shown in place, so the owner's next keys never reach the view beneath.

    Args:
        text: the current text. It is data, not markup; control characters in it are shown as
            visible escapes (``\\x1b``), and saving without a change returns ``text`` unchanged.
        title: plain-text heading, e.g. "Edit #12" or "Edit, then approve #7".
        check: called with the new text before closing; a ``BestieError`` it raises (no words, looks
            like a secret) is shown and the editor stays open. ``store.check_text`` fits.
    """

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="edit.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="edit.cancel"),
    ]

    def __init__(self, text: str, title: str = "Edit memory",
                 check: Callable[[str], object] | None = None) -> None:
        super().__init__()
        self.initial_text = text
        self.heading = title
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(id="edit-dialog", classes="dialog"):
            yield Static(data(self.heading, style="bold"), id="edit-title")
            yield TextArea(shown(self.initial_text), id="edit-text", soft_wrap=True, show_line_numbers=False)
            yield Static("", id="edit-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save (ctrl+s)", variant="primary", id="edit-save")
                yield Button("Cancel (esc)", id="edit-cancel")

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "edit-save":
            self.action_save()
        else:
            self.action_cancel()

    def action_save(self) -> None:
        text = self.query_one(TextArea).text.strip()
        if text == shown(self.initial_text).strip():
            self.dismiss(self.initial_text)  # untouched: keep the stored characters as they are
            return
        if not text:
            self.query_one("#edit-error", Static).update(Text("The text cannot be empty."))
            return
        text = unshown(text, self.initial_text).strip()  # what was drawn as \x1b stays the stored ESC
        if self.check is not None:
            from bestie_tui.errors import BestieError

            try:
                self.check(text)
            except BestieError as exc:
                self.query_one("#edit-error", Static).update(data(exc))
                return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
