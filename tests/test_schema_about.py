"""Schema 3 (``memory.about``, and 4, the search index): an older file is upgraded in place and loses nothing; the binding
travels in records, events, exports and imports; an export from before it is still read."""

from __future__ import annotations

import json
import sqlite3

import pytest

from bestie_tui.store.db import SCHEMA_VERSION
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.transfer.exchange import VERSION, export_data, import_data


def _make_old(path, clock, version: int) -> int:
    """A file as schema ``version`` wrote it: today's tables without the search index (schema 4),
    without ``memory.about`` (schema 3) and, for schema 1, without ``event.origin`` (schema 2); one
    memory and its event."""
    s = MemoryStore(path, clock=clock)
    m = s.add("preference", "Prefers tea", user="an")
    s.close()
    conn = sqlite3.connect(path)
    for table in ("ix_meta", "ix_term", "ix_posting", "ix_block", "ix_doc"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("ALTER TABLE memory DROP COLUMN about")
    if version < 2:
        conn.execute("DROP INDEX event_origin")
        conn.execute("ALTER TABLE event DROP COLUMN origin")
    for (event_id, before, after) in conn.execute("SELECT id, before, after FROM event").fetchall():
        snaps = [json.loads(x) if x else None for x in (before, after)]
        for snap in snaps:
            if snap:
                snap.pop("about", None)
        conn.execute("UPDATE event SET before = ?, after = ? WHERE id = ?",
                     tuple(json.dumps(x) if x else None for x in snaps) + (event_id,))
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    return m.id


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_file_is_upgraded_in_place(tmp_path, clock, version):
    path = tmp_path / "old.db"
    mid = _make_old(path, clock, version)
    assert SCHEMA_VERSION == 5  # 4: the search index, 5: the meaning vectors
    s = MemoryStore(path, clock=clock)
    assert s.db.execute_sql("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    m = s.get(mid)
    assert (m.text, m.user, m.about) == ("Prefers tea", "an", None)
    assert "about" in [c.name for c in s.db.get_columns("memory")]
    # the old event still undoes
    s.edit(mid, "Prefers green tea")
    s.undo()
    assert s.get(mid).text == "Prefers tea"
    assert s.add("note", "My brother Nam lives in Huế", user="an").about == "Nam"
    s.close()
    again = MemoryStore(path, clock=clock)  # a second open finds nothing to do
    assert again.get(mid).text == "Prefers tea"
    again.close()


def test_about_travels_in_events_and_exports(store, tmp_path, clock):
    m = store.add("note", "My brother Nam lives in Huế", user="an")
    [event] = store.history(m.id)
    assert event.after["about"] == "Nam"
    data = export_data(store)
    assert data["version"] == VERSION == 2
    assert data["memories"][0]["about"] == "Nam"
    other = MemoryStore(tmp_path / "other.db", clock=clock)
    import_data(other, data)
    assert other.get(m.id).about == "Nam"
    other.close()


def test_a_version_1_export_is_still_read(store):
    data = {"format": "bestie-memory-export", "version": 1,
            "memories": [{"id": 7, "text": "Prefers tea", "status": "approved", "user": "an"},
                         {"text": "My sister hates mushrooms", "status": "approved", "user": "an"}],
            "messages": []}
    result = import_data(store, data)
    assert result.memories_added == 2
    assert store.get(7).about is None
    assert [m.about for m in store.list() if m.id != 7] == ["my sister"]  # the gate reads who it is about
