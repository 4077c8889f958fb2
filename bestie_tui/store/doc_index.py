"""The persisted inverted index: term counts of every indexed document, kept in the database itself
and brought up to date inside the transaction of each write, so no process refits anything.

The index is generic over *collections* of documents (``"memory"``: the approved memories; a later
collection, ``"message"``, holds chat turns). Per collection it stores counts only — the BM25 weighting
lives in ``bestie_tui.retrieval.bm25`` and is computed at query time from these counts, so the
weights are always those of the current collection (no drift between fits):

=============  ==============================================================================
table          what it holds
=============  ==============================================================================
``ix_meta``    one row per collection: ``format`` (``FORMAT``), ``analyzer`` (a digest of the
               analyzers' word lists), documents, total word and character feature counts, and
               the event-log mark ``(min id, max id)`` the index reflects
``ix_term``    one row per feature (``part`` 0 = words and word pairs, 1 = character n-grams):
               its id and document frequency
``ix_posting`` per (term, block of ``BLOCK`` document ids): the entries ``(id − block·BLOCK, tf)``
               sorted by id, ``tf`` capped at 65,535 — packed little-endian uint16 pairs for
               memories, varints (``store.postings``) for messages
``ix_block``   per (collection, block): packed uint32 triples ``(offset, word length, char length)``
               — every document's lengths load in one read of a few rows; for messages followed
               by int64 pairs ``(previous id, next id)`` in the session (0: none)
``ix_doc``     the text each document was indexed with, so a change or a removal takes out exactly
               the features that went in
=============  ==============================================================================

Ordinary tables with integer keys and BLOBs, so another engine (PostgreSQL ``bytea``) can hold the
same layout. Ids are bucketed, never used as array positions: a memory id of 2**62 costs one row.

How it stays current: every change to a memory writes a row to ``event`` (the store's rule).
``sync`` compares the log's ``(min id, max id)`` with the mark in ``ix_meta``; when the maximum
moved it re-reads only the documents named by the newer events and applies the difference; it
rebuilds when the index is missing, of another ``FORMAT`` or analyzer, when the log shrank (a
``clear``), or when one change touches more than ``REBUILD_SHARE`` of the documents.
``MemoryStore.change`` calls it before each write commits (applying, never rebuilding); a reader
that finds the mark behind (a write by a tool that skipped it) or the index missing calls it too.
A reader with more than ``QUIET_DOCS`` documents to index (a bulk load of messages, a file from an
older bestie) reports its progress to the sink set with ``reporting``: the CLI prints "building the
message index (n of N)" on stderr, and ``bestie memory reindex`` builds both collections ahead.
"""

from __future__ import annotations

import hashlib
import sys
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bestie_tui.store import postings as varint_postings

#: Version of the stored layout and of what the analyzers produce; another value means rebuild.
#: 2: runs of Chinese, Japanese and Korean characters are indexed as character pairs.
FORMAT = 2
#: The layout of the message collection. 3: each turn indexed with its own text only, its session
#: neighbours kept as links in ``ix_block`` (``retrieval.index`` adds their counts at query time),
#: postings as varints — about a sixth of the bytes of format 2 (``benchmarks/message_index.py``).
#: 4: each posting blob starts with its count of ``tf`` > 1 too (3 lacked it; never released).
MESSAGE_FORMAT = 4
#: Document ids per posting block (a power of two, so offsets fit uint16).
BLOCK_BITS = 12
BLOCK = 1 << BLOCK_BITS
WORD, CHAR = 0, 1
MEMORY = "memory"
#: One change touching more than this share of the documents (and at least ``REBUILD_MIN`` of them)
#: rebuilds the collection instead of applying document by document.
REBUILD_SHARE = 0.2
REBUILD_MIN = 2000
_TF_CAP = 65535
_CHUNK = 500  # bound parameters per IN (...)

MESSAGE = "message"

#: A reader brings at most this many documents into the index without saying so (about half a second
#: of analysis); more is reported through ``reporting`` while it is built.
QUIET_DOCS = 1000

#: What the ``memory`` collection indexes: ``(SQL of every document (id, text) by id, SQL of some)``.
_MEMORY_ALL = "SELECT id, text FROM memory WHERE status = 'approved' ORDER BY id"
_MEMORY_SOME = "SELECT id, text FROM memory WHERE status = 'approved' AND id IN ({})"
#: A chat message is indexed with its own text, and linked to the turns just before and after it in its
#: session (same user and session, in ``(created_at, id)`` order); a query scores it as the text of
#: the three turns (``retrieval.index``), so a short reply ("Yeah, me too!") is found by the topic of
#: the turn it answers. A message without a session stands alone.
_NEIGHBOURS = 'WINDOW w AS (PARTITION BY "user", session ORDER BY created_at, id)'
# portable SQL (SQLite and PostgreSQL): "user" quoted (a keyword in PostgreSQL), and NULL-safe
# equality spelled out instead of SQLite's IS
_MESSAGE_ALL = ("SELECT id, text, CASE WHEN session IS NULL THEN 0 ELSE COALESCE(LAG(id) OVER w, 0) END, "
                f"CASE WHEN session IS NULL THEN 0 ELSE COALESCE(LEAD(id) OVER w, 0) END FROM message {_NEIGHBOURS} "
                "ORDER BY id")
