"""Tiers view, key ``i``: a standing instruction becomes an ordinary memory and back, marked in the
list and the detail panel, undone with ``u`` (Pilot on a real temp-file database)."""

from __future__ import annotations

from bestie_tui.store.instructions import INSTRUCTION_KIND
from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.help_screen import HelpScreen
from bestie_tui.tui.screens.tiers_screen import TiersScreen

SIZE = (120, 36)


def _tiers(app) -> TiersScreen:
    screen = app.screen if isinstance(app.screen, TiersScreen) else app.get_screen("tiers")
    assert isinstance(screen, TiersScreen)
    return screen


async def test_i_turns_a_standing_instruction_into_an_ordinary_memory_and_back(store):
    memory = store.add("preference", "Keep replies formal and concise", scope="core")
    assert memory.kind == INSTRUCTION_KIND
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        tiers = _tiers(app)
        assert tiers.memory_list.highlighted.id == memory.id
        assert "instruction" in tiers.memory_list.render_line(0).text
        await pilot.press("i")
        await pilot.pause()
        assert store.get(memory.id).kind == "preference"
        assert "instruction" not in tiers.memory_list.render_line(0).text
        await pilot.press("i")
        await pilot.pause()
        assert store.get(memory.id).kind == INSTRUCTION_KIND
        shown = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert f"#{memory.id} · {INSTRUCTION_KIND}  instruction" in shown  # the detail panel's title
        await pilot.press("u")
        await pilot.pause()
        assert store.get(memory.id).kind == "preference"


async def test_the_help_screen_lists_the_key(store):
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "Instruction&#160;on/off" in app.export_screenshot()
