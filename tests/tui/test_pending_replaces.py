"""Pending on corrections and contradictions, driven by keys with Pilot over a real SQLite file:
a new device under ``writePolicy allow`` is queued as "replaces #N" (not "possible duplicate"),
``a`` supersedes the old record in one undo step, ``A`` keeps it, and a contradiction shows both
sides."""

from __future__ import annotations

from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.confirm_modal import ConfirmModal

SIZE = (120, 36)
DAY = 86400


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def shown(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def queued_correction(store):
    old = store.add("identity", "My work laptop is a Dell.", user="an")
    store.clock.advance(DAY)
    store.set_setting("memory.writePolicy", "allow")
    result = store.propose("My work laptop is a Lenovo now.", "identity", user="an")
    assert result.outcome == "pending"  # allow, but a correction waits for the owner
    return old, result.memory


async def test_a_new_device_is_shown_as_replacing_the_old_and_a_supersedes_it_in_one_step(store):
    old, new = queued_correction(store)
    app = BestieApp(store, poll_interval=0, start_mode="pending")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown(app, "#proposal-text") == "My work laptop is a Lenovo now."
        assert shown(app, "#proposal-relations") == f"replaces #{old.id}  My work laptop is a Dell."
        listing = shown(app, "#similar-list")
        assert "possible duplicate" not in listing
        assert "attribute: tool (laptop); Dell → Lenovo" in listing
        await pilot.press("a")
        await settle(pilot)
        assert store.get(new.id).status == "approved" and store.get(old.id).superseded_by == new.id
        await pilot.press("u")
        await settle(pilot)
    assert store.get(new.id).status == "pending" and store.get(old.id).superseded_by is None
    assert store.get(old.id).status == "approved"


async def test_shift_a_approves_the_new_device_and_keeps_the_old(store):
    old, new = queued_correction(store)
    app = BestieApp(store, poll_interval=0, start_mode="pending")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
    assert store.get(new.id).status == "approved" and store.get(old.id).superseded_by is None


async def test_a_contradiction_is_queued_with_both_sides_shown(store):
    yes = store.add("project_context", "Deploying on Friday is allowed.", user="an")
    store.clock.advance(DAY)
    store.set_setting("memory.writePolicy", "allow")
    store.set_setting("memory.correctionPolicy", "auto")
    result = store.propose("Deploying on Friday is not allowed.", "project_context", user="an")
    assert result.outcome == "pending"
    app = BestieApp(store, poll_interval=0, start_mode="pending")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown(app, "#proposal-text") == "Deploying on Friday is not allowed."
        assert shown(app, "#proposal-relations") == f"contradicts #{yes.id}  Deploying on Friday is allowed."
        assert "possible contradiction" in shown(app, "#similar-list")
        await pilot.press("a")  # approving one side retires nothing: the doctor still lists the pair
        await settle(pilot)
    assert store.get(result.memory.id).status == "approved"
    assert store.get(yes.id).superseded_by is None


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def seed_console(store):
    dell = store.add("identity", "My work laptop is a Dell.", user="an")
    store.clock.advance(DAY)
    yes = store.add("project_context", "Deploying on Friday is allowed.", user="an")
    store.clock.advance(DAY)
    lenovo = store.add("identity", "My work laptop is a Lenovo now.", user="an")
    store.clock.advance(DAY)
    no = store.add("project_context", "Deploying on Friday is not allowed.", user="an")
    return dell, yes, lenovo, no


async def test_the_console_doctor_shows_the_correction_and_the_contradiction(store):
    seed_console(store)
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "Corrections (1, 1 on strong evidence) — the newer may replace the older" in text
        assert "tool (laptop) changed Dell → Lenovo" in text
        assert "Contradiction candidates (1)" in text


async def test_cleanup_applies_the_correction_by_default_and_leaves_the_clash(store):
    dell, yes, lenovo, no = seed_console(store)
    app = BestieApp(store, poll_interval=0, start_mode="cleanup")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "1 of 2 operations selected" in screen_text(app)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)  # applying is behind a confirmation
        await pilot.press("y")
        await settle(pilot)
        assert "applied 1 operation(s)" in screen_text(app)
    assert store.get(dell.id).superseded_by == lenovo.id
    assert store.get(yes.id).superseded_by is None and store.get(no.id).superseded_by is None
