"""A paste keeps its order (issue 31, item 6): a bracketed paste holding ESC bytes arrives as one
paste, between the keys typed before and after it, and what it holds is shown and stored as data
(an ESC as the visible ``\\x1b``), never acted on as keys and never sent on to the terminal."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input, TextArea

from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.paste import PasteKeepingParser
from bestie_tui.tui.screens.add_memory_modal import AddMemoryModal
from tests.terminal import tmux, wait_for

START, END = "\x1b[200~", "\x1b[201~"
#: A paste of coloured terminal output with keys in it that act outside a text box (q quits, 2
#: switches view, ESC 2 is alt+2) — none of them may act.
PASTED = "Bike lock code is on\x1b[31m the red tag\x1b[0m, q2\x1b2 done"
SHOWN = "Bike lock code is on\\x1b[31m the red tag\\x1b[0m, q2\\x1b2 done"


def summary(messages) -> list[tuple[str, str]]:
    return [(type(m).__name__, m.text if isinstance(m, events.Paste) else m.key) for m in messages]


def test_a_paste_holding_esc_is_one_paste_between_the_keys_around_it():
    parser = PasteKeepingParser()
    got = summary(parser.feed(f"ab{START}{PASTED}{END}cd"))
    assert got == [("Key", "a"), ("Key", "b"), ("Paste", PASTED), ("Key", "c"), ("Key", "d")]


def test_markers_split_across_reads_are_joined():
    parser = PasteKeepingParser()
    reads = ["x\x1b", "[20", "0~one\x1b[3", "1mtwo\x1b[20", "1", "~y"]
    got = [item for read in reads for item in summary(parser.feed(read))]
    assert got == [("Key", "x"), ("Paste", "one\x1b[31mtwo"), ("Key", "y")]


def test_keys_outside_a_paste_are_read_as_before():
    parser = PasteKeepingParser()
    assert summary(parser.feed("\x1b[A")) == [("Key", "up")]
    assert summary(parser.feed("\x1b")) == []  # maybe the start of a paste: held for the escape delay
    time.sleep(0.15)
    assert summary(parser.tick()) == [("Key", "escape")]


async def settle(app, pilot) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_a_paste_in_the_new_memory_box_keeps_its_order_and_is_stored_as_shown(store):
    store.add("note", "Something to list")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("n")
        await pilot.pause()
        for message in PasteKeepingParser().feed(f"My{START}{PASTED}{END}!"):  # as a terminal sends it
            app.post_message(message)
        await pilot.pause()
        assert isinstance(app.screen, AddMemoryModal)  # neither q nor 2 nor ESC 2 acted
        box = app.screen.query_one("#add-text", Input)
        assert box.value == f"My{SHOWN}!"
        assert f"My{SHOWN}!" in row_text(app, box)  # what the box draws is what it holds
        await pilot.press("enter")
        await settle(app, pilot)
    assert [m.text for m in store.list() if m.text.startswith("My")] == [f"My{SHOWN}!"]


async def test_a_multi_line_paste_in_the_editor_keeps_lines_and_the_stored_esc(store):
    memory = store.add("note", "Old \x1b[1mbold\x1b[0m text")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await pilot.pause()
        app.post_message(events.Paste("\rline two\x07\rline three"))  # a terminal sends line breaks as CR
        await pilot.pause()
        area = app.screen.query_one(TextArea)
        assert area.text == "Old \\x1b[1mbold\\x1b[0m text\nline two\\x07\nline three"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
    # the ESC that was stored stays an ESC; the BEL pasted is the four characters shown
    assert store.get(memory.id).text == "Old \x1b[1mbold\x1b[0m text\nline two\\x07\nline three"


def row_text(app, widget) -> str:
    region = widget.region
    strips = app.screen._compositor.render_strips()
    return "".join(strips[y].text[region.x:region.right] for y in range(region.y, region.bottom))


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_terminal_paste_holding_esc_reaches_the_box_in_order(tmp_path):
    """The whole path in a real terminal: tmux pastes with bracketed-paste markers (``paste-buffer -p``)."""
    db = tmp_path / "paste.db"
    store = MemoryStore(db)
    store.add("note", "Something to list")
    store.close()
    exe = Path(sys.executable).with_name("bestie")
    session = f"bestie-{uuid.uuid4().hex[:8]}"
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "30", "-e", f"BESTIE_DATA_DIR={tmp_path / 'data'}",
         "-e", "TERM=xterm-256color", f"{exe} --db {db} tui; echo EXITED-$?; sleep 30")
    try:
        wait_for(session, "Something to list")
        tmux("send-keys", "-t", session, "n")
        wait_for(session, "what should Bestie remember?")
        tmux("send-keys", "-t", session, "-l", "My")
        subprocess.run(["tmux", "set-buffer", "-b", session, PASTED], check=True, timeout=30)
        tmux("paste-buffer", "-p", "-b", session, "-t", session)
        time.sleep(0.3)
        tmux("send-keys", "-t", session, "-l", "!")
        wait_for(session, "red tag\\x1b[0m, q2\\x1b2 done!")  # the box is scrolled to its end
        tmux("send-keys", "-t", session, "Enter")
        wait_for(session, "working 2")
        tmux("send-keys", "-t", session, "C-q")
        wait_for(session, "EXITED-0")
    finally:
        tmux("kill-session", "-t", session)
    store = MemoryStore(db)
    try:
        assert f"My{SHOWN}!" in [m.text for m in store.list()]
    finally:
        store.close()
