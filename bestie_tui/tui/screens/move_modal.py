"""``MoveModal``: pick the scope a memory moves to. Dismisses with ``core``/``project``/``session``
or ``None`` if cancelled."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from bestie_tui.store.models import SCOPE_DEFAULT_LAYER, SCOPES


class MoveModal(ModalScreen[str | None]):
    """A three-way choice. Arrows or j/k and enter, or the scope's first letter; escape cancels.

    Args:
        memory_id: the memory being moved (for the heading).
        current: its current scope, highlighted first.
        pinned: a pinned memory keeps its layer; the modal says so.
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="move.cancel"),
        Binding("c", "pick('core')", "Core", id="move.core"),
        Binding("p", "pick('project')", "Project", id="move.project"),
        Binding("s", "pick('session')", "Session", id="move.session"),
        Binding("j", "cursor('down')", "Down", id="move.down", show=False),
        Binding("k", "cursor('up')", "Up", id="move.up", show=False),
    ]

    def __init__(self, memory_id: int, current: str, pinned: bool = False) -> None:
        super().__init__()
        self.memory_id = memory_id
        self.current = current
        self.pinned = pinned

    def compose(self) -> ComposeResult:
        options = []
        for scope in SCOPES:
            label = Text(f"{scope:<8} → {SCOPE_DEFAULT_LAYER[scope]} layer")
            if scope == self.current:
                label.append("  (current)", style="italic")
            options.append(Option(label, id=scope))
        with Vertical(id="move-dialog", classes="dialog"):
            yield Static(Text(f"Move #{self.memory_id} to scope", style="bold"), id="move-title")
            yield OptionList(*options, id="move-options")
            note = ("Pinned: the layer stays, except that core goes to core." if self.pinned
                    else "The layer follows the scope.")
            yield Static(Text(note + "  enter picks · esc cancels"), id="move-note")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = SCOPES.index(self.current) if self.current in SCOPES else 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_pick(self, scope: str) -> None:
        self.dismiss(scope)

    def action_cursor(self, direction: str) -> None:
        options = self.query_one(OptionList)
        options.action_cursor_down() if direction == "down" else options.action_cursor_up()

    def action_cancel(self) -> None:
        self.dismiss(None)
