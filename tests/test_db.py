"""Opening files: WAL, schema version, refusing newer or foreign files untouched."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from bestie_tui.errors import SchemaError
from bestie_tui.store.db import APPLICATION_ID, SCHEMA_VERSION
from bestie_tui.store.memory_store import MemoryStore


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_new_database_is_wal_with_version(db_path):
    s = MemoryStore(db_path)
    assert s.db.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert s.db.execute_sql("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert s.db.execute_sql("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert s.db.execute_sql("PRAGMA busy_timeout").fetchone()[0] >= 1000
    s.close()


def test_newer_schema_is_refused_untouched(tmp_path):
    path = tmp_path / "newer.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.execute("CREATE TABLE memory (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(SchemaError, match="newer bestie"):
        MemoryStore(path)
    assert digest(path) == before


def test_foreign_sqlite_file_is_refused_untouched(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(SchemaError, match="not a bestie memory database"):
        MemoryStore(path)
    assert digest(path) == before


def test_non_sqlite_file_is_refused_untouched(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("just some notes, not a database\n" * 20)
    before = digest(path)
    with pytest.raises(SchemaError, match="not a SQLite database"):
        MemoryStore(path)
    assert digest(path) == before


def test_reopening_keeps_data(db_path):
    s = MemoryStore(db_path)
    s.add("note", "Remember me")
    s.close()
    again = MemoryStore(db_path)
    assert [m.text for m in again.list()] == ["Remember me"]
    again.close()


def test_default_path_from_env(tmp_path, monkeypatch):
    from bestie_tui.paths import default_db_path

    assert default_db_path() == tmp_path / "data" / "memory.db"
    monkeypatch.setenv("BESTIE_DB", str(tmp_path / "x.db"))
    assert default_db_path() == tmp_path / "x.db"
