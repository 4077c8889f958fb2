"""Bad input found by trying to break the tool: each case keeps the data intact and says why."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli
from bestie_tui.errors import (
    ImportFormatError,
    InvalidValueError,
    NotFoundError,
    SchemaError,
    StorageError,
)
from bestie_tui.store.db import APPLICATION_ID
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.transfer import backup as store_backup
from bestie_tui.transfer import exchange as transfer


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("content", [b"\n", b"x", b"just text, definitely not SQLite"])
def test_tiny_or_text_files_are_not_taken_over(tmp_path, content):
    path = tmp_path / "notes.db"
    path.write_bytes(content)
    with pytest.raises(SchemaError, match="not a SQLite database"):
        MemoryStore(path)
    assert path.read_bytes() == content


def sqlite_file(path, *statements):
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


@pytest.mark.parametrize("statements, message", [
    (["PRAGMA user_version = 5"], "not a bestie memory database"),
    ([f"PRAGMA application_id = {APPLICATION_ID}", "PRAGMA user_version = -1"], "invalid bestie schema"),
    (["CREATE VIEW v AS SELECT 1"], "not a bestie memory database"),
])
def test_foreign_or_odd_sqlite_files_are_refused_untouched(tmp_path, statements, message):
    path = tmp_path / "odd.db"
    sqlite_file(path, *statements)
    before = digest(path)
    with pytest.raises(SchemaError, match=message):
        MemoryStore(path)
    assert digest(path) == before


def test_refusing_a_wal_database_leaves_no_files_beside_it(tmp_path):
    path = tmp_path / "foreign_wal.db"
    sqlite_file(path, "PRAGMA journal_mode = wal", "CREATE TABLE t (x)")
    leftovers = {p.name for p in tmp_path.iterdir()}
    with pytest.raises(SchemaError):
        MemoryStore(path)
    assert {p.name for p in tmp_path.iterdir()} == leftovers


def test_a_typed_db_path_in_a_missing_directory_is_an_error(tmp_path):
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "nope" / "m.db"), "memory", "status"])
    assert result.exit_code == 1 and "does not exist" in result.output
    assert not (tmp_path / "nope").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only files")
def test_read_only_database_gives_a_clear_error(db_path):
    s = MemoryStore(db_path)
    s.add("note", "Keep me")
    s.close()
    os.chmod(db_path, 0o444)
    try:
        s = MemoryStore(db_path)
        with pytest.raises(StorageError, match="read-only"):
            s.add("note", "Another")
        s.close()
    finally:
        os.chmod(db_path, 0o644)


def test_supersede_refuses_longer_cycles_and_pending_records(store):
    a, b, c = (store.add("note", t).id for t in ("Fact A", "Fact B", "Fact C"))
    store.supersede(a, b)
    store.supersede(b, c)
    with pytest.raises(InvalidValueError, match="cycle"):
        store.supersede(c, a)
    p = store.propose("A proposal", "note").memory
    with pytest.raises(InvalidValueError, match="pending"):
        store.supersede(p.id, c)
    assert store.get(c).superseded_by is None and store.get(p.id).status == "pending"


def test_a_change_that_changes_nothing_records_nothing(store):
    m = store.add("note", "Pinned fact", pinned=True)
    events = len(store.history(m.id))
    store.pin(m.id)
    store.move(m.id, "project")
    assert len(store.history(m.id)) == events


def test_huge_ids_are_simply_unknown(store):
    with pytest.raises(NotFoundError):
        store.get(2**70)
    result = CliRunner().invoke(cli, ["--db", str(store.path), "memory", "inspect", str(2**64)])
    assert result.exit_code == 2 and "larger than any memory id" in result.output


@pytest.mark.parametrize("kind", ["", "semi;colon", "\x1b[31mred", "x" * 80, "{'x': 1}"])
def test_kind_must_be_an_identifier(store, kind):
    with pytest.raises(InvalidValueError, match="kind"):
        store.add(kind, "Some fact")


@pytest.mark.parametrize("ttl", ["99999y", "9999999999999999999d"])
def test_ttl_too_far_away(store, ttl):
    with pytest.raises(InvalidValueError, match="too far"):
        store.add("note", "A fact", ttl=ttl)


def test_undo_after_clear_points_at_the_backup(store):
    store.add("note", "Before the clear")
    backup = store_backup.clear(store)
    with pytest.raises(NotFoundError, match="clear") as info:
        store.undo()
    assert str(backup) in str(info.value)


BASE = {"format": "bestie-memory-export", "version": 1}


@pytest.mark.parametrize("memories, message", [
    (5, "must be a list"),
    ([{"text": "a b", "access_count": "abc"}], "access_count"),
    ([{"text": "a b", "id": 10**23}], "whole number from 1 to"),
    ([{"text": "a b", "id": True}], "whole number from 1 to"),
    ([{"text": "a b", "pinned": "false"}], "true or false"),
    ([{"text": "a b", "superseded_by": "abc"}], "superseded_by"),
    ([{"text": "a b", "user": {"x": 1}}], "user must be text"),
    ([{"text": "a b", "kind": ["a", "b"]}], "kind"),
    ([{"text": "a b", "id": 3}, {"text": "c d", "id": 3}], "appears twice"),
])
def test_wrongly_typed_import_fields_are_refused(store, memories, message):
    with pytest.raises(ImportFormatError, match=message):
        transfer.import_data(store, {**BASE, "memories": memories})
    assert store.count() == 0


def test_version_must_be_a_real_number(store):
    for version in (True, -3, "1"):
        with pytest.raises(ImportFormatError, match="export version"):
            transfer.import_data(store, {**BASE, "version": version})


def test_deeply_nested_file(store, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ImportFormatError, match="nests too deeply"):
        transfer.load_import_file(path)


def test_import_refuses_secrets_unless_asked(store, db_path):
    data = {**BASE, "memories": [
        {"text": "my password is hunter2xyz", "status": "pending"},
        {"text": "card 4111 1111 1111 1111", "status": "approved"},
        {"text": "Likes green tea", "status": "approved"},
    ]}
    result = transfer.import_data(store, data)
    assert (result.memories_added, result.secrets_refused) == (1, 2)
    assert [m.text for m in store.list()] == ["Likes green tea"]
    store.close()
    raw = b"".join(p.read_bytes() for p in db_path.parent.glob("memory.db*"))
    assert b"hunter2xyz" not in raw and b"4111 1111" not in raw


def test_multi_id_approve_changes_nothing_when_one_id_is_bad(store):
    a = store.propose("First", "note").memory.id
    b = store.propose("Second", "note").memory.id
    result = CliRunner().invoke(cli, ["--db", str(store.path), "memory", "approve", str(a), "999", str(b)])
    assert result.exit_code == 1 and "no memory with id 999" in result.output
    assert store.get(a).status == "pending" and store.get(b).status == "pending"
    again = CliRunner().invoke(cli, ["--db", str(store.path), "memory", "reject", str(a), str(a)])
    assert again.exit_code == 0 and store.get(a).status == "rejected"


@pytest.mark.parametrize("key, value", [
    ("memory.paused", "1"), ("memory.coreTokenCap", "1.5"), ("memory.coreTokenCap", "1e309"),
    ("memory.coreTokenCap", "99999999999999999999999"), ("", ""),
])
def test_config_refuses_odd_values(db_path, key, value):
    result = CliRunner().invoke(cli, ["--db", str(db_path), "memory", "config", key, value])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output


def test_bidi_controls_are_shown_escaped(store):
    store.add("note", "invoice \u202egnp.exe")
    out = CliRunner().invoke(cli, ["--db", str(store.path), "memory", "list"]).output
    assert "\u202e" not in out and "\\u202e" in out


def test_export_to_a_missing_directory(db_path, tmp_path):
    result = CliRunner().invoke(cli, ["--db", str(db_path), "memory", "export", "--output",
                                      str(tmp_path / "missing" / "x.json")])
    assert result.exit_code == 1 and "cannot write" in result.output


def test_a_write_lock_held_elsewhere_gives_a_clear_busy_error(store, db_path):
    store.add("note", "Already here")
    store.db.execute_sql("PRAGMA busy_timeout = 100")  # fail fast instead of waiting 5 s
    other = sqlite3.connect(db_path)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StorageError, match="busy"):
            store.add("note", "Blocked write")
    finally:
        other.rollback()
        other.close()
    assert [m.text for m in store.list()] == ["Already here"]


def test_config_lists_every_setting_with_its_default_and_checks_each(db_path):
    runner = CliRunner()
    listed = json.loads(runner.invoke(cli, ["--db", str(db_path), "memory", "config", "--json"]).output)
    assert listed["score.relevance"] == 0.8 and listed["context.keepRecent"] == 10
    assert listed["memory.writePolicy"] == "ask"
    for key, value in (("score.relevance", "abc"), ("score.recency", "1e309"), ("context.keepRecent", "ten"),
                       ("context.tokenMode", "words"),
                       ("digest.log", "[]"), ("score.nonsense", "1")):
        result = runner.invoke(cli, ["--db", str(db_path), "memory", "config", key, value])
        assert result.exit_code == 1, (key, result.output)
    ok = runner.invoke(cli, ["--db", str(db_path), "memory", "config", "score.halfLifeDays", "30"])
    assert ok.exit_code == 0 and "score.halfLifeDays = 30" in ok.output


def test_a_malformed_api_url_setting_is_refused_when_set(run):
    refused = run("memory", "config", "digest.telegramApi", "ht!tp://x")
    assert refused.exit_code == 1 and "not a usable API base URL" in refused.output
    ok = run("memory", "config", "digest.telegramApi", "http://127.0.0.1:9/")
    assert ok.exit_code == 0 and '"http://127.0.0.1:9"' in ok.output


def test_arguments_that_are_not_utf8_give_one_line(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    exe = str(Path(sys.executable).with_name("bestie"))
    db = str(tmp_path / "u.db")
    for args in (["memory", "add", "preference", b"bad \xff bytes"], ["memory", "add", "note", "ok", "--user", b"li\xffnh"],
                 ["memory", "propose", "note", b"also \xff bad"]):
        out = subprocess.run([exe, "--db", db, *args], capture_output=True, timeout=60)
        assert out.returncode == 1, out
        assert b"Traceback" not in out.stderr and b"not valid UTF-8" in out.stderr


def test_import_with_a_lone_surrogate_is_refused(store):
    data = {**BASE, "memories": [{"text": "bad \ud800 text"}]}
    with pytest.raises(ImportFormatError, match="UTF-8"):
        transfer.import_data(store, data)
