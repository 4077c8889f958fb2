"""Meaning vectors of the memories: one row per memory in ``memory_vector``, written by the store.

=============  ==================================================================================
column         what it holds
=============  ==================================================================================
``memory_id``  the memory (primary key: one model's vector per memory at a time)
``model``      the embedder's ``name`` (``semantic.Embedder``); another name is another space
``dim``        the vector's dimension
``digest``     a digest of the text it was embedded from: an unchanged text is not embedded again
``data``       the vector as little-endian float16 (2 bytes a dimension: 768 bytes for e5-small)
=============  ==================================================================================

An ordinary table with an integer key and a BLOB (PostgreSQL: ``bytea``), created by the schema
migration to version 5. How it stays current: ``MemoryStore.change`` calls ``sync_batch`` before
each write commits — the memories the batch's events name (add, edit, approve, import, undo…) get
their vector when an embedder is loaded (pending and approved ones, in batches of ``BATCH``), and
lose it when none is (their text may have changed: a later search by meaning embeds them again),
or when they are rejected, forgotten or gone. ``rebuild`` (``bestie memory reindex --semantic``)
embeds every pending and approved memory again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from bestie_tui.semantic import Embedder, Resolved, resolve

SCHEMA = ("CREATE TABLE IF NOT EXISTS memory_vector (memory_id INTEGER PRIMARY KEY, model TEXT NOT NULL, "
          "dim INTEGER NOT NULL, digest TEXT NOT NULL, data BLOB NOT NULL)",
          # a request asks whether any vector is of another model: two index range lookups, not a scan
          "CREATE INDEX IF NOT EXISTS memory_vector_model ON memory_vector (model)")
#: Texts embedded per call of the embedder (and rows per write when rebuilding).
BATCH = 64
SETTING = "semantic.model"
_CHUNK = 500  # bound parameters per IN (...)
_UPSERT = ("INSERT INTO memory_vector (memory_id, model, dim, digest, data) VALUES (?, ?, ?, ?, ?) "
           "ON CONFLICT (memory_id) DO UPDATE SET model = excluded.model, dim = excluded.dim, "
           "digest = excluded.digest, data = excluded.data")


def create_tables(db: Any) -> None:
    """Create ``memory_vector`` (idempotent); run by the schema migration."""
    for statement in SCHEMA:
        db.execute_sql(db.table_ddl(statement))


def digest(text: str) -> str:
    """16 hex digits of BLAKE2b over the text: equal digests, same text embedded."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def encode(vector: Any) -> bytes:
    """A float vector as little-endian float16 bytes (numpy)."""
    import numpy as np

    return np.asarray(vector, dtype="<f2").tobytes()


def decode(data: bytes, dim: int) -> Any:
    """float16 bytes back to a float32 numpy vector of ``dim`` values."""
    import numpy as np

    return np.frombuffer(data, dtype="<f2", count=dim).astype(np.float32)


def model_setting(db: Any) -> Any:
    """The stored ``semantic.model`` value (``None``: unset, i.e. ``auto``), read with plain SQL."""
    import json

    row = db.execute_sql("SELECT value FROM setting WHERE key = ?", (SETTING,)).fetchone()
    return json.loads(row[0]) if row else None


def current(db: Any) -> Resolved:
    """The embedder the database's ``semantic.model`` names (``semantic.resolve``)."""
    return resolve(model_setting(db))


def sync_batch(db: Any, batch: str) -> None:
    """Bring the vectors of the memories named by the events of ``batch`` up to date (inside the
    write's transaction). Without an embedder their vectors are dropped instead."""
    ids = [int(r[0]) for r in db.execute_sql(
        "SELECT DISTINCT memory_id FROM event WHERE batch = ? AND memory_id IS NOT NULL", (batch,))]
    if ids:
        write(db, ids, current(db).embedder)


