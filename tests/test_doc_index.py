"""The persisted index: what the database holds after writes, that it equals a full rebuild, that a
new process loads it instead of refitting, that a missing, stale or older-format index is rebuilt,
that relevance follows the BM25 formulas (scikit-learn's CountVectorizer as the counting oracle),
and that a huge memory id costs nothing."""

from __future__ import annotations

import math
import subprocess
import sys
from collections import Counter

import pytest

from bestie_tui.retrieval.bm25 import CHAR_B, CHAR_K1, K1, TOPIC_SHARE, WORD_SHARE, B
from bestie_tui.retrieval.index import MemoryIndex, get_index
from bestie_tui.store import doc_index
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.text.analysis import char_ngrams, features, query_features
from bestie_tui.text.topics import member_features
from bestie_tui.transfer import backup as store_backup
from tests.conftest import make_read_only, raw_connect

pytestmark = pytest.mark.both_engines

TEXTS = [
    "Linh prefers short replies in Vietnamese",
    "Linh is not a vegan but avoids red meat",
    "The bestie project ships a terminal console",
    "Morning run at six along the West Lake in Hà Nội",
    "Linh drinks egg coffee on weekends",
]


def index_rows(db_path) -> dict[str, list[tuple]]:
    """Every index table as sorted rows, term ids replaced by the terms (ids differ between builds)."""
    conn = raw_connect(db_path)
    try:
        terms = {tid: (part, term) for tid, part, term in conn.execute("SELECT id, part, term FROM ix_term")}
        return {
            "terms": sorted(conn.execute("SELECT part, term, df FROM ix_term")),
            "postings": sorted((terms[t], b, d) for t, b, d in conn.execute("SELECT term_id, block, data FROM ix_posting")),
            "blocks": sorted(conn.execute("SELECT block, data FROM ix_block")),
            "docs": sorted(conn.execute("SELECT doc_id, text FROM ix_doc")),
            "meta": sorted(conn.execute("SELECT docs, word_total, char_total FROM ix_meta")),
        }
    finally:
        conn.close()


def test_each_write_updates_the_stored_index_in_its_own_transaction(store, db_path):
    ids = [store.add("note", t, user="linh").id for t in TEXTS]
    conn = raw_connect(db_path)
    docs, mark = conn.execute("SELECT docs, event_high FROM ix_meta WHERE collection = 'memory'").fetchone()
    assert docs == len(TEXTS)
    assert mark == conn.execute("SELECT MAX(id) FROM event").fetchone()[0]  # nothing left to catch up
    assert conn.execute("SELECT df FROM ix_term WHERE part = 0 AND term = 'linh'").fetchone() == (3,)
    store.forget(ids[0])
    assert conn.execute("SELECT df FROM ix_term WHERE part = 0 AND term = 'linh'").fetchone() == (2,)
    assert conn.execute("SELECT COUNT(*) FROM ix_doc WHERE doc_id = ?", (ids[0],)).fetchone() == (0,)
    conn.close()


def test_incremental_upkeep_equals_a_full_rebuild(store, db_path):
    ids = [store.add("note", t, user="linh").id for t in TEXTS]
    store.edit(ids[1], "Linh is vegan now and avoids every meat")
    store.forget(ids[2])
    store.undo()  # the forget comes back
    store.forget(ids[3])
    pending = store.propose("Linh collects vinyl records", user="linh").memory
    store.approve(pending.id)
    store.edit(ids[4], "Linh drinks egg coffee on weekends")  # same text: nothing to change
    store.undo()  # undo the edit+approve chain's last step
    incremental = index_rows(db_path)
    doc_index.reindex(store.db)
    assert index_rows(db_path) == incremental


