"""``ProposalCard``: one pending proposal shown large — its text, then every field that helps judge it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from bestie_tui.store.records import MemoryRecord
from bestie_tui.text.words import printable


def proposal_meta(record: MemoryRecord) -> Text:
    """The proposal's fields as plain text (values are data: control characters made visible)."""
    meta = Text()
    fields = [
        ("id", f"#{record.id}"),
        ("kind", record.kind),
        ("user", record.user or "—"),
        ("source", record.source or "—"),
        ("confidence", f"{record.confidence:.2f}"),
        ("created", f"{record.created_at:%Y-%m-%d %H:%M:%S} UTC"),
        ("session", record.session or "—"),
        ("channel", record.channel or "—"),
        ("scope", record.scope),
    ]
    for name, value in fields:
        meta.append(f"{name:<11}", style="bold")
        meta.append(printable(str(value)))
        meta.append("\n")
    meta.rstrip()
    return meta


class ProposalCard(Vertical):
    """Shows one ``MemoryRecord`` (``show``) or an empty-state message (``show_empty``)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="proposal-text")
        yield Static("", id="proposal-meta")

    def show(self, record: MemoryRecord) -> None:
        self.remove_class("-empty")
        self.query_one("#proposal-text", Static).update(Text(printable(record.text)))
        self.query_one("#proposal-meta", Static).update(proposal_meta(record))

    def show_empty(self, headline: str, hint: str) -> None:
        self.add_class("-empty")
        self.query_one("#proposal-text", Static).update(Text(headline))
        self.query_one("#proposal-meta", Static).update(Text(hint))
