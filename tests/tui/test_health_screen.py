"""Health view, driven with Pilot on a real temp-file database: the trend chart reads the hygiene
snapshots, the last digest (a failed one, kept) is shown in full, and ``r`` builds a preview in a
worker."""

from __future__ import annotations

from textual.app import App

from bestie_tui.hygiene.health import hygiene_status, trend
from bestie_tui.maintenance import digest as dg
from bestie_tui.maintenance import schedule as maintenance
from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.health_screen import TREND_POINTS, HealthScreen
from bestie_tui.tui.widgets.health_chart import HealthChart

SIZE = (110, 40)


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def chart_rows(app) -> list[str]:
    """The chart as the user sees it: the screen lines inside the chart widget's region."""
    region = app.screen.query_one(HealthChart).region
    lines = screen_text(app).split("\n")[region.y:region.bottom]
    return [line[region.x:region.right] for line in lines]


def seed(store, clock, tmp_path):
    """Three hygiene runs (a duplicate appears, then is resolved: 100, lower, 100), a failed digest
    and a schedule."""
    store.add("preference", "User prefers Vietnamese.")
    hygiene_status(store)
    clock.advance(7 * 86400)
    store.add("preference", "User wants Vietnamese-first.")
    hygiene_status(store)
    clock.advance(7 * 86400)
    store.supersede(1, 2)
    store.propose("Note with [bold]markup[/bold] inside", "note")
    digest = dg.build_digest(store, snapshot=True)  # the third snapshot
    dg.record_delivery(store, digest, "telegram:42", digest.render_text(), outcome="failed",
                       error="telegram refused the token (HTTP 401: Unauthorized)")
    entry = maintenance.install("telegram:42", store.path, crontab_file=tmp_path / "tab", env={})
    maintenance.remember_entry(store, entry)


async def test_shows_trend_last_failed_digest_and_schedule(store, clock, tmp_path):
    seed(store, clock, tmp_path)
    app = BestieApp(store, poll_interval=0, start_mode="health")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HealthScreen)
        healths = [s.health for s in trend(store)]
        assert app.screen.query_one(HealthChart).values == healths
        assert healths[0] == healths[2] == 100 and healths[1] < 100
        rows = chart_rows(app)
        # a fixed 0–100 axis and a stable width: the last TREND_POINTS snapshots, padded on the left
        assert [r[:5] for r in rows] == ["100 ┤", " 50 ┤", "  0 ┤"]
        assert healths[1] == 85  # the dip is drawn as 85 of 100, not as the floor of the chart
        pad = " " * 2 * (TREND_POINTS - 3)
        assert rows == ["100 ┤" + pad + "██▄▄██", " 50 ┤" + pad + "██████", "  0 ┤" + pad + "██████"]
        text = screen_text(app)
        assert f"Health 100/100   +{100 - healths[1]:g} since the previous snapshot" in text
        assert f"3 snapshots from 2 weeks ago to just now, lowest {healths[1]:g}, highest 100" in text
        assert "FAILED 2026-12-14 12:00 UTC to telegram:42" in text and "HTTP 401" in text
        assert "Schedule: 0 9 * * 1 → telegram:42" in text and "next run" in text
        assert "Note with [bold]markup[/bold] inside" in text  # data, not markup
        assert "Pending review (1)" in text


async def test_number_key_opens_it_and_r_builds_a_preview_in_a_worker(store):
    store.propose("User is learning the guitar.", "note")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("7")
        await pilot.pause()
        assert isinstance(app.screen, HealthScreen)
        text = screen_text(app)
        assert "Last digest: none recorded yet" in text and "Schedule: not installed" in text
        assert "no snapshot yet" in text
        assert [r[:5] for r in chart_rows(app)] == ["100 ┤", " 50 ┤", "  0 ┤"]  # the empty chart keeps its place
        assert all(len(r) == 5 + 2 * TREND_POINTS and not r[5:].strip() for r in chart_rows(app))
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = screen_text(app)
        assert "Preview built 2026-11-30 12:00 UTC (not sent)" in text
        assert "#1 (note, proposed just now): User is learning the guitar." in text
        assert "Health 100/100" in text and trend(store) == []  # a preview adds no snapshot
        assert dg.digest_log(store) == []  # a preview is neither sent nor recorded


async def test_scroll_keys_move_the_digest_pane(store):
    for i in range(40):
        store.propose(f"Pending proposal number {i} about topic {i}", "note")
    digest = dg.build_digest(store)
    long_text = digest.render_text() + "".join(f"extra line {i}\n" for i in range(40))  # taller than the pane
    dg.record_delivery(store, digest, "zalo:1", long_text, outcome="sent", parts=2)
    app = BestieApp(store, poll_interval=0, start_mode="health")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.screen.query_one("#health-digest")
        assert "sent 2026-11-30 12:00 UTC to zalo:1 (2 message(s))" in screen_text(app)
        await pilot.press("G")
        await pilot.pause()
        assert pane.scroll_y > 0
        await pilot.press("g")
        await pilot.pause()
        assert pane.scroll_y == 0


class ChartApp(App):
    def compose(self):
        yield HealthChart(points=4)


async def test_chart_draws_on_a_fixed_0_to_100_scale_padded_to_its_width():
    app = ChartApp()
    async with app.run_test(size=(30, 5)) as pilot:
        app.query_one(HealthChart).show([100, 50, 0])
        await pilot.pause()
        assert chart_rows(app) == ["100 ┤  ██    ",
                                   " 50 ┤  ██▄▄  ",
                                   "  0 ┤  ████▁▁"]
        app.query_one(HealthChart).show([60, 94, 95, 96, 97])  # only the last 4 are drawn
        await pilot.pause()
        rows = chart_rows(app)
        assert [len(r) for r in rows] == [13, 13, 13]
        assert rows[0] == "100 ┤▇▇▇▇▇▇▇▇" and rows[2] == "  0 ┤████████"  # a small dip is a small change


async def test_at_80_columns_commands_stay_whole_and_no_digest_is_one_line_not_an_empty_box(store, clock, tmp_path):
    install = "bestie memory maintenance install --channel telegram:ID"
    app = BestieApp(store, poll_interval=0, start_mode="health")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        rows = screen_text(app).split("\n")
        # the command is on one line, whole, where it can be copied; not "…--channel" / "telegram:ID"
        assert any(row.strip() == install for row in rows), rows
        assert any(row.strip().startswith("Schedule: not installed") for row in rows)
        [title] = [row for row in rows if "Last digest:" in row]
        assert title.strip() == "Last digest: none recorded yet · press r to build one now"
        box = app.screen.query_one("#health-digest")
        assert not box.display and not any("╭" in row or "╰" in row for row in rows)  # no empty box
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        rows = screen_text(app).split("\n")
        assert box.display and any(row.strip().startswith("╭") for row in rows)  # the preview has its box
        assert any("Bestie memory digest" in row for row in rows)
    seed(store, clock, tmp_path)
    app = BestieApp(store, poll_interval=0, start_mode="health")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        rows = [row.strip() for row in screen_text(app).split("\n")]
        at = rows.index(next(row for row in rows if row.startswith("Schedule:")))
        # each part of the schedule whole on its line: the time of the next run is not broken
        assert rows[at] == "Schedule: 0 9 * * 1 → telegram:42", rows[at:at + 3]
        assert rows[at + 1].startswith("next run ") and rows[at + 1].endswith("(cron's local time)"), rows[at:at + 3]
