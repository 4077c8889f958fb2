"""``PlanDiff``: a plan's operations as a coloured diff, one option per operation.

Colours come from component classes styled in ``styles/cleanup.tcss`` with theme variables
(``$error`` for removed lines, ``$success`` for added ones), so every theme works. Memory text is
appended to ``rich.text.Text`` as data, never parsed as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ..display import append

#: Operations made into options at a time. A plan at 100,000 memories has tens of thousands of
#: operations; building every option at once held the console for many seconds (issue 13).
CHUNK = 200


class PlanDiff(OptionList):
    """Shows ``plan.operations``; ``refresh_operation(index)`` redraws one after a toggle or edit."""

    COMPONENT_CLASSES = {
        "plan-diff--removed",
        "plan-diff--added",
        "plan-diff--context",
        "plan-diff--header",
        "plan-diff--off",
    }
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="plan.down"),
        Binding("k", "cursor_up", "Up", show=False, id="plan.up"),
        Binding("g", "first", "First", show=False, id="plan.first"),
        Binding("G", "last", "Last", show=False, id="plan.last"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.plan = None
        self._shown = 0  # operations made into options so far (the first ``_shown``)

    def show_plan(self, plan) -> None:
        """Replace the options with ``plan``'s operations; the highlight stays on the same operation
        (by key) if it is still there, else on the same position. Only the first ``CHUNK``
        operations (or up to the highlight) become options now; more are added as the highlight
        nears the end of those, and all of them on ``G``."""
        keep = self.highlighted
        keep_key = self.current.key if self.current is not None else None
        self.plan = plan
        ops = plan.operations
        target = 0
        if ops:
            keys = [op.key for op in ops]
            target = keys.index(keep_key) if keep_key in keys else min(keep or 0, len(ops) - 1)
        self._shown = min(len(ops), max(CHUNK, target + CHUNK))
        self.set_options(Option(self._prompt(i, ops[i]), id=ops[i].key) for i in range(self._shown))
        if ops:
            self.highlighted = target

    def _show_more(self, upto: int) -> None:
        """Make options of the operations up to index ``upto`` (exclusive), after those shown."""
        ops = self.plan.operations if self.plan is not None else []
        end = min(len(ops), upto)
        if end > self._shown:
            start, self._shown = self._shown, end
            self.add_options(Option(self._prompt(i, ops[i]), id=ops[i].key) for i in range(start, end))

    def watch_highlighted(self, highlighted: int | None) -> None:
        super().watch_highlighted(highlighted)
        if highlighted is not None and highlighted >= self._shown - max(1, CHUNK // 4):
            self._show_more(self._shown + CHUNK)

    def action_last(self) -> None:
        if self.plan is not None:
            self._show_more(len(self.plan.operations))
        super().action_last()

    def refresh_operation(self, index: int) -> None:
        self.replace_option_prompt_at_index(index, self._prompt(index, self.plan.operations[index]))

    @property
    def current(self):
        """The highlighted operation, or ``None``."""
        if self.plan is None or self.highlighted is None or not self.plan.operations:
            return None
        return self.plan.operations[self.highlighted]

    def _prompt(self, index: int, op) -> Text:
        on = op.selected and not op.blocked
        style = self.get_component_rich_style
        header_style = style("plan-diff--header") if on else style("plan-diff--off")
        text = Text(no_wrap=False)
        text.append(f"{index + 1:>3}. [{'x' if on else ' '}] ", style=header_style)
        text.append(op.key, style=header_style)  # the stable name the CLI's --accept/--skip take
        text.append(": ")
        append(text, op.reason, single_line=True)
        if op.needs_acceptance and not op.selected:
            text.append("  (space accepts)", style=style("plan-diff--off"))
        if op.blocked:
            append(text, f"  blocked: {op.blocked}", style=style("plan-diff--off"), single_line=True)
        width = self._line_width()
        text.truncate(width, overflow="ellipsis")
        for sign, line in op.diff_lines():
            # each line is cut to the width with "…" instead of wrapping back to the left edge,
            # where a wrapped memory would read as the next line of the diff
            row = append(Text("     "), f"{sign} {line}", single_line=True)
            row.truncate(width, overflow="ellipsis")
            kind = {"-": "removed", "+": "added"}.get(sign, "context")
            row.stylize(style(f"plan-diff--{kind}") if on else style("plan-diff--off"), 5)
            text.append("\n")
            text.append_text(row)
        return text

    def _line_width(self) -> int:
        """Cells a line may take: the list's content width (the terminal's before the first layout)."""
        width = self.scrollable_content_region.width or (self.app.size.width - 6)
        return max(20, width - 1)

    def on_resize(self, event) -> None:
        if self.plan is not None and getattr(self, "_drawn_width", None) != self._line_width():
            self._drawn_width = self._line_width()
            for i in range(self._shown):
                self.replace_option_prompt_at_index(i, self._prompt(i, self.plan.operations[i]))
