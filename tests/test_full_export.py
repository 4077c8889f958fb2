"""``export --full`` carries the event log and the settings; importing it into a new database
restores undo history and policies; the shipped JSON Schema checks every import."""

from __future__ import annotations

import json

import jsonschema
import pytest

from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.transfer.full_export import SCHEMA_PATH, schema

pytestmark = pytest.mark.both_engines


def test_a_full_export_moves_undo_history_and_policies_to_a_new_database(run, db_path, tmp_path):
    store = MemoryStore(db_path)
    kept = store.add("preference", "Prefers tea over coffee.", user="lan")
    edited = store.add("fact", "Lives in Hue.", user="lan")
    store.edit(edited.id, "Lives in Hue, near the citadel.")
    store.set_setting("memory.writePolicy", "allow")
    store.set_setting("memory.governance", "full")
    store.close()
    out = tmp_path / "full.json"
    assert run("memory", "export", "--full", "--output", str(out)).exit_code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(data, json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    assert data["settings"]["memory.writePolicy"] == "allow"
    assert [e["action"] for e in data["events"]] == ["add", "add", "edit", "setting", "setting"]

    new_db = tmp_path / "new.db"
    result = run("--db", str(new_db), "memory", "import", str(out), "--json")
    assert result.exit_code == 0, result.output
    counts = json.loads(result.output)
    assert (counts["memories_added"], counts["events_restored"]) == (2, 5)
    assert sorted(counts["settings_restored"]) == ["memory.governance", "memory.writePolicy"]
    store = MemoryStore(new_db)
    assert (store.write_policy, store.get_setting("memory.governance")) == ("allow", "full")
    assert store.get(edited.id).text == "Lives in Hue, near the citadel."
    store.close()
    # undo walks back the old machine's history, newest first: the settings, then the edit
    for _ in range(2):
        assert run("--db", str(new_db), "memory", "undo").exit_code == 0
    store = MemoryStore(new_db)
    assert (store.write_policy, store.get_setting("memory.governance")) == ("ask", "governed")
    store.close()
    undone = run("--db", str(new_db), "memory", "undo")
    assert undone.exit_code == 0, undone.output
    store = MemoryStore(new_db)
    assert store.get(edited.id).text == "Lives in Hue."
    assert store.get(kept.id).text == "Prefers tea over coffee."
    store.close()

def test_a_full_import_into_a_database_with_history_keeps_that_history(run, db_path, tmp_path):
    store = MemoryStore(db_path)
    store.add("fact", "Has a cat named Mit.", user="lan")
    store.close()
    out = tmp_path / "full.json"
    assert run("memory", "export", "--full", "--output", str(out)).exit_code == 0
    other = tmp_path / "other.db"
    mine = MemoryStore(other)
    mine.add("fact", "Plays badminton on Sundays.", user="lan")
    mine.close()
    result = run("--db", str(other), "memory", "import", str(out), "--json")
    counts = json.loads(result.output)
    assert (counts["memories_added"], counts["events_restored"], counts["events_kept_local"]) == (1, 0, 1)


def test_the_schema_refuses_a_broken_event_log_with_one_line_and_writes_nothing(run, db_path, tmp_path):
    bad = {"format": "bestie-memory-export", "version": 2, "memories": [], "messages": [],
           "events": [{"id": 1, "batch": "b1", "action": "add", "actor": "owner", "at": "2026-01-01T00:00:00",
                       "surprise": True}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    result = run("memory", "import", str(path))
    assert result.exit_code == 1
    assert len(result.output.strip().splitlines()) == 1
    assert "events[0]" in result.output and "surprise" in result.output
    store = MemoryStore(db_path)
    assert store.history() == []
    store.close()


def test_full_cannot_be_limited_to_one_user(run):
    result = run("memory", "export", "--full", "--user", "lan")
    assert result.exit_code == 2
    assert "--full exports the whole database" in result.output
    assert schema()["properties"]["format"]["const"] == "bestie-memory-export"
