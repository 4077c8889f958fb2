"""Bulk writes in bounded chunks that stay all-or-nothing for the owner.

An import of 100,000 records is committed in chunks of ``CHUNK`` rows, so no single transaction
holds the write lock for long and a large file never waits minutes on one commit. Every chunk
carries the same event batch id, so ``undo`` reverts the whole import as one step. The first chunk
writes the mark ``MARK`` (an internal setting naming the batch, the process id and the host) and
the last chunk removes it, inside their own transactions. A process killed between two chunks
leaves the mark behind: the next store opened on that database (``recover``) sees that its process
is gone and removes every row the batch wrote — memories, messages, their events and index
entries — so a killed import leaves nothing half-done.

``Progress`` is the line an import prints on a terminal: done of total, the rate and the time left.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, TextIO

#: The internal setting an unfinished bulk write leaves (its batch, process id and host).
MARK = "import.unfinished"
#: Rows (memories or messages) per committed chunk.
CHUNK = 2000
#: The batches this process is writing now (another store of this process must not roll them back).
_ACTIVE: set[str] = set()


def open_mark(db: Any, batch: str) -> None:
    """Write the mark of the bulk write ``batch`` inside the caller's transaction (its first chunk)."""
    import socket

    _ACTIVE.add(batch)
    value = json.dumps({"batch": batch, "pid": os.getpid(), "host": socket.gethostname()})
    db.execute_sql("DELETE FROM setting WHERE key = ?", (MARK,))
    db.execute_sql("INSERT INTO setting (key, value) VALUES (?, ?)", (MARK, value))


def close_mark(db: Any, batch: str | None = None) -> None:
    """Remove the mark inside the caller's transaction (the bulk write ``batch``'s last chunk)."""
    _ACTIVE.discard(batch or "")
    db.execute_sql("DELETE FROM setting WHERE key = ?", (MARK,))


def read_mark(db: Any) -> dict[str, Any] | None:
    """The mark an unfinished bulk write left, or ``None``."""
    row = db.execute_sql("SELECT value FROM setting WHERE key = ?", (MARK,)).fetchone()
    if row is None:
        return None
    try:
        value = json.loads(row[0])
    except ValueError:
        return {"batch": None}
    return value if isinstance(value, dict) else {"batch": None}


def _alive(mark: dict[str, Any]) -> bool:
    """Whether the process that wrote ``mark`` may still be writing (another host: assumed so)."""
    import socket

    if mark.get("host") != socket.gethostname():
        return True
    pid = mark.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    if pid == os.getpid():
        return mark.get("batch") in _ACTIVE  # this process: alive while its import runs
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover(db: Any) -> int:
    """Roll back a bulk write whose process died between chunks: remove every memory, message,
    event and index entry its batch wrote, and the mark. One indexed read when there is none.

    Returns:
        The number of rows removed (0 when there was nothing to roll back, or the writer still runs).
    """
    try:
        mark = read_mark(db)
    except Exception:  # noqa: BLE001  (a database without the setting table yet, or read-only)
        return 0
    if mark is None or _alive(mark):
        return 0
    try:
        return _roll_back(db, mark.get("batch"))
    except Exception:  # noqa: BLE001  (read-only, busy: the next writer's open tries again)
        return 0


def _roll_back(db: Any, batch: Any) -> int:
    from bestie_tui.store import doc_index
    from bestie_tui.store.history.undo import IMPORTED_MESSAGES

    removed = 0
    with db.atomic():
        if isinstance(batch, str):
            memory_ids = [int(i) for (i,) in db.execute_sql(
                "SELECT DISTINCT memory_id FROM event WHERE batch = ? AND memory_id IS NOT NULL", (batch,))]
            message_ids: list[int] = []
            for (after,) in db.execute_sql("SELECT after FROM event WHERE batch = ? AND memory_id IS NULL", (batch,)):
                held = json.loads(after).get(IMPORTED_MESSAGES) if after else None
                message_ids += [int(i) for i in held or ()]
            around = doc_index.neighbours_outside(db, message_ids) if message_ids else []
            for table, ids in (("memory", memory_ids), ("message", message_ids)):
                for start in range(0, len(ids), 500):
                    part = ids[start:start + 500]
                    cursor = db.execute_sql(f"DELETE FROM {table} WHERE id IN ({','.join('?' * len(part))})", part)
                    removed += max(cursor.rowcount, 0)
            db.execute_sql("DELETE FROM event WHERE batch = ?", (batch,))
            if memory_ids:
                from bestie_tui.store import vectors

                vectors.write(db, memory_ids, None)  # no embedder: their vectors are dropped
                doc_index.drop_documents(db, memory_ids, doc_index.MEMORY)
            if message_ids:
                doc_index.drop_documents(db, message_ids + around, doc_index.MESSAGE)
        close_mark(db)
    return removed


