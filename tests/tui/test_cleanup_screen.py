"""Cleanup view with Pilot on a real temp-file database: toggle, edit the merged text, apply behind
the confirmation, see the result, undo."""

from __future__ import annotations

import pytest

from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.cleanup_screen import CleanupScreen
from bestie_tui.tui.screens.confirm_modal import ConfirmModal
from bestie_tui.tui.screens.edit_memory_modal import EditMemoryModal
from bestie_tui.tui.widgets.plan_diff import PlanDiff

SIZE = (120, 40)
SEED = ["User prefers Vietnamese.", "User wants Vietnamese-first.", "Always answer in Vietnamese with diacritics."]
APPROVED = "User prefers Vietnamese replies with proper diacritics unless they ask for another language."


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def active(store):
    return sorted(m.text for m in store.list(status="approved") if m.superseded_by is None)


async def ready(app, pilot):
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, CleanupScreen) and screen.plan is not None
    return screen


async def test_edit_merged_text_accept_conflict_apply_and_undo(store):
    for t in SEED + ["I love durian.", "I hate durian."]:
        store.add("preference", t)
    app = BestieApp(store, poll_interval=0, start_mode="cleanup")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(app, pilot)
        shown = screen_text(app)
        assert "- #1 [working] User prefers Vietnamese." in shown
        assert "1 of 2 operations selected" in shown
        await pilot.press("e")
        assert isinstance(app.screen, EditMemoryModal)
        area = app.screen.query_one("TextArea")
        area.text = APPROVED
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "+ #new [working] User prefers Vietnamese replies with proper diacritics" in screen_text(app)
        await pilot.press("j", "space")  # accept the durian resolution
        assert "2 of 2 operations selected" in screen_text(app)
        await pilot.press("a")
        assert isinstance(app.screen, ConfirmModal)
        assert "deletePolicy is ask" in app.screen.question
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert active(store) == sorted([APPROVED, "I hate durian."])
        assert "applied 2 operation(s)" in screen_text(app)
        await pilot.press("u")
        await pilot.pause()
        assert active(store) == sorted(SEED + ["I love durian.", "I hate durian."])


async def test_toggle_off_and_cancel_change_nothing(store):
    for t in SEED:
        store.add("preference", t)
    app = BestieApp(store, poll_interval=0, start_mode="cleanup")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("a", "n")  # confirmation cancelled
        await pilot.pause()
        assert len(active(store)) == 3
        await pilot.press("x")
        assert screen.query_one(PlanDiff).current.selected is False
        await pilot.press("a")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmModal)
        assert "No operation is selected" in screen_text(app)
        assert len(active(store)) == 3


async def test_deny_refuses_without_a_confirmation(store):
    for t in SEED:
        store.add("preference", t)
    store.set_setting("memory.deletePolicy", "deny")
    app = BestieApp(store, poll_interval=0, start_mode="cleanup")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(app, pilot)
        assert "deletePolicy is deny" in screen_text(app)
        await pilot.press("a")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmModal)
        assert len(active(store)) == 3


async def test_markup_in_memory_text_is_shown_literally(store):
    store.add("note", "[bold]Likes[/bold] tea.")
    store.edit(store.add("note", "x").id, "[bold]likes[/bold] TEA")
    app = BestieApp(store, poll_interval=0, start_mode="cleanup")
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        assert "[bold]Likes[/bold] tea." in screen_text(app)


async def test_a_rebuild_after_a_change_elsewhere_keeps_the_owners_choices_and_says_so(store):
    for t in SEED + ["I love durian.", "I hate durian."]:
        store.add("preference", t)
    other = store.add("note", "I water the plants on Sunday.")
    app = BestieApp(store, poll_interval=0, start_mode="cleanup")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("e")
        app.screen.query_one("TextArea").text = APPROVED
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("j", "space")  # accept the durian resolution
        assert "2 of 2 operations selected" in screen_text(app)
        store.edit(other.id, "I water the plants on Saturday.")  # another process changes a memory
        screen.refresh_data()
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = screen_text(app)
        assert "+ #new [working] User prefers Vietnamese replies with proper diacritics" in shown
        assert "2 of 2 operations selected" in shown
        assert "The plan was rebuilt because memories changed; kept your" in shown  # the toast wraps
        assert "2 choice(s)." in shown
        assert screen.query_one(PlanDiff).current.key == "supersede:4>5"


