"""The message index is built on purpose: a read command that has to index a bulk load says so on
stderr, ``reindex`` builds it ahead, the compact layout (own text, session links, varint postings)
follows appends and removals exactly as a rebuild would, and a file with an older layout still works."""

from __future__ import annotations

import sqlite3
import struct
from datetime import datetime, timedelta

import pytest
from conftest import raw_connect

from bestie_tui.retrieval.recall import recall
from bestie_tui.store import doc_index, postings

START = datetime(2026, 3, 2, 9, 0)
TOPICS = ["kayak trip on the river", "sourdough starter feeding", "violin lessons on tuesday",
          "tax forms for the spring", "herb garden on the balcony", "marathon training plan"]


def bulk_load(db_path, count: int, sessions: int = 40) -> None:
    """``count`` chat turns written straight into the table, as an import or a migration does:
    no index, no event. Turn ``i`` talks about topic ``i mod 6``, in session ``i mod sessions``."""
    conn = raw_connect(db_path)
    conn.executemany(
        'INSERT INTO message (role, text, "user", channel, session, created_at, terms) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [("user", f"turn {i}: the {TOPICS[i % len(TOPICS)]}", "linh", None, f"s{i % sessions}",
          (START + timedelta(minutes=i)).isoformat(sep=" "), "") for i in range(count)])
    conn.commit()
    conn.close()


def message_meta(db_path) -> tuple[int, int] | None:
    conn = sqlite3.connect(db_path)
    row = conn.execute("SELECT format, docs FROM ix_meta WHERE collection = 'message'").fetchone()
    conn.close()
    return row


def snapshot(db_path) -> dict:
    """The message collection's stored index, by term text (term ids differ between builds)."""
    conn = sqlite3.connect(db_path)
    out = {
        "meta": conn.execute("SELECT format, docs, word_total, char_total FROM ix_meta "
                             "WHERE collection = 'message'").fetchone(),
        "postings": sorted(conn.execute(
            "SELECT t.part, t.term, t.df, p.block, p.data FROM ix_posting p JOIN ix_term t ON t.id = p.term_id "
            "WHERE t.collection = 'message'").fetchall()),
        "blocks": sorted(conn.execute("SELECT block, data FROM ix_block WHERE collection = 'message'").fetchall()),
        "docs": sorted(conn.execute("SELECT doc_id, text FROM ix_doc WHERE collection = 'message'").fetchall()),
    }
    conn.close()
    return out


def test_a_search_after_a_bulk_load_says_it_builds_the_message_index(run, store, db_path):
    bulk_load(db_path, 1500)
    got = run("memory", "messages", "search", "sourdough starter")
    assert got.exit_code == 0
    assert "building the message index (0 of 1,500)" in got.stderr
    assert "building the message index (1,500 of 1,500)" in got.stderr
    assert "sourdough starter" in got.stdout
    assert message_meta(db_path) == (doc_index.MESSAGE_FORMAT, 1500)
    again = run("memory", "messages", "search", "violin")  # built once: the next search says nothing
    assert again.exit_code == 0 and again.stderr == "" and "violin lessons" in again.stdout


def test_a_bulk_load_onto_a_built_index_is_added_with_the_same_notice(run, store, db_path):
    store.log_message("user", "Linh: the kayak is in the garage", user="linh", session="z")
    assert recall(store, "kayak", "linh")
    bulk_load(db_path, 1100)
    got = run("memory", "messages", "search", "tax forms")
    assert got.exit_code == 0 and "tax forms for the spring" in got.stdout
    assert "building the message index (1,100 of 1,100)" in got.stderr
    assert message_meta(db_path) == (doc_index.MESSAGE_FORMAT, 1101)


def test_reindex_builds_the_message_index_ahead_so_the_search_is_quiet(run, store, db_path):
    bulk_load(db_path, 1200)
    done = run("memory", "reindex", "--json")
    assert done.exit_code == 0 and '"messages": 1200' in done.stdout
    assert message_meta(db_path) == (doc_index.MESSAGE_FORMAT, 1200)
    got = run("memory", "recall", "marathon training", "--user", "linh")
    assert got.exit_code == 0 and "building" not in got.stderr
    assert "marathon training plan" in got.stdout


def test_a_few_new_messages_are_indexed_without_a_word(run, store, db_path):
    bulk_load(db_path, 30)
    got = run("memory", "messages", "search", "herb garden")
    assert got.exit_code == 0 and got.stderr == "" and "herb garden" in got.stdout
    assert message_meta(db_path) == (doc_index.MESSAGE_FORMAT, 30)


