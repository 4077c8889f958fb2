"""Tiers view, driven by keys with Pilot on a real temp-file database: every test asserts what the
database holds or what the screen shows."""

from __future__ import annotations

import pyperclip

from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.confirm_modal import ConfirmModal
from bestie_tui.tui.screens.edit_memory_modal import EditMemoryModal
from bestie_tui.tui.screens.supersede_modal import SupersedeModal
from bestie_tui.tui.screens.tiers_screen import TiersScreen
from bestie_tui.tui.widgets.memory_list import MemoryList

SIZE = (120, 36)


def screen_text(app) -> str:
    """Every line the terminal shows right now (the app's composited screen, toasts included)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def tiers(app) -> TiersScreen:
    screen = app.get_screen("tiers") if not isinstance(app.screen, TiersScreen) else app.screen
    assert isinstance(screen, TiersScreen)
    return screen


def listing(app) -> MemoryList:
    return tiers(app).memory_list


async def test_pin_then_unpin_selected(store):
    memory = store.add("preference", "User prefers concise replies", scope="core")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert listing(app).highlighted.id == memory.id
        await pilot.press("p")
        await pilot.pause()
        assert store.get(memory.id).pinned is True
        assert "pinned" in listing(app).render_line(0).text
        await pilot.press("p")
        await pilot.pause()
        assert store.get(memory.id).pinned is False


async def test_move_scope_with_arrows_and_with_letter(store):
    memory = store.add("project_context", "Bestie ships its TUI in December", scope="project")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("m", "down", "enter")  # project is highlighted first; down → session
        await pilot.pause()
        moved = store.get(memory.id)
        assert (moved.scope, moved.layer) == ("session", "working")
        await pilot.press("m", "c")
        await pilot.pause()
        moved = store.get(memory.id)
        assert (moved.scope, moved.layer) == ("core", "core")
        await pilot.press("m", "escape")
        await pilot.pause()
        assert store.get(memory.id).scope == "core"


async def test_edit_via_modal_saves_text(store):
    memory = store.add("preference", "User likes tea", scope="core")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, EditMemoryModal)
        await pilot.press("end", *" with honey", "ctrl+s")
        await pilot.pause()
        assert store.get(memory.id).text == "User likes tea with honey"
        assert "User likes tea with honey" in screen_text(app)


async def test_forget_needs_confirmation_and_cancel_keeps_it(store):
    memory = store.add("preference", "User likes jazz", scope="core")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")
        await pilot.pause()
        assert store.get(memory.id).status == "approved"
        await pilot.press("d", "y")
        await pilot.pause()
        assert store.get(memory.id).status == "forgotten"
        # It left the core list; the archive tab now holds it.
        assert listing(app).total == 0
        await pilot.press("a")
        await pilot.pause()
        assert listing(app).highlighted.id == memory.id


async def test_supersede_refuses_bad_id_in_place_then_accepts(store):
    old = store.add("preference", "User prefers Vietnamese", scope="core")
    new = store.add("preference", "User prefers Vietnamese replies with diacritics", scope="core")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("j")  # newest first: the old one is second
        await pilot.pause()
        assert listing(app).highlighted.id == old.id
        await pilot.press("s", *"999", "enter")
        await pilot.pause()
        assert isinstance(app.screen, SupersedeModal)
        assert "no memory with id 999" in screen_text(app)
        await pilot.press("backspace", "backspace", "backspace", *str(new.id), "enter")
        await pilot.pause()
        assert store.get(old.id).superseded_by == new.id
        assert store.get(old.id).tier == "archive"


async def test_restore_from_archive(store):
    memory = store.add("preference", "User likes hiking", scope="project")
    store.forget(memory.id)
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert tiers(app).tier == "archive"  # the only non-empty tier is shown first
        assert "forgotten" in listing(app).render_line(0).text
        await pilot.press("r")
        await pilot.pause()
        restored = store.get(memory.id)
        assert (restored.status, restored.tier) == ("approved", "working")


async def test_undo_brings_a_forgotten_memory_back(store):
    memory = store.add("preference", "User likes rain", scope="core")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("d", "y")
        await pilot.pause()
        assert store.get(memory.id).status == "forgotten"
        await pilot.press("u")
        await pilot.pause()
        assert store.get(memory.id).status == "approved"
        assert listing(app).highlighted.id == memory.id


async def test_filter_is_tolerant_and_escape_clears_it(store):
    store.add("identity", "User lives in Hà Nội", scope="project")
    store.add("preference", "User prefers concise replies", scope="project")
    store.add("preference", "User drinks coffee", scope="project")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert listing(app).total == 3
        await pilot.press("slash", *"hanoi")
        await pilot.pause()
        assert listing(app).total == 1
        assert "Hà Nội" in listing(app).render_line(0).text
        await pilot.press("enter", "escape")
        await pilot.pause()
        assert listing(app).total == 3
        await pilot.press("slash", *"zzzz", "enter")
        await pilot.pause()
        assert "match this filter" in listing(app).render_line(0).text


async def test_markup_and_escape_sequences_show_literally(store, clock):
    memory = store.add("note", "[bold]x[/bold] then \x1b[31mred", scope="core", ttl="7d")
    clock.advance(8 * 24 * 3600)
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        row = listing(app).render_line(0).text
        assert "[bold]x[/bold] then \\x1b[31mred" in row
        assert "expired" in row
        shown = screen_text(app)
        detail = tiers(app).detail
        assert detail.memory.id == memory.id
        assert shown.count("[bold]x[/bold] then \\x1b[31mred") == 2  # list row and detail panel
        assert "\x1b" not in shown
        assert "expired" in shown.split("expires at", 1)[1].splitlines()[0]


async def test_empty_store_shows_empty_state_and_keys_do_not_crash(store):
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert "No memories yet. Press n to add one" in listing(app).render_line(0).text
        await pilot.press("j", "k", "G", "g", "p", "m", "e", "d", "r", "s", "y", "u", "w", "a", "c")
        await pilot.pause()
        assert isinstance(app.screen, TiersScreen)
        assert "No memory selected." in screen_text(app)
        assert store.count() == 0


async def test_copy_without_clipboard_shows_notice(store, monkeypatch):
    store.add("preference", "User likes sushi", scope="core")

    def no_clipboard(text):
        raise pyperclip.PyperclipException("Pyperclip could not find a copy/paste mechanism for your system.")

    monkeypatch.setattr(pyperclip, "copy", no_clipboard)
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        shown = screen_text(app)
        assert "Nothing was copied: no terminal or" in shown
        assert "Pyperclip" not in shown


async def test_copy_in_a_terminal_goes_out_as_osc52_even_without_pyperclip(store, monkeypatch):
    store.add("preference", "User likes phở", scope="core")

    def no_clipboard(text):
        raise pyperclip.PyperclipException("Pyperclip could not find a copy/paste mechanism for your system.")

    monkeypatch.setattr(pyperclip, "copy", no_clipboard)
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        written: list[str] = []
        monkeypatch.setattr(type(app), "is_headless", property(lambda self: False))
        monkeypatch.setattr(app._driver, "write", written.append)
        await pilot.press("y")
        await pilot.pause()
        import base64

        assert f"\x1b]52;c;{base64.b64encode('User likes phở'.encode()).decode()}\a" in written
        assert app.clipboard == "User likes phở"
        # the terminal cannot say whether it took it: the toast does not claim more than was done
        assert "Sent the text of #1 to the terminal clipboard." in screen_text(app)


async def test_copy_puts_the_raw_text_on_the_clipboard(store, monkeypatch):
    store.add("preference", "User likes [bold]sushi[/bold]", scope="core")
    copied = []
    monkeypatch.setattr(pyperclip, "copy", copied.append)
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert copied == ["User likes [bold]sushi[/bold]"]


async def test_vim_keys_move_and_detail_does_not_count_as_access(store):
    ids = [store.add("note", f"Working note {i}", scope="project").id for i in range(60)]
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("G")
        await pilot.pause()
        assert listing(app).highlighted.id == ids[0]  # newest first, so the oldest is last
        assert tiers(app).detail.memory.id == ids[0]
        assert "Working note 0" in screen_text(app)
        await pilot.press("k", "k", "g", "j")
        await pilot.pause()
        assert listing(app).highlighted.id == ids[-2]
    assert all(store.get(i).access_count == 0 for i in ids)


async def test_external_write_keeps_the_selected_memory(store, db_path, clock):
    for i in range(40):
        store.add("note", f"Note {i}", scope="project")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press(*"jjjjj")
        await pilot.pause()
        chosen = listing(app).highlighted.id
        line = listing(app).cursor - round(listing(app).scroll_y)
        other = MemoryStore(db_path, clock=clock)  # the assistant, another connection
        try:
            for i in range(3):
                other.add("note", f"Arrived later {i}", scope="project")
        finally:
            other.close()
        app.check_external_changes()
        await pilot.pause()
        assert listing(app).total == 43
        assert listing(app).highlighted.id == chosen
        assert listing(app).cursor - round(listing(app).scroll_y) == line
        assert "Working 43" in screen_text(app)


async def test_palette_commands_follow_the_selection(store):
    store.add("preference", "User prefers tea", scope="core")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        titles = [title for title, _help, _cb in tiers(app).palette_commands()]
        assert "memory: Pin selected" in titles
        assert "memory: Forget selected" in titles
        assert "view: Working tier" in titles
        assert "memory: Restore selected" not in titles
        assert all(b.id and b.description for b in TiersScreen.BINDINGS)


async def test_refused_change_is_a_notice_and_changes_nothing(store):
    pinned = store.add("preference", "User likes tea", scope="core", pinned=True)
    replacement = store.add("preference", "User likes green tea", scope="core")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("j")
        assert listing(app).highlighted.id == pinned.id
        await pilot.press("s", *str(replacement.id), "enter")
        await pilot.pause()
        assert isinstance(app.screen, TiersScreen)
        assert "unpin it before superseding" in screen_text(app)
        assert store.get(pinned.id).superseded_by is None


async def test_n_adds_a_memory_through_the_write_gate_from_an_empty_database(store):
    from textual.widgets import Select

    from bestie_tui.tui.screens.add_memory_modal import AddMemoryModal

    store.set_setting("owner.user", "linh")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert "Press n to add one" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, AddMemoryModal)
        await pilot.press(*"Deploys go out on Tuesdays")
        app.screen.query_one("#add-kind", Select).value = "decision"
        app.screen.query_one("#add-scope", Select).value = "core"
        app.screen.query_one("#add-ttl").value = "30d"
        await pilot.press("ctrl+s")
        await pilot.pause()
        [m] = store.list()
        assert (m.text, m.kind, m.scope, m.layer, m.status, m.user) == (
            "Deploys go out on Tuesdays", "decision", "core", "core", "approved", "linh")
        assert m.expires_at is not None
        # the write gate still decides: a secret is refused in the form, which keeps it; nothing written
        await pilot.press("n")
        await pilot.pause()
        secret = "my api key is sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
        await pilot.press(*secret, "enter")
        await pilot.pause()
        assert store.count() == 1
        assert isinstance(app.screen, AddMemoryModal)
        assert app.screen.query_one("#add-text").value == secret
        assert "secret" in screen_text(app).lower()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, AddMemoryModal)
        assert store.count() == 1


async def test_a_bad_ttl_keeps_the_add_form_open_as_typed(store):
    from textual.widgets import Select

    from bestie_tui.tui.screens.add_memory_modal import AddMemoryModal

    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, AddMemoryModal)
        await pilot.press(*"Standup moves to 10am")
        form.query_one("#add-kind", Select).value = "decision"
        form.query_one("#add-scope", Select).value = "session"
        form.query_one("#add-ttl").focus()
        await pilot.press(*"soonish", "enter")
        await pilot.pause()
        # still open, everything as typed, the reason in the form; nothing written
        assert app.screen is form
        assert form.query_one("#add-text").value == "Standup moves to 10am"
        assert form.query_one("#add-kind", Select).value == "decision"
        assert form.query_one("#add-scope", Select).value == "session"
        assert form.query_one("#add-ttl").value == "soonish"
        assert "cannot read TTL 'soonish'" in screen_text(app)
        assert store.count() == 0
        # a TTL it reads: added with what was typed before
        await pilot.press(*["backspace"] * 7, *"2w", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, AddMemoryModal)
        [m] = store.list()
        assert (m.text, m.kind, m.scope, m.expires_at is not None) == ("Standup moves to 10am", "decision", "session", True)



async def keys_in_one_read(pilot, *keys: str) -> None:
    """Send ``keys`` as a terminal does when they arrive in one read: every key event is queued
    before the app handles the first (``pilot.press`` waits for the app between keys)."""
    from textual import events

    for key in keys:
        pilot.app._driver.send_message(events.Key(key, key))
    await pilot.pause()


async def test_a_key_right_after_a_tier_key_acts_on_the_tier_it_switched_to(store):
    working = store.add("preference", "User drinks tea in the morning", scope="project")
    archived = store.add("preference", "User drank coffee once", scope="project")
    store.forget(archived.id)
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert listing(app).highlighted.id == archived.id
        # w then p: p pins the Working row, not the Archive row still drawn when p arrived
        await pilot.press("w", "p")
        await pilot.pause()
        assert store.get(working.id).pinned is True
        assert store.get(archived.id).pinned is False
        await keys_in_one_read(pilot, "a", "p", "w", "p")
        assert store.get(archived.id).pinned is True  # a then p: the Archive row
        assert store.get(working.id).pinned is False  # w then p: unpinned again
        # w then r asks to restore the working memory (refused: it is active), not the archived one
        await keys_in_one_read(pilot, "a", "w", "r")
        assert store.get(archived.id).status == "forgotten"
        assert tiers(app).tier == "working"
        # a then r restores the archived memory
        await keys_in_one_read(pilot, "a", "r")
        assert store.get(archived.id).status != "forgotten"


async def test_the_add_form_kinds_stay_on_one_line_at_80_columns(store):
    from textual.widgets import Select

    from bestie_tui.tui.screens.add_memory_modal import AddMemoryModal

    def rows(app) -> list[str]:
        return [strip.text for strip in app.screen._compositor.render_strips()]

    store.add("note", "Something")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, AddMemoryModal)
        await pilot.press("tab", "enter")  # open the kind list
        await pilot.pause()
        assert any("communication preference" in row for row in rows(app)), "\n".join(rows(app))
        assert not any(row.rstrip(" ▎").endswith("communicati") for row in rows(app))
        await pilot.press("down", "enter")  # choose it: one line in its box, cut with …
        await pilot.pause()
        assert app.screen.query_one("#add-kind", Select).value == "communication_preference"
        [shown] = [row for row in rows(app) if "communication" in row]
        assert "communication p…" in shown


async def test_n_binds_the_new_memory_to_owner_user_or_to_the_console_user(store, db_path, clock):
    """With owner.user set, a memory added with n is the owner's (the detail panel says whose); a
    console bound to a user adds that user's."""
    import re

    store.set_setting("owner.user", "linh")
    for console_store, user in ((store, "linh"), (MemoryStore(db_path, clock=clock, user="minh"), "minh")):
        app = BestieApp(console_store, poll_interval=0)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await pilot.pause()
            await pilot.press("n")
            await pilot.pause()
            await pilot.press(*f"Standup notes go to {user}", "enter")
            await pilot.pause()
            await pilot.pause()
            added = listing(app).highlighted
            assert (added.text, added.user) == (f"Standup notes go to {user}", user)
            assert re.search(rf"user +{user}\b", screen_text(app))
        if console_store is not store:
            console_store.close()
    assert {m.text: m.user for m in store.list()} == {"Standup notes go to linh": "linh",
                                                     "Standup notes go to minh": "minh"}


