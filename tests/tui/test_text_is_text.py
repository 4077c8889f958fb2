"""Text is only ever text: a memory (and a user, a channel, a chat message) holding Rich markup, a
clear-screen sequence and an OSC 8 hyperlink is drawn literally in every view, modal and toast and in
the digest preview, and no control byte of it reaches the terminal.

"What reaches the terminal" is the exact character stream the app writes for a full repaint of the
screen: the compositor's update rendered by the app's console (``App._display`` writes the same).
Textual's own cursor moves and colours are the only escape sequences allowed in it.
"""

from __future__ import annotations

import re

import pytest

from bestie_tui.store.models import Memory
from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.confirm_modal import ConfirmModal
from bestie_tui.tui.screens.edit_memory_modal import EditMemoryModal
from bestie_tui.tui.screens.help_screen import HelpScreen
from bestie_tui.tui.screens.move_modal import MoveModal
from bestie_tui.tui.screens.supersede_modal import SupersedeModal

pytestmark = pytest.mark.slow

EVIL = "[bold red]x[/] \x1b[2J \x1b]8;;http://e.x\x07y"
EVIL_USER = "[i]eve[/i]\x1b[2J"
#: How EVIL must look on screen: markup as typed, controls as visible escapes.
LITERAL_MARKUP = "[bold red]x[/]"
LITERAL_ESCAPES = "\\x1b[2J \\x1b]8;;http://e.x\\x07y"
SIZE = (160, 50)
#: The only escape sequences Textual itself writes in a full repaint: colours/styles and cursor moves.
OWN_SEQUENCES = re.compile(r"\x1b\[[0-9;]*m|\x1b\[\d+;\d+H")
BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def terminal_output(app) -> str:
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return update.render_segments(app.console)


def visible(app, where: str) -> str:
    """The repaint without Textual's own sequences; fails if any other control character is left."""
    rest = OWN_SEQUENCES.sub("", terminal_output(app))
    bad = sorted({f"{ord(c):#04x}" for c in rest
                  if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F or c in BIDI})
    assert not bad, f"{where}: control characters reach the terminal: {bad}"
    assert "http://e.xy" not in rest, f"{where}: the hyperlink's controls were dropped, not shown"
    return rest


def assert_literal(app, where: str) -> None:
    rest = visible(app, where)
    assert LITERAL_MARKUP in rest, f"{where}: the markup is not shown literally"
    assert LITERAL_ESCAPES in rest, f"{where}: the escape sequences are not shown as text"


async def settle(app, pilot) -> None:
    from textual.worker import WorkerCancelled

    await pilot.pause()
    for _ in range(10):  # a debounced rebuild cancels the worker it replaces: wait for the newest
        try:
            await app.workers.wait_for_complete()
            break
        except WorkerCancelled:
            await pilot.pause()
    await pilot.pause()


@pytest.fixture
def evil_store(store):
    core = store.add("preference", EVIL, scope="core", user="owner")
    store.add("preference", f"I love durian {EVIL}", user="owner")
    store.add("preference", f"I hate durian {EVIL}", user="owner")
    with store.bound():  # the assistant wrote the same memory twice (a duplicate group to merge)
        row = Memory.get_by_id(core.id)
        Memory.insert(text=row.text + " ", kind="preference", status="approved", scope="project", layer="working",
                      user="owner", norm=row.norm, terms=row.terms, created_at=store.clock(),
                      updated_at=store.clock()).execute()
    stand_in = "eve-stand-in"  # a user id holding ESC is refused now; a database written before may hold one
    store.add("note", f"Bound to a strange user {EVIL}", user=stand_in, channel=EVIL_USER, project=EVIL_USER)
    store.propose(f"Pending: {EVIL}", "preference", user=stand_in, channel=EVIL_USER, session=EVIL_USER,
                  source=EVIL_USER)
    for i in range(3):
        store.log_message("user", f"chat {i}: {EVIL}", user=stand_in, channel=EVIL_USER, session=EVIL_USER)
    for table in ("memory", "message"):
        store.db.execute_sql(f"UPDATE {table} SET user = ? WHERE user = ?", (EVIL_USER, stand_in))
    return store


