"""``HealthScreen``: the memory's health at a glance — the score and its trend (hygiene snapshots,
drawn by ``HealthChart`` on a fixed 0–100 axis, the last ``TREND_POINTS`` of them), the maintenance
schedule, and the last digest (sent or failed) in full.

``r`` builds a fresh digest in a thread worker (the doctor can take seconds on a large store) and
shows it as a preview: nothing is sent and nothing recorded — not even a hygiene snapshot, so
pressing ``r`` repeatedly does not fill the trend with duplicate points.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static
from textual.worker import get_current_worker

from ..display import KeepTogether, ago, append, data, one_line, when
from ..widgets.health_chart import HealthChart
from .base import BestieScreen

#: Snapshots drawn in the trend chart.
TREND_POINTS = 26
#: What installs the schedule; shown whole, on a line of its own where it does not fit beside the rest.
INSTALL_COMMAND = "bestie memory maintenance install --channel telegram:ID"


def _recorded_at(value: Any, zone) -> str:
    """A digest record's ISO (naive UTC) time on the owner's clock; the raw value if unreadable."""
    from datetime import datetime

    try:
        return when(datetime.fromisoformat(str(value)), zone)
    except ValueError:
        return str(value)


class HealthScreen(BestieScreen):
    """Health score, trend chart, schedule and the last digest."""

    VIEW_TITLE = "Health"
    AUTO_FOCUS = "#health-digest"
    BINDINGS = [
        Binding("r", "build_digest", "Build digest now", id="health.build"),
        Binding("j,down", "scroll('down')", "Scroll down", id="health.down", show=False),
        Binding("k,up", "scroll('up')", "Scroll up", id="health.up", show=False),
        Binding("g,home", "scroll('home')", "Top", id="health.top", show=False),
        Binding("G,end", "scroll('end')", "Bottom", id="health.bottom", show=False),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        #: The digest built with ``r`` (shown instead of the last recorded one), or ``None``.
        self.preview = None

    def compose_body(self) -> ComposeResult:
        with Vertical(id="health-body"):
            yield Static("", id="health-score")
            yield HealthChart(points=TREND_POINTS, id="health-trend")
            yield Static("", id="health-trend-caption")
            yield Static("", id="health-schedule")
            yield Static("", id="health-digest-title")
            with VerticalScroll(id="health-digest"):
                yield Static("", id="health-digest-text")

    def on_mount(self) -> None:
        super().on_mount()
        self.load()

    # ------------------------------------------------------------------ data
    def refresh_data(self) -> None:
        from bestie_tui.maintenance import digest as dg

        trend = dg.health_trend(self.store, TREND_POINTS)
        self._show_trend(trend)
        self._show_schedule(self.store.get_setting("maintenance.entry"))
        if self.preview is None:
            self._show_record(dg.last_digest_record(self.store))

    def _show_trend(self, trend: list) -> None:
        score = self.query_one("#health-score", Static)
        caption = self.query_one("#health-trend-caption", Static)
        chart = self.query_one("#health-trend", HealthChart)
        values = [health for _, health in trend]
        chart.show(values)  # always drawn, empty or not: the layout does not jump
        if not values:
            score.update(Text("Health: no snapshot yet (press r, or run `bestie memory hygiene status`)"))
            caption.update("")
            return
        line = Text()
        line.append(f"Health {values[-1]:g}/100", style="bold")
        if len(values) > 1:
            change = round(values[-1] - values[-2], 1)
            moved = f"{change:+g}" if change else "no change"
            line.append(f"   {moved} since the previous snapshot", style="dim")
        score.update(line)
        now = self.store.clock()
        first, last = ago(trend[0][0], now), ago(trend[-1][0], now)
        span = f"from {first} to {last}" if first != last else last
        caption.update(Text(f"{len(values)} snapshot{'s' if len(values) != 1 else ''} {span}, "
                            f"lowest {min(values):g}, highest {max(values):g}", style="dim"))

    def _show_schedule(self, entry: dict[str, Any] | None) -> None:
        widget = self.query_one("#health-schedule", Static)
        if not entry:
            widget.update(KeepTogether(["Schedule: not installed  ·  install it with:", Text(INSTALL_COMMAND, style="bold")]))
            return
        from bestie_tui.errors import BestieError
        from bestie_tui.maintenance.schedule import next_run

        try:
            next_at = f"next run {next_run(entry['schedule']):%Y-%m-%d %H:%M} (cron's local time)"
        except (BestieError, ValueError, KeyError):
            next_at = "next run unknown"
        # each part whole: a line breaks between them, never inside a time or the crontab's name
        widget.update(KeepTogether([one_line(f"Schedule: {entry.get('schedule')} → {entry.get('channel')}"), next_at,
                                    one_line(entry.get("crontab"))], separator="  ·  "))

    def _show_record(self, record: dict[str, Any] | None) -> None:
        title = self.query_one("#health-digest-title", Static)
        body = self.query_one("#health-digest-text", Static)
        box = self.query_one("#health-digest", VerticalScroll)
        # nothing to show: the title says so and what to do, in one line, without an empty box under it
        box.display = record is not None
        if record is None:
            title.set_class(False, "-failed")
            title.update(Text("Last digest: none recorded yet · press r to build one now"))
            body.update("")
            return
        line = Text("Last digest: ")
        at = _recorded_at(record.get("at"), self.store.owner_zone)
        if record["outcome"] == "sent":
            append(line, f"sent {at} to {record['channel']}", style="bold", single_line=True)
            line.append(f" ({record['parts']} message(s))")
        else:
            append(line, f"FAILED {at} to {record['channel']}", style="bold", single_line=True)
            append(line, f": {record.get('error') or 'unknown error'} (kept below)", single_line=True)
        title.set_class(record["outcome"] != "sent", "-failed")
        title.update(line)
        body.update(data(record["text"]))  # memory text is data: never markup

    # ------------------------------------------------------------------ actions
    def action_scroll(self, where: str) -> None:
        pane = self.query_one("#health-digest", VerticalScroll)
        {"down": pane.scroll_down, "up": pane.scroll_up, "home": pane.scroll_home,
         "end": pane.scroll_end}[where]()

    def action_build_digest(self) -> None:
        box = self.query_one("#health-digest")
        box.display = True  # the preview shows in it
        box.loading = True
        self.build_preview()

    @work(thread=True, exclusive=True, group="health-digest")
    def build_preview(self) -> None:
        """Run the doctor and build the digest off the UI thread; the result is posted back."""
        from bestie_tui.maintenance.digest import build_digest

        try:
            result: object = build_digest(self.store)
        except Exception as exc:  # noqa: BLE001 - shown to the owner, never lost silently
            result = exc
        finally:
            self.store.db.close()  # this worker thread's own Peewee connection
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_preview, result)

    def _show_preview(self, result: object) -> None:
        self.query_one("#health-digest").loading = False
        title = self.query_one("#health-digest-title", Static)
        if isinstance(result, Exception):
            title.set_class(True, "-failed")
            title.update(data(f"Building the digest failed: {result}"))
            return
        self.preview = result
        title.set_class(False, "-failed")
        title.update(Text(f"Preview built {when(result.generated_at, self.store.owner_zone)} (not sent)", style="bold"))
        self.query_one("#health-digest-text", Static).update(data(result.render_text()))
        self.refresh_data()

    def palette_commands(self) -> Iterable[tuple[str, str, object]]:
        yield ("digest: Build now", "Run the doctor and preview the digest (nothing is sent)",
               self.action_build_digest)
