"""``MemoryDetail``: one memory's text, every lifecycle field and its recent history."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from bestie_tui.store.records import EventRecord, MemoryRecord

from ..display import KeepTogether, ago, data, exact, exact_text, shown, when, yes_no
from .memory_list import memory_flags

#: Snapshot keys a history line never lists as "changed" (they change with every write).
_QUIET_KEYS = {"updated_at", "norm", "terms"}


def _value(value, tz: tzinfo = UTC, now: datetime | None = None) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, datetime):
        return when(value, tz) if now is None else exact(value, tz, now)
    if isinstance(value, float):
        return f"{value:.2f}"
    return shown(value)


def event_summary(event: EventRecord, tz: tzinfo = UTC) -> str:
    """What an event changed, in words: ``pinned no → yes``, ``text edited``, ``created`` (times on
    the owner's clock ``tz``; values with control characters made visible)."""
    if (event.after or event.before or {}).get("purged"):
        return "text purged"
    if event.before is None:
        return "created"
    if event.after is None:
        return "deleted"
    changes = []
    for key, after in event.after.items():
        before = event.before.get(key)
        if key in _QUIET_KEYS or before == after:
            continue
        if key == "text":
            changes.append("text edited")
        else:
            changes.append(f"{key} {_value(before, tz)} → {_value(after, tz)}")
    return ", ".join(changes) or "no field changed"


class MemoryDetail(VerticalScroll):
    """Scrollable panel; ``show(memory, history, now)`` draws a memory, ``show_message`` a notice.

    All memory content is drawn as ``rich.text.Text`` with control characters made visible, so
    ``[bold]`` or an escape sequence in a memory shows literally.
    """

    DEFAULT_CSS = """
    MemoryDetail {
        padding: 0 1;
    }
    MemoryDetail > .memory-detail--body {
        height: auto;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.memory: MemoryRecord | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("No memory selected.", style="italic"), classes="memory-detail--body")

    @property
    def body(self) -> Static:
        return self.query_one(".memory-detail--body", Static)

    def show_message(self, message: str) -> None:
        """Replace the panel with a plain-text notice (e.g. the empty-state hint)."""
        self.memory = None
        self.body.update(Text(message, style="italic"))

    def show(self, memory: MemoryRecord, history: Sequence[EventRecord], now: datetime,
             tz: tzinfo = UTC) -> None:
        """Draw ``memory`` with its fields and ``history`` (newest first). ``now``: naive UTC, for
        the "expired" mark; ``tz``: the owner's zone, in which times are shown."""
        self.memory = memory
        title = Text(f"#{memory.id} · ", style="bold")
        title.append(shown(memory.kind), style="bold")
        flags = memory_flags(memory, now)
        if flags:
            title.append("  " + " ".join(flags), style="italic")

        fields = Table.grid(padding=(0, 2))
        fields.add_column(style="bold", no_wrap=True)
        fields.add_column()

        def at(value: datetime | None) -> Text | KeepTogether:
            """A time and "(3 days ago)" beside it, or under it (whole) where both do not fit."""
            return Text("—") if value is None else exact_text(value, tz, now)

        expires = at(memory.expires_at)
        if memory.is_expired(now):  # the mark says what "(2 days ago)" would, in less width
            expires = Text(_value(memory.expires_at, tz))
            expires.append("  expired", style="bold reverse")
        superseded = Text("—" if memory.superseded_by is None else f"#{memory.superseded_by}")
        rows = [
            ("status", Text(memory.status)),
            ("tier", Text(memory.tier)),
            ("layer", Text(memory.layer)),
            ("scope", Text(memory.scope)),
            ("pinned", Text(_value(memory.pinned))),
            ("stale", Text(_value(memory.stale))),
            ("superseded by", superseded),
            ("confidence", Text(_value(memory.confidence))),
            ("expires at", expires),
            ("last accessed", at(memory.last_accessed_at)),
            ("access count", Text(str(memory.access_count))),
            ("user", Text(_value(memory.user))),
            ("channel", Text(_value(memory.channel))),
            ("project", Text(_value(memory.project))),
            ("session", Text(_value(memory.session))),
            ("source", Text(_value(memory.source))),
            ("created", at(memory.created_at)),
            ("updated", at(memory.updated_at)),
        ]
        for label, value in rows:
            fields.add_row(Text(label), value)

        parts = [title, Text(""), data(memory.text), Text(""), fields, Text("")]
        parts.append(Text("Recent history", style="bold underline"))
        if history:
            events = Table.grid(padding=(0, 2))
            events.add_column(no_wrap=True)
            events.add_column()
            for event in history:
                what = data(f"{event.action} by {event.actor}: {event_summary(event, tz)}")
                if event.undone:
                    what.append("  (undone)", style="italic")
                events.add_row(Text(ago(event.at, now)), what)
            parts.append(events)
        else:
            parts.append(Text("no events", style="italic"))
        self.body.update(Group(*parts))
