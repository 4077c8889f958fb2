"""Plans apply what they show; an import's undo takes its messages; clear's backup is never partial;
a proposal waits out a long write instead of failing."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

from bestie_tui.hygiene.plan_apply import apply_plan
from bestie_tui.hygiene.plan_build import build_cleanup_plan
from bestie_tui.store.models import Event, Memory
from bestie_tui.transfer import backup as store_backup


def select_archives(plan):
    """The owner ticks the archive operations (a record that is only unused is shown, not pre-selected)."""
    for op in plan.operations:
        if op.action == "archive":
            op.selected = True
    return plan


def test_a_record_in_a_merge_and_an_archive_gets_both_and_nothing_is_skipped(store, clock):
    old = store.add("note", "My cousin repairs brass lamps on Sundays.")
    twin = store.add("note", "placeholder text")
    store.edit(twin.id, "my cousin REPAIRS brass lamps, on sundays!")  # a twin that slipped in by an edit
    lone = store.add("note", "The landlord collects tide tables.")
    clock.advance(400 * 86400)  # all three unused for over a year
    plan = select_archives(build_cleanup_plan(store))
    actions = {o.action for o in plan.selected_operations() if old.id in o.ids}
    assert actions == {"merge", "archive"}  # the dry run shows both for the same record
    result = apply_plan(store, plan, yes=True)
    assert result.skipped == []
    assert len(result.applied) == len(plan.selected_operations())
    assert store.get(lone.id).layer == "archive"
    assert store.get(old.id).layer == "archive" and store.get(twin.id).superseded_by is not None
    # the same dry run again finds nothing left that the first apply should have done
    again = build_cleanup_plan(store)
    assert [o.key for o in again.selected_operations() if o.action != "archive"] == []
    # and the whole apply is one undo step
    store.undo()
    assert store.get(old.id).layer == "working" and store.get(twin.id).superseded_by is None


def test_the_batched_apply_writes_one_event_per_change_in_order(store, clock):
    ids = [store.add("note", t).id for t in ("I paint clay pots.", "placeholder", "I order sourdough.")]
    store.edit(ids[1], "i paint CLAY pots!")
    clock.advance(400 * 86400)
    plan = select_archives(build_cleanup_plan(store))
    result = apply_plan(store, plan, yes=True)
    with store.bound():
        events = list(Event.select().where(Event.batch == result.batch).order_by(Event.id))
        assert {e.memory_id for e in events} >= set(ids)
        for e in events:  # every event's after-snapshot is what the row holds now
            if e.after is not None and e.memory_id is not None:
                row = Memory.get_by_id(e.memory_id)
                last = [x for x in events if x.memory_id == e.memory_id][-1]
                if last.id == e.id:
                    assert json.loads(e.after)["layer"] == row.layer
                    assert json.loads(e.after)["superseded_by"] == row.superseded_by


def test_undoing_an_import_removes_its_messages_too(run, store, tmp_path):
    store.log_message("user", "a message from before the import")
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"format": "bestie-memory-export", "version": 1,
                                "memories": [{"text": "I walk the dog at seven", "status": "approved"}],
                                "messages": [{"role": "user", "text": f"imported line {i}",
                                              "created_at": f"2026-01-01T10:00:{i:02d}"} for i in range(40)]}))
    assert run("memory", "import", str(path)).exit_code == 0
    assert store.message_count() == 41
    result = run("memory", "undo")
    assert result.exit_code == 0 and "removed 40 imported message(s)" in result.output
    assert [m.text for m in store.messages()] == ["a message from before the import"]
    assert store.count() == 0


def test_clear_writes_its_backup_under_a_temporary_name_then_renames(store, monkeypatch):
    store.add("note", "I collect old maps.")
    seen = []
    original = store.db.execute_sql

    def spy(sql, params=None, *args, **kwargs):
        if sql.startswith("VACUUM INTO"):
            seen.append(params[0])
        return original(sql, params, *args, **kwargs)

    monkeypatch.setattr(store.db, "execute_sql", spy)
    backup = store_backup.clear(store)
    [written] = seen
    assert ".partial" in Path(written).name and written != str(backup)
    assert backup.exists() and sqlite3.connect(backup).execute("select count(*) from memory").fetchone() == (1,)
    assert not any(".partial" in p.name for p in backup.parent.iterdir())


def test_a_killed_backup_leaves_no_file_named_like_a_backup(store, monkeypatch):
    store.add("note", "I collect old maps.")
    original = store.db.execute_sql

    def dies(sql, params=None, *args, **kwargs):
        if sql.startswith("VACUUM INTO"):
            with open(params[0], "wb"):  # the copy had begun when it was stopped
                pass
            raise KeyboardInterrupt
        return original(sql, params, *args, **kwargs)

    monkeypatch.setattr(store.db, "execute_sql", dies)
    try:
        store_backup.clear(store)
    except KeyboardInterrupt:
        pass
    from bestie_tui.paths import backup_dir

    folder = backup_dir(store.path)
    assert not folder.exists() or [p.name for p in folder.iterdir()] == []
    assert store.count() == 1


def test_a_proposal_waits_out_a_write_longer_than_the_busy_timeout(db_path, clock, monkeypatch):
    from bestie_tui.store import db as dbmod
    from bestie_tui.store.memory_store import MemoryStore

    monkeypatch.setitem(dbmod.PRAGMAS, "busy_timeout", 50)
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", 50)
    store = MemoryStore(db_path, clock=clock)
    store.add("note", "I like jazz records.")
    held = threading.Event()

    def maintenance():
        other = sqlite3.connect(db_path, timeout=5)
        other.execute("BEGIN IMMEDIATE")
        other.execute("UPDATE memory SET confidence = confidence")
        held.set()
        time.sleep(1.0)  # twenty busy timeouts
        other.commit()
        other.close()

    thread = threading.Thread(target=maintenance)
    thread.start()
    held.wait(5)
    result = store.propose("I ride a red bike to work", "fact")
    thread.join()
    assert store.get(result.memory.id).text == "I ride a red bike to work"
    store.close()


def test_a_proposal_gives_up_with_the_busy_message_after_its_wait(db_path, clock, monkeypatch):
    import pytest

    from bestie_tui.errors import DatabaseBusyError
    from bestie_tui.store import busy
    from bestie_tui.store import db as dbmod
    from bestie_tui.store.memory_store import MemoryStore

    monkeypatch.setitem(dbmod.PRAGMAS, "busy_timeout", 20)
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", 20)
    monkeypatch.setattr(busy, "WAIT_S", 0.3)
    store = MemoryStore(db_path, clock=clock)
    store.add("note", "I like jazz records.")
    other = sqlite3.connect(db_path)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(DatabaseBusyError, match="nothing was changed"):
            store.propose("I ride a red bike to work", "fact")
    finally:
        other.rollback()
        other.close()
    assert store.count() == 1
    store.close()


KILLED_APPLY = r"""
import os, signal, sys
from bestie_tui.hygiene import plan_apply
from bestie_tui.hygiene.plan_build import build_cleanup_plan
from bestie_tui.store.memory_store import MemoryStore

