"""A mistyped user no longer looks like an empty memory (issue 30, MystenLabs/MemWal #416): a user the
database holds no memory and no message of gets one line on stderr (exit code 0, it is no failure),
a known user with nothing that matches gets none; ``bestie memory users`` lists the users."""

from __future__ import annotations

import json

import pytest

from bestie_tui.agent.turns import UNKNOWN_USER_NOTE, recall
from bestie_tui.store.memory_store import MemoryStore

pytestmark = pytest.mark.both_engines

NOTE = "note: no memories or messages for user 'alcie' yet (bestie memory users lists the users)"


@pytest.fixture
def alice(db_path, clock):
    store = MemoryStore(db_path, clock=clock)
    store.add("preference", "Alice prefers green tea in the morning", user="alice")
    store.propose("Alice is learning Portuguese", "fact", user="alice")
    store.log_message("user", "hello from alice", user="alice")
    store.log_message("user", "bob was here", user="bob")
    store.close()


@pytest.mark.parametrize("command", [
    ("memory", "recall", "what does she drink", "--user", "alcie"),
    ("memory", "recall", "what does she drink", "--user", "alcie", "--json"),
    ("memory", "context", "what does she drink", "--user", "alcie"),
    ("memory", "search", "tea", "--user", "alcie"),
    ("memory", "list", "--user", "alcie"),
    ("memory", "messages", "--user", "alcie"),
    ("memory", "messages", "search", "hello", "--user", "alcie"),
])
def test_a_mistyped_user_gets_one_line_on_stderr_and_exit_code_0(alice, run, command):
    result = run(*command)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [NOTE]


def test_recall_json_carries_the_note_and_a_known_user_without_a_match_gets_none(alice, run):
    out = json.loads(run("memory", "recall", "what does she drink", "--user", "alcie", "--json").stdout)
    assert (out["block"], out["note"]) == ("", UNKNOWN_USER_NOTE)
    known = run("memory", "recall", "quantum chromodynamics lecture", "--user", "bob", "--json")
    assert known.stderr == "" and "note" not in json.loads(known.stdout)
    assert run("memory", "search", "quantum", "--user", "alice").stderr == ""


def test_the_owners_unbound_memories_make_the_owner_known(db_path, run):
    store = MemoryStore(db_path)
    store.set_setting("owner.user", "ana")
    store.add("preference", "Prefers short answers")  # bound to no user: the owner's
    assert recall(store, "quantum chromodynamics", user="ana").note is None
    assert recall(store, "quantum chromodynamics", user="anna").note == UNKNOWN_USER_NOTE
    store.close()


def test_memory_users_lists_every_user_with_counts(alice, run, db_path):
    store = MemoryStore(db_path)
    store.add("note", "A note for everyone")
    store.close()
    text = run("memory", "users")
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert lines[0].split() == ["user", "memories", "approved", "pending", "messages", "last", "message"]
    assert [line.split()[:5] for line in lines[1:]] == [["-", "1", "1", "0", "0"], ["alice", "2", "1", "1", "1"],
                                                        ["bob", "0", "0", "0", "1"]]
    data = json.loads(run("memory", "users", "--json").stdout)
    assert [(u["user"], u["memories"], u["messages"]) for u in data] == [(None, 1, 0), ("alice", 2, 1), ("bob", 0, 1)]
    assert data[1]["last_message_at"] is not None and data[0]["last_message_at"] is None
    bound = json.loads(run("--user", "bob", "memory", "users", "--json").stdout)  # a bound store sees its own
    assert [u["user"] for u in bound] == ["bob"]