_MESSAGE_SOME = "SELECT id, text FROM message WHERE id IN ({})"
_SAME_USER = '({0}."user" = m."user" OR ({0}."user" IS NULL AND m."user" IS NULL))'
#: The session neighbours (previous and next turn) of the messages after a mark: appending a turn
#: changes the indexed text of the turn before it.
_MESSAGE_NEIGHBOURS = (
    f"SELECT (SELECT p.id FROM message p WHERE p.session = m.session AND {_SAME_USER.format('p')} AND "
    "(p.created_at < m.created_at OR (p.created_at = m.created_at AND p.id < m.id)) "
    "ORDER BY p.created_at DESC, p.id DESC LIMIT 1), "
    f"(SELECT n.id FROM message n WHERE n.session = m.session AND {_SAME_USER.format('n')} AND "
    "(n.created_at > m.created_at OR (n.created_at = m.created_at AND n.id > m.id)) "
    "ORDER BY n.created_at, n.id LIMIT 1) FROM message m WHERE m.id > ? AND m.session IS NOT NULL")
#: Session order lookups of the message collection (its neighbours, recall's context turns).
MESSAGE_ORDER_INDEX = "CREATE INDEX IF NOT EXISTS message_session_order ON message (session, created_at, id)"
#: Session order lookups of memories (``retrieval.signals``: a memory's session neighbours).
MEMORY_ORDER_INDEX = "CREATE INDEX IF NOT EXISTS memory_session_order ON memory (session, created_at, id)"
COLLECTIONS = (MEMORY, MESSAGE)

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS ix_meta (collection TEXT PRIMARY KEY, format INTEGER NOT NULL, "
    "analyzer TEXT NOT NULL, docs INTEGER NOT NULL, word_total INTEGER NOT NULL, char_total INTEGER NOT NULL, "
    "event_low INTEGER NOT NULL, event_high INTEGER NOT NULL, built_at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS ix_term (id INTEGER PRIMARY KEY, collection TEXT NOT NULL, "
    "part INTEGER NOT NULL, term TEXT NOT NULL, df INTEGER NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS ix_term_key ON ix_term (collection, part, term)",
    "CREATE TABLE IF NOT EXISTS ix_posting (term_id INTEGER NOT NULL, block INTEGER NOT NULL, "
    "data BLOB NOT NULL, PRIMARY KEY (term_id, block)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS ix_block (collection TEXT NOT NULL, block INTEGER NOT NULL, "
    "data BLOB NOT NULL, PRIMARY KEY (collection, block)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS ix_doc (collection TEXT NOT NULL, doc_id INTEGER NOT NULL, "
    "text TEXT NOT NULL, PRIMARY KEY (collection, doc_id)) WITHOUT ROWID",
)


@dataclass(frozen=True)
class IndexMeta:
    """The ``ix_meta`` row of one collection."""

    format: int
    analyzer: str
    docs: int
    word_total: int
    char_total: int
    event_low: int
    event_high: int
    built_at: float


def create_tables(db: Any) -> None:
    """Create the index tables (idempotent); run by the schema migration."""
    for statement in SCHEMA:
        db.execute_sql(db.table_ddl(statement))
    db.execute_sql(db.table_ddl(MESSAGE_ORDER_INDEX))
    db.execute_sql(db.table_ddl(MEMORY_ORDER_INDEX))


@lru_cache(maxsize=1)
def analyzer_digest() -> str:
    """A short digest of what the analyzers depend on (``FORMAT`` and the stop-word lists): an index
    built with other word lists is stale and gets rebuilt."""
    from bestie_tui.text import analysis

    parts = [str(FORMAT), ",".join(sorted(analysis.stop_words())), ",".join(sorted(analysis.NEGATIONS)),
             ",".join(sorted(analysis.QUERY_STOP_WORDS)), str(analysis.SYLLABLE_MAX)]
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:16]


def format_of(collection: str) -> int:
    """The stored layout ``collection`` is built with now (``FORMAT`` or ``MESSAGE_FORMAT``)."""
    return MESSAGE_FORMAT if collection == MESSAGE else FORMAT