flush = plan_apply._Writes.flush

def flush_then_die(self):
    flush(self)  # every update, delete and event written, the transaction not yet committed
    os.kill(os.getpid(), signal.SIGKILL)

plan_apply._Writes.flush = flush_then_die
store = MemoryStore(sys.argv[1])
plan = build_cleanup_plan(store)
plan_apply.apply_plan(store, plan, yes=True, selected=[o.key for o in plan.operations])
"""


def test_a_kill_9_after_the_batched_writes_but_before_commit_changes_nothing(db_path, clock, tmp_path):
    import hashlib
    import subprocess
    import sys

    from bestie_tui.store.memory_store import MemoryStore

    store = MemoryStore(db_path, clock=clock)
    for i in range(6):
        twin = store.add("note", f"placeholder {i}")
        store.add("note", f"My neighbour paints clay pots number {i}.")
        store.edit(twin.id, f"my neighbour PAINTS clay pots, number {i}!")
    planned = [o.key for o in build_cleanup_plan(store).operations]  # the child accepts every one
    assert planned
    store.close()

    def owned():
        conn = sqlite3.connect(db_path)
        try:
            rows = [conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in ("memory", "event")]
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            return hashlib.sha256(repr(rows).encode()).hexdigest()
        finally:
            conn.close()

    before = owned()
    script = tmp_path / "killed.py"
    script.write_text(KILLED_APPLY)
    done = subprocess.run([sys.executable, str(script), str(db_path)], capture_output=True, timeout=120)
    assert done.returncode == -9, done.stderr
    assert owned() == before
    store = MemoryStore(db_path, clock=clock)
    assert [o.key for o in build_cleanup_plan(store).operations] == planned  # all still to apply
    store.close()
