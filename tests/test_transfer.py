"""Export/import round trip, idempotent import, malformed files, clear with a backup."""

from __future__ import annotations

import json

import pytest

from bestie_tui.errors import ImportFormatError
from bestie_tui.transfer import backup as store_backup
from bestie_tui.transfer import exchange as transfer

pytestmark = pytest.mark.both_engines


def seed(store):
    a = store.add("identity", "Lives in Hà Nội", user="linh", scope="core", ttl="2 weeks")
    b = store.add("note", "Uses Postgres 16", project="song-hong")
    store.pin(a.id)
    store.supersede(b.id, store.add("note", "Uses Postgres 17", project="song-hong").id)
    p = store.propose("Likes durian", "preference", user="linh").memory
    store.reject(p.id)
    store.log_message("user", "Chào Bestie", user="linh", channel="telegram:1")


def test_round_trip_export_clear_import(store, tmp_path):
    seed(store)
    before = [m.to_dict() for m in store.list()]
    messages_before = [m.text for m in store.messages()]
    data = transfer.export_data(store)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    backup = store_backup.clear(store)
    assert backup.exists() and store.count() == 0
    result = transfer.import_data(store, transfer.load_import_file(path))
    assert result.memories_added == len(before)
    assert [m.to_dict() for m in store.list()] == before
    assert [m.text for m in store.messages()] == messages_before
    again = transfer.import_data(store, transfer.load_import_file(path))
    assert (again.memories_added, again.messages_added) == (0, 0)
    assert store.count() == len(before)


def test_import_is_undoable_as_one_step(store):
    seed(store)
    data = transfer.export_data(store)
    store_backup.clear(store)
    transfer.import_data(store, data)
    store.undo()
    assert store.count() == 0


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ("[]", "not a bestie export"),
    ('{"format": "bestie-memory-export", "version": 99}', "export version"),
    ('{"format": "bestie-memory-export", "version": 1, "memories": [{"text": ""}]}', "has no text"),
    ('{"format": "bestie-memory-export", "version": 1, "memories": [{"text": "a b", "status": "maybe"}]}', "status"),
    ('{"format": "bestie-memory-export", "version": 1, "memories": [{"text": "a b", "created_at": "yesterday"}]}', "ISO"),
    ('{"format": "bestie-memory-export", "version": 1, "messages": [{"text": "hi", "role": "bot"}]}', "role"),
])
def test_malformed_import_is_refused_and_writes_nothing(store, tmp_path, content, message):
    store.add("note", "Already here")
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ImportFormatError, match=message):
        transfer.import_data(store, transfer.load_import_file(path))
    assert [m.text for m in store.list()] == ["Already here"]


def test_import_with_a_taken_id_gets_a_new_id(store):
    store.add("note", "First memory")
    data = {"format": "bestie-memory-export", "version": 1,
            "memories": [{"id": 1, "text": "A different memory", "status": "approved"}]}
    assert transfer.import_data(store, data).memories_added == 1
    assert sorted(m.text for m in store.list()) == ["A different memory", "First memory"]
