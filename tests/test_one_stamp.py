"""A request asks PostgreSQL for its change mark once (``store.db.one_stamp``), yet a memory another
process writes between two requests is in the second one's pack, on both engines."""

from __future__ import annotations

import pytest

from bestie_tui.retrieval.assembly import build_context
from bestie_tui.store.memory_store import MemoryStore

pytestmark = pytest.mark.both_engines


def _ids(store: MemoryStore, query: str) -> list[int]:
    pack = build_context(store, query, "minh", record_access=False)
    return [item.record.id for item in pack.core + pack.working]


def test_a_write_by_another_store_between_two_requests_is_in_the_next_pack(db_path, clock):
    reader = MemoryStore(db_path, clock=clock)
    writer = MemoryStore(db_path, clock=clock)
    try:
        first = writer.add("preference", "Drinks oolong tea after lunch", user="minh")
        assert _ids(reader, "what tea does minh drink after meals") == [first.id]
        writer.set_setting("score.minRelevance", 0.05)
        second = writer.add("preference", "Drinks jasmine tea after dinner", user="minh")
        assert sorted(_ids(reader, "what tea does minh drink after meals")) == sorted([first.id, second.id])
        writer.forget(first.id)
        assert _ids(reader, "what tea does minh drink after meals") == [second.id]
    finally:
        reader.close()
        writer.close()