def write(db: Any, ids: Sequence[int], embedder: Embedder | None) -> int:
    """Embed the pending and approved memories among ``ids`` whose text or model changed, and drop
    the vectors of the others. Returns how many texts were embedded."""
    rows: list[tuple[int, str]] = []
    for start in range(0, len(ids), _CHUNK):
        part = list(ids[start:start + _CHUNK])
        marks = ",".join("?" * len(part))
        rows += [(int(i), t) for i, t in db.execute_sql(
            f"SELECT id, text FROM memory WHERE status IN ('pending', 'approved') AND id IN ({marks})", part)]
    keep = {i for i, _ in rows}
    drop = [i for i in ids if i not in keep] if embedder is not None else list(ids)
    for start in range(0, len(drop), _CHUNK):
        part = drop[start:start + _CHUNK]
        db.execute_sql(f"DELETE FROM memory_vector WHERE memory_id IN ({','.join('?' * len(part))})", part)
    if embedder is None or not rows:
        return 0
    have: dict[int, tuple[str, str]] = {}
    for start in range(0, len(rows), _CHUNK):
        part = [i for i, _ in rows[start:start + _CHUNK]]
        have.update((int(i), (m, d)) for i, m, d in db.execute_sql(
            f"SELECT memory_id, model, digest FROM memory_vector WHERE memory_id IN ({','.join('?' * len(part))})", part))
    todo = [(i, t) for i, t in rows if have.get(i) != (embedder.name, digest(t))]
    for start in range(0, len(todo), BATCH):
        store_vectors(db, todo[start:start + BATCH], embedder)
    return len(todo)


def store_vectors(db: Any, rows: Sequence[tuple[int, str]], embedder: Embedder) -> Any:
    """Embed ``rows`` (memory id, text) in one call and upsert their vectors; returns the float32
    matrix (one row per input)."""
    vectors = embedder([t for _, t in rows], query=False)
    db.run_many(_UPSERT, [(i, embedder.name, int(embedder.dim), digest(t), encode(v))
                          for (i, t), v in zip(rows, vectors)])
    return vectors


def rebuild(db: Any, embedder: Embedder, progress: Callable[[int, int], None] | None = None) -> int:
    """Embed every pending and approved memory again with ``embedder`` (``reindex --semantic``), in
    short transactions of ``BATCH`` memories so writers are never held up long; the vectors of other
    memories and other models are dropped. ``progress(done, total)`` after each batch. Returns the
    number of memories embedded."""
    ids = [int(r[0]) for r in db.execute_sql(
        "SELECT id FROM memory WHERE status IN ('pending', 'approved') ORDER BY id")]
    total = len(ids)
    if progress is not None:
        progress(0, total)
    for start in range(0, total, BATCH):
        part = ids[start:start + BATCH]
        with db.atomic():
            marks = ",".join("?" * len(part))
            rows = [(int(i), t) for i, t in db.execute_sql(
                f"SELECT id, text FROM memory WHERE status IN ('pending', 'approved') AND id IN ({marks})", part)]
            if rows:
                store_vectors(db, rows, embedder)
        if progress is not None:
            progress(min(start + BATCH, total), total)
    with db.atomic():
        db.execute_sql("DELETE FROM memory_vector WHERE model <> ? OR memory_id NOT IN "
                       "(SELECT id FROM memory WHERE status IN ('pending', 'approved'))", (embedder.name,))
    return total


def load(db: Any, model: str) -> tuple[Any, Any]:
    """Every stored vector of ``model`` whose memory is approved: ``(ids, matrix)`` — int64 ids
    ascending and a float32 ``(n, dim)`` matrix in the same order (rows L2-normalised again, since
    float16 rounding moves the norm slightly)."""
    import numpy as np

    rows = db.execute_sql(
        "SELECT v.memory_id, v.dim, v.data FROM memory_vector v JOIN memory m ON m.id = v.memory_id "
        "WHERE v.model = ? AND m.status = 'approved' ORDER BY v.memory_id", (model,)).fetchall()
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
    dim = int(rows[0][1])
    ids = np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(bytes(r[2]) for r in rows), dtype="<f2").reshape(len(rows), dim).astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix /= np.where(norms > 0, norms, 1.0)
    return ids, matrix


def has_model(db: Any, model: str) -> bool:
    """Whether any memory holds a vector of ``model`` (one indexed lookup)."""
    return db.execute_sql("SELECT 1 FROM memory_vector WHERE model = ? LIMIT 1", (model,)).fetchone() is not None


def other_models(db: Any, model: str) -> dict[str, int]:
    """Models other than ``model`` that stored vectors come from → how many (a changed model). One
    indexed lookup when there are none (every request asks)."""
    if db.execute_sql("SELECT 1 FROM memory_vector WHERE model < ? OR model > ? LIMIT 1", (model, model)).fetchone() is None:
        return {}
    return {str(m): int(n) for m, n in db.execute_sql(
        "SELECT model, COUNT(*) FROM memory_vector WHERE model <> ? GROUP BY model", (model,))}


def drop_orphans(db: Any) -> None:
    """Delete the vectors of memories that no longer exist (an erase or a clear)."""
    db.execute_sql("DELETE FROM memory_vector WHERE memory_id NOT IN (SELECT id FROM memory)")
