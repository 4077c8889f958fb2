"""``ProposalCard``: one pending proposal shown large — its text, what it replaces or contradicts
("replaces #4  User lives in Hanoi"), then every field that helps judge it."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from bestie_tui.store.records import MemoryRecord

from ..display import ago, append, data, when

#: The width of a field's name and the space after it.
LABEL = 11


def proposal_meta(record: MemoryRecord, tz: tzinfo = UTC, now: datetime | None = None,
                  width: int | None = None) -> Text:
    """The proposal's fields as plain text (values are data: control characters made visible;
    the time on the owner's clock ``tz``, with "(3 h ago)" beside it when ``now``, naive UTC, is
    given: under it, whole, on a line of its own when the card's ``width`` has no room for both)."""
    # one line per field, cut with "…" at the card's width rather than wrapped under the labels
    meta = Text(no_wrap=True, overflow="ellipsis")
    created = when(record.created_at, tz, seconds=now is None)
    if now is not None:
        relative = f"({ago(record.created_at, now)})"
        if width is None or LABEL + len(created) + 1 + len(relative) <= width:
            created += " " + relative
        else:
            created += "\n" + " " * LABEL + relative
    fields = [
        ("id", f"#{record.id}"),
        ("kind", record.kind),
        ("user", record.user or "—"),
        ("source", record.source or "—"),
        ("confidence", f"{record.confidence:.2f}"),
        ("created", created),
        ("session", record.session or "—"),
        ("channel", record.channel or "—"),
        ("project", record.project or "—"),  # every binding shows: user, session, channel, project
        ("scope", record.scope),
    ]
    for name, value in fields:
        meta.append(f"{name:<{LABEL}}", style="bold")
        if name == "created":  # a time: no data to fold, and its line break is ours
            meta.append(value)
        else:
            append(meta, value, single_line=True)
        meta.append("\n")
    meta.rstrip()
    return meta


def cut_to_lines(text: Text, width: int, lines: int, console) -> Text:
    """``text`` word-wrapped at ``width``; if it takes more than ``lines`` lines, the first ``lines``
    of them with the last ending in "…" (the cut is shown, never silent)."""
    wrapped = text.wrap(console, width)
    if len(wrapped) <= lines:
        return text
    kept = list(wrapped)[:max(1, lines)]
    for line in kept:
        line.rstrip()
    last = kept[-1]
    if last.cell_len > width - 1:
        last.truncate(width - 1)
        last.rstrip()
    last.append("…")
    return Text("\n").join(kept)


class ProposalPane(Vertical):
    """The pane around the card: when it changes size (the terminal, the filter box opening), the
    card fits its text again."""

    def on_resize(self, event) -> None:
        for card in self.query(ProposalCard):
            card.fit()


class ProposalCard(Vertical):
    """Shows one ``MemoryRecord`` (``show``) or an empty-state message (``show_empty``).

    Every field (the bindings user, session, channel, project and scope among them) always shows:
    the fields and what the proposal replaces are one line each, cut with "…" at the card's width,
    and the proposal's text takes the lines left in its pane, cut with "…" when it needs more
    (``fit``, called again whenever the pane changes size)."""

    _record: MemoryRecord | None = None
    _relation_lines: int = 0
    _meta_lines: int = 0
    _tz: tzinfo = UTC
    _now: datetime | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="proposal-text")
        yield Static("", id="proposal-relations")
        yield Static("", id="proposal-meta")

    def show(self, record: MemoryRecord, tz: tzinfo = UTC, now: datetime | None = None) -> None:
        self.remove_class("-empty")
        self._record = record
        self._tz, self._now = tz, now
        self._relation_lines = 0
        self.query_one("#proposal-relations", Static).update(Text(""))
        self.query_one("#proposal-relations", Static).display = False
        self._show_meta(None)
        self.fit()

    def _show_meta(self, width: int | None) -> None:
        """The fields, laid out for ``width`` cells (``None``: before the first layout)."""
        if self._record is None:
            return
        meta = proposal_meta(self._record, self._tz, self._now, width)
        self._meta_lines = len(meta.plain.splitlines())
        self.query_one("#proposal-meta", Static).update(meta)

    def show_relations(self, related) -> None:
        """The approved memories the proposal replaces or contradicts, beside their text."""
        out = Text(no_wrap=True, overflow="ellipsis")
        lines = 0
        for r in related:
            if r.relation.kind not in ("correction", "contradiction", "related"):
                continue
            if out:
                out.append("\n")
            label = ("replaces" if r.relation.strong else "may replace") if r.relation.kind == "correction" \
                else "related — review" if r.relation.kind == "related" else "contradicts"
            out.append(f"{label} #{r.memory.id}", style="bold reverse")
            out.append("  ")
            append(out, r.memory.text, single_line=True)
            lines += 1
        self._relation_lines = lines
        relations = self.query_one("#proposal-relations", Static)
        relations.update(out)
        relations.display = lines > 0  # an empty Static would still take a line from the text
        self.fit()

    def show_empty(self, headline: str, hint: str) -> None:
        self.add_class("-empty")
        self._record = None
        self._relation_lines = 0
        self.query_one("#proposal-relations", Static).update(Text(""))
        self.query_one("#proposal-relations", Static).display = False
        self.query_one("#proposal-text", Static).update(data(headline))
        self.query_one("#proposal-meta", Static).update(data(hint))

    def fit(self) -> None:
        """Draw the proposal's text in the lines its pane has left once the card's frame, the
        relations and every field are counted; before the first layout, the whole text."""
        if self._record is None:
            return
        body = data(self._record.text)
        text = self.query_one("#proposal-text", Static)
        pane = self.parent
        if isinstance(pane, Widget) and pane.size.height > 0 and pane.size.width > 0:
            self._show_meta(pane.size.width - self.styles.gutter.width)  # before counting its lines
            width = pane.size.width - self.styles.gutter.width - text.styles.gutter.width
            rows = (pane.size.height - self.styles.gutter.height - text.styles.gutter.height
                    - text.styles.margin.height - self._relation_lines - self._meta_lines)
            if width > 1:
                body = cut_to_lines(body, width, max(1, rows), self.app.console)
        text.update(body)
