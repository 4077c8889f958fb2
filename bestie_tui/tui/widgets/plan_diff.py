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

    def show_plan(self, plan) -> None:
        """Replace the options with ``plan``'s operations; the highlight stays on the same operation
        (by key) if it is still there, else on the same position."""
        keep = self.highlighted
        keep_key = self.current.key if self.current is not None else None
        self.plan = plan
        self.set_options(Option(self._prompt(i, op), id=op.key) for i, op in enumerate(plan.operations))
        if plan.operations:
            keys = [op.key for op in plan.operations]
            self.highlighted = keys.index(keep_key) if keep_key in keys else min(keep or 0, len(keys) - 1)

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
        for sign, line in op.diff_lines():
            text.append("\n     ")
            kind = {"-": "removed", "+": "added"}.get(sign, "context")
            line_style = style(f"plan-diff--{kind}") if on else style("plan-diff--off")
            append(text, f"{sign} {line}", style=line_style, single_line=True)
        return text
