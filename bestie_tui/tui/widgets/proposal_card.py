"""``ProposalCard``: one pending proposal shown large — its text, what it replaces or contradicts
("replaces #4  User lives in Hanoi"), then every field that helps judge it."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from bestie_tui.store.records import MemoryRecord

from ..display import append, data, exact, when


def proposal_meta(record: MemoryRecord, tz: tzinfo = UTC, now: datetime | None = None) -> Text:
    """The proposal's fields as plain text (values are data: control characters made visible;
    the time on the owner's clock ``tz``, with "3 h ago" beside it when ``now``, naive UTC, is given)."""
    # one line per field, cut with "…" at the card's width rather than wrapped under the labels
    meta = Text(no_wrap=True, overflow="ellipsis")
    fields = [
        ("id", f"#{record.id}"),
        ("kind", record.kind),
        ("user", record.user or "—"),
        ("source", record.source or "—"),
        ("confidence", f"{record.confidence:.2f}"),
        ("created", when(record.created_at, tz, seconds=True) if now is None
         else exact(record.created_at, tz, now)),
        ("session", record.session or "—"),
        ("channel", record.channel or "—"),
        ("project", record.project or "—"),  # every binding shows: user, session, channel, project
        ("scope", record.scope),
    ]
    for name, value in fields:
        meta.append(f"{name:<11}", style="bold")
        append(meta, value, single_line=True)
        meta.append("\n")
    meta.rstrip()
    return meta


class ProposalCard(Vertical):
    """Shows one ``MemoryRecord`` (``show``) or an empty-state message (``show_empty``)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="proposal-text")
        yield Static("", id="proposal-relations")
        yield Static("", id="proposal-meta")

    def show(self, record: MemoryRecord, tz: tzinfo = UTC, now: datetime | None = None) -> None:
        self.remove_class("-empty")
        self.query_one("#proposal-text", Static).update(data(record.text))
        self.query_one("#proposal-relations", Static).update(Text(""))
        self.query_one("#proposal-meta", Static).update(proposal_meta(record, tz, now))

    def show_relations(self, related) -> None:
        """The approved memories the proposal replaces or contradicts, beside their text."""
        out = Text()
        for r in related:
            if r.relation.kind not in ("correction", "contradiction"):
                continue
            if out:
                out.append("\n")
            label = "replaces" if r.relation.kind == "correction" else "contradicts"
            out.append(f"{label} #{r.memory.id}", style="bold reverse")
            out.append("  ")
            append(out, r.memory.text, single_line=True)
        self.query_one("#proposal-relations", Static).update(out)

    def show_empty(self, headline: str, hint: str) -> None:
        self.add_class("-empty")
        self.query_one("#proposal-relations", Static).update(Text(""))
        self.query_one("#proposal-text", Static).update(data(headline))
        self.query_one("#proposal-meta", Static).update(data(hint))
