"""``MessagesScreen``: browse and search the raw chat history (what ``bestie memory messages``
shows), paged, with a role filter, and preview what history compression would do to it. ``/``
searches with history recall (``retrieval.recall``, as ``bestie memory messages search``): best
first, the detail panel showing the turns around the selected hit dimmed; a query recall finds
nothing for falls back to the tolerant text filter."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from bestie_tui.errors import BestieError
from bestie_tui.store.records import MessageRecord, iso
from bestie_tui.text.words import tokens

from ..display import append, exact, one_line
from ..widgets.message_table import Column, MessageTable
from .base import BestieScreen

PAGE_SIZE = 50
#: Newest messages the compression preview looks at (the history a request would carry at most).
PREVIEW_LIMIT = 1000
PREVIEW_HINT = "Press c to preview history compression."
ROLE_CYCLE = (None, "user", "assistant", "system")
#: Below this many columns the side panel gives its width to the table (the text column needs it).
NARROW = 130
#: The table's columns; the text column takes the width left (the table cuts every cell with …).
#: ``ctx`` (the compression preview's marks) is usually blank: on a narrow table it then gives its
#: width to the text.
COLUMNS = [Column("id", "id", 5), Column("time", "when", 12), Column("role", "role", 9), Column("who", "who", 8),
           Column("ctx", "ctx", 7, optional=True), Column("text", "text")]


def _one_line(text: str) -> Text:
    # chat text is data: escapes shown, never sent to the terminal, never parsed as markup
    return Text(one_line(text).strip())


class MessagesScreen(BestieScreen):
    """The history, newest first, one page (``PAGE_SIZE`` rows) at a time in a ``MessageTable``.
    ``c`` runs the compression preview in a thread worker and marks the rows it would summarise."""

    VIEW_TITLE = "Messages"
    #: Focus the table when the view opens (not first the hidden search box: each focus change
    #: recomposes the footer while the view opens).
    AUTO_FOCUS = "#messages-table"
    BINDINGS = [
        Binding("j", "cursor(1)", "Down", id="messages.down", show=False),
        Binding("k", "cursor(-1)", "Up", id="messages.up", show=False),
        Binding("g", "edge('first')", "First", id="messages.first", show=False),
        Binding("G", "edge('last')", "Last", id="messages.last", show=False),
        Binding("right_square_bracket", "page(1)", "Older page", id="messages.next_page", key_display="]"),
        Binding("left_square_bracket", "page(-1)", "Newer page", id="messages.previous_page", key_display="["),
        Binding("r", "cycle_role", "Role filter", id="messages.role"),
        Binding("slash", "search", "Search", id="messages.search", key_display="/"),
        Binding("enter", "open", "Whole message", id="messages.open"),
        Binding("escape", "clear_search", "Clear search", id="messages.clear_search", show=False),
        Binding("c", "preview", "Compression preview (again: hide)", id="messages.preview"),
        Binding("x", "forget", "Forget message", id="messages.forget"),
        Binding("u", "undo", "Undo", id="messages.undo"),
    ]

    class PreviewReady(Message):
        """The compression preview finished (``result`` is a ``CompressionResult`` or an exception)."""

        def __init__(self, result: Any, ids: list[int], settings: dict[str, Any]) -> None:
            super().__init__()
            self.result = result
            self.ids = ids
            self.settings = settings

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.page = 0
        self.role: str | None = None
        self.query_text = ""
        self.has_more = False
        self.rows: list[MessageRecord] = []
        #: message id → its ``RecallHit`` while a search is ranked by recall (empty otherwise).
        self.hits: dict[int, Any] = {}
        #: message id → "summary" / "kept" / "pinned", from the last preview (empty: no preview shown).
        self.preview_marks: dict[int, str] = {}
        self.preview_shown = False

    # ------------------------------------------------------------------ layout
    def compose_body(self) -> ComposeResult:
        self._set_narrow(update=False)  # styled as it mounts, not restyled once mounted
        with Vertical(id="messages-body"):
            yield Input(placeholder="search messages (tolerant: hanoi finds Hà Nội) · enter keeps, esc clears",
                        id="messages-search", classes="hidden")
            yield Static("", id="messages-caption")
            with Horizontal(id="messages-main"):
                yield MessageTable(COLUMNS, id="messages-table")
                with VerticalScroll(id="messages-side"):
                    yield Static("", id="messages-detail")
                    yield Static(Text(PREVIEW_HINT), id="messages-preview")

    def on_mount(self) -> None:
        super().on_mount()
        self.load()

    @property
    def table(self) -> MessageTable:
        return self.query_one("#messages-table", MessageTable)

    # ------------------------------------------------------------------ data
    def refresh_data(self) -> None:
        """Reload the current page (same filters), keeping the cursor row where possible."""
        query = self.query_text if tokens(self.query_text) else None
        try:
            rows = self._ranked(query) if query else []
            if not rows:
                self.hits = {}
                rows = self.store.messages(limit=PAGE_SIZE + 1, role=self.role, query=query,
                                           offset=self.page * PAGE_SIZE)
        except BestieError as exc:
            self.notify(str(exc), severity="error", markup=False)
            rows = []
        if not rows and self.page > 0:  # the page emptied (filter or deletion): step back
            self.page -= 1
            self.refresh_data()
            return
        self.has_more = len(rows) > PAGE_SIZE
        self.rows = rows[:PAGE_SIZE]
        from bestie_tui.text.clock import ago

        now = self.store.clock()
        table = self.table
        table.empty_text = self._empty_text()
        table.set_rows([(str(m.id), {"id": Text(str(m.id)), "time": Text(ago(m.created_at, now)),
                                     "role": Text(m.role), "who": _one_line(m.user or "-"),
                                     "ctx": self._mark(m.id), "text": _one_line(m.text)})
                        for m in self.rows])
        self._update_caption()
        self._show_detail()

    def _ranked(self, query: str) -> list[MessageRecord]:
        """This page (and one row more) of the recall ranking of ``query`` over the whole history."""
        from bestie_tui.retrieval.recall import recall

        hits = recall(self.store, query, None, every_user=True, governance="full", role=self.role,
                      limit=(self.page + 1) * PAGE_SIZE + 1)
        self.hits = {h.message.id: h for h in hits}
        return [h.message for h in hits[self.page * PAGE_SIZE:]]

    def _set_narrow(self, update: bool = True) -> None:
        self.set_class(self.app.size.width < NARROW, "-narrow", update=update)

    def on_resize(self, event) -> None:
        self._set_narrow()

    def _empty_text(self) -> str:
        return ("No messages match." if (self.query_text or self.role) else
                "No messages yet: the assistant logs its chats here; bestie memory import FILE brings a history in.")

    def _mark(self, message_id: int) -> Text:
        mark = self.preview_marks.get(message_id, "")
        return Text(mark, style="italic" if mark == "summary" else "bold")

    def _update_caption(self) -> None:
        first = self.page * PAGE_SIZE + 1
        caption = Text(f"Messages · {'best first' if self.hits else 'newest first'} · page {self.page + 1}")
        if self.rows:
            caption.append(f" · rows {first:,}–{first + len(self.rows) - 1:,}")
        caption.append(f" · role {self.role or 'all'}")
        if self.query_text:
            caption.append(" · matching ")
            caption.append(repr(self.query_text), style="bold")
        if self.has_more:
            caption.append(" · ] older")
        if self.page:
            caption.append(" · [ newer")
        self.query_one("#messages-caption", Static).update(caption)

    @property
    def selected(self) -> MessageRecord | None:
        row = self.table.cursor_row
        return self.rows[row] if self.rows and 0 <= row < len(self.rows) else None

    def _show_detail(self) -> None:
        detail = self.query_one("#messages-detail", Static)
        text = self._detail_text()
        detail.update(text if text is not None else Text(self._empty_text()))

    def action_open(self) -> None:
        """The selected message whole, with its neighbour turns (the side panel's text), in a dialog:
        below 130 columns the panel is hidden and the table cuts the text."""
        from .text_modal import TextModal

        text = self._detail_text()
        if text is None:
            self.notify("No message selected.", severity="warning")
            return
        self.app.push_screen(TextModal(text))

    def action_forget(self) -> None:
        """Remove the selected message from the history and its index, after a confirm that shows it
        (``MemoryStore.forget_messages``: one undo step, ``u``; gone for good once the undo retention
        has passed)."""
        from .confirm_modal import ConfirmModal

        m = self.selected
        if m is None:
            self.notify("No message selected.", severity="warning")
            return

        def apply(confirmed: bool | None) -> None:
            if not confirmed:
                return
            try:
                self.store.forget_messages([m.id])
            except BestieError as exc:
                self.notify(str(exc), severity="error", markup=False)
                return
            self.notify(f"Forgot message #{m.id}: gone from the history and from recall (u undoes).", markup=False)
            self.app.store_written()
            self.refresh_data()

        question = (f"Forget message #{m.id}? It leaves the history, the search and recall; u undoes it "
                    f"until the undo retention passes.\n\n{m.role} {m.user or '-'}: "
                    + (m.text if len(m.text) <= 600 else m.text[:600] + "…"))
        self.app.push_screen(ConfirmModal(question, confirm_label="Forget"), apply)

    def action_undo(self) -> None:
        """Undo the last change of this console (``u``) and show the history again."""
        self.app.action_undo()
        self.refresh_data()

    def _detail_text(self) -> Text | None:
        """The selected message's header, compression mark, neighbour turns (dimmed) and text."""
        m = self.selected
        if m is None:
            return None
        text = Text()
        text.append(f"#{m.id} · {m.role}", style="bold")
        append(text, f" · {m.user or '-'} · {m.channel or '-'} · session {m.session or '-'}", single_line=True)
        # the time on a line of its own: never broken between its date and its clock time
        text.append(f"\n{exact(m.created_at, self.store.owner_zone, self.store.clock(), seconds=True)}\n")
        if m.id in self.preview_marks:
            text.append(f"compression: {self.preview_marks[m.id]}\n", style="italic")
        hit = self.hits.get(m.id)
        for before in hit.before if hit else []:
            append(text, f"{before.role} {before.user or '-'}: {before.text}\n", style="dim")
        append(text, m.text)  # data: never markup, escape sequences shown, not run
        for after in hit.after if hit else []:
            append(text, f"\n{after.role} {after.user or '-'}: {after.text}", style="dim")
        return text

    def on_message_table_highlighted(self, event: MessageTable.Highlighted) -> None:
        self._show_detail()

    # ------------------------------------------------------------------ navigation
    def action_cursor(self, step: int) -> None:
        self.table.move_cursor(self.table.cursor_row + step)

    def action_edge(self, which: str) -> None:
        if self.rows:
            self.table.move_cursor(0 if which == "first" else len(self.rows) - 1)

    def action_page(self, step: int) -> None:
        if (step > 0 and not self.has_more) or (step < 0 and self.page == 0):
            self.notify("No older messages." if step > 0 else "Already on the newest page.", severity="warning")
            return
        self.page += step
        self.table.cursor_row = 0
        self.refresh_data()

    def action_cycle_role(self) -> None:
        self.role = ROLE_CYCLE[(ROLE_CYCLE.index(self.role) + 1) % len(ROLE_CYCLE)]
        self.page = 0
        self.refresh_data()

    def action_search(self) -> None:
        box = self.query_one("#messages-search", Input)
        box.remove_class("hidden")
        box.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "messages-search" and event.value != self.query_text:
            self.query_text = event.value
            self.page = 0
            self.refresh_data()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "messages-search":
            if not event.value.strip():
                event.input.add_class("hidden")
            self.table.focus()

    def action_clear_search(self) -> None:
        box = self.query_one("#messages-search", Input)
        box.add_class("hidden")
        self.table.focus()
        if box.value or self.query_text:
            box.value = ""
            self.query_text = ""
            self.page = 0
            self.refresh_data()

    # ------------------------------------------------------------------ compression preview
    def action_preview(self) -> None:
        """Toggle the preview: when one is shown, hide it and its marks; else read the history here
        (the UI thread owns the connection) and compress it in a worker."""
        from bestie_tui.conversation.compress import SUMMARY_SESSION, context_settings

        if self.preview_shown:
            self.preview_shown = False
            self.preview_marks = {}
            self.query_one("#messages-preview", Static).update(Text(PREVIEW_HINT))
            for m in self.rows:
                self.table.update_cell(str(m.id), "ctx", self._mark(m.id))
            self._show_detail()
            return

        try:
            settings = context_settings(self.store)
        except BestieError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        rows = [m for m in reversed(self.store.messages(limit=PREVIEW_LIMIT)) if m.session != SUMMARY_SESSION]
        history = [{"role": m.role, "content": m.text, "created_at": iso(m.created_at),
                    **({"name": m.user} if m.user else {})} for m in rows]
        panel = self.query_one("#messages-preview", Static)
        panel.update(Text(f"Compressing {len(history):,} messages…"))
        panel.loading = True
        self.run_preview(history, [m.id for m in rows], settings)

    @work(thread=True, exclusive=True, group="messages-preview")
    def run_preview(self, history: list[dict], ids: list[int], settings: dict[str, Any]) -> None:
        from bestie_tui.conversation.compress import compress
        from bestie_tui.conversation.summarize import ExtractiveSummarizer

        try:
            result: Any = compress(history, settings["context.compressThreshold"], settings["context.keepRecent"],
                                   ExtractiveSummarizer(settings["context.summaryChars"]),
                                   token_mode=settings["context.tokenMode"])
        except Exception as exc:  # noqa: BLE001 - shown to the owner, never lost silently
            result = exc
        if not get_current_worker().is_cancelled:
            self.post_message(self.PreviewReady(result, ids, settings))

    def on_messages_screen_preview_ready(self, message: PreviewReady) -> None:
        panel = self.query_one("#messages-preview", Static)
        panel.loading = False
        self.preview_shown = True
        result = message.result
        if isinstance(result, Exception):
            failed = Text(f"Compression preview failed: {result}")
            panel.update(failed)
            self._show_narrow_preview(failed)
            return
        self.preview_marks = {message.ids[i]: "summary" for i in result.evicted}
        self.preview_marks.update({message.ids[i]: "kept" for i in result.kept})
        self.preview_marks.update({message.ids[i]: "pinned" for i in result.pinned})
        shown_text = preview_text(result, message.ids, message.settings)
        panel.update(shown_text)
        for m in self.rows:
            self.table.update_cell(str(m.id), "ctx", self._mark(m.id))
        self._show_detail()
        self._show_narrow_preview(shown_text)

    def _show_narrow_preview(self, text: Text) -> None:
        """Below ``NARROW`` columns the side panel is hidden: the preview (counts, ranges and the
        summary) opens in a scrollable dialog instead, so it is reachable at 80 columns."""
        if self.has_class("-narrow"):
            from .text_modal import TextModal

            self.app.push_screen(TextModal(text.copy()))

    # ------------------------------------------------------------------ palette
    def palette_commands(self) -> Iterable[tuple[str, str, object]]:
        yield "context: Preview history compression", "Which turns would be summarised (c)", self.action_preview
        yield "view: Search messages", "Search the history (/)", self.action_search
        for role in ROLE_CYCLE:
            if role != self.role:
                label = role or "all roles"
                yield (f"view: Messages of {label}", f"Filter the history to {label}",
                       lambda role=role: self._set_role(role))

    def _set_role(self, role: str | None) -> None:
        self.role = role
        self.page = 0
        self.refresh_data()


def preview_text(result, ids: list[int], settings: dict[str, Any]) -> Text:
    """The preview panel: settings, counts, token change, the id ranges summarised/kept, the summary."""
    text = Text()
    text.append("Compression preview", style="bold")
    text.append(f" · threshold {settings['context.compressThreshold']} · keep {settings['context.keepRecent']}"
                f" · {result.token_mode}\n")
    n_in = len(ids)
    if not result.compressed:
        text.append(f"{result.note.replace(': unchanged', '')}: nothing would change "
                    f"({result.tokens_before:,} tokens).\n")
        return text
    saved = 100 * (1 - result.tokens_after / max(result.tokens_before, 1))
    text.append(f"{n_in:,} messages → {len(result.messages):,} · tokens {result.tokens_before:,} → "
                f"{result.tokens_after:,} (−{saved:.0f}%)\n")
    summarised = sorted(ids[i] for i in result.evicted)
    kept = sorted(ids[i] for i in result.kept)
    text.append(f"would summarise {len(summarised):,} turns: #{summarised[0]}–#{summarised[-1]}\n")
    if kept:
        text.append(f"keeps {len(kept):,} verbatim: #{kept[0]}–#{kept[-1]}\n")
    for reason in result.cut_moved:
        append(text, f"cut moved: {one_line(reason)}\n", style="italic")
    text.append("\n")
    append(text, result.summary or "")  # the summary quotes messages: data, never markup
    return text