def test_a_new_process_loads_the_index_instead_of_refitting(store, db_path):
    for t in TEXTS:
        store.add("note", t, user="linh")
    built = raw_connect(db_path).execute("SELECT built_at FROM ix_meta").fetchone()
    code = (
        "import sys\n"
        "from bestie_tui.store.memory_store import MemoryStore\n"
        "from bestie_tui.retrieval.index import get_index\n"
        "s = MemoryStore(sys.argv[1])\n"
        "i = get_index(s)\n"
        "print(round(float(i.relevance('egg coffee', [5])[0]), 3), i.stats.fits)\n"
        "print('sklearn' in sys.modules, 'scipy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(db_path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    relevance, fits = out.stdout.splitlines()[0].split()
    assert float(relevance) > 0.5 and fits == "0"
    assert out.stdout.splitlines()[1] == "False False"
    assert raw_connect(db_path).execute("SELECT built_at FROM ix_meta").fetchone() == built


@pytest.mark.parametrize("damage", [
    "DELETE FROM ix_meta",                       # missing
    "UPDATE ix_meta SET format = format - 1",    # an older format
    "UPDATE ix_meta SET analyzer = 'other'",     # built with other word lists
])
def test_a_missing_or_stale_index_is_rebuilt_on_first_use(store, db_path, damage):
    ids = [store.add("note", t, user="linh").id for t in TEXTS]
    conn = raw_connect(db_path)
    conn.execute(damage)
    conn.commit()
    conn.close()
    fresh = MemoryStore(db_path)
    index = get_index(fresh)
    assert index.relevance("egg coffee", ids)[4] > 0.5
    assert index.stats.fits == 1
    assert doc_index.status(fresh.db) == "current"
    fresh.close()


def test_a_write_that_skipped_the_index_is_caught_up_from_the_event_log(store, db_path):
    ids = [store.add("note", t, user="linh").id for t in TEXTS]
    index = get_index(store)
    assert index.relevance("kayak", ids).max() == 0.0
    conn = raw_connect(db_path)  # an older tool: it writes the row and its event, not the index
    conn.execute("UPDATE memory SET text = 'Kayak trip on the river' WHERE id = ?", (ids[2],))
    conn.execute("INSERT INTO event (batch, memory_id, action, actor, at, undone) VALUES ('x:1', ?, 'edit', 'tool', '2026-01-01', FALSE)",
                 (ids[2],))
    conn.commit()
    conn.close()
    assert doc_index.status(store.db) == "behind"
    assert index.relevance("kayak", ids)[2] > 0.5
    assert doc_index.status(store.db) == "current"


def test_clear_empties_the_index(store, db_path):
    for t in TEXTS:
        store.add("note", t, user="linh")

    store_backup.clear(store)
    assert get_index(store).top("coffee", 5) == []
    assert raw_connect(db_path).execute("SELECT COUNT(*) FROM ix_posting").fetchone() == (0,)


def test_reindex_command_rebuilds_with_a_count(run, store):
    for t in TEXTS:
        store.add("note", t, user="linh")
    result = run("memory", "reindex")
    assert result.exit_code == 0
    assert result.output.strip().splitlines()[-1].startswith("indexed 5 approved memories and 0 messages in ")
    assert '"documents": 5' in run("memory", "reindex", "--json").output


def _oracle(texts: list[str], query: str) -> list[float]:
    """BM25 relevance written out from the formulas, counting with scikit-learn's CountVectorizer."""
    from sklearn.feature_extraction.text import CountVectorizer

    out = [0.0] * len(texts)
    qwords, qchars = query_features(query)
    for analyzer, qfeats, k1, b, share in (
        (lambda t: features(t)[0], qwords, K1, B, WORD_SHARE),
        (char_ngrams, qchars, CHAR_K1, CHAR_B, 1 - WORD_SHARE),
    ):
        vec = CountVectorizer(analyzer=analyzer)
        counts = vec.fit_transform(texts).toarray()
        n = len(texts)
        df = (counts > 0).sum(axis=0)
        lengths = counts.sum(axis=1)
        avg = max(lengths.mean(), 1.0)
        cols = [vec.vocabulary_[f] for f in qfeats if f in vec.vocabulary_]
        idf = {c: math.log1p((n - df[c] + 0.5) / (df[c] + 0.5)) for c in cols}
        ideal = sum(idf.values()) * (k1 + 1)
        for d in range(n):
            for c in cols:
                tf = counts[d, c]
                if tf:
                    out[d] += share / ideal * idf[c] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[d] / avg))
    # a memory that already scores and holds a word of a topic the query names gains the topic share
    members = set(member_features(qwords))
    for d, text in enumerate(texts):
        if out[d] > 0 and members & set(features(text)[0]):
            out[d] += TOPIC_SHARE
    return [min(1.0, v) for v in out]


