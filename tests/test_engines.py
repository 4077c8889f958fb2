"""PostgreSQL beside SQLite: the schema check (a foreign or newer schema refused untouched), a
database moved between the engines by a full export keeping its undo history, the CLI and the
console's change notices on a server, and the engine-neutral SQL helpers."""

from __future__ import annotations

import json

import pytest

from bestie_tui.errors import SchemaError, StorageError
from bestie_tui.store.db import SCHEMA_VERSION, change_mark, display_location, schema_version
from bestie_tui.store.memory_store import MemoryStore
from tests.conftest import pg_schema, raw_connect

pytestmark = pytest.mark.both_engines


def test_a_new_database_carries_the_schema_version(store):
    assert schema_version(store.db) == SCHEMA_VERSION


def test_a_newer_schema_is_refused_untouched(db_path, engine):
    MemoryStore(db_path).close()
    conn = raw_connect(db_path)
    if engine == "postgres":
        conn.execute("UPDATE bestie_schema SET version = ?", (SCHEMA_VERSION + 1,))
    else:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaError, match="newer bestie"):
        MemoryStore(db_path)
    conn = raw_connect(db_path)
    assert conn.execute("SELECT COUNT(*) FROM memory").fetchone() == (0,)
    conn.close()


def test_someone_elses_tables_are_refused_untouched(db_path, engine):
    conn = raw_connect(db_path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaError, match="not a bestie memory database"):
        MemoryStore(db_path)
    conn = raw_connect(db_path)
    tables = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'" if engine == "sqlite" else
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()").fetchall()
    conn.close()
    assert tables == [("invoices",)]


def test_the_console_notices_another_writer(store, db_path):
    before = change_mark(store.db)
    other = MemoryStore(db_path)
    other.propose("Owner likes durian", "preference")
    other.close()
    assert change_mark(store.db) != before


def test_every_cli_command_family_runs_on_the_engine(run, db_path):
    assert run("memory", "add", "preference", "Prefers tea over coffee", "--user", "lan").exit_code == 0
    assert run("memory", "propose", "fact", "Lives in Hue", "--user", "lan").exit_code == 0
    listed = json.loads(run("memory", "list", "--json").output)
    assert sorted((m["text"], m["status"]) for m in listed) == [("Lives in Hue", "pending"), ("Prefers tea over coffee", "approved")]
    assert "Prefers tea" in run("memory", "search", "tea").output
    recalled = json.loads(run("memory", "recall", "which tea or coffee", "--user", "lan", "--json").output)
    assert "Prefers tea over coffee" in recalled["block"]
    assert run("memory", "analyze").exit_code == 0
    assert run("memory", "cleanup", "--dry-run").exit_code == 0
    assert run("memory", "undo").exit_code == 0
    status = run("memory", "status")
    assert status.exit_code == 0 and "ask" in status.output


def test_a_database_moves_between_engines_with_its_undo_history(store, run, tmp_path, engine):
    store.add("preference", "Prefers tea over coffee.", user="lan")
    edited = store.add("fact", "Lives in Hue.", user="lan")
    store.edit(edited.id, "Lives in Hue, near the citadel.")
    out = tmp_path / "full.json"
    assert run("memory", "export", "--full", "--output", str(out)).exit_code == 0
    with pg_schema() if engine == "sqlite" else _sqlite_file(tmp_path) as other:
        result = run("--db", str(other), "memory", "import", str(out), "--json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["events_restored"] == 3
        moved = MemoryStore(other)
        assert moved.get(edited.id).text == "Lives in Hue, near the citadel."
        added = moved.add("note", "Written after the move")  # ids from the engine, past the imported ones
        assert added.id > edited.id
        moved.undo()  # the new note
        moved.undo()  # the old machine's edit (its history comes first, the import itself last)
        assert moved.get(edited.id).text == "Lives in Hue."
        moved.close()


class _sqlite_file:
    def __init__(self, tmp_path):
        self.path = tmp_path / "moved.db"

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        return False


def test_a_password_is_never_shown():
    assert display_location("postgresql://ana:s3cret@db.example/bestie") == "postgresql://ana:***@db.example/bestie"
    assert display_location("/home/ana/memory.db") == "/home/ana/memory.db"


def test_an_unreachable_server_is_one_clear_line(engine):
    if engine == "sqlite":
        pytest.skip("about a server")
    with pytest.raises(StorageError, match=r"cannot open postgresql://nobody:\*\*\*@127.0.0.1:1/x"):
        MemoryStore("postgresql://nobody:pw@127.0.0.1:1/x?connect_timeout=2")
