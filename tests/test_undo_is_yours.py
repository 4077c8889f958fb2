"""Undo is yours: the console's ``u`` undoes the last change made in that console session, the CLI's
``undo`` the owner's last change (``--actor assistant`` / ``--any`` reach others'), an older change is
reverted field by field without clobbering newer ones, and the toast names what was undone."""

from __future__ import annotations

import sqlite3

import pytest

from bestie_tui.errors import InvalidValueError, NotFoundError
from bestie_tui.store.db import SCHEMA_VERSION
from bestie_tui.store.memory_store import MemoryStore

pytestmark = pytest.mark.both_engines


def test_owner_undo_skips_the_assistants_newer_proposal(store):
    pinned = store.add("preference", "Prefers short answers")
    store.pin(pinned.id)
    proposal = store.propose("Likes hiking on weekends", "preference").memory  # the assistant, a second later
    result = store.undo()
    assert result.message == "undid pin by owner on #1 “Prefers short answers”"
    assert not store.get(pinned.id).pinned
    assert store.get(proposal.id).status == "pending"  # the assistant's proposal is still there


def test_undoing_an_older_change_keeps_a_newer_change_to_other_fields(store):
    m = store.add("preference", "Prefers short answers", confidence=0.8)
    store.pin(m.id)
    store.propose("prefers short answers!", "preference")  # the assistant restates it: reinforced
    assert store.get(m.id).confidence == pytest.approx(0.85)
    store.undo()  # the owner's pin
    after = store.get(m.id)
    assert not after.pinned and after.confidence == pytest.approx(0.85)


def test_a_conflicting_undo_changes_nothing_and_names_the_newer_change(store):
    m = store.add("note", "Project Falcon ships in May", confidence=0.8)
    store.propose("Project Falcon ships in May", "note")  # reinforces #1 as the assistant
    events = store.history(limit=100)
    with pytest.raises(InvalidValueError, match="reinforce by assistant"):
        store.undo()  # undoing the add would delete a record the assistant changed since
    assert store.get(m.id).text == "Project Falcon ships in May" and store.history(limit=100) == events
    assert "undid reinforce by assistant" in store.undo(any_actor=True).message
    store.undo()
    with pytest.raises(NotFoundError):
        store.get(m.id)


def test_cli_undo_is_the_owners_and_reaches_others_only_when_asked(run, db_path):
    run("memory", "add", "note", "Owner's own note")
    run("memory", "pin", "1")
    store = MemoryStore(db_path)
    store.propose("Assistant thinks the owner likes jazz", "preference")
    store.close()
    out = run("memory", "undo")
    assert out.exit_code == 0 and out.output.strip() == "undid pin by owner on #1 “Owner's own note”"
    out = run("memory", "undo", "--actor", "assistant")
    assert out.output.strip() == "undid propose by assistant on #2 “Assistant thinks the owner likes jazz”"
    assert "undid add by owner on #1" in run("memory", "undo", "--any").output
    nothing = run("memory", "undo")
    assert nothing.exit_code == 1 and "nothing to undo by owner or import" in nothing.output
    assert run("memory", "undo", "--actor", "x", "--any").exit_code == 2


def test_undo_message_escapes_control_characters_in_the_cli(run):
    run("memory", "add", "note", "Evil \x1b[2J text")
    out = run("memory", "undo").output
    assert "\x1b" not in out and "Evil \\x1b[2J text" in out


async def test_console_u_undoes_this_sessions_change_and_the_toast_names_it(store, db_path):
    from bestie_tui.tui.app import BestieApp

    store.add("preference", "Prefers Vietnamese replies", scope="core")
    other = MemoryStore(db_path)  # the assistant, writing to the same file from elsewhere
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await pilot.pause()
        with pytest.raises(NotFoundError, match="made in this session"):
            app.undo_own()  # the add above was made outside this console
        await pilot.press("p")  # pin, in the console
        await pilot.pause()
        assert store.get(1).pinned
        proposal = other.propose("Owner might like durian", "preference").memory
        other.set_setting("memory.writePolicy", "allow", actor="assistant")
        await pilot.press("u")
        await pilot.pause()
        toasts = [n.message for n in app._notifications]
        assert "undid pin by owner on #1 “Prefers Vietnamese replies”" in toasts
        text = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "undid pin by owner on #1" in text  # the toast is on screen
    assert not store.get(1).pinned
    assert store.get(proposal.id).status == "pending" and store.get_setting("memory.writePolicy") == "allow"
    other.close()


def test_a_schema_1_file_migrates_in_place(tmp_path):
    path = tmp_path / "old.db"
    s = MemoryStore(path)
    s.add("note", "Written by schema 1")
    s.close()
    conn = sqlite3.connect(path)  # make it what schema 1 wrote: no event.origin (nor schema 3's memory.about)
    conn.execute("DROP INDEX event_origin")
    conn.execute("ALTER TABLE event DROP COLUMN origin")
    conn.execute("ALTER TABLE memory DROP COLUMN about")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    s = MemoryStore(path)
    assert s.get(1).text == "Written by schema 1" and s.status().schema_version == SCHEMA_VERSION
    s.pin(1)
    assert "undid pin by owner on #1" in s.undo().message
    assert "undid add by owner on #1" in s.undo().message  # the pre-migration event (no origin) undoes too
    s.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert "origin" in [row[1] for row in conn.execute("PRAGMA table_info(event)")]


def test_undo_of_a_large_import_names_a_dozen_ids_and_counts_the_rest(store, tmp_path):
    from bestie_tui.transfer.exchange import import_data

    memories = [{"kind": "note", "text": f"Visited museum number {n} on a rainy afternoon", "status": "approved"}
                for n in range(30)]
    import_data(store, {"format": "bestie-memory-export", "version": 2, "memories": memories, "messages": []})
    result = store.undo()
    assert result.message.endswith(", #12 and 18 more")
    assert "#13" not in result.message
    assert len(result.memory_ids) == 30 and store.list() == []
