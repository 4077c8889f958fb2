"""``AddMemoryModal``: the owner writes a memory from the console — text, kind (from the known
kinds), scope and an optional TTL. The caller's ``save`` writes it through the write gate; a
refusal (a bad TTL, a secret, the core cap) is shown in the form, which stays open with what was
typed. Dismisses with what ``save`` returned, or ``None`` if cancelled."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Select, Static

from bestie_tui.store.models import SCOPES
from bestie_tui.store.support import KNOWN_KINDS

from ..display import data


class AddMemoryModal(ModalScreen[Any]):
    """Text first (the cursor starts there); tab moves to kind, scope and TTL; enter or ctrl+s adds,
    esc cancels. A TTL is a duration such as ``7d`` or ``2w``; empty means no expiry.

    Args:
        save: called with ``{"text", "kind", "scope", "ttl"}`` (the ``store.add_result`` arguments);
            a ``BestieError`` it raises is shown in the form, which stays open as typed. Without
            it the form dismisses with that dict.
    """

    BINDINGS = [
        Binding("ctrl+s", "save", "Add", id="add.save"),
        Binding("escape", "cancel", "Cancel", id="add.cancel"),
    ]

    def __init__(self, save: Callable[[dict[str, Any]], Any] | None = None) -> None:
        super().__init__()
        self.save = save

    def compose(self) -> ComposeResult:
        with Vertical(id="add-dialog", classes="dialog"):
            yield Static(Text("New memory (yours: approved at once, through the write gate)", style="bold"))
            yield Input(placeholder="what should Bestie remember?", id="add-text")
            with Horizontal(id="add-fields"):
                yield Select([(k.replace("_", " "), k) for k in KNOWN_KINDS], value="preference",
                             allow_blank=False, id="add-kind")
                yield Select([(s, s) for s in SCOPES], value="project", allow_blank=False, id="add-scope")
                yield Input(placeholder="TTL e.g. 7d (empty: none)", id="add-ttl")
            yield Static("", id="add-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Add (ctrl+s)", variant="primary", id="add-yes")
                yield Button("Cancel (esc)", id="add-no")

    def on_mount(self) -> None:
        self.query_one("#add-text", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "add-yes":
            self.action_save()
        else:
            self.dismiss(None)

    def action_save(self) -> None:
        text = self.query_one("#add-text", Input).value.strip()
        if not text:
            self.query_one("#add-error", Static).update(Text("Type the memory's text first.", style="bold"))
            self.query_one("#add-text", Input).focus()
            return
        ttl = self.query_one("#add-ttl", Input).value.strip() or None
        values = {"text": text, "kind": self.query_one("#add-kind", Select).value,
                  "scope": self.query_one("#add-scope", Select).value, "ttl": ttl}
        if self.save is None:
            self.dismiss(values)
            return
        from bestie_tui.errors import BestieError

        try:
            result = self.save(values)
        except BestieError as exc:  # the write gate's refusal, a bad TTL: shown here, nothing written
            self.query_one("#add-error", Static).update(data(exc, style="bold"))
            return
        self.dismiss(result)

    def action_cancel(self) -> None:
        self.dismiss(None)