def test_appends_and_removals_leave_the_index_a_rebuild_would_write(store, db_path):
    first = [store.log_message("user", f"Linh: the {t}", user="linh", session="a",
                               at=START + timedelta(minutes=n)).id for n, t in enumerate(TOPICS)]
    assert recall(store, "kayak", "linh")
    # a turn logged late but dated between two others: both neighbours' links move
    store.log_message("user", "Minh: and the kayak paddles?", user="linh", session="a",
                      at=START + timedelta(minutes=2, seconds=30))
    store.log_message("user", "a turn in no session about the river", user="linh")
    store.forget_messages([first[3]])  # the middle of the session: its neighbours now meet
    assert recall(store, "kayak paddles", "linh")
    kept = snapshot(db_path)
    doc_index.reindex(store.db, doc_index.MESSAGE)
    assert snapshot(db_path) == kept
    assert len(kept["docs"]) == 7 and first[3] not in dict(kept["docs"])


def test_a_reply_scores_as_the_three_turns_around_it(store):
    ids = [store.log_message("user", text, user="linh", session="s", at=START + timedelta(minutes=n)).id
           for n, text in enumerate(["Linh: I booked the pottery workshop", "Minh: nice!", "Linh: it is on friday"])]
    elsewhere = store.log_message("user", "Minh: nice!", user="linh", session="other").id  # same words
    hits = recall(store, "pottery workshop", "linh", limit=4)
    assert {h.message.id for h in hits[:2]} == set(ids[:2])
    reply = next(h for h in hits if h.message.id == ids[1])
    assert reply.parts["relevance"] > 0  # its own score holds the question's words, as before
    assert elsewhere not in [h.message.id for h in hits]


def test_a_message_index_of_the_older_layout_is_rebuilt_and_still_answers(run, store, db_path):
    """A file written by the previous bestie: format 2, uint16 postings, no links."""
    ids = [store.log_message("user", f"Linh: the {t}", user="linh", session="a",
                             at=START + timedelta(minutes=n)).id for n, t in enumerate(TOPICS)]
    assert recall(store, "violin", "linh")
    conn = sqlite3.connect(db_path)
    for term_id, block, data in conn.execute(
            "SELECT p.term_id, p.block, p.data FROM ix_posting p JOIN ix_term t ON t.id = p.term_id "
            "WHERE t.collection = 'message'").fetchall():
        flat = postings.decode(data)
        conn.execute("UPDATE ix_posting SET data = ? WHERE term_id = ? AND block = ?",
                     (struct.pack(f"<{len(flat)}H", *flat), term_id, block))
    for block, data in conn.execute("SELECT block, data FROM ix_block WHERE collection = 'message'").fetchall():
        conn.execute("UPDATE ix_block SET data = ? WHERE collection = 'message' AND block = ?",
                     (data[:12 * (len(data) // 28)], block))
    conn.execute("UPDATE ix_meta SET format = 2 WHERE collection = 'message'")
    conn.commit()
    conn.close()
    store.forget_messages([ids[0]])  # a removal meets the older layout: it is left for the rebuild
    got = run("memory", "messages", "search", "violin lessons")
    assert got.exit_code == 0 and "violin lessons on tuesday" in got.stdout
    assert message_meta(db_path) == (doc_index.MESSAGE_FORMAT, len(ids) - 1)
    assert ids[0] not in dict(snapshot(db_path)["docs"])


@pytest.mark.parametrize("flat", [[], [0, 1], [5, 2, 6, 1, 4095, 65535], list(range(0, 4096 * 2, 2)),
                                  [0, 300, 200, 1, 3000, 2]])
def test_postings_round_trip_through_varints(flat):
    flat = [v for i in range(0, len(flat), 2) for v in (flat[i], max(1, flat[i + 1]))]
    assert postings.decode(postings.encode(flat)) == flat


def test_numpy_decoding_reads_the_same_postings():
    from bestie_tui.retrieval.index import _decode

    first, second = [0, 1, 1, 1, 130, 7, 200, 1, 4095, 70000], [3, 2, 9, 1]
    ids, tf = _decode(doc_index.MESSAGE, [(0, postings.encode(first)), (5, postings.encode(second))])
    assert ids.tolist() == first[0::2] + [(5 << doc_index.BLOCK_BITS) + o for o in second[0::2]]
    assert tf.tolist() == first[1::2] + second[1::2]