def read_meta(db: Any, collection: str = MEMORY) -> IndexMeta | None:
    row = db.execute_sql("SELECT format, analyzer, docs, word_total, char_total, event_low, event_high, built_at "
                         "FROM ix_meta WHERE collection = ?", (collection,)).fetchone()
    return IndexMeta(*row) if row else None


def event_mark(db: Any, collection: str = MEMORY) -> tuple[int, int]:
    """``(min id, max id)`` of what moves the collection, ``(0, 0)`` when empty: two primary-key
    lookups. For ``memory`` the event log; for ``message`` the message table itself (messages are
    appended without events; an erase or an undone import drops its messages from the index)."""
    table = "message" if collection == MESSAGE else "event"
    # two subqueries: SQLite answers a lone MIN or MAX from the key, but scans for both in one SELECT
    low, high = db.execute_sql(f"SELECT (SELECT MIN(id) FROM {table}), (SELECT MAX(id) FROM {table})").fetchone()
    return (low or 0, high or 0)


def status(db: Any, collection: str = MEMORY, *, count: bool = False) -> str:
    """``"current"``, ``"behind"`` (writes since the mark: ``sync`` applies them), ``"stale"`` (built
    for another format or analyzer, or the log was cleared: ``sync`` rebuilds) or ``"missing"``.

    ``count``: also compare the indexed documents with a count of the source rows (one index scan),
    which catches rows written with neither the index nor an event (a bulk load); a mismatch is
    ``"stale"``. A reader does this once per process."""
    meta = read_meta(db, collection)
    if meta is None:
        return "missing"
    if meta.format != format_of(collection) or meta.analyzer != analyzer_digest():
        return "stale"
    if count and _count_source(db, collection, meta.event_high if collection == MESSAGE else None) != meta.docs:
        return "stale"  # (messages after the mark are the "behind" below: the mark is a message id)
    low, high = event_mark(db, collection)
    if (low, high) == (meta.event_low, meta.event_high):
        return "current"
    if (meta.event_low and low != meta.event_low) or high < meta.event_high:
        return "stale"  # the log was cleared or rewritten (an index built on an empty log just follows it)
    return "behind"


#: Where a reader's index build reports: ``sink(what, done, total)`` with ``what`` = ``"message index"``
#: or ``"memory index"`` and document counts. The CLI sets it (a line on stderr); unset, nothing is said.
Progress = Callable[[str, int, int], None]
_SINK: ContextVar[Progress | None] = ContextVar("bestie_index_progress", default=None)


