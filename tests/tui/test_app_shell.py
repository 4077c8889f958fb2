"""The shell around the views: help lists every key, the status line, the palette, view switching."""

from __future__ import annotations

import pytest
from textual import events

from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.help_screen import HelpScreen


@pytest.mark.slow
async def test_help_lists_keys_of_every_view_and_the_list_widget(store):
    store.add("note", "Something to list")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        svg = app.export_screenshot()
        for words in ("Everywhere", "Tiers", "Pending", "Pin/unpin"):
            assert words in svg, words
        app.screen.query_one("#help-body").scroll_end(animate=False)
        await pilot.pause()
        svg = app.export_screenshot()
        for words in ("MemoryList", "Command&#160;palette"):
            assert words in svg, words
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_status_line_shows_policy_paused_and_path(store, db_path):
    store.set_setting("memory.writePolicy", "allow")
    store.pause()
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(200, 30)) as pilot:
        await pilot.pause()
        text = str(app.screen.query_one("#status-line").render())
        assert "write allow" in text and "PAUSED" in text and str(db_path) in text
        assert app.screen.query_one("#status-line").region.y < app.screen.query_one("Footer").region.y


async def test_status_line_never_ends_in_a_separator_when_the_path_is_dropped(store, db_path):
    """Where the path has no room its "│  db" goes with it: the line ends in the tier counts (or a
    cut marked with "…"), never in a dangling separator."""
    store.pause()
    for width in range(50, 131, 3):
        app = BestieApp(store, poll_interval=0)
        async with app.run_test(size=(width, 24)) as pilot:
            await pilot.pause()
            region = app.screen.query_one("#status-line").region
            row = app.screen._compositor.render_strips()[region.y].text[region.x:region.right].rstrip()
            assert row.startswith(" write ask  │  PAUSED"), (width, row)
            assert not row.endswith(("│", " db", "·")), (width, row)
            if "db " in row:
                assert row.endswith(db_path.name), (width, row)
            else:
                assert row.endswith(("pending 0", "…")), (width, row)


async def test_number_keys_switch_views_and_palette_has_view_commands(store):
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        assert type(app.screen).__name__ == "PendingScreen"
        await pilot.press("1")
        assert type(app.screen).__name__ == "TiersScreen"
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "view: Pending" in titles and "memory: Undo last change" in titles


@pytest.mark.slow
async def test_number_keys_and_quit_work_from_every_view(store):
    store.add("note", "Something")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        for key, mode in app.MODE_KEYS.items():
            await pilot.press("escape", key)
            await pilot.pause()
            assert app.current_mode == mode
            # a view that starts in its text box (Context) is left with esc; alt+1 works from anywhere
            await pilot.press("escape", "1")
            await pilot.pause()
            assert app.current_mode == "tiers", f"key 1 did not leave the {mode} view"
            await pilot.press(key, "alt+1")
            await pilot.pause()
            assert app.current_mode == "tiers", f"alt+1 did not leave the {mode} view"
            await pilot.press(key)
            await pilot.pause()
        await pilot.press("escape", "q")
        await pilot.pause()
    assert app.return_code == 0


@pytest.mark.slow
async def test_footer_always_offers_help_and_quit(store):
    """At 200 columns every view's footer has room for both; a narrow one keeps help only (``?``
    lists quit with every other key: test_console_fits)."""
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(200, 30)) as pilot:
        for key in app.MODE_KEYS:
            await pilot.press(key)
            for _ in range(20):  # a loaded machine may need a few frames to compose the new view
                await pilot.pause()
                svg = app.export_screenshot()
                if "Help" in svg and "Quit" in svg:
                    break
            assert "Help" in svg and "Quit" in svg, app.current_mode


async def test_console_opens_on_pending_when_only_proposals_exist(store):
    store.propose("Imported observation", "observation")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.current_mode == "pending"


