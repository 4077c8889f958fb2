"""The console fits the terminal (issue 31, item 6): at 80x24 and 200x60 the footer shows the view's
own keys first and whole, the memory text keeps half the row, the compression preview is reachable,
toasts stand above the status line, and a console bound to a user says whose memory it shows."""

from __future__ import annotations

import pytest
from textual.widgets._toast import Toast

from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.widgets.fitting_footer import FittingFooter
from bestie_tui.tui.widgets.memory_list import MemoryList

SIZES = [(80, 24), (200, 60)]


def row_of(app, widget) -> str:
    """The characters drawn on ``widget``'s first line, as the user sees them."""
    region = widget.region
    return app.screen._compositor.render_strips()[region.y].text[region.x:region.right]


async def settle(app, pilot) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
async def test_the_footer_puts_the_view_keys_first_and_never_cuts_a_key(store, size):
    store.add("note", "Something to list")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        footer = app.screen.query_one(FittingFooter)
        line = row_of(app, footer)
        assert line.lstrip().startswith("n New  p Pin/unpin"), line  # the view's own keys lead
        assert "? Help" in line, line  # help, which lists every key, always stays
        own = [b.description for b in app.screen.BINDINGS if getattr(b, "show", True) and b.description
               and not (b.id or "").startswith("app.")]
        shown = [d for d in own if f" {d}" in line]
        assert shown == own[: len(shown)] or len(shown) >= 5, (shown, line)
        # every key drawn is drawn whole: its key and its description, never cut
        for key in footer.query("FooterKey"):
            assert f"{key.key_display} {key.description}".strip() in line, (key.description, line)
        if size[0] == 80:
            assert "Quit" not in line and "1 Tiers" not in line  # shared keys dropped to ?
            assert "u Undo" in line  # a short view key still found room
        else:
            assert "q Quit" in line and "1 Tiers" in line


async def test_the_footer_keeps_the_box_keys_first_inside_a_text_box(store):
    app = BestieApp(store, poll_interval=0, start_mode="context")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        line = row_of(app, app.screen.query_one(FittingFooter))
        assert line.lstrip().startswith("esc Leave box"), line
        assert "f1 Help" in line


@pytest.mark.parametrize("size", SIZES)
async def test_the_memory_text_keeps_half_the_row(store, size):
    long_kind = "communication_preference"
    memory = store.add(long_kind, "Answers in short sentences with bullet points for any steps to follow")
    store.pin(memory.id)
    store.add("fact", "The owner waters the balcony herbs every second morning before work")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        memories = app.screen.query_one(MemoryList)
        width = memories.scrollable_content_region.width
        for index in range(2):
            record = memories.row_at(index)
            row = memories.row_text(record, width).plain
            assert len(row) <= width
            words = record.text.split()
            start = row.index(words[0])
            text_cells = len(row) - start
            flags_at = row.find("  ", start + len(words[0]))
            while flags_at != -1 and row[flags_at:].strip() and row[flags_at:].strip() in record.text:
                flags_at = row.find("  ", flags_at + 2)
            if flags_at != -1 and row[flags_at:].strip():
                text_cells = flags_at - start
            assert text_cells >= width // 2, (row, width)
        pinned_row = memories.row_text(store.get(memory.id), width).plain
        if size[0] == 200:
            assert "communication_p…" in pinned_row and "pinned" in pinned_row
        else:
            assert "pin" in pinned_row and long_kind not in pinned_row


async def test_the_compression_preview_opens_in_a_dialog_at_80_columns(store):
    from bestie_tui.tui.screens.text_modal import TextModal

    for n in range(60):
        store.log_message("user" if n % 2 == 0 else "assistant",
                          f"turn {n}: the trip plan changes again, the train leaves at {n % 12 + 1} o'clock",
                          user="owner")
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("c")
        await settle(app, pilot)
        assert isinstance(app.screen, TextModal)
        svg = app.export_screenshot()
        assert "Compression&#160;preview" in svg


async def test_the_compression_preview_stays_in_the_side_panel_at_200_columns(store):
    from bestie_tui.tui.screens.messages_screen import MessagesScreen

    store.log_message("user", "a first turn about the weekend trip", user="owner")
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(app, pilot)
        await pilot.press("c")
        await settle(app, pilot)
        assert isinstance(app.screen, MessagesScreen)
        assert "Compression preview" in str(app.screen.query_one("#messages-preview").render())


@pytest.mark.parametrize("size", SIZES)
async def test_a_toast_stands_above_the_status_line_across_view_switches(store, size):
    store.add("note", "Something to list")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(app, pilot)
        app.notify("a change was made\nand said on two lines", timeout=30)
        for key in ("", "2", "6", "1"):
            if key:
                await pilot.press(key)
            await settle(app, pilot)
            status = app.screen.query_one("#status-line").region
            toasts = list(app.screen.query(Toast))
            assert toasts, key
            for toast in toasts:
                assert toast.region.bottom <= status.y, (key, toast.region, status)
                assert not toast.region.overlaps(status)
            assert row_of(app, app.screen.query_one("#status-line")).lstrip().startswith("write ask")


@pytest.mark.parametrize("size", SIZES)
async def test_the_header_says_whose_memory_a_bound_console_shows(db_path, clock, size):
    owner = MemoryStore(db_path, clock=clock)
    owner.add("fact", "Ana keeps a bonsai on the desk", user="ana")
    owner.close()
    store = MemoryStore(db_path, clock=clock, user="ana")
    try:
        app = BestieApp(store, poll_interval=0)
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            header = row_of(app, app.screen.query_one("Header"))
            assert "bestie memory of ana" in header, header
    finally:
        store.close()


async def test_the_header_of_an_unbound_console_names_no_user(store):
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        header = row_of(app, app.screen.query_one("Header"))
        assert "bestie memory" in header and " of " not in header


async def test_a_user_id_with_an_escape_is_shown_as_text_in_the_header(db_path, clock):
    from bestie_tui.tui.screens.base import console_title

    assert console_title("a\x1b[31mb") == "bestie memory of a\\x1b[31mb"
    assert console_title("x" * 100).endswith("…") and len(console_title("x" * 100)) < 70


async def test_the_message_detail_keeps_its_time_whole_on_one_line(store):
    store.log_message("user", "A message to read in the wide detail panel", user="linh", channel="telegram:5550001",
                      session="a-session-with-a-long-name")
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(app, pilot)
        detail = app.screen.query_one("#messages-detail")
        rows = [row_of_line(app, detail, y) for y in range(3)]
        stamp = store.clock().strftime("%Y-%m-%d")
        assert rows[1].strip() == f"{stamp} 12:00:00 UTC (just now)", rows  # date, time and age together
        assert rows[2].strip() == "A message to read in the wide detail panel", rows


def row_of_line(app, widget, y: int) -> str:
    region = widget.region
    return app.screen._compositor.render_strips()[region.y + y].text[region.x:region.right]
