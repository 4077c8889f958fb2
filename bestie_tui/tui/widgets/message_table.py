"""``MessageTable``: the Messages view's page of chat turns, drawn with Textual's line API.

A ``DataTable`` renders every visible cell through Rich's layout machinery (padding, wrapping,
cropping) and, on a view's first switch, did that for each line twice: about half the time the
Messages view took to open (issue 17). This widget keeps the rows as ``rich.text.Text`` cells and
draws only the lines the compositor asks for (``render_line``), each one ``Text`` rendered once:
a fixed header line, then one line per row, cells cut with ``…`` to their column's width and the
last column given whatever width is left. A column marked ``optional`` (the Messages view's ``ctx``)
is left out while it is blank in every row and the rest column is short of room.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

#: Blank cells either side of every cell, as a ``DataTable``'s ``cell_padding`` of 1.
CELL_PADDING = 1


@dataclass(frozen=True)
class Column:
    """One column: ``key`` names it for ``update_cell``/``cell_text``, ``label`` is its header and
    ``width`` its width in cells (``None``: the rest of the table's width, at least ``MIN_REST``).
    An ``optional`` column gives its width to the rest column while every row's cell in it is blank
    and the rest column would have fewer than ``ROOMY`` cells."""

    key: str
    label: str
    width: int | None = None
    optional: bool = False


#: The narrowest the ``width=None`` column gets (cells), however narrow the table.
MIN_REST = 10
#: Below this many cells for the ``width=None`` column, blank ``optional`` columns are left out.
ROOMY = 60


class MessageTable(ScrollView, can_focus=True):
    """Rows of ``Text`` cells under a fixed header line, one row highlighted by a cursor.

    Args:
        columns: the columns, left to right; one of them may have ``width=None``.
        empty_text: shown under the header when there are no rows.

    Cell text is data: it is drawn as the ``Text`` given (never parsed as markup), on one line.
    Posts ``MessageTable.Highlighted`` when the cursor moves to another row (keys or mouse).
    """

    DEFAULT_CSS = """
    MessageTable {
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        overflow-y: auto;
        &:focus {
            background-tint: $foreground 5%;
            & > .message-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .message-table--header {
                background-tint: $foreground 5%;
            }
        }
        &:dark > .message-table--even-row {
            background: $surface-darken-1 40%;
        }
        & > .message-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        &:ansi > .message-table--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
        & > .message-table--even-row {
            background: $surface-lighten-1 50%;
        }
        & > .message-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .message-table--hover {
            background: $block-hover-background;
        }
        & > .message-table--empty {
            color: $text-muted;
            text-style: italic;
        }
    }
    """

    COMPONENT_CLASSES = {
        "message-table--header",
        "message-table--even-row",
        "message-table--cursor",
        "message-table--hover",
        "message-table--empty",
    }

    BINDINGS = [
        Binding("down", "cursor_down", "Cursor down", id="table.down", show=False),
        Binding("up", "cursor_up", "Cursor up", id="table.up", show=False),
        Binding("pagedown", "page_down", "Page down", id="table.page_down", show=False),
        Binding("pageup", "page_up", "Page up", id="table.page_up", show=False),
        Binding("home,ctrl+home", "first", "First row", id="table.first", show=False),
        Binding("end,ctrl+end", "last", "Last row", id="table.last", show=False),
    ]

    class Highlighted(Message):
        """The cursor moved to row ``row`` (an index into the rows; -1 when there are none)."""

        def __init__(self, table: MessageTable, row: int) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> MessageTable:
            return self.table

    def __init__(self, columns: Sequence[Column], *, empty_text: str = "", name: str | None = None,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns = list(columns)
        self.empty_text = empty_text
        self._rows: list[dict[str, Text]] = []
        self._keys: dict[str, int] = {}
        #: keys of the optional columns blank in every row (all the rows, not only those in view,
        #: so the columns do not come and go while the owner scrolls)
        self._blank: set[str] = {c.key for c in self.columns if c.optional}
        self.cursor_row = 0
        self._hover_row: int | None = None

    # ------------------------------------------------------------------ rows
    @property
    def row_count(self) -> int:
        return len(self._rows)

    def set_rows(self, rows: Sequence[tuple[str, dict[str, Text]]]) -> None:
        """Show ``rows`` (``(key, {column key: Text})``, top to bottom) instead of the current ones;
        the cursor keeps its index (``cursor_row``, which may be set before) where the new rows reach it. A missing cell is blank."""
        self._rows = [cells for _, cells in rows]
        self._keys = {key: i for i, (key, _) in enumerate(rows)}
        self._hover_row = None
        self._blank = self._blank_columns()
        self.cursor_row = max(0, min(self.cursor_row, len(self._rows) - 1))
        self.virtual_size = Size(self.size.width, len(self._rows) + 1)
        self._scroll_cursor_into_view()
        self.refresh()

    def update_cell(self, key: str, column: str, value: Text) -> None:
        """Replace one cell of the row with key ``key``; unknown keys are ignored."""
        index = self._keys.get(key)
        if index is not None:
            self._rows[index][column] = value
            blank = self._blank_columns()
            if blank != self._blank:  # an optional column comes or goes: every line moves
                self._blank = blank
                self.refresh()
            else:
                self._refresh_row(index)

    def _blank_columns(self) -> set[str]:
        return {c.key for c in self.columns
                if c.optional and all(not (cells.get(c.key) or Text()).plain.strip() for cells in self._rows)}

    def shown_columns(self) -> list[str]:
        """The keys of the columns drawn at the table's present width, left to right."""
        return list(self._column_widths(self.scrollable_content_region.width))

    def cell_text(self, row: int, column: str) -> str:
        """The cell as drawn (plain text, cut with ``…`` to its column's width, no padding; ``""``
        for a column left out)."""
        width = self._column_widths(self.scrollable_content_region.width).get(column)
        if width is None:
            return ""
        return self._fit(self._rows[row].get(column), width).plain.rstrip(" ")

    # ------------------------------------------------------------------ cursor
    def move_cursor(self, row: int) -> None:
        """Put the cursor on ``row`` (clamped to the rows) and scroll it into view."""
        if not self._rows:
            return
        row = max(0, min(row, len(self._rows) - 1))
        if row == self.cursor_row:
            return
        old, self.cursor_row = self.cursor_row, row
        self._refresh_row(old)
        self._refresh_row(row)
        self._scroll_cursor_into_view()
        self.post_message(self.Highlighted(self, row))

    def _page_height(self) -> int:
        """Rows that fit under the header."""
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_cursor_into_view(self) -> None:
        top, height = round(self.scroll_y), self._page_height()
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False)
        elif self.cursor_row >= top + height:
            self.scroll_to(y=self.cursor_row - height + 1, animate=False)

    def _refresh_row(self, index: int) -> None:
        self.refresh_line(index + 1)  # virtual line: the header takes line 0 of the view

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor_row + 1)

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor_row - 1)

    def action_page_down(self) -> None:
        self.move_cursor(self.cursor_row + self._page_height())

    def action_page_up(self) -> None:
        self.move_cursor(self.cursor_row - self._page_height())

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(len(self._rows) - 1)

    # ------------------------------------------------------------------ mouse
    def _row_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:  # outside, or the header
            return None
        index = round(self.scroll_y) + offset.y - 1
        return index if 0 <= index < len(self._rows) else None

    def on_click(self, event: events.Click) -> None:
        row = self._row_at(event)
        if row is not None:
            self.move_cursor(row)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._row_at(event))

    def on_leave(self, event: events.Leave) -> None:
        self._set_hover(None)

    def _set_hover(self, row: int | None) -> None:
        if row != self._hover_row:
            old, self._hover_row = self._hover_row, row
            for index in (old, row):
                if index is not None:
                    self._refresh_row(index)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self._rows) + 1)
        self._scroll_cursor_into_view()

    # ------------------------------------------------------------------ drawing
    def _column_widths(self, width: int) -> dict[str, int]:
        """Each drawn column's width, left to right; blank optional columns are left out (and
        not in the result) when the rest column would have fewer than ``ROOMY`` cells."""
        def rest(columns: list[Column]) -> int:
            return width - sum(c.width + 2 * CELL_PADDING for c in columns if c.width is not None) - 2 * CELL_PADDING

        columns = list(self.columns)
        if rest(columns) < ROOMY:
            columns = [c for c in columns if c.key not in self._blank]
        left = max(MIN_REST, rest(columns))
        return {c.key: left if c.width is None else c.width for c in columns}

    @staticmethod
    def _fit(cell: Text | None, width: int) -> Text:
        text = cell.copy() if cell is not None else Text()
        text.no_wrap = True
        text.truncate(width, overflow="ellipsis", pad=True)
        return text

    def _line_text(self, cells: dict[str, Text], widths: dict[str, int]) -> Text:
        line = Text(no_wrap=True)
        pad = " " * CELL_PADDING
        for column in self.columns:
            if column.key not in widths:  # left out
                continue
            line.append(pad)
            line.append_text(self._fit(cells.get(column.key), widths[column.key]))
            line.append(pad)
        return line

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        widths = self._column_widths(width)
        if y == 0:
            header = {c.key: Text(c.label) for c in self.columns}
            return self._strip(self._line_text(header, widths), width,
                               self.get_component_styles("message-table--header").rich_style)
        index = round(self.scroll_y) + y - 1
        if not self._rows:
            if y != 1 or not self.empty_text:
                return Strip.blank(width, base)
            text = Text(" " * CELL_PADDING + self.empty_text)
            return self._strip(text, width, base + self.get_component_rich_style("message-table--empty"))
        if index >= len(self._rows):
            return Strip.blank(width, base)
        style = self.get_component_styles("message-table--even-row").rich_style if index % 2 == 0 else base
        if index == self._hover_row:
            style += self.get_component_styles("message-table--hover").rich_style
        if index == self.cursor_row:
            style += self.get_component_styles("message-table--cursor").rich_style
        return self._strip(self._line_text(self._rows[index], widths), width, style)

    def _strip(self, text: Text, width: int, style: Style) -> Strip:
        text.truncate(width, overflow="ellipsis", pad=True)
        strip = Strip(text.render(self.app.console), text.cell_len)
        return strip.apply_style(style).crop_extend(0, width, style)
