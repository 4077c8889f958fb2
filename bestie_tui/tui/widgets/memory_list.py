"""``MemoryList``: a virtual list of memories that stays responsive with tens of thousands of rows.

It is a line-API ``ScrollView``: it knows only how many memories match its filters and asks the
store for a page of rows when a line of that page is about to be drawn, keeping the few most recent
pages. Nothing is loaded per row at mount, so first paint costs one ``count`` and one page query
whatever the size of the database.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from bestie_tui.store.gate.sensitive import sensitive_kind
from bestie_tui.store.instructions import is_instruction
from bestie_tui.store.records import MemoryRecord

from ..display import shown

#: Width of the kind column, in terminal cells, where the list has room for it; a narrow list
#: gives the kind a quarter of the row, never under ``KIND_MIN`` cells (``kind_cells``).
KIND_WIDTH = 16
KIND_MIN = 6


def kind_cells(width: int) -> int:
    """Cells of the kind column in a row of ``width`` cells (ids included): ``KIND_WIDTH`` when that
    is at most a quarter of the row, else a quarter, not under ``KIND_MIN``. The text column keeps
    at least half of the row (``MemoryList.row_text``): the kind and the flags shrink first."""
    return max(KIND_MIN, min(KIND_WIDTH, width // 4))


#: The short form of each flag, used when the flags do not fit whole (``short_flags``).
SHORT_FLAGS = {"pinned": "pin", "instruction": "instr", "expired": "exp", "forgotten": "forgot",
               "rejected": "rej", "pending": "pend", "sensitive": "sens"}


def short_flags(flags: list[str]) -> str:
    """``flags`` in their short forms (``superseded→#12`` as ``→#12``), joined by spaces."""
    return " ".join(SHORT_FLAGS.get(f, f.replace("superseded", "")) for f in flags)


def fitted(value: str, cells: int) -> Text:
    """``value`` (already ``shown``) cut with "…" to at most ``cells`` cells (empty under one cell)."""
    text = Text(value, no_wrap=True)
    if cells <= 0:
        return Text()
    text.truncate(cells, overflow="ellipsis")
    return text


def memory_flags(memory: MemoryRecord, now) -> list[str]:
    """Short lifecycle flags of a memory, in display order: pinned, instruction (a standing
    instruction, ``store.instructions``), stale, expired, superseded,
    forgotten, rejected, and sensitive (``gate.sensitive``). ``now`` is naive UTC (the store's clock)."""
    flags = []
    if memory.pinned:
        flags.append("pinned")
    if is_instruction(memory):  # a standing instruction: enters every prompt, "How to answer:"
        flags.append("instruction")
    if memory.stale:
        flags.append("stale")
    if memory.is_expired(now):
        flags.append("expired")
    if memory.superseded_by is not None:
        flags.append(f"superseded→#{memory.superseded_by}")
    if memory.status in ("forgotten", "rejected", "pending"):
        flags.append(memory.status)
    if sensitive_kind(memory.text):  # health, finance, an identity document: kept out of core and the digest
        flags.append("sensitive")
    return flags


def one_line(text: str) -> str:
    """Memory text on one line, control characters made visible (it is data, never markup)."""
    return shown(text.replace("\r\n", "\n").replace("\n", " ⏎ ").replace("\t", " "))


class MemoryList(ScrollView, can_focus=True):
    """A cursor over ``store.list(**filters)`` (newest id first), fetched a page at a time.

    Args:
        store: the ``MemoryStore`` facade; only ``count``, ``list``, ``position`` and ``clock`` are used.
        filters: keyword filters for ``store.list``/``store.count`` (``tier``, ``status``, ``query``…).
        empty_text: what the list shows when nothing matches.

    Posts ``MemoryList.Highlighted`` whenever the highlighted memory (by id) changes.
    """

    DEFAULT_CSS = """
    MemoryList {
        overflow-x: hidden;
        overflow-y: auto;
        background: $surface;
    }
    MemoryList > .memory-list--cursor {
        background: $boost;
        text-style: bold;
    }
    MemoryList:focus > .memory-list--cursor {
        background: $accent 40%;
    }
    MemoryList > .memory-list--id {
        color: $text-muted;
    }
    MemoryList > .memory-list--kind {
        color: $secondary;
    }
    MemoryList > .memory-list--flag {
        color: $warning;
    }
    MemoryList > .memory-list--empty {
        color: $text-muted;
        text-style: italic;
    }
    """

    COMPONENT_CLASSES = {
        "memory-list--cursor",
        "memory-list--id",
        "memory-list--kind",
        "memory-list--flag",
        "memory-list--empty",
    }

    BINDINGS = [
        Binding("down,j", "cursor_down", "Next", id="list.down", show=False),
        Binding("up,k", "cursor_up", "Previous", id="list.up", show=False),
        Binding("home,g", "cursor_first", "First", id="list.first", show=False),
        Binding("end,G", "cursor_last", "Last", id="list.last", show=False),
        Binding("pagedown", "cursor_page_down", "Page down", id="list.page_down", show=False),
        Binding("pageup", "cursor_page_up", "Page up", id="list.page_up", show=False),
    ]

    #: Rows fetched per store query, and how many pages are kept (about two screens' worth each).
    PAGE_SIZE = 100
    MAX_PAGES = 4

    class Highlighted(Message):
        """The highlighted memory changed; ``memory`` is ``None`` when the list is empty."""

        def __init__(self, memory_list: MemoryList, memory: MemoryRecord | None) -> None:
            super().__init__()
            self.memory_list = memory_list
            self.memory = memory

        @property
        def control(self) -> MemoryList:
            return self.memory_list

    def __init__(self, store, *, filters: dict[str, Any] | None = None, empty_text: str = "No memories.",
                 name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.store = store
        self.filters: dict[str, Any] = dict(filters or {})
        self.empty_text = empty_text
        self.total = 0
        self.cursor = 0
        self._pages: OrderedDict[int, list[MemoryRecord]] = OrderedDict()
        self._announced_id: int | None = None
        self._now = store.clock()
        self._loaded = False

    # ------------------------------------------------------------------ data
    def on_mount(self) -> None:
        super().on_mount()
        if not self._loaded:
            self.reload(keep_place=False)

    def set_filters(self, **filters: Any) -> None:
        """Show another selection (e.g. another tier or a text filter): back to the first row."""
        self.filters = {k: v for k, v in filters.items() if v is not None}
        self.reload(keep_place=False)

    def reload(self, keep_place: bool = True) -> None:
        """Re-read the count and drop cached pages. With ``keep_place`` the highlighted memory stays
        highlighted if it still matches, on the same screen line; otherwise the cursor keeps its index
        (so after a forget the neighbour is highlighted). Raises what ``store.count`` raises."""
        selected = self.highlighted if keep_place and self._loaded else None
        old_cursor, old_scroll = self.cursor, round(self.scroll_y)
        self._pages.clear()
        self._now = self.store.clock()
        self.total = self.store.count(**self.filters)
        self._loaded = True
        new_cursor, new_scroll = 0, 0
        if keep_place:
            new_cursor, new_scroll = old_cursor, old_scroll
            position = self.store.position(selected.id, **self.filters) if selected else None
            if position is not None:
                # Keep the selected row on the line it was drawn on, even if rows arrived above it.
                new_cursor, new_scroll = position, old_scroll + (position - old_cursor)
        self.cursor = max(0, min(new_cursor, self.total - 1))
        self.virtual_size = Size(self.size.width, self.total)
        self.scroll_to(y=max(0, new_scroll), animate=False, force=True)
        self._scroll_cursor_into_view()
        self.refresh()
        self._announce(force=True)

    def row_at(self, index: int) -> MemoryRecord | None:
        """The memory at ``index`` (0 = newest), fetching its page if needed; ``None`` outside."""
        if not 0 <= index < self.total:
            return None
        number = index // self.PAGE_SIZE
        page = self._pages.get(number)
        if page is None:
            page = self.store.list(**self.filters, offset=number * self.PAGE_SIZE, limit=self.PAGE_SIZE)
            self._pages[number] = page
            while len(self._pages) > self.MAX_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(number)
        offset = index - number * self.PAGE_SIZE
        return page[offset] if offset < len(page) else None

    @property
    def highlighted(self) -> MemoryRecord | None:
        """The memory under the cursor, or ``None`` when the list is empty."""
        return self.row_at(self.cursor)

    def _announce(self, force: bool = False) -> None:
        memory = self.highlighted
        memory_id = memory.id if memory else None
        if force or memory_id != self._announced_id:
            self._announced_id = memory_id
            self.post_message(self.Highlighted(self, memory))

    # ------------------------------------------------------------------ cursor
    def move_cursor(self, index: int) -> None:
        """Highlight the row at ``index`` (clamped), scrolling it into view."""
        if self.total == 0:
            return
        index = max(0, min(index, self.total - 1))
        if index == self.cursor:
            return
        old = self.cursor
        self.cursor = index
        self.refresh_line(old)
        self.refresh_line(index)
        self._scroll_cursor_into_view()
        self._announce()

    def _scroll_cursor_into_view(self) -> None:
        height = max(1, self.scrollable_content_region.height)
        top = round(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor - 1)

    def action_cursor_first(self) -> None:
        self.move_cursor(0)

    def action_cursor_last(self) -> None:
        self.move_cursor(self.total - 1)

    def action_cursor_page_down(self) -> None:
        self.move_cursor(self.cursor + max(1, self.scrollable_content_region.height - 1))

    def action_cursor_page_up(self) -> None:
        self.move_cursor(self.cursor - max(1, self.scrollable_content_region.height - 1))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self.move_cursor(offset.y + round(self.scroll_y))

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, self.total)
        self._scroll_cursor_into_view()

    # ------------------------------------------------------------------ drawing
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        index = round(self.scroll_y) + y
        if self.total == 0:
            if y != 0:
                return Strip.blank(width, base)
            text = Text(" " + self.empty_text, no_wrap=True, overflow="ellipsis")
            text.stylize(self.get_component_rich_style("memory-list--empty"))
            return self._strip(text, width, base)
        memory = self.row_at(index)
        if memory is None:
            return Strip.blank(width, base)
        text = self.row_text(memory, width)
        style = base + self.get_component_rich_style("memory-list--cursor") if index == self.cursor else base
        return self._strip(text, width, style)

    def _strip(self, text: Text, width: int, style: Style) -> Strip:
        text.truncate(width, overflow="ellipsis", pad=True)
        strip = Strip(text.render(self.app.console), text.cell_len)
        return strip.apply_style(style).crop_extend(0, width, style)

    def row_text(self, memory: MemoryRecord, width: int) -> Text:
        """One row: id, kind, text (literal, never markup) and flags, fitted to ``width`` cells.

        The text column keeps at least half of ``width``: the kind column is narrowed first
        (``kind_cells``), then the flags take their short forms and are cut with "…" (the detail pane shows them whole)."""
        id_width = len(str(self.row_at(0).id if self.total else memory.id)) + 1
        row = Text(no_wrap=True, overflow="ellipsis")
        row.append(f"{memory.id:>{id_width}} ", self.get_component_rich_style("memory-list--id", partial=True))
        kind_width = kind_cells(width)
        kind = fitted(shown(memory.kind), kind_width)
        kind.pad_right(kind_width - kind.cell_len)
        kind.append(" ")
        kind.stylize(self.get_component_rich_style("memory-list--kind", partial=True))
        row.append_text(kind)
        flag_list = memory_flags(memory, self._now)
        flags = " ".join(flag_list)
        body = Text(one_line(memory.text), no_wrap=True)
        text_min = min(body.cell_len, width - width // 2)  # at least half the row (or all the text)
        flag_room = width - row.cell_len - text_min - 2
        if len(flags) > flag_room:
            flags = short_flags(flag_list)
        shown_flags = fitted(flags, min(len(flags), flag_room)) if flags else Text()
        room = width - row.cell_len - (shown_flags.cell_len + 2 if shown_flags else 1)
        if room > 0:
            body.truncate(room, overflow="ellipsis", pad=True)
            row.append_text(body)
        if shown_flags:
            row.append("  ")
            shown_flags.stylize(self.get_component_rich_style("memory-list--flag", partial=True))
            row.append_text(shown_flags)
        return row