def sync_vectors(db: Any, batch: str, since: int) -> None:
    """The meaning vectors of one chunk of ``batch``, inside the chunk's transaction: those of the
    memories its events after event id ``since`` name are dropped (each chunk reads its own rows,
    not the whole batch again). ``embed`` writes them after the chunk commits: embedding 2,000
    memories takes about a minute with a small model, which the write lock must not wait for."""
    from bestie_tui.store import vectors

    ids = [int(r[0]) for r in db.execute_sql(
        "SELECT DISTINCT memory_id FROM event WHERE id > ? AND batch = ? AND memory_id IS NOT NULL", (since, batch))]
    if ids:
        vectors.write(db, ids, None)


def embedder(db: Any) -> Any:
    """The embedder of ``db``'s ``semantic.model`` (``vectors.current``), or ``None`` (words only)."""
    from bestie_tui.store import vectors

    return vectors.current(db).embedder


def embed(db: Any, ids: list[int], model: Any) -> int:
    """Embed the memories ``ids`` a committed chunk wrote with ``model`` (an embedder), outside any
    transaction, in batches of ``vectors.BATCH``; then write their vectors in one short transaction
    (``vectors.write``: a text changed meanwhile is embedded again there). Returns the vectors written."""
    from bestie_tui.store import vectors

    texts: list[str] = []
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        texts += [t for (t,) in db.execute_sql(
            f"SELECT text FROM memory WHERE status IN ('pending', 'approved') AND id IN ({','.join('?' * len(part))})",
            part)]
    made: dict[str, Any] = {}
    for start in range(0, len(texts), vectors.BATCH):
        batch = texts[start:start + vectors.BATCH]
        made.update(zip(batch, model(batch, query=False)))
    with db.atomic():
        return vectors.write(db, ids, _Made(model, made))


class _Made:
    """An embedder that answers with the vectors already made for a text (``embed``), and asks
    ``model`` for any other."""

    def __init__(self, model: Any, made: dict[str, Any]):
        self.model, self.made = model, made
        self.name, self.dim = model.name, model.dim
        self.floor, self.related = model.floor, model.related

    def __call__(self, texts: Any, *, query: bool = False) -> list[Any]:
        missing = [t for t in texts if t not in self.made or query]
        fresh = dict(zip(missing, self.model(missing, query=query))) if missing else {}
        return [fresh[t] if t in fresh else self.made[t] for t in texts]


def abandon(db: Any, batch: str) -> int:
    """Roll back the chunks ``batch`` committed so far, now: the bulk write failed or was interrupted
    in this process (a storage error, Ctrl-C). Returns the rows removed; 0 when the mark is not
    ``batch``'s (the write had not committed a chunk, or had finished)."""
    _ACTIVE.discard(batch)
    mark = read_mark(db)
    if mark is None or mark.get("batch") != batch:
        return 0
    try:
        return _roll_back(db, batch)
    except Exception:  # noqa: BLE001  (the database is failing: the next open tries again)
        return 0


def running(db: Any) -> bool:
    """Whether another live process is in the middle of a bulk write on ``db``."""
    mark = read_mark(db)
    return mark is not None and _alive(mark)


class Progress:
    """One stderr line, redrawn: ``importing memories 12,000 of 100,000 · 6,200/s · 14 s left``.

    Draws only on a terminal (``stream.isatty()``) and at most ten times a second; ``done()`` ends
    the line. ``Progress.off()`` draws nothing (``--quiet``, a pipe, a script).
    """

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(self.stream.isatty()) if enabled is None else enabled
        self.started = time.monotonic()
        self.last = 0.0
        self.drawn = False
        self.what = ""

    @classmethod
    def off(cls) -> Progress:
        return cls(enabled=False)

    def __call__(self, what: str, done: int, total: int) -> None:
        """Show that ``done`` of ``total`` ``what`` (memories, messages) are in."""
        if not self.enabled:
            return
        if what != self.what:  # the next kind of row: a line and a clock of its own
            self.finish()
            self.what, self.started, self.last = what, time.monotonic(), 0.0
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        elapsed = max(now - self.started, 1e-6)
        rate = done / elapsed
        left = (total - done) / rate if rate > 0 else 0.0
        width = 24
        filled = int(width * done / total) if total else width
        line = (f"importing {what} [{'#' * filled}{'-' * (width - filled)}] {done:,} of {total:,}"
                f" · {rate:,.0f}/s · {left:,.0f} s left")
        self.stream.write("\r" + line + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def finish(self) -> None:
        """End the line (nothing when nothing was drawn)."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
