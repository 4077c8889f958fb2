"""Per-user scope and erase: ``search``, ``messages`` and ``messages search`` take ``--user``; ``export
--user`` exports one user; ``erase --user`` removes a user's memories, messages and the text of their
history for good (after a backup, with a counted summary, never undoable); ``forget --purge`` does it
for one memory; the maintenance run purges the history text of hard-deleted records after
``memory.undoRetentionDays``."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from bestie_tui.errors import NotFoundError
from bestie_tui.retrieval.search import search
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.transfer.erase import erase_user, purge_history, purge_memory
from tests.conftest import stored_bytes

pytestmark = pytest.mark.both_engines

ALICE_SECRETISH = "Alice's private diary code name is Bluebird"


def on_disk(path) -> bytes:
    """Everything the database holds (``conftest.stored_bytes``)."""
    return stored_bytes(path)


@pytest.fixture
def two_users(store):
    store.add("preference", ALICE_SECRETISH, user="alice")
    store.add("preference", "Alice prefers tea in the morning", user="alice")
    store.add("preference", "Bob prefers tea with lemon", user="bob")
    edited = store.add("note", "Alice first draft of the plan", user="alice")
    store.edit(edited.id, "Alice final plan for the launch")
    store.log_message("user", "Alice says hello about Bluebird", user="alice")
    store.log_message("user", "Bob says hello", user="bob")
    return store


def test_search_and_messages_are_scoped_by_user(two_users, run):
    assert {m.user for m in search(two_users, "tea")} == {"alice", "bob"}
    assert [m.user for m in search(two_users, "tea", user="bob")] == ["bob"]
    out = run("memory", "search", "tea", "--user", "alice", "--json")
    assert [m["user"] for m in json.loads(out.output)] == ["alice"]
    msgs = json.loads(run("memory", "messages", "--user", "bob", "--json").output)
    assert [m["text"] for m in msgs] == ["Bob says hello"]
    found = json.loads(run("memory", "messages", "search", "hello", "--user", "alice", "--json").output)
    assert [m["text"] for m in found] == ["Alice says hello about Bluebird"]
    assert "no messages from user 'carol'" in run("memory", "messages", "--user", "carol").output


def test_export_user_exports_only_that_user(two_users, run):
    data = json.loads(run("memory", "export", "--user", "bob").output)
    assert [m["text"] for m in data["memories"]] == ["Bob prefers tea with lemon"]
    assert [m["text"] for m in data["messages"]] == ["Bob says hello"]


def test_erase_user_removes_memories_messages_and_history_text_for_good(two_users, db_path):
    before_events = two_users.status().events
    result = erase_user(two_users, "alice")
    assert (result.memories, result.messages) == (3, 1) and result.events_purged == 4  # 3 adds + 1 edit
    assert two_users.list(user="alice") == [] and two_users.messages(user="alice") == []
    assert [m.text for m in two_users.list()] == ["Bob prefers tea with lemon"]
    assert two_users.status().events == before_events + 1  # the log keeps its rows, without the text
    two_users.close()
    raw = on_disk(db_path)
    for gone in (b"Bluebird", b"first draft", b"final plan", b"morning"):
        assert gone not in raw, gone
    assert b"Bob prefers tea with lemon" in raw
    from pathlib import Path

    from bestie_tui.paths import backup_dir

    assert result.backup.startswith(str(backup_dir(db_path))) and b"Bluebird" in Path(result.backup).read_bytes()


def test_erase_is_not_undoable_and_undo_never_resurrects_erased_text(two_users):
    erase_user(two_users, "alice")
    # the erase itself is no undo step; the owner's newest change before it (Alice's edit) lost its text
    with pytest.raises(NotFoundError, match="purged"):
        two_users.undo()
    with pytest.raises(NotFoundError, match="purged"):
        two_users.undo(any_actor=True)
    assert two_users.list(user="alice") == [] and two_users.count() == 1


def test_cli_erase_asks_first_says_it_cannot_be_undone_and_counts(two_users, run, db_path):
    refused = run("memory", "erase", "--user", "alice", input="n\n")
    assert refused.exit_code == 1 and "cannot be undone" in refused.output and "3 memories and 1 messages" in refused.output
    assert len(MemoryStore(db_path).list(user="alice")) == 3
    done = run("memory", "erase", "--user", "alice", "--yes")
    assert done.exit_code == 0
    assert "erased user 'alice': 3 memories, 1 messages, history text of 4 events purged" in done.output
    assert "backup of the database before the erase:" in done.output
    assert run("memory", "erase", "--yes").exit_code == 2  # --user is required


def test_forget_purge_asks_then_deletes_one_memory_and_its_history_text(two_users, run, db_path):
    asked = run("memory", "forget", "4", "--purge", input="n\n")
    assert asked.exit_code == 1 and "cannot be undone" in asked.output
    done = run("memory", "forget", "4", "--purge", "--yes")
    assert done.exit_code == 0 and "purged #4 and the text of 2 history events (not undoable)" in done.output
    store = MemoryStore(db_path)
    with pytest.raises(NotFoundError):
        store.get(4)
    store.close()
    raw = on_disk(db_path)
    assert b"first draft" not in raw and b"final plan" not in raw
    assert run("memory", "forget", "1").exit_code == 0  # without --purge: a soft, undoable forget
    assert "undid forget" in run("memory", "undo").output


def test_history_text_of_hard_deleted_records_is_purged_after_the_retention_window(store, clock):
    kept = store.add("note", "Still here after a month")
    gone = store.add("note", "Deleted by an undo a while ago")
    store.undo()  # hard-deletes #2; its text stays in the log for undo
    assert purge_history(store) == 0  # inside the 30-day window
    clock.advance(timedelta(days=31).total_seconds())
    assert purge_history(store) == 2  # the add and its undo
    assert all("Deleted by an undo" not in json.dumps([e.before, e.after]) for e in store.history(gone.id))
    assert store.get(kept.id).text == "Still here after a month"
    store.set_setting("memory.undoRetentionDays", 0)
    purge_memory(store, kept.id)
    assert purge_history(store) == 0  # already purged


def test_the_maintenance_run_purges_old_history_text(store, run):
    from stub_http import StubServer

    store.add("note", "Removed long ago")
    store.undo()
    store.set_setting("memory.undoRetentionDays", 0)  # the CLI runs on the real clock: no window at all
    with StubServer() as stub:  # the scheduled run: digest to a channel (a Telegram stub on 127.0.0.1)
        sent = run("memory", "digest", "--channel", "telegram:1",
                   env={"BESTIE_TELEGRAM_TOKEN": "123:abc", "BESTIE_TELEGRAM_API": stub.url})
    assert sent.exit_code == 0, sent.output
    assert all("Removed long ago" not in json.dumps([e.before, e.after]) for e in store.history(1))
