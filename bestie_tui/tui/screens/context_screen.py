"""``ContextScreen``: preview the memory block a request would get, as you type.

The query, user, channel, project and budget fields feed ``core.assembly.build_context`` (with
``record_access=False``: a preview is not an injection). Typing restarts a short debounce timer; the
build (the first may build a missing index) runs in a thread worker and posts the ``ContextPack`` back, so
the keyboard never waits for it. Each included record shows a score bar and its parts; the records
left out are listed with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widgets import Input, Select, Static
from textual.worker import get_current_worker

from bestie_tui.retrieval.assembly import DEFAULT_TOKEN_BUDGET
from bestie_tui.retrieval.scoring import PART_LABELS, format_part, signals_text

from ..display import append, data, one_line
from .base import BestieScreen

#: Seconds of quiet typing before the pack is rebuilt.
DEBOUNCE = 0.25
BAR_WIDTH = 20
def score_bar(value: float, width: int = BAR_WIDTH) -> str:
    """A text bar for a 0–1 value: ``█`` cells, then ``░`` for the rest (``width`` cells in all)."""
    filled = max(0, min(width, round(value * width)))
    return "█" * filled + "░" * (width - filled)


def pack_text(pack, width: int | None = None) -> Text:
    """The pack as rich ``Text`` (memory text appended as plain data, never parsed as markup).

    With ``width`` (cells) every line is cut to it and ends in ``…``: a record is always two lines
    (text; score bar, tokens, parts), whatever the terminal's width, so nothing wraps mid-record."""
    out = Text(no_wrap=width is not None, overflow="ellipsis")
    if pack.paused:
        out.append("Memory is paused: the memory block is empty.", style="bold")
        return out
    bar = BAR_WIDTH if width is None or width >= 100 else 10
    for title, items in (("core", pack.core), ("answer", pack.instructions), ("working", pack.working)):
        for item in items:
            m, s = item.record, item.score
            out.append(f"{title:<8}", style="bold")
            out.append(f"#{m.id:<5}")
            append(out, _cut(m.text, None if width is None else width - 14), single_line=True)
            out.append("\n         ")
            out.append(score_bar(s.total, bar), style="bold")
            out.append(f" {s.total:.2f} · {item.tokens} tok  ")
            parts = "  ".join([f"{label} {format_part(s, name)}" for name, label in PART_LABELS]
                              + ([signals_text(s)] if signals_text(s) else []))
            out.append(_cut(parts, None if width is None else width - 9 - bar - 16 - len(str(item.tokens))),
                       style="dim")
            out.append("\n")
    if not pack.items:
        out.append("No memory enters this prompt.\n", style="italic")
    if pack.left_out or pack.low_relevance_count:
        out.append("\nLeft out\n", style="bold")
        for x in pack.left_out:
            line = f"{x.reason:<14}{one_line(x.detail)}  {one_line(x.text)}"
            out.append(f"  #{x.id:<5}")
            append(out, _cut(line, None if width is None else width - 8), single_line=True)
            out.append("\n")
        if pack.unlisted_low_relevance:
            out.append(f"  … and {pack.unlisted_low_relevance} more under the relevance floor\n", style="dim")
    return out


def _cut(text: str, width: int | None) -> str:
    """``text`` on one line, cut to ``width`` cells with ``…`` (``None``: whole)."""
    text = one_line(text)
    if width is None or cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"
    return set_cell_size(text, width - 1) + "…"



#: The memory block's token budget when the box is empty.
DEFAULT_BUDGET = DEFAULT_TOKEN_BUDGET
#: The largest budget the box takes (a million tokens: more than any prompt holds).
BUDGET_CAP = 1_000_000