@contextmanager
def reporting(sink: Progress | None) -> Iterator[None]:
    """Within the block, index builds of more than ``QUIET_DOCS`` documents started by a reader (``sync``
    through ``retrieval.index``) report to ``sink``."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


def set_reporting(sink: Progress | None) -> None:
    """``reporting`` for the rest of the current context (a CLI process: its one command)."""
    _SINK.set(sink)


def sync(db: Any, collection: str = MEMORY, *, count: bool = False, rebuild_ok: bool = True) -> str:
    """Bring the index of ``collection`` up to date inside the caller's write transaction
    (``count``: as for ``status``). ``rebuild_ok=False`` (a write's own transaction) leaves a
    missing or stale index for the next reader or ``reindex`` to rebuild, so an ordinary write never
    waits on a whole rebuild of a large collection. A build of more than ``QUIET_DOCS`` documents
    reports its progress to the ``reporting`` sink, if one is set.

    Returns what it did: ``"current"`` (nothing), ``"applied"``, ``"rebuilt"`` or ``"left"``.
    """
    state = status(db, collection, count=count)
    if state == "current":
        return state
    if state in ("missing", "stale") and not rebuild_ok:
        return "left"
    sink = _SINK.get()
    what = f"{collection} index"
    if state in ("missing", "stale"):
        rebuild(db, collection, _loud(sink, what))
        return "rebuilt"
    meta = read_meta(db, collection)
    assert meta is not None  # "behind" means there is a meta row
    changed = _changed_since(db, collection, meta.event_high)
    if len(changed) > max(REBUILD_MIN, REBUILD_SHARE * meta.docs):
        if not rebuild_ok:  # a large write (a cleanup): the next reader rebuilds, outside its lock
            return "left"
        rebuild(db, collection, _loud(sink, what))
        return "rebuilt"
    report = sink if len(changed) > QUIET_DOCS else None
    step = REBUILD_MIN if report is not None else max(len(changed), 1)
    for start in range(0, max(len(changed), 1), step):  # an empty change still moves the mark
        if report is not None:
            report(what, start, len(changed))
        apply_changes(db, changed[start:start + step], collection)
    if report is not None:
        report(what, len(changed), len(changed))
    return "applied"


def _loud(sink: Progress | None, what: str) -> Callable[[int, int], None] | None:
    """``rebuild``'s progress callback for ``sink``: silent while the collection is small."""
    if sink is None:
        return None

    def progress(done: int, total: int) -> None:
        if total > QUIET_DOCS:
            sink(what, done, total)
    return progress


def _changed_since(db: Any, collection: str, mark: int) -> list[int]:
    """The documents to re-read after the mark: those the newer events name (``memory``), or the newer
    messages and their session neighbours (``message``)."""
    if collection != MESSAGE:
        return [m for (m,) in db.execute_sql(
            "SELECT DISTINCT memory_id FROM event WHERE id > ? AND memory_id IS NOT NULL", (mark,)).fetchall()]
    # their session neighbours' links change too: ``apply_changes`` follows the links
    return [i for (i,) in db.execute_sql("SELECT id FROM message WHERE id > ? ORDER BY id", (mark,)).fetchall()]


def session_neighbours(db: Any, ids: Sequence[int]) -> dict[int, tuple[int | None, int | None]]:
    """``message id → (previous id, next id)`` in its session (same user and session, ``(created_at,
    id)`` order; ``None`` at a session's ends and for a message without a session), for those of
    ``ids`` that exist. Index lookups on ``message_session_order``."""
    out: dict[int, tuple[int | None, int | None]] = {}
    wanted = sorted({int(i) for i in ids})
    base = _MESSAGE_NEIGHBOURS.replace("SELECT (SELECT", "SELECT m.id, (SELECT", 1).split(" FROM message m WHERE")[0]
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start:start + _CHUNK]
        rows = db.execute_sql(f"{base} FROM message m WHERE m.id IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        out.update((i, (p, n)) for i, p, n in rows)
    return out


def neighbours_outside(db: Any, ids: Sequence[int]) -> list[int]:
    """The messages just before or after any of ``ids`` in their sessions that are not in ``ids``:
    read *before* ``ids`` are deleted, they are the turns whose links to their neighbours change."""
    gone = {int(i) for i in ids}
    return sorted({n for pair in session_neighbours(db, list(gone)).values() for n in pair
                   if n is not None and n not in gone})


def _all_documents(db: Any, collection: str) -> Any:
    """A cursor of every document ``(id, text)`` of ``collection`` by id (messages: ``(id, text,
    previous id, next id)``, 0 for none)."""
    if collection == MESSAGE:
        db.execute_sql(MESSAGE_ORDER_INDEX)  # an older file gets it on its first message index build
        return db.execute_sql(_MESSAGE_ALL)
    db.execute_sql(MEMORY_ORDER_INDEX)  # likewise on its first memory index build
    return db.execute_sql(_MEMORY_ALL)


def _some_documents(db: Any, collection: str, ids: list[int]) -> dict[int, str]:
    """``id → indexed text`` of those of ``ids`` that are documents of ``collection`` now."""
    marks = ",".join("?" * len(ids))
    sql = _MESSAGE_SOME if collection == MESSAGE else _MEMORY_SOME
    return dict(db.execute_sql(sql.format(marks), ids).fetchall())


# ---------------------------------------------------------------------------------------- packing
def _pack(values: Iterable[int], code: str) -> bytes:
    out = array(code, values)
    if sys.byteorder == "big":
        out.byteswap()
    return out.tobytes()


def _unpack(data: bytes, code: str) -> array:
    out = array(code)
    out.frombytes(data)
    if sys.byteorder == "big":
        out.byteswap()
    return out


def _encode(collection: str, flat: Sequence[int]) -> bytes:
    """A posting blob of ``[offset, tf, …]`` in the layout of ``collection``."""
    return varint_postings.encode(flat) if collection == MESSAGE else _pack(flat, "H")


def _decode(collection: str, data: bytes) -> Sequence[int]:
    """A posting blob back to ``[offset, tf, …]``."""
    return varint_postings.decode(data) if collection == MESSAGE else _unpack(data, "H")


#: Bytes per document of a message block: three uint32 and two int64.
_MESSAGE_RECORD = 28


def _block_records(collection: str, data: bytes) -> dict[int, tuple[int, ...]]:
    """An ``ix_block`` blob → ``offset → (word length, char length)``; messages add ``(previous id,
    next id)`` (0: none)."""
    if collection != MESSAGE:
        flat = _unpack(data, "I")
        return {flat[i]: (flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)}
    n = len(data) // _MESSAGE_RECORD
    head, links = _unpack(data[:12 * n], "I"), _unpack(data[12 * n:], "q")
    return {head[3 * i]: (head[3 * i + 1], head[3 * i + 2], links[2 * i], links[2 * i + 1]) for i in range(n)}


def _block_data(collection: str, records: dict[int, tuple[int, ...]]) -> bytes:
    """The ``ix_block`` blob of ``records`` (as ``_block_records`` returns them)."""
    order = sorted(records)
    head = _pack((v for o in order for v in (o, *records[o][:2])), "I")
    if collection != MESSAGE:
        return head
    return head + _pack((v for o in order for v in records[o][2:4]), "q")


def _counts(text: str) -> tuple[Counter[str], Counter[str], int, int]:
    from bestie_tui.text.analysis import features

    words, chars = features(text)
    return Counter(words), Counter(chars), len(words), len(chars)


# ---------------------------------------------------------------------------------------- rebuild
def rebuild(db: Any, collection: str = MEMORY, progress: Callable[[int, int], None] | None = None) -> int:
    """Drop and rebuild the index of ``collection`` from its source rows, block by block (memory stays
    bounded by one block of postings and the vocabulary). Runs in the caller's transaction.

    Args:
        progress: called as ``progress(done, total)`` documents after each block.

    Returns:
        The number of documents indexed.
    """
    mark = event_mark(db, collection)
    _drop(db, collection)
    total = _count_source(db, collection)
    if progress is not None:
        progress(0, total)
    vocabs: tuple[dict[str, int], dict[str, int]] = ({}, {})  # per part (WORD, CHAR): term → id
    df: list[int] = []
    next_id = (db.execute_sql("SELECT MAX(id) FROM ix_term").fetchone()[0] or 0) + 1
    first_id = next_id
    docs = word_total = char_total = 0
    for block, rows in _by_block(_all_documents(db, collection)):
        postings: dict[int, list[int]] = {}
        records: dict[int, tuple[int, ...]] = {}
        for doc_id, text, *links in rows:
            words, chars, wlen, clen = _counts(text)
            offset = doc_id - (block << BLOCK_BITS)
            for vocab, counts in zip(vocabs, (words, chars)):
                for term, tf in counts.items():  # the hot loop of a build: plain dict and list steps
                    tid = vocab.get(term)
                    if tid is None:
                        tid = vocab[term] = next_id
                        next_id += 1
                        df.append(0)
                    df[tid - first_id] += 1
                    entry = postings.get(tid)
                    if entry is None:
                        postings[tid] = [offset, tf if tf < _TF_CAP else _TF_CAP]
                    else:
                        entry += (offset, tf if tf < _TF_CAP else _TF_CAP)
            records[offset] = (wlen, clen, *links)
            word_total += wlen
            char_total += clen
            docs += 1
        _executemany(db, "INSERT INTO ix_posting (term_id, block, data) VALUES (?, ?, ?)",
                     [(tid, block, _encode(collection, pairs)) for tid, pairs in postings.items()])
        _executemany(db, "INSERT INTO ix_block (collection, block, data) VALUES (?, ?, ?)",
                     [(collection, block, _block_data(collection, records))])
        _executemany(db, "INSERT INTO ix_doc (collection, doc_id, text) VALUES (?, ?, ?)",
                     [(collection, row[0], row[1]) for row in rows])
        if progress is not None:
            progress(docs, total)
    terms = sorted((tid, part, term) for part, vocab in zip((WORD, CHAR), vocabs) for term, tid in vocab.items())
    _executemany(db, "INSERT INTO ix_term (id, collection, part, term, df) VALUES (?, ?, ?, ?, ?)",
                 [(tid, collection, part, term, df[tid - first_id]) for tid, part, term in terms])
    _write_meta(db, collection, docs, word_total, char_total, mark)
    return docs


def _count_source(db: Any, collection: str, up_to: int | None = None) -> int:
    """Documents ``collection`` has now (``up_to``: messages with an id up to it)."""
    if collection == MESSAGE and up_to is not None:
        return int(db.execute_sql("SELECT COUNT(*) FROM message WHERE id <= ?", (up_to,)).fetchone()[0])
    sql = ("SELECT COUNT(*) FROM message" if collection == MESSAGE
           else "SELECT COUNT(*) FROM memory WHERE status = 'approved'")
    return int(db.execute_sql(sql).fetchone()[0])


def _by_block(cursor: Any) -> Iterator[tuple[int, list[tuple]]]:
    """``(block, rows)`` for a cursor of ``(id, text, …)`` ordered by id."""
    current: int | None = None
    rows: list[tuple] = []
    while True:
        batch = cursor.fetchmany(2000)
        if not batch:
            break
        for row in batch:
            block = row[0] >> BLOCK_BITS
            if block != current and rows:
                yield current, rows  # type: ignore[misc]  # current is set once rows has a row
                rows = []
            current = block
            rows.append(tuple(row))
    if rows:
        yield current, rows  # type: ignore[misc]


def _drop(db: Any, collection: str) -> None:
    db.execute_sql("DELETE FROM ix_posting WHERE term_id IN (SELECT id FROM ix_term WHERE collection = ?)",
                   (collection,))
    for table in ("ix_term", "ix_block", "ix_doc", "ix_meta"):
        db.execute_sql(f"DELETE FROM {table} WHERE collection = ?", (collection,))


def _write_meta(db: Any, collection: str, docs: int, word_total: int, char_total: int,
                mark: tuple[int, int]) -> None:
    db.execute_sql(
        "INSERT INTO ix_meta (collection, format, analyzer, docs, word_total, char_total, event_low, event_high, "
        "built_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (collection) DO UPDATE SET format = excluded.format, "
        "analyzer = excluded.analyzer, docs = excluded.docs, word_total = excluded.word_total, "
        "char_total = excluded.char_total, event_low = excluded.event_low, event_high = excluded.event_high, "
        "built_at = excluded.built_at",
        (collection, format_of(collection), analyzer_digest(), docs, word_total, char_total, mark[0], mark[1],
         time.time()))


def _executemany(db: Any, sql: str, rows: list[tuple]) -> None:
    db.run_many(sql, rows)  # an engine hook of the store's database class (``store.db``)


# ------------------------------------------------------------------------------- incremental
def apply_changes(db: Any, doc_ids: Sequence[int], collection: str = MEMORY) -> None:
    """Re-index the documents ``doc_ids`` of ``collection`` (added, edited, removed or unchanged: each
    is compared with the text it was indexed with) and move the mark to the log's current end."""
    meta = read_meta(db, collection)
    assert meta is not None  # sync rebuilds a missing index before it applies changes
    old: dict[int, str] = {}
    new: dict[int, str] = {}
    ids = sorted(set(doc_ids))
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        old.update(db.execute_sql(f"SELECT doc_id, text FROM ix_doc WHERE collection = ? AND doc_id IN ({marks})",
                                  (collection, *chunk)).fetchall())
        new.update(_some_documents(db, collection, chunk))
    changed = [i for i in ids if old.get(i) != new.get(i)]
    docs, word_total, char_total = meta.docs, meta.word_total, meta.char_total
    length_edits: dict[int, dict[int, tuple[int, int] | None]] = {}
    if changed:
        delta: dict[tuple[int, str], dict[int, int]] = {}  # feature → {doc id: tf, 0 = remove}
        for doc_id in changed:
            block = doc_id >> BLOCK_BITS
            if doc_id in old:
                words, chars, wlen, clen = _counts(old[doc_id])
                for part, counts in ((WORD, words), (CHAR, chars)):
                    for term in counts:
                        delta.setdefault((part, term), {})[doc_id] = 0
                docs, word_total, char_total = docs - 1, word_total - wlen, char_total - clen
                length_edits.setdefault(block, {})[doc_id] = None
            if doc_id in new:
                words, chars, wlen, clen = _counts(new[doc_id])
                for part, counts in ((WORD, words), (CHAR, chars)):
                    for term, tf in counts.items():
                        delta.setdefault((part, term), {})[doc_id] = min(tf, _TF_CAP)
                docs, word_total, char_total = docs + 1, word_total + wlen, char_total + clen
                length_edits.setdefault(block, {})[doc_id] = (wlen, clen)
        _apply_postings(db, collection, delta)
        _apply_docs(db, collection, changed, new)
    links = _current_links(db, ids) if collection == MESSAGE else {}
    if length_edits or links:
        _apply_blocks(db, collection, length_edits, links)
    _write_meta(db, collection, docs, word_total, char_total, event_mark(db, collection))


def drop_documents(db: Any, doc_ids: Sequence[int], collection: str = MEMORY) -> None:
    """Take documents whose source rows are gone out of the index now, inside the caller's
    transaction (an erase: its event names no memory, and the index holds their text and terms).
    Does nothing where there is no index yet. A document whose row is there again, or whose text
    changed without an event (a message redacted or brought back by undo), is indexed as it is now."""
    meta = read_meta(db, collection)
    if doc_ids and meta is not None and meta.format == format_of(collection):
        apply_changes(db, doc_ids, collection)  # an index of another layout is rebuilt by its next reader


#: Posting lists ``documents_with`` intersects, at most, once fewer than this many documents are left.
_FEW = 256


def documents_with(db: Any, text: str, collection: str = MESSAGE) -> list[int] | None:
    """The documents of ``collection`` whose indexed text holds the word features of ``text`` that
    any text containing ``text`` holds too: a superset of the documents whose text contains ``text``
    (a message is indexed with its neighbours' text as well, so the caller checks each one). Those
    features are the words and, more selective, the pairs of neighbouring words after the first
    word: a negation just before ``text`` marks its first word (``neg_…``) and so changes the pairs
    that hold it, never the later ones. The rarest features are read first, and reading stops once
    fewer than ``_FEW`` documents are left, or when the next list is over 8 times longer than what is.

    Returns:
        Sorted document ids; ``[]`` when ``text`` has no content word (only stop words) or a feature
        that no document has; ``None`` when there is no index of ``collection``.
    """
    from bestie_tui.text.analysis import analyze_words
    from bestie_tui.text.words import has_cjk

    meta = read_meta(db, collection)
    if meta is None or meta.format != format_of(collection):
        return None
    # a lone CJK character (a run of one) is no feature of a text that holds it inside a longer run,
    # where it is part of character pairs: it and the pairs it is in are left out of the keys
    words = analyze_words(text)
    kept = [not (len(w) == 1 and has_cjk(w)) for w in words]
    keys = [w for w, k in zip(words, kept) if k and not w.startswith("neg_")] + [
        f"{a} {b}" for a, b, ka, kb in zip(words[1:], words[2:], kept[1:], kept[2:]) if ka and kb]
    keys = list(dict.fromkeys(keys))
    if not keys:
        return []
    found = _term_ids(db, collection, [(WORD, k) for k in keys])
    if len(found) < len(keys):
        return []
    held: set[int] | None = None
    for term_id, df in sorted(found.values(), key=lambda t: t[1]):
        if held is not None and df > 8 * len(held):
            break  # reading a list this much longer costs more than the caller's check of what is left
        ids: set[int] = set()
        for block, data in db.execute_sql("SELECT block, data FROM ix_posting WHERE term_id = ?", (term_id,)).fetchall():
            base = block << BLOCK_BITS
            ids.update(base + offset for offset in _decode(collection, data)[0::2])
        held = ids if held is None else held & ids
        if len(held) < _FEW:
            break
    return sorted(held or ())


def _term_ids(db: Any, collection: str, keys: list[tuple[int, str]]) -> dict[tuple[int, str], tuple[int, int]]:
    """``(part, term) → (id, df)`` for the stored ones among ``keys``."""
    found: dict[tuple[int, str], tuple[int, int]] = {}
    for part in (WORD, CHAR):
        terms = [t for p, t in keys if p == part]
        for start in range(0, len(terms), _CHUNK):
            chunk = terms[start:start + _CHUNK]
            rows = db.execute_sql(f"SELECT term, id, df FROM ix_term WHERE collection = ? AND part = ? "
                                  f"AND term IN ({','.join('?' * len(chunk))})", (collection, part, *chunk)).fetchall()
            found.update(((part, term), (tid, df)) for term, tid, df in rows)
    return found


def _apply_postings(db: Any, collection: str, delta: dict[tuple[int, str], dict[int, int]]) -> None:
    """Apply ``feature → {doc id: tf (0 = remove)}`` to the posting blocks and document frequencies,
    with one read per (block, 500 terms) and batched writes."""
    known = _term_ids(db, collection, list(delta))
    next_id = (db.execute_sql("SELECT MAX(id) FROM ix_term").fetchone()[0] or 0) + 1
    term_of: dict[int, tuple[int, str]] = {}
    df: dict[int, int] = {}
    by_block: dict[int, dict[int, dict[int, int]]] = {}  # block → term id → {doc id: tf}
    for key, edits in delta.items():
        tid, count = known.get(key, (0, 0))
        if not tid:
            if not any(edits.values()):
                continue  # a feature only of removed text that the index never held
            tid, next_id = next_id, next_id + 1
        term_of[tid], df[tid] = key, count
        for doc_id, tf in edits.items():
            by_block.setdefault(doc_id >> BLOCK_BITS, {}).setdefault(tid, {})[doc_id] = tf
    upserts: list[tuple[int, int, bytes]] = []
    deletes: list[tuple[int, int]] = []
    for block, per_term in by_block.items():
        tids = list(per_term)
        stored: dict[int, bytes] = {}
        for start in range(0, len(tids), _CHUNK):
            chunk = tids[start:start + _CHUNK]
            stored.update(db.execute_sql(f"SELECT term_id, data FROM ix_posting WHERE block = ? AND term_id IN "
                                         f"({','.join('?' * len(chunk))})", (block, *chunk)).fetchall())
        base = block << BLOCK_BITS
        for tid, edits in per_term.items():
            flat = _decode(collection, stored[tid]) if tid in stored else array("H")
            pairs = dict(zip(flat[0::2], flat[1::2]))
            for doc_id, tf in edits.items():
                offset = doc_id - base
                had = offset in pairs
                if tf:
                    pairs[offset] = tf
                    df[tid] += 0 if had else 1
                elif had:
                    del pairs[offset]
                    df[tid] -= 1
            if pairs:
                upserts.append((tid, block, _encode(collection, [v for o in sorted(pairs) for v in (o, pairs[o])])))
            elif tid in stored:
                deletes.append((tid, block))
    _executemany(db, "INSERT INTO ix_posting (term_id, block, data) VALUES (?, ?, ?) "
                     "ON CONFLICT (term_id, block) DO UPDATE SET data = excluded.data", upserts)
    _executemany(db, "DELETE FROM ix_posting WHERE term_id = ? AND block = ?", deletes)
    _executemany(db, "INSERT INTO ix_term (id, collection, part, term, df) VALUES (?, ?, ?, ?, ?) "
                     "ON CONFLICT (id) DO UPDATE SET df = excluded.df",
                 [(tid, collection, *term_of[tid], n) for tid, n in df.items() if n > 0])
    _executemany(db, "DELETE FROM ix_term WHERE id = ?", [(tid,) for tid, n in df.items() if n <= 0])


def _stored_records(db: Any, collection: str, block: int) -> tuple[bool, dict[int, tuple[int, ...]]]:
    row = db.execute_sql("SELECT data FROM ix_block WHERE collection = ? AND block = ?",
                         (collection, block)).fetchone()
    return row is not None, (_block_records(collection, row[0]) if row else {})


def _current_links(db: Any, ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """``message id → (previous id, next id)`` now (0: none) of ``ids`` and of every message a
    change to them moves a link of: their neighbours as stored in the index and as they are now."""
    touched = set(ids)
    for block in {i >> BLOCK_BITS for i in ids}:
        base = block << BLOCK_BITS
        records = _stored_records(db, MESSAGE, block)[1]
        touched.update(n for i in ids if (i >> BLOCK_BITS) == block and (i - base) in records
                       for n in records[i - base][2:4] if n)
    now = session_neighbours(db, sorted(touched))
    touched.update(n for pair in now.values() for n in pair if n is not None)
    now = session_neighbours(db, sorted(touched))
    return {i: (p or 0, n or 0) for i, (p, n) in now.items()}


def _apply_blocks(db: Any, collection: str, edits: dict[int, dict[int, tuple[int, int] | None]],
                  links: dict[int, tuple[int, int]]) -> None:
    """Write new lengths (``None``: the document is gone) and, for messages, new session links into
    the ``ix_block`` rows they fall in."""
    blocks = set(edits) | {i >> BLOCK_BITS for i in links}
    for block in blocks:
        had, records = _stored_records(db, collection, block)
        base = block << BLOCK_BITS
        for doc_id, value in edits.get(block, {}).items():
            if value is None:
                records.pop(doc_id - base, None)
            else:
                records[doc_id - base] = (*value, *records.get(doc_id - base, (0, 0, 0, 0))[2:])
        for doc_id, pair in links.items():
            if doc_id >> BLOCK_BITS == block and (doc_id - base) in records:
                records[doc_id - base] = (*records[doc_id - base][:2], *pair)
        if records:
            data = _block_data(collection, records)
            db.execute_sql("INSERT INTO ix_block (collection, block, data) VALUES (?, ?, ?) "
                           "ON CONFLICT (collection, block) DO UPDATE SET data = excluded.data", (collection, block, data))
        elif had:
            db.execute_sql("DELETE FROM ix_block WHERE collection = ? AND block = ?", (collection, block))


def _apply_docs(db: Any, collection: str, changed: list[int], new: dict[int, str]) -> None:
    for start in range(0, len(changed), _CHUNK):
        chunk = changed[start:start + _CHUNK]
        db.execute_sql(f"DELETE FROM ix_doc WHERE collection = ? AND doc_id IN ({','.join('?' * len(chunk))})",
                       (collection, *chunk))
    _executemany(db, "INSERT INTO ix_doc (collection, doc_id, text) VALUES (?, ?, ?)",
                 [(collection, i, new[i]) for i in changed if i in new])


def reindex(db: Any, collection: str = MEMORY, progress: Callable[[int, int], None] | None = None) -> int:
    """``rebuild`` in its own write transaction (``bestie memory reindex``). Returns the documents indexed.

    Raises:
        peewee.OperationalError: the database is read-only or stays locked past the busy timeout.
    """
    with db.atomic():
        return rebuild(db, collection, progress)
