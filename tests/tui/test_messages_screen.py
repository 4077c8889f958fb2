"""Messages view, driven by keys with Pilot over a real temp-file store: browse, page, filter by
role, search, and the compression preview."""

from __future__ import annotations

from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.messages_screen import PAGE_SIZE, MessagesScreen

SIZE = (140, 40)


def seed(store, n: int) -> None:
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        store.log_message(role, f"message {i} about the garden", user="linh")
        store.clock.advance(1)


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def view(app) -> MessagesScreen:
    assert isinstance(app.screen, MessagesScreen)
    return app.screen


def cell_texts(app, column: str) -> list[str]:
    """The column's cells as the table draws them (cut with … to the column's width)."""
    table = view(app).table
    return [table.cell_text(row, column) for row in range(table.row_count)]


def shown(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def test_key_6_pages_and_role_filter(store):
    seed(store, PAGE_SIZE + 10)
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("6")
        await settle(pilot)
        texts = cell_texts(app, "text")
        assert len(texts) == PAGE_SIZE and texts[0] == f"message {PAGE_SIZE + 9} about the garden"
        assert "page 1" in shown(app, "#messages-caption")
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert cell_texts(app, "text") == [f"message {i} about the garden" for i in range(9, -1, -1)]
        await pilot.press("left_square_bracket", "r")  # back to page 1, then role: user
        await pilot.pause()
        assert set(cell_texts(app, "role")) == {"user"}
        assert len(cell_texts(app, "role")) == (PAGE_SIZE + 10) // 2
        assert "role user" in shown(app, "#messages-caption")


async def test_search_and_detail_show_text_literally(store):
    store.log_message("user", "I moved to Hà Nội last [bold]spring[/bold]", user="an")
    store.clock.advance(1)
    store.log_message("assistant", "Nice! How is the weather?", user="an")
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"hanoi", "enter")
        await pilot.pause()
        [cell] = cell_texts(app, "text")  # cut to the column's width with …, the markup shown literally
        assert cell.startswith("I moved to Hà Nội last [bol") and "I moved to Hà Nội last [bold]spring[/bold]".startswith(cell.rstrip("…"))
        assert "I moved to Hà Nội last [bold]spring[/bold]" in shown(app, "#messages-detail")
        await pilot.press("escape")
        await pilot.pause()
        assert len(cell_texts(app, "text")) == 2


async def test_compression_preview_marks_turns_and_shows_summary(store):
    store.log_message("user", "My sister Linh flies to Đà Nẵng on 12 March 2025 for work.", user="an")
    store.clock.advance(1)
    seed(store, 49)
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        preview = shown(app, "#messages-preview")
        assert "threshold 40 · keep 10" in preview
        assert "50 messages → 11" in preview
        assert "would summarise 40 turns: #1–#40" in preview
        assert "keeps 10 verbatim: #41–#50" in preview
        assert "[CONTEXT_SUMMARY turns=40" in preview and "Linh" in preview
        marks = cell_texts(app, "ctx")  # newest first: ten kept, then the summarised ones
        assert marks[:10] == ["kept"] * 10 and set(marks[10:]) == {"summary"}
        await pilot.press("G")
        await pilot.pause()
        assert "compression: summary" in shown(app, "#messages-detail")


async def test_pinned_row_is_marked_and_c_toggles_the_preview_off(store):
    store.log_message("system", "[USER_INFO]\nName: An\n[/USER_INFO]")
    store.clock.advance(1)
    seed(store, 45)
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        marks = cell_texts(app, "ctx")
        assert marks[-1] == "pinned" and marks[:10] == ["kept"] * 10 and set(marks[10:-1]) == {"summary"}
        await pilot.press("c")
        await settle(pilot)
        assert set(cell_texts(app, "ctx")) == {""}
        assert shown(app, "#messages-preview") == "Press c to preview history compression."


async def test_escape_sequences_in_chat_text_are_shown_not_sent_to_the_terminal(store):
    from bestie_tui.tui.app import BestieApp

    store.log_message("user", "before \x1b]2;PWNED\x07 \x1b[41mRED\x1b[0m \u202eevil", user="x-stand-in")
    # a user id holding ESC is refused now; a database written before may hold one
    store.db.execute_sql("UPDATE message SET user = ? WHERE user = ?", ("x\x1b[2Jy", "x-stand-in"))
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.pause()
        svg = app.export_screenshot()
    assert "\x1b" not in svg and "\u202e" not in svg and "\x07" not in svg
    assert "\\x1b]2;PWNED\\x07" in svg.replace("&#160;", " ")


async def test_search_ranks_with_recall_and_shows_the_turns_around_the_hit(store):
    store.log_message("user", "Linh: I signed up for contemporary dance classes", user="an", session="s1")
    store.clock.advance(1)
    store.log_message("user", "Minh: Yeah, me too!", user="an", session="s1")
    store.clock.advance(1)
    store.log_message("user", "Linh: the printer is broken", user="an", session="s2")
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"contemporary dance", "enter")
        await pilot.pause()
        texts = cell_texts(app, "text")
        assert texts[0].startswith("Linh: I signed up") and "Minh: Yeah, me too!" in texts
        assert not any("printer" in t for t in texts)
        assert "best first" in shown(app, "#messages-caption")
        detail = shown(app, "#messages-detail")
        assert "I signed up for contemporary dance classes" in detail and "Yeah, me too!" in detail