class ContextScreen(BestieScreen):
    """Type a request, pick its user/channel/project, and watch the memory block it would get."""

    VIEW_TITLE = "Context"
    # Typing a request is what the view is for: the cursor starts in the query box. Inside it, keys
    # are text (digits included); esc leaves it (then 1–7, q, ? work), alt+1…7 (ESC+digit) and ctrl+q work anyway.
    AUTO_FOCUS = "#context-query"
    BINDINGS = [
        Binding("slash", "focus_query", "Query", id="context.query"),
        Binding("escape", "focus_pack", "Leave box", id="context.pack"),
        Binding("j,down", "scroll_down", "Down", id="context.down", show=False),
        Binding("k,up", "scroll_up", "Up", id="context.up", show=False),
        Binding("g,home", "scroll_home", "Top", id="context.top", show=False),
        Binding("G,end", "scroll_end", "Bottom", id="context.bottom", show=False),
        Binding("f", "toggle_governance", "Governed/full", id="context.governance"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._timer: Timer | None = None
        #: governance used for the preview; None = the stored setting.
        self.governance: str | None = None
        self.pack = None
        self._request: tuple | None = None
        #: selector → the values its options were last set from (a Select's set_options rebuilds
        #: its option list: skipped when they did not change).
        self._choices: dict[str, list] = {}

    def compose_body(self) -> ComposeResult:
        with Vertical(id="context-body"):
            yield Input(placeholder="type a request; the memory block updates as you type", id="context-query")
            with Horizontal(id="context-request"):
                # Built with their options, so the first load does not rebuild them.
                for selector, values, prompt in self._choice_values():
                    self._choices[selector] = values
                    first = values[0] if selector == "#context-user" and values else Select.NULL
                    yield Select(self._options(values), prompt=prompt, value=first, id=selector[1:])
                yield Input(str(DEFAULT_BUDGET), placeholder=f"budget ({DEFAULT_BUDGET})", type="integer",
                            id="context-budget")
            yield Static("", id="context-summary")
            with VerticalScroll(id="context-pack"):
                yield Static("", id="context-pack-text")

    def on_mount(self) -> None:
        super().on_mount()
        self.load()

    def on_screen_suspend(self) -> None:
        from textual.screen import ModalScreen

        self._under_modal = isinstance(self.app.screen, ModalScreen)  # help, a dialog: not leaving the view

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        super().on_screen_resume(event)
        if not getattr(self, "_under_modal", False):
            self.action_focus_query()  # entering the view: the cursor is where the typing goes
        self._under_modal = False

    # ------------------------------------------------------------------ data
    def _choice_values(self) -> list[tuple[str, list, str]]:
        """``(selector, values, prompt)`` of the user, channel and project choices in the store."""
        from bestie_tui.retrieval.governance import bindings

        mark = self._change_mark()
        cached = self.__dict__.get("_choice_cache")
        if cached is not None and mark is not None and cached[0] == mark:
            found = cached[1]  # composed a moment ago and nothing written since: the first load
        else:
            found = bindings(self.store)
            self._choice_cache = (mark, found)
        return [("#context-user", list(found.users), "no user"),
                ("#context-channel", list(found.channels), "no channel"),
                ("#context-project", list(found.projects), "no project")]

    @staticmethod
    def _options(values: list) -> list[tuple[Text, object]]:
        return [(data(v, single_line=True), v) for v in values]

    def refresh_data(self) -> None:
        """Refill the user/channel/project choices from the store and rebuild the pack."""
        for selector, values, _ in self._choice_values():
            select = self.query_one(selector, Select)
            current = select.value
            if self._choices.get(selector) == values:
                continue
            self._choices[selector] = values
            select.set_options(self._options(values))
            if current in values:
                select.value = current
            elif selector == "#context-user" and values and current == Select.NULL:
                select.value = values[0]
        self.schedule_build(0, force=True)

    def request(self) -> tuple:
        def value(selector: str):
            v = self.query_one(selector, Select).value
            return None if v == Select.NULL else v
        budget_text = self.query_one("#context-budget", Input).value.strip()
        # an emptied box means the default budget, not none; a budget past any prompt is capped
        budget = min(int(budget_text), BUDGET_CAP) if budget_text.isdigit() else DEFAULT_BUDGET
        return (self.query_one("#context-query", Input).value, value("#context-user"),
                value("#context-channel"), value("#context-project"), budget, self.governance)

    def schedule_build(self, delay: float = DEBOUNCE, *, force: bool = False) -> None:
        """Build the pack for the request on screen after ``delay`` seconds (typing debounce). The
        same request as the last build is not built again (setting the choices in ``refresh_data``
        reports them as changed) unless ``force`` (the store changed)."""
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(delay, self._start_build) if delay else None
        if not delay:
            self._start_build(force=force)

    def _start_build(self, force: bool = False) -> None:
        request = self.request()
        if request == self._request and not force:
            return
        self._request = request
        self.loading_later(self.query_one("#context-pack"))
        self.build(self._request)

    @work(thread=True, exclusive=True, group="context-build")
    def build(self, request: tuple) -> None:
        """Build the pack off the UI thread (the first call may build a missing index) and post it back."""
        from bestie_tui.retrieval.assembly import build_context

        query, user, channel, project, budget, governance = request
        try:
            result: object = build_context(self.store, query, user, channel, project, budget,
                                           governance=governance, record_access=False)
        except Exception as exc:  # noqa: BLE001 - shown to the owner, never lost silently
            result = exc
        finally:
            self.store.db.close()  # this worker thread's own Peewee connection
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, request, result)

    def _show(self, request: tuple, result: object) -> None:
        if request != self._request:
            return  # a newer build is running
        try:
            box = self.query_one("#context-pack")
            summary = self.query_one("#context-summary", Static)
            body = self.query_one("#context-pack-text", Static)
        except NoMatches:
            return  # the view is closing (the app quits): its widgets are gone before the worker ended
        self.loaded(box)
        if isinstance(result, Exception):
            summary.update(data(f"Cannot build the pack: {result}", style="bold"))
            body.update("")
            return
        self.pack = pack = result
        line = Text()
        line.append(f"{pack.tokens}/{pack.token_budget} tokens ", style="bold")
        line.append(score_bar(pack.tokens / pack.token_budget if pack.token_budget else 0, 30))
        line.append(f"  ·  {len(pack.core)} core, {len(pack.instructions)} standing, {len(pack.working)} working"
                    f"  ·  governance {pack.governance}")
        line.append(f"  ·  core cap {pack.core_cap}")
        summary.update(line)
        body.update(pack_text(pack, self._pack_width()))

    def _pack_width(self) -> int:
        box = self.query_one("#context-pack")
        return max(20, (box.content_size.width or self.app.size.width - 6) - 3)  # less a scrollbar

    def on_resize(self, event) -> None:
        if self.pack is not None:
            self.call_after_refresh(lambda: self.query_one("#context-pack-text", Static).update(
                pack_text(self.pack, self._pack_width())))

    # ------------------------------------------------------------------ events
    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.schedule_build()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self.schedule_build()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers ``esc`` only while the cursor is in the query box, ``/`` only outside it."""
        if action in ("focus_pack", "focus_query"):
            inside = self.focused is not None and self.focused.id == "context-query"
            return inside if action == "focus_pack" else not inside
        return True

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.refresh_bindings()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.refresh_bindings()

    def action_focus_query(self) -> None:
        self.query_one("#context-query", Input).focus()

    def action_focus_pack(self) -> None:
        self.query_one("#context-pack").focus()

    def action_scroll_down(self) -> None:
        self.query_one("#context-pack", VerticalScroll).scroll_down()

    def action_scroll_up(self) -> None:
        self.query_one("#context-pack", VerticalScroll).scroll_up()

    def action_scroll_home(self) -> None:
        self.query_one("#context-pack", VerticalScroll).scroll_home()

    def action_scroll_end(self) -> None:
        self.query_one("#context-pack", VerticalScroll).scroll_end()

    def action_toggle_governance(self) -> None:
        current = self.governance or self.store.get_setting("memory.governance")
        self.set_governance("full" if current == "governed" else "governed")

    def set_governance(self, mode: str) -> None:
        self.governance = mode
        self.schedule_build(0)

    def palette_commands(self) -> Iterable[tuple[str, str, object]]:
        yield ("context: Preview with full governance", "All of the user's channels and projects",
               lambda: self.set_governance("full"))
        yield ("context: Preview with governed scope", "Only this channel/project or unbound",
               lambda: self.set_governance("governed"))
        yield ("context: Focus the query", "Type a request", self.action_focus_query)