async def test_a_long_plan_is_shown_a_chunk_at_a_time_and_G_reaches_its_last_operation(store, monkeypatch):
    from bestie_tui.tui.widgets import plan_diff

    monkeypatch.setattr(plan_diff, "CHUNK", 2)
    for topic in ["green tea", "jazz records", "mountain hikes", "chess puzzles", "sourdough bread"]:
        store.add("preference", f"I love {topic}.")
        store.add("preference", f"I really love {topic}.")
    app = BestieApp(store, poll_interval=0, start_mode="cleanup")
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        diff = screen.query_one(PlanDiff)
        assert len(screen.plan.operations) == 5
        assert diff.option_count == 2  # the rest are not built yet
        await pilot.press("j")
        assert diff.option_count == 4 and diff.current.key == "merge:3,4"
        await pilot.press("G")
        await pilot.pause()
        assert diff.option_count == 5 and diff.current.key == "merge:9,10"
        assert "merge:9,10" in screen_text(app)


@pytest.mark.slow
async def test_a_bare_a_y_after_a_fresh_import_of_5000_archives_nothing(store, clock):
    from cleanup_import import old_import
    from conftest import FROZEN_NOW

    from bestie_tui.store.models import Memory
    from bestie_tui.transfer.exchange import import_data

    import_data(store, old_import(FROZEN_NOW, n=5000))
    app = BestieApp(store, poll_interval=0, start_mode="cleanup")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await ready(app, pilot)
        assert not [o for o in screen.plan.selected_operations() if o.action in ("archive", "expire")]
        await pilot.press("a")
        if isinstance(app.screen, ConfirmModal):
            await pilot.press("y")
            await app.workers.wait_for_complete()
            await pilot.pause()
        while isinstance(app.screen, ConfirmModal):  # a large plan asks again: answered no
            await pilot.press("n")
            await pilot.pause()
    assert Memory.select().where(Memory.layer == "archive").count() == 0
    assert Memory.select().where(Memory.superseded_by.is_null(False)).count() == 0


async def test_a_large_plan_asks_a_second_time_with_the_count(store):
    mugs = ["red", "blue", "green", "grey", "pink", "teal", "navy", "gold", "jade", "rust", "plum", "sand"]
    woods = ["oak", "pine", "teak", "birch", "ash", "elm", "fir", "yew", "beech", "cedar", "maple", "alder"]
    for i, colour in enumerate(mugs):
        m = store.add("preference", f"Old habit number {i}: drinks from the {colour} mug.")
        store.db.execute_sql("UPDATE memory SET stale = 1 WHERE id = ?", (m.id,))
    for i, wood in enumerate(woods):
        store.add("preference", f"Keeps the {wood} shelf in room {i} tidy.")
    app = BestieApp(store, poll_interval=0, start_mode="cleanup")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(app, pilot)
        await pilot.press("a")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        assert "This plan changes 12 of 24 active memories (50 %)." in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert sum(m.layer == "archive" for m in store.list(status="approved")) == 0
        await pilot.press("a", "y")
        await pilot.pause()
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert sum(m.layer == "archive" for m in store.list(status="approved")) == 12


async def test_doctor_then_cleanup_analyse_once_until_a_write(store, monkeypatch):
    """Opening Cleanup after Doctor shows a plan from the Doctor's report (the analysis is not run a
    second time: a minute at 100,000 memories); after a write the next view analyses afresh, and the
    Doctor's r always does."""
    from bestie_tui.hygiene import doctor

    runs = []
    real = doctor.run_doctor
    monkeypatch.setattr(doctor, "run_doctor", lambda *a, **k: runs.append(1) or real(*a, **k))
    for t in SEED:
        store.add("preference", t)
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(runs) == 1 and "Health" in screen_text(app)
        await pilot.press("5")
        screen = await ready(app, pilot)
        assert len(runs) == 1 and "- #1 [working] User prefers Vietnamese." in screen_text(app)
        assert len(screen.plan.operations) == 1
        await pilot.press("4", "r")  # the owner asks: the doctor runs again
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(runs) == 2
        store.add("preference", "I love durian.")
        store.add("preference", "I hate durian.")
        app.store_written()
        await pilot.press("5")
        screen = await ready(app, pilot)
        assert len(runs) == 3 and len(screen.plan.operations) == 2  # the durian contradiction is in


async def test_cleanup_opened_during_the_doctors_analysis_waits_for_it(store, monkeypatch):
    """Cleanup opened while the Doctor is still analysing waits for that run instead of starting a
    second one beside it (two analyses of 100,000 memories at once each take twice as long)."""
    import threading

    from bestie_tui.hygiene import doctor

    runs = []
    gate = threading.Event()
    real = doctor.run_doctor

    def gated(*args, **kwargs):
        runs.append(1)
        assert gate.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(doctor, "run_doctor", gated)
    for t in SEED:
        store.add("preference", t)
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("5")
        await pilot.pause()
        assert isinstance(app.screen, CleanupScreen) and "Waiting for the Doctor's analysis" in screen_text(app)
        gate.set()
        screen = await ready(app, pilot)
        assert len(runs) == 1 and len(screen.plan.operations) == 1
        assert "- #1 [working] User prefers Vietnamese." in screen_text(app)
        await pilot.press("4")
        await pilot.pause()
        assert "Health" in screen_text(app)