@pytest.mark.parametrize("query", ["egg coffee", "What does Linh avoid?", "vegan", "Hanoi lake run", "zzz"])
def test_relevance_follows_the_bm25_formulas(store, query):
    ids = [store.add("note", t, user="linh").id for t in TEXTS]
    got = get_index(store).relevance(query, ids)
    assert list(got) == pytest.approx(_oracle(TEXTS, query), abs=1e-9)


def test_texts_outside_the_index_score_as_if_they_were_in_it(store):
    ids = [store.add("note", t, user="linh").id for t in TEXTS]
    index = get_index(store)
    # a text identical to an indexed one scores alike when its own counts match the collection's
    assert index.relevance_of_texts("egg coffee", [TEXTS[4]])[0] == pytest.approx(index.relevance("egg coffee", ids)[4])


def test_near_duplicate_cosine_is_one_for_equal_texts_and_lower_for_others(store):
    a = store.add("note", "Linh drinks egg coffee on weekends", user="linh").id
    b = store.add("note", "Linh drinks egg coffee on weekends", user="bao").id  # another user: not a duplicate write
    c = store.add("note", "The bestie project ships a terminal console", user="linh").id
    sims = get_index(store).similarity([a, b, c, 999])
    assert sims[0, 1] == pytest.approx(1.0, abs=1e-5)
    assert sims[0, 2] < 0.2
    assert sims[3].max() == 0.0  # not indexed


def test_a_huge_memory_id_costs_one_row_not_an_array_of_its_size(store, db_path):
    huge = 2**62 - 1
    small = store.add("note", "Linh drinks egg coffee on weekends", user="linh").id
    with store.db.atomic():
        store.db.execute_sql(
            "INSERT INTO memory (id, text, kind, status, scope, layer, pinned, stale, access_count, confidence, "
            "created_at, updated_at, norm, terms) VALUES (?, 'Kayak trip on the river', 'note', 'approved', "
            "'project', 'working', FALSE, FALSE, 0, 0.8, '2026-01-01', '2026-01-01', 'kayak trip on the river', 'kayak')",
            (huge,))
        store.record_event("import:x", "import", huge, None, None, "owner")
        doc_index.sync(store.db)
    index = get_index(store)
    rel = index.relevance("kayak river", [small, huge])
    assert rel[0] == 0.0 and rel[1] > 0.5
    assert index.top("kayak", 3)[0][0] == huge
    assert index.stats.rows == 2


