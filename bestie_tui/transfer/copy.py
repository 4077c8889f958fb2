"""Copy a whole bestie database into an empty one on the same or the other engine (``bestie memory
copy --to URL``): a SQLite file to a PostgreSQL server, or back.

Unlike an export and import, which pass each memory through the write gate and give the events new
ids after the import's own batch, the copy moves every row of every table as it is — memories with
their ids, messages, the event log (so ``undo`` and ``history`` go on where they were), settings,
hygiene snapshots, meaning vectors and the search index — and then checks the target holds as many
rows of each table as the source did.

The source is read in one snapshot; the target is written in one transaction, in chunks of
``CHUNK`` rows with a progress callback, so a copy that fails or is killed leaves the target as empty
as it was. A target that already holds memories, messages, events, settings or vectors is refused.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from peewee import Database

from bestie_tui.errors import InvalidValueError, StorageError
from bestie_tui.store.db import display_location, is_postgres, open_database, planner_statistics, sync_sequences

#: Rows written per statement batch (and between two progress calls).
CHUNK = 2000
#: Tables that hold the owner's data: the target must have no row in any of them.
DATA_TABLES = ("memory", "message", "event", "setting", "hygiene_snapshot", "memory_vector")
#: What a new database holds of its own accord (the empty search index's rows): replaced by the source's.
DERIVED_TABLES = ("ix_meta", "ix_term", "ix_posting", "ix_block", "ix_doc")
#: Engine bookkeeping, never copied: each database keeps its own.
_SKIPPED = ("bestie_schema",)


@dataclass
class CopyResult:
    """What a copy moved: ``rows`` per table (each checked equal in the target), and where to."""

    target: str
    rows: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "rows": dict(self.rows), "verified": True}


def copy_database(source: Database, to: str | Path, *, progress: Callable[[int, int], None] | None = None,
                  chunk: int = CHUNK) -> CopyResult:
    """Copy every row of ``source`` (an open bestie database) into the empty bestie database at
    ``to`` (a SQLite file, created when missing, or a ``postgresql://`` URL), ids kept.

    Args:
        source: the database to read (one read snapshot; nothing in it changes).
        to: the target location.
        progress: ``progress(rows_done, rows_total)`` after each chunk written.
        chunk: rows per chunk.

    Returns:
        ``CopyResult`` with the rows of each table, counted again in the target after the commit.

    Raises:
        InvalidValueError: the target is not empty, or a text holds a NUL character (U+0000; no
            bestie stores one now, an older SQLite file might) — nothing is written.
        SchemaError, StorageError: the target cannot be opened, created or written, or holds other
            tables; or the counts differ after the copy.
    """
    from bestie_tui.text.words import printable

    target = open_database(to, create_dirs=False)
    shown = printable(display_location(to))
    try:
        _refuse_non_empty(target, shown)
        with source.transaction(lock_type="DEFERRED"):  # one snapshot of the source
            tables = [t for t in _tables(source) if t in set(_tables(target)) and t not in _SKIPPED]
            counts = {t: _count(source, t) for t in tables}
            total, done = sum(counts.values()), 0
            with target.atomic():
                for table in DERIVED_TABLES:
                    if table in tables:
                        target.execute_sql(f"DELETE FROM {table}")
                for table in tables:
                    for rows, columns in _read(source, table, chunk):
                        _check_nul(table, columns, rows)
                        _write(target, table, columns, rows)
                        done += len(rows)
                        if progress is not None:
                            progress(done, total)
                sync_sequences(target)
        planner_statistics(target, refresh=True)
        result = CopyResult(shown)
        for table in tables:
            copied = _count(target, table)
            if copied != counts[table]:
                raise StorageError(f"the copy in {shown} holds {copied:,} rows of {table}, the source "
                                   f"{counts[table]:,}; do not use it (copy again into an empty database)")
            result.rows[table] = copied
        return result
    finally:
        target.close()


def sqlite_companions(path: Path) -> list[Path]:
    """The files SQLite keeps beside the database ``path`` (``-wal``, ``-shm``, ``-journal``): a copy
    written to one of them is deleted by SQLite when the source is next opened or closed."""
    return [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal")]


def check_file_target(to: str) -> None:
    """Refuse a ``--to`` file path that cannot become a SQLite database, before anything opens it.

    Raises:
        InvalidValueError: ``to`` ends with a slash (a directory's name), its folder does not exist,
            or it exists and is not a regular file (a directory, ``/dev/null``, a FIFO — which
            opening would wait on for ever — or another device). Nothing is created.
    """
    from bestie_tui.text.words import printable

    shown = printable(to).replace("\t", "\\t").replace("\n", "\\n")
    if to.endswith(("/", os.sep)):
        raise InvalidValueError(f"--to {shown} ends with a slash, so it names a folder; give the SQLite file "
                                "to copy into (nothing was copied)")
    path = Path(to).expanduser()
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if not path.parent.is_dir():
            raise InvalidValueError(f"the folder of --to {shown} does not exist; nothing was copied "
                                    "(is the --to path right?)") from None
        return
    except OSError as exc:  # ENAMETOOLONG, ENOTDIR (a file where a folder should be), EACCES
        raise InvalidValueError(f"cannot use --to {shown}: {exc.strerror or exc}; nothing was copied") from None
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a pipe" if stat.S_ISFIFO(mode) else "not a regular file"
        raise InvalidValueError(f"--to {shown} is {kind}; give a SQLite file to copy into (nothing was copied)")


def _tables(db: Database) -> list[str]:
    """The tables of ``db``'s schema (SQLite's own ``sqlite_*`` left out), in a stable order."""
    if is_postgres(db):
        rows = db.execute_sql("SELECT table_name FROM information_schema.tables "
                              "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'").fetchall()
    else:
        rows = db.execute_sql("SELECT name FROM sqlite_master WHERE type = 'table' "
                              "AND name NOT LIKE 'sqlite_%'").fetchall()
    return sorted(name for (name,) in rows)


def _count(db: Database, table: str) -> int:
    return int(db.execute_sql(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0])


def _refuse_non_empty(target: Database, shown: str) -> None:
    present = set(_tables(target))
    held = {t: n for t in DATA_TABLES if t in present and (n := _count(target, t))}
    if held:
        what = ", ".join(f"{n:,} {t.replace('_', ' ')} rows" for t, n in held.items())
        raise InvalidValueError(f"{shown} is not empty ({what}); a copy goes only into an empty database, "
                                "so nothing was copied")


def _read(db: Database, table: str, chunk: int) -> Iterator[tuple[list[tuple], list[str]]]:
    """The rows of ``table`` in chunks, with the column names."""
    cursor = db.execute_sql(f'SELECT * FROM "{table}"')
    columns = [d[0] for d in cursor.description]
    while rows := cursor.fetchmany(chunk):
        yield [tuple(r) for r in rows], columns


def _check_nul(table: str, columns: list[str], rows: list[tuple]) -> None:
    for row in rows:
        for column, value in zip(columns, row):
            if isinstance(value, str) and "\x00" in value:
                where = _owner_words(table, dict(zip(columns, row)))
                raise InvalidValueError(f"{where} holds a NUL character (U+0000) in its {column}, which bestie "
                                        "no longer stores; nothing was copied (edit or forget it, then copy again)")


def _owner_words(table: str, row: dict[str, Any]) -> str:
    """Which memory, message, event or setting a row of ``table`` belongs to, in the owner's words
    (the search index's and meaning vectors' tables name the record they were made from)."""
    import json

    if table == "ix_doc":
        return f"{row.get('collection')} #{row.get('doc_id')} (its text in the search index)"
    if table == "memory_vector":
        return f"memory #{row.get('memory_id')} (its meaning vector)"
    if table == "setting":
        return "the setting " + json.dumps(str(row.get("key")), ensure_ascii=True)
    if table.startswith("ix_"):
        return f"the search index of the {row.get('collection', 'memory')} records (rebuild it: bestie memory reindex)"
    name = table.replace("_", " ")
    return f"{name} #{row['id']}" if "id" in row else f"a {name}"


def _write(target: Database, table: str, columns: list[str], rows: list[tuple]) -> None:
    convert = _converters(target, table, columns)
    if any(convert):
        rows = [tuple(f(v) if f is not None and v is not None else v for f, v in zip(convert, row)) for row in rows]
    names = ", ".join(f'"{c}"' for c in columns)
    target.run_many(f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})',  # type: ignore[attr-defined]
                    rows)


def _converters(target: Database, table: str, columns: list[str]) -> list[Callable[[Any], Any] | None]:
    """Per column, how a value read from the other engine is written to ``target``: SQLite keeps
    booleans as 0/1 (PostgreSQL's ``boolean`` wants ``True``/``False``); PostgreSQL returns
    timestamps as ``datetime`` (SQLite keeps Peewee's ``YYYY-MM-DD HH:MM:SS[.ffffff]`` text)."""
    if is_postgres(target):
        kinds = dict(target.execute_sql("SELECT column_name, data_type FROM information_schema.columns "
                                        "WHERE table_schema = current_schema() AND table_name = ?", (table,)).fetchall())
        return [bool if kinds.get(c) == "boolean" else None for c in columns]
    return [_sqlite_value for _ in columns]


def _sqlite_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat(" ")
    if isinstance(value, memoryview):
        return bytes(value)
    return value
