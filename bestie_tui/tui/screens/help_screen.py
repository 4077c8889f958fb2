"""``HelpScreen``: every key of every view, built from the bindings themselves."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def binding_rows(app, bindings) -> list[tuple[str, str]]:
    """``(keys as shown, description)`` per binding; each key of ``"j,down"`` formatted as the footer
    would (``/`` for slash, ``^s`` for ctrl+s)."""
    rows = []
    for b in bindings:
        if not isinstance(b, Binding):
            b = Binding(b[0], b[1], b[2] if len(b) > 2 else b[1])
        if b.key_display:
            keys = b.key_display
        else:
            keys = " ".join(app.get_key_display(Binding(k.strip(), b.action)) for k in b.key.split(","))
        rows.append((keys, b.description or b.action))
    return rows


class HelpScreen(ModalScreen[None]):
    """Lists the global keys and each view's keys. Escape, q or ? closes it.

    It covers the view: through a see-through backdrop the view's scrollbars showed beside the
    frame, a second scrollbar that did not scroll the help. The only scrollbar is the help's own,
    inside its frame."""

    DEFAULT_CSS = """
    HelpScreen {
        background: $background;
    }
    """

    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "Close help", id="help.close"),
    ]

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        sections = [("Everywhere", self.app.BINDINGS)]
        for mode, screen_cls in self.app.MODES.items():
            cls = screen_cls if isinstance(screen_cls, type) else type(screen_cls)
            sections.append((getattr(cls, "VIEW_TITLE", mode) or mode, getattr(cls, "BINDINGS", [])))
        sections.extend(self._widget_sections())
        for title, bindings in sections:
            table.add_row(Text(title, style="underline"), "")
            for key, description in binding_rows(self.app, bindings):
                table.add_row(Text(key), Text(description))
            table.add_row("", "")
        table.add_row(Text("ctrl+p"), Text("Command palette (all actions by name)"))
        with VerticalScroll(id="help-body"):
            yield Static(Text.assemble(("Keys", "bold"), "   (esc, q or ? closes this; ctrl+p finds any action by name)"),
                         id="help-title")
            yield Static(table)

    def _widget_sections(self) -> list[tuple[str, list]]:
        """Keys of our own widgets on the view underneath (lists, editors), once per widget class."""
        stack = self.app.screen_stack
        underneath = stack[-2] if len(stack) > 1 else None
        if underneath is None:
            return []
        seen: set[type] = set()
        sections = []
        for widget in underneath.query("*"):
            cls = type(widget)
            if cls in seen or not cls.__module__.startswith("bestie_tui.") or not cls.BINDINGS:
                continue
            seen.add(cls)
            sections.append((f"{getattr(underneath, 'VIEW_TITLE', '')} · {cls.__name__}", cls.BINDINGS))
        return sections

    def action_dismiss(self) -> None:
        self.dismiss(None)