def test_an_older_schema_file_is_migrated_in_place_and_indexed_on_first_use(tmp_path):
    from bestie_tui.store.db import SCHEMA_VERSION
    from bestie_tui.store.models import ALL_MODELS, database_proxy

    path = tmp_path / "before-index.db"
    first = MemoryStore(path)
    first.add("note", "Linh drinks egg coffee on weekends", user="linh")
    first.close()
    conn = raw_connect(path)  # turn it into a file of the version before the index: no index tables
    for table in ("ix_meta", "ix_term", "ix_posting", "ix_block", "ix_doc"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("PRAGMA user_version = 3")  # the schema before the index
    conn.commit()
    conn.close()
    assert ALL_MODELS and database_proxy  # the models are untouched by the migration
    store = MemoryStore(path)
    assert store.db.execute_sql("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert doc_index.status(store.db) == "missing"
    assert get_index(store).relevance("egg coffee", [1])[0] > 0.5
    assert doc_index.status(store.db) == "current"
    store.close()


def test_a_read_only_database_still_answers_from_the_index_it_has(store, db_path):
    ids = [store.add("note", t, user="linh").id for t in TEXTS]
    store.close()
    ro = MemoryStore(db_path)
    make_read_only(ro.db)
    conn = raw_connect(db_path)
    conn.execute("UPDATE memory SET text = 'Kayak trip' WHERE id = ?", (ids[0],))
    conn.execute("INSERT INTO event (batch, memory_id, action, actor, at, undone) VALUES ('x:1', ?, 'edit', 't', '2026-01-01', FALSE)",
                 (ids[0],))
    conn.commit()
    conn.close()
    index = MemoryIndex(ro)
    assert index.relevance("egg coffee", ids)[4] > 0.5  # behind by one write, but it answers
    ro.close()


def test_counts_match_the_analyzers(store, db_path):
    store.add("note", "coffee coffee coffee tea", user="linh")
    conn = raw_connect(db_path)
    words, chars = features("coffee coffee coffee tea")
    wtotal, ctotal = conn.execute("SELECT word_total, char_total FROM ix_meta").fetchone()
    assert (wtotal, ctotal) == (len(words), len(chars))
    data = conn.execute("SELECT data FROM ix_posting p JOIN ix_term t ON t.id = p.term_id "
                        "WHERE t.part = 0 AND t.term = 'coffe'").fetchone()[0]
    assert int.from_bytes(data[2:4], "little") == Counter(words)["coffe"] == 3


def test_rows_bulk_loaded_without_events_are_indexed_by_the_next_process(store, db_path):
    store.add("note", "Linh drinks egg coffee on weekends", user="linh")
    conn = raw_connect(db_path)  # a bulk load: rows only, no event, no index
    conn.execute("INSERT INTO memory (text, kind, status, scope, layer, pinned, stale, access_count, confidence, "
                 "created_at, updated_at, norm, terms) VALUES ('Kayak trip on the river', 'note', 'approved', "
                 "'project', 'working', FALSE, FALSE, 0, 0.8, '2026-01-01', '2026-01-01', 'kayak trip on the river', 'kayak')")
    conn.commit()
    conn.close()
    fresh = MemoryStore(db_path)
    assert get_index(fresh).top("kayak", 1)[0][0] == 2
    fresh.close()


def test_a_read_only_database_without_an_index_is_a_clear_error(store, db_path):
    from bestie_tui.errors import StorageError

    store.add("note", "Linh drinks egg coffee on weekends", user="linh")
    store.close()
    conn = raw_connect(db_path)
    conn.execute("DELETE FROM ix_meta")
    conn.commit()
    conn.close()
    ro = MemoryStore(db_path)
    make_read_only(ro.db)
    with pytest.raises(StorageError, match="reindex"):
        MemoryIndex(ro).relevance("coffee", [1])
    ro.close()


def test_a_pack_sees_what_another_connection_wrote_since_the_last_pack(store, db_path, clock):
    """The index and the settings are not read again while nothing was written; a write by another
    store (another connection, as the assistant's process) in between is still seen by the next pack."""
    from bestie_tui.retrieval.assembly import build_context

    store.add("note", "Linh drinks egg coffee on weekends", user="linh")
    first = build_context(store, "kayak trip", "linh", record_access=False)
    assert first.items == []
    other = MemoryStore(db_path, clock=clock)
    try:
        with other.bound():
            kayak = other.add("note", "Linh plans a kayak trip on the river", user="linh").id
            other.set_setting("memory.paused", True)
    finally:
        other.close()
    with store.bound():
        paused = build_context(store, "kayak trip", "linh", record_access=False)
        assert paused.paused and paused.items == []
        store.set_setting("memory.paused", False)  # this connection's own write is seen too
        again = build_context(store, "kayak trip", "linh", record_access=False)
    assert [it.record.id for it in again.items] == [kayak]