async def test_every_view_draws_the_memory_literally(evil_store):
    app = BestieApp(evil_store, poll_interval=0, start_mode="tiers")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        assert_literal(app, "Tiers (core tier, list and detail)")
        await pilot.press("w")
        await settle(app, pilot)
        assert_literal(app, "Tiers (working tier)")
        await pilot.press("2")
        await settle(app, pilot)
        assert_literal(app, "Pending (card and similar memories)")
        await pilot.press("3")
        await settle(app, pilot)
        query = app.screen.query_one("#context-query")
        query.value = "durian"
        await pilot.pause(0.4)
        await settle(app, pilot)
        assert "[i]eve[/i]\\x1b[2J" in visible(app, "Context (the user choice)")
        app.screen.query_one("#context-user").value = "owner"
        await pilot.pause(0.4)
        await settle(app, pilot)
        assert_literal(app, "Context (pack and left-out list)")
        await pilot.press("escape", "4")  # the cursor is in the request box: esc leaves it first
        await settle(app, pilot)
        tree = app.screen.query_one("Tree")
        tree.root.expand_all()
        await settle(app, pilot)
        assert_literal(app, "Doctor (every section open)")
        await pilot.press("5")
        await settle(app, pilot)
        assert_literal(app, "Cleanup (plan diff)")
        await pilot.press("6")
        await settle(app, pilot)
        assert_literal(app, "Messages (table and detail)")
        await pilot.press("c")  # compression preview quotes the messages
        await settle(app, pilot)
        visible(app, "Messages (compression preview)")
        await pilot.press("7")
        await settle(app, pilot)
        await pilot.press("r")  # build the digest preview now
        await settle(app, pilot)
        assert_literal(app, "Health (digest preview)")


async def test_every_modal_and_toast_draws_the_memory_literally(evil_store):
    app = BestieApp(evil_store, poll_interval=0, start_mode="tiers")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        assert isinstance(app.screen, EditMemoryModal)
        await settle(app, pilot)
        assert_literal(app, "EditMemoryModal (Tiers)")
        await pilot.press("escape")
        await pilot.press("m")
        assert isinstance(app.screen, MoveModal)
        visible(app, "MoveModal")
        await pilot.press("escape")
        await pilot.press("s")
        assert isinstance(app.screen, SupersedeModal)
        assert_literal(app, "SupersedeModal")
        await pilot.press("escape")
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmModal)
        visible(app, "ConfirmModal (forget)")
        await pilot.press("y")
        await settle(app, pilot)
        visible(app, "toast after forget")
        await pilot.press("u")
        await settle(app, pilot)
        assert_literal(app, "toast naming what undo reverted")
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        visible(app, "HelpScreen")
        await pilot.press("escape")
        await pilot.press("2")
        await settle(app, pilot)
        await pilot.press("e")
        assert isinstance(app.screen, EditMemoryModal)
        assert_literal(app, "EditMemoryModal (Pending)")
        await pilot.press("escape")
        await pilot.press("5")
        await settle(app, pilot)
        await pilot.press("e")
        assert isinstance(app.screen, EditMemoryModal)
        assert_literal(app, "EditMemoryModal (Cleanup's merged text)")
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("ctrl+p")  # the command palette lists commands computed from the screen
        await settle(app, pilot)
        visible(app, "command palette")


async def test_saving_an_unchanged_edit_keeps_the_stored_bytes(evil_store):
    """The editor shows the escapes as text; saving without a change must not rewrite the memory."""
    app = BestieApp(evil_store, poll_interval=0, start_mode="tiers")
    before = evil_store.get(1).text
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
    assert evil_store.get(1).text == before


async def test_editing_around_control_characters_keeps_them(evil_store):
    """An edit of a memory holding an ESC (shown as ``\\x1b``) adds the typed words and keeps the
    stored control characters as they were, not the four characters of their visible escape; an
    escape the owner types is kept as typed, even one the stored text holds as a character."""
    app = BestieApp(evil_store, poll_interval=0, start_mode="tiers")
    before = evil_store.get(1).text
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await pilot.press("ctrl+end", *" ok \\x07", "ctrl+s")
        await settle(app, pilot)
    after = evil_store.get(1).text
    assert after == before.strip() + " ok \\x07"
    assert "\x1b[2J" in after and "\x07y" in after  # the stored ESC and BEL, as they were


@pytest.mark.parametrize("stored, typed_after, expected", [
    ("bell \x07 and a typed \\x07", " X", "bell \x07 and a typed \\x07 X"),
    ("a\tb\r\nc", "!", "a\tb\r\nc!"),
    ("no controls \\x1b", " ok", "no controls \\x1b ok"),
])
def test_an_edit_of_drawn_text_maps_back_to_the_stored_characters(stored, typed_after, expected):
    from bestie_tui.tui.display import shown, unshown

    assert unshown(shown(stored) + typed_after, stored) == expected
