"""The Pending view over the core cap (issue 31, item 6): approving a core proposal that core has no
room for leaves it pending with a toast that says so and how to go on; ``w`` approves it into the
working tier, as ``bestie memory approve ID --scope project`` does, and the queue moves on."""

from __future__ import annotations

from bestie_tui.tui.app import BestieApp


async def settle(app, pilot) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_a_refused_approve_stays_pending_and_w_lands_it_in_working(store):
    first = store.propose("Keeps the spare bicycle chain in the garage cabinet", "fact", user="an",
                          scope="core").memory.id
    second = store.propose("Waters the balcony tomatoes every second morning", "fact", user="an",
                           scope="core").memory.id
    store.set_setting("memory.coreTokenCap", 5)
    app = BestieApp(store, poll_interval=0, start_mode="pending")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.screen.current.id == first
        await pilot.press("a")
        await settle(app, pilot)
        notices = [str(n.message) for n in app._notifications]
        assert any(n.startswith(f"#{first} stays pending: refused: core is capped at 5 tokens")
                   and n.endswith("; w approves it into working") for n in notices), notices
        assert store.get(first).status == "pending" and app.screen.current.id == first
        await pilot.press("w")
        await settle(app, pilot)
        assert app.screen.current.id == second  # the queue moved on
    m = store.get(first)
    assert (m.status, m.scope, m.layer) == ("approved", "project", "working")
    assert store.get(second).status == "pending"
    assert store.undo().action == "approve"  # one undo step gives it back, pending in core
    m = store.get(first)
    assert (m.status, m.scope, m.layer) == ("pending", "core", "core")


async def test_w_on_an_empty_queue_says_there_is_nothing_to_approve_and_writes_nothing(store):
    app = BestieApp(store, poll_interval=0, start_mode="pending")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        notices = [str(n.message) for n in app._notifications]
        assert notices == ["Nothing pending to approve."]
    assert store.list() == [] and store.history(limit=1) == []
