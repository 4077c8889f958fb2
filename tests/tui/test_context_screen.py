"""The Context view: typing a request updates the pack (built in a worker), with parts and reasons."""

from __future__ import annotations

from textual.widgets import Input, Select

from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.context_screen import ContextScreen, score_bar

SIZE = (140, 40)


async def settle(pilot) -> None:
    await pilot.pause(0.35)  # past the debounce
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def shown(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def seed(store):
    store.add("communication_preference", "Always answer in Vietnamese", user="linh", scope="core",
              pinned=True)
    store.add("preference", "Drinks [bold]egg coffee[/bold] in Hà Nội", user="linh", channel="telegram:1")
    store.add("preference", "Coffee only at the office", user="linh", channel="zalo:2")
    store.add("preference", "Bao drinks coffee too", user="bao")


async def test_typing_updates_the_pack_without_bumping_access(store):
    seed(store)
    app = BestieApp(store, poll_interval=0, start_mode="context")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen)
        assert app.screen.query_one("#context-user", Select).value == "bao"  # first user, sorted
        app.screen.query_one("#context-user", Select).value = "linh"
        app.screen.query_one("#context-channel", Select).value = "telegram:1"
        await pilot.click("#context-query")
        await pilot.press(*"hanoi coffee at the office")
        await settle(pilot)
        body = shown(app, "#context-pack-text")
        assert "core    #1" in body and "Always answer in Vietnamese" in body
        assert "working #2" in body and "Drinks [bold]egg coffee[/bold] in Hà Nội" in body  # literal
        assert "rel " in body and "scope " in body and "█" in body
        assert "#3" in body and "scope" in body and "channel zalo:2" in body  # left out, with the reason
        assert "Bao" not in body
        summary = shown(app, "#context-summary")
        pack = app.screen.pack
        assert f"{pack.tokens}/600 tokens" in summary and "governance governed" in summary
        # full governance brings the other channel's record in (key f, with focus off the inputs)
        await pilot.press("escape", "f")
        await settle(pilot)
        assert "working #3" in shown(app, "#context-pack-text")
        assert "governance full" in shown(app, "#context-summary")
        assert store.get_setting("memory.governance") == "governed"  # a preview, not a policy change
    assert all(m.access_count == 0 for m in store.list())


async def test_budget_field_limits_the_pack(store):
    seed(store)
    app = BestieApp(store, poll_interval=0, start_mode="context")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#context-user", Select).value = "linh"
        app.screen.query_one("#context-query", Input).value = "coffee"
        budget = app.screen.query_one("#context-budget", Input)
        budget.value = "30"
        await settle(pilot)
        pack = app.screen.pack
        assert pack.token_budget == 30 and pack.tokens <= 30
        assert "budget" in shown(app, "#context-pack-text")
        budget.value = ""  # emptied: the default budget, not none
        await settle(pilot)
        assert app.screen.pack.token_budget == 600 and app.screen.pack.items
        budget.value = "9" * 21
        await settle(pilot)
        assert app.screen.pack.token_budget == 1_000_000


async def test_paused_memory_shows_an_empty_block(store):
    seed(store)
    store.pause()
    app = BestieApp(store, poll_interval=0, start_mode="context")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Memory is paused" in shown(app, "#context-pack-text")


def test_score_bar():
    assert score_bar(0.5, 10) == "█████░░░░░"
    assert score_bar(1.7, 4) == "████" and score_bar(-1, 4) == "░░░░"


async def test_the_cursor_starts_in_the_box_digits_stay_there_and_esc_or_alt_keys_leave(store):
    seed(store)
    app = BestieApp(store, poll_interval=0, start_mode="tiers")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("3")
        await settle(pilot)
        box = app.screen.query_one("#context-query", Input)
        assert app.focused is box
        await pilot.press(*"q 1 7 ] f")  # typed, not keys: no quit, no switch, no governance flip
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen) and box.value == "q 1 7 ] f"
        assert "governance governed" in shown(app, "#context-summary")
        await pilot.press("alt+2")  # a view key that works from inside the box
        await pilot.pause()
        assert app.current_mode == "pending"
        await pilot.press("3")
        await pilot.pause()
        assert app.focused is app.screen.query_one("#context-query", Input)  # entry puts it back in the box
        await pilot.press("escape", "1")  # esc leaves the box; then digits switch views
        await pilot.pause()
        assert app.current_mode == "tiers"


async def test_ctrl_q_quits_from_inside_the_box(store):
    app = BestieApp(store, poll_interval=0, start_mode="context")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.focused, Input)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


async def test_the_footer_offers_esc_only_inside_the_box_and_slash_only_outside(store):
    seed(store)
    app = BestieApp(store, poll_interval=0, start_mode="context")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        def footer() -> str:
            return "\n".join(strip.text for strip in app.screen._compositor.render_strips())[-SIZE[0] * 2:]

        assert "Leave box" in footer() and "Query" not in footer()
        await pilot.press("escape")
        await settle(pilot)
        assert "Leave box" not in footer() and "Query" in footer()
        await pilot.press("slash")
        await settle(pilot)
        assert "Leave box" in footer()