async def test_the_theme_picked_is_remembered_across_restarts(store, tmp_path):
    import json

    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.theme = "nord"
        await pilot.pause()
    assert json.loads((tmp_path / "config" / "console.json").read_text())["theme"] == "nord"
    again = BestieApp(store, poll_interval=0)
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert again.theme == "nord"


async def test_a_view_first_opened_after_a_theme_change_is_drawn_in_that_theme(store):
    """A first switch skips Textual's restyle of the new view (it was styled as it mounted); a
    theme picked before the view was ever opened must still reach it, and so must one picked
    while the view was left."""
    from bestie_tui.tui.widgets.memory_list import MemoryList

    store.add("note", "Something to list")
    store.log_message("user", "hello", user="an")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        dark = app.screen.query_one(MemoryList).styles.background
        app.theme = "textual-light"
        await pilot.pause()
        light = app.screen.query_one(MemoryList).styles.background
        assert light != dark
        await pilot.press("6")  # never opened before: it mounts in the light theme
        await pilot.pause()
        assert app.screen.query_one("#messages-table").styles.background == light
        await pilot.press("1")
        app.theme = "textual-dark"
        await pilot.pause()
        await pilot.press("6")  # opened before the change: restyled when shown again
        await pilot.pause()
        assert app.screen.query_one("#messages-table").styles.background == dark


def esc_digit_key(digit: str) -> str:
    """The key Textual reports when the terminal sends ESC then ``digit``: what alt+digit is in
    tmux and most terminals (and option+digit types on macOS), read by Textual's own parser."""
    from textual._xterm_parser import XTermParser

    [event] = [e for e in XTermParser().feed("\x1b" + digit) if isinstance(e, events.Key)]
    return event.key


async def test_alt_digit_as_the_terminal_sends_it_switches_views_even_from_a_text_box(store):
    from textual.widgets import Input

    store.add("note", "Something")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        # Tiers: the filter box is open with text in it; ESC 4 (tmux's M-4) goes to Doctor, types nothing
        await pilot.press("slash", *"some")
        box = app.screen.query_one("#tiers-filter", Input)
        assert app.focused is box
        await pilot.press(esc_digit_key("4"))
        await pilot.pause()
        assert app.current_mode == "doctor"
        assert box.value == "some"
        # Context starts in its query box: ESC 2 goes to Pending, the query keeps what was typed
        await pilot.press("3", *"tea")
        await pilot.pause()
        query = app.screen.query_one("#context-query", Input)
        assert app.focused is query
        await pilot.press(esc_digit_key("2"))
        await pilot.pause()
        assert app.current_mode == "pending"
        assert query.value == "tea"
        # every digit, from inside the Context box and from outside any box
        for digit, mode in app.MODE_KEYS.items():
            await pilot.press("3")
            await pilot.pause()
            assert isinstance(app.focused, Input)
            await pilot.press(esc_digit_key(digit))
            await pilot.pause()
            assert app.current_mode == mode, f"ESC {digit} did not switch from the Context box"
            await pilot.press(esc_digit_key("1" if digit != "1" else "7"))
            await pilot.pause()
            assert app.current_mode == ("tiers" if digit != "1" else "health"), f"ESC from {mode}"


async def test_help_has_one_scrollbar_inside_its_frame_and_none_of_the_view_beside_it(store):
    """The view under the help has a scrollbar at the right edge (a long memory in the detail
    pane); with the help open it does not show beside the frame: only the help's own, inside."""
    store.add("note", "\n".join(f"line {i} of a long note" for i in range(60)))
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#tiers-detail").show_vertical_scrollbar  # the view has one
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        body = app.screen.query_one("#help-body")
        assert body.show_vertical_scrollbar  # the help's own: within its region, inside the frame
        frame = body.region
        for y, strip in enumerate(app.screen._compositor.render_strips()):
            row = strip.text
            outside = row[:frame.x] + row[frame.right:] if frame.y <= y < frame.bottom else row
            assert not outside.strip(), (y, row)  # nothing of the view (its scrollbar) beside the help