async def test_each_tier_keeps_the_row_selected_when_it_was_left(store):
    rows = [store.add("preference", f"User likes tea number {n}", scope="project") for n in range(4)]
    archived = store.add("preference", "User drank coffee once", scope="project")
    store.forget(archived.id)
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("w", "j", "j")
        chosen = listing(app).highlighted.id
        assert chosen not in (rows[-1].id, archived.id)  # not the first row any more
        await pilot.press("a")
        assert listing(app).highlighted.id == archived.id
        await pilot.press("w", "p")  # back on Working at the row left there: p pins that one
        await pilot.pause()
        assert listing(app).highlighted.id == chosen
        assert [m.id for m in store.list(status="approved") if m.pinned] == [chosen]


async def test_a_time_in_the_detail_keeps_its_relative_part_whole(store, clock):
    """ "2026-11-30 12:00 UTC (2 months ago)" does not fit the detail pane at 120 columns: the
    relative part goes under the time, whole, never "(2 months" / "ago)"."""
    memory = store.add("decision", "Never book meetings before 10:00 on weekdays.", scope="core")
    clock.advance(75 * 86400)
    for size in ((120, 40), (80, 50), (200, 60)):
        app = BestieApp(store, poll_interval=0)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            assert listing(app).highlighted.id == memory.id
            pane = tiers(app).detail.region
            rows = [strip.text[pane.x:pane.right].strip(" ▕▎│") for strip in
                    app.screen._compositor.render_strips()[pane.y:pane.bottom]]
            assert not any(row.endswith("(2 months") or row.startswith("ago)") for row in rows), (size, rows)
            for label in ("created", "updated"):
                [at] = [i for i, row in enumerate(rows) if row.startswith(label + " ")]
                if size == (200, 60):  # room for both: one line
                    assert rows[at].endswith("2026-11-30 12:00 UTC (2 months ago)"), (size, rows[at])
                else:
                    assert rows[at + 1 + (size == (80, 50))] == "(2 months ago)", (size, rows[at:at + 3])


async def test_moving_an_expired_memory_says_it_stays_out_of_prompts(store, clock):
    memory = store.add("project_context", "Sprint demo is in room Lotus this week", scope="project", ttl="1d")
    clock.advance(2 * 86400)
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert listing(app).highlighted.id == memory.id
        await pilot.press("m", "c")
        await pilot.pause()
        assert store.get(memory.id).scope == "core"
        assert "It has expired" in screen_text(app) or any(
            "It has expired" in n.message for n in app._notifications)