async def test_click_selects_a_row_and_a_resize_cuts_the_text_to_the_new_width(store):
    seed(store, 5)
    store.log_message("user", "a long message " + "about the garden and the roses " * 6, user="linh")
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        wide_side = cell_texts(app, "text")[0]
        assert wide_side.endswith("…")
        await pilot.click("#messages-table", offset=(10, 3))  # line 0 is the header: the third row
        await pilot.pause()
        assert view(app).table.cursor_row == 2
        assert shown(app, "#messages-detail").startswith("#4 · assistant")
        await pilot.resize_terminal(100, 40)  # narrow: the side panel gives its width to the table
        await settle(pilot)
        narrow = cell_texts(app, "text")[0]
        assert view(app).has_class("-narrow") and narrow.endswith("…") and len(narrow) > len(wide_side)


async def test_an_empty_history_says_so_in_the_table(store):
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=(100, 30)) as pilot:  # narrow: the detail panel is hidden
        await settle(pilot)
        lines = [strip.text for strip in app.screen.query_one("#messages-table").render_lines(
            __import__("textual.geometry", fromlist=["Region"]).Region(0, 0, 80, 3))]
        assert lines[0].split() == ["id", "when", "role", "who", "text"]  # no marks: no ctx column when narrow
        assert lines[1].strip().startswith("No messages yet")


async def test_page_keys_move_the_cursor_and_keep_it_in_view(store):
    seed(store, PAGE_SIZE)
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = view(app).table
        rows_shown = table.scrollable_content_region.height - 1  # under the header line
        await pilot.press("pagedown")
        assert table.cursor_row == rows_shown
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == PAGE_SIZE - 1 and table.scroll_y == PAGE_SIZE - rows_shown
        assert shown(app, "#messages-detail").endswith("message 0 about the garden")
        await pilot.press("home", "j", "j", "k")
        await pilot.pause()
        assert table.cursor_row == 1 and table.scroll_y == 0


async def test_enter_shows_the_whole_message_where_the_table_cuts_it(store):
    long = ("Sure: Redis Streams was the choice for the job queue because consumer groups give us "
            "at-least-once delivery, and [bold]this[/bold] stays plain text to the very last word: zebra.")
    store.log_message("assistant", long, user="linh", channel="telegram:1", session="s1")
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not any("zebra" in t for t in cell_texts(app, "text"))  # cut with … at 80 columns
        await pilot.press("enter")
        await pilot.pause()
        from bestie_tui.tui.screens.text_modal import TextModal

        assert isinstance(app.screen, TextModal)
        shown_text = " ".join(" ".join(s.text.replace("┃", " ").split()) for s in app.screen._compositor.render_strips())
        assert "zebra." in shown_text and "[bold]this[/bold]" in shown_text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MessagesScreen)


async def test_enter_on_an_empty_history_says_so_and_opens_nothing(store):
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MessagesScreen)
        assert [n.message for n in app._notifications] == ["No message selected."]


async def test_the_whole_message_shows_escape_sequences_as_text(store):
    store.log_message("user", "before \x1b]52;c;aGVsbG8=\x07 after", user="linh")
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        shown = " ".join(s.text for s in app.screen._compositor.render_strips())
        assert "\\x1b]52;c;aGVsbG8=\\x07" in shown and "\x1b" not in shown


async def test_at_80_columns_the_empty_ctx_column_gives_its_room_to_the_text(store):
    """A ctx column blank in every row is left out on a narrow table (the text gets its 9 cells)
    and comes back when the compression preview marks rows; where there is room it stays."""
    for i in range(12):
        store.log_message("user", f"message {i} " + "about the vegetable garden and its tomatoes " * 3, user="linh")
        store.clock.advance(1)

    def header_and_first(app) -> tuple[str, str]:
        table = app.screen.query_one("#messages-table")
        strips = app.screen._compositor.render_strips()
        return (strips[table.region.y].text[table.region.x:table.region.right],
                strips[table.region.y + 1].text[table.region.x:table.region.right])

    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        header, first = header_and_first(app)
        assert header.split() == ["id", "when", "role", "who", "text"], header
        shown_text = first.split("linh", 1)[1].strip()
        assert shown_text.startswith("message 11 about the vegetable gard") and len(shown_text) >= 34, first
        await pilot.press("c")  # the preview marks rows: the column is needed again
        await settle(pilot)
        await pilot.press("escape")  # at 80 columns the preview opened in a dialog (test_console_fits)
        await settle(pilot)
        header, first = header_and_first(app)
        assert header.split() == ["id", "when", "role", "who", "ctx", "text"], header
        assert cell_texts(app, "ctx")[0] == "kept"
    app = BestieApp(store, poll_interval=0, start_mode="messages")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        header, _ = header_and_first(app)
        assert header.split() == ["id", "when", "role", "who", "ctx", "text"], header  # room enough: it stays


async def test_x_forgets_the_selected_message_after_a_confirm_and_u_brings_it_back(store):
    from bestie_tui.retrieval.recall import recall

    store.log_message("user", "The gate code for the allotment is on the green card.", user="linh")
    store.clock.advance(1)
    store.log_message("user", "We planted beans along the north fence.", user="linh")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("6")
        await settle(pilot)
        target = view(app).selected
        assert target is not None and "beans" in target.text  # newest first
        await pilot.press("x", "n")  # asked first; no changes nothing
        await settle(pilot)
        assert [m.id for m in store.messages()].count(target.id) == 1
        await pilot.press("x", "y")
        await settle(pilot)
        assert target.id not in [m.id for m in store.messages()]
        assert not [h for h in recall(store, "beans north fence", "linh") if "beans" in h.message.text]
        assert all("beans" not in t for t in cell_texts(app, "text"))
        await pilot.press("u")
        await settle(pilot)
        assert target.id in [m.id for m in store.messages()]


async def test_x_on_an_empty_history_says_so_and_changes_nothing(store):
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("6")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, MessagesScreen)  # no confirm was opened
        assert any("No message selected" in n.message for n in app._notifications)
        assert store.messages() == [] and store.status().events == 0
