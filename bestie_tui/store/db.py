"""Opening a database file: pragmas, schema version, refusing newer or foreign files.

A bestie database is marked with ``PRAGMA application_id = APPLICATION_ID`` and carries its schema
version in ``PRAGMA user_version``. ``open_database`` creates a new file, migrates an older one, and
refuses (without writing a byte) a file from a newer bestie, a non-SQLite file, or a SQLite file
that already holds someone else's tables.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from peewee import OperationalError, SqliteDatabase, TextField
from playhouse.migrate import SqliteMigrator, migrate

from bestie_tui.errors import SchemaError, StorageError
from bestie_tui.paths import create_private_file, make_private_dirs
from bestie_tui.store.binding import binding
from bestie_tui.store.models import ALL_MODELS, Event

APPLICATION_ID = 0x42535449  # "BSTI"
#: 1: the first schema. 2: ``event.origin``. 3: ``memory.about`` (who a statement about someone
#: else is about). 4: the persisted search index (``doc_index``: ix_meta, ix_term, ix_posting,
#: ix_block, ix_doc).
SCHEMA_VERSION = 4
BUSY_TIMEOUT_MS = 5000
PRAGMAS = {
    "journal_mode": "wal",
    "busy_timeout": BUSY_TIMEOUT_MS,
    "foreign_keys": 1,
    "synchronous": "normal",
}


SQLITE_MAGIC = b"SQLite format 3\x00"


def read_header(path: Path) -> tuple[int, int] | None:
    """``(user_version, application_id)`` from the 100-byte SQLite header of ``path``, or ``None`` for
    an empty file. Reads bytes only: no SQLite connection, so no ``-wal``/``-shm`` file is created.

    Raises:
        SchemaError: the file is not empty and not a SQLite database.
        StorageError: the file cannot be read.
    """
    try:
        with open(path, "rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not header:
        return None
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise SchemaError(f"{path} is not a SQLite database; refusing to open it")
    user_version = int.from_bytes(header[60:64], "big", signed=True)
    application_id = int.from_bytes(header[68:72], "big", signed=True)
    return user_version, application_id


def _has_schema_objects(path: Path) -> bool:
    # immutable=1: read without locks or shared memory, so nothing is written beside the file.
    uri = f"file:{path.resolve().as_posix()}?mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True)
        try:
            return conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise SchemaError(f"{path} is a damaged SQLite database ({exc}); refusing to open it") from exc


def check_file(path: Path) -> None:
    """Raise unless ``path`` is missing, empty, an empty SQLite file, or a bestie database this
    version can open. Never writes to the file.

    Raises:
        SchemaError: not SQLite, someone else's SQLite file, a newer or invalid bestie schema.
        StorageError: the file cannot be read.
    """
    if not path.exists():
        return
    if path.is_dir():
        raise StorageError(f"{path} is a directory, not a database file")
    header = read_header(path)
    if header is None:
        return
    version, app_id = header
    if app_id == 0 and version == 0 and not _has_schema_objects(path):
        return  # an empty SQLite database: ours to initialise
    if app_id != APPLICATION_ID:
        raise SchemaError(f"{path} is a SQLite database but not a bestie memory database; refusing to touch it")
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"{path} was written by a newer bestie (schema {version}, this program knows {SCHEMA_VERSION}); "
            "upgrade bestie-tui to open it"
        )
    if version < 1:
        raise SchemaError(f"{path} carries an invalid bestie schema version ({version}); refusing to touch it")


def open_database(path: str | Path, *, create_dirs: bool = True) -> SqliteDatabase:
    """Open (creating or migrating) the bestie database at ``path``. The models talk to it only
    where it is bound (``store.binding``): the caller's store binds it for each of its methods.

    Args:
        path: the database file.
        create_dirs: create missing parent directories (the default data dir); when False a missing
            directory is an error, so a mistyped ``--db`` does not silently start a new database.

    Returns:
        The connected ``SqliteDatabase`` (WAL mode, busy timeout 5000 ms, IMMEDIATE write transactions).

    Raises:
        SchemaError: newer schema or foreign file; the file is left untouched.
        StorageError: the directory or file cannot be created, opened or read.
    """
    path = Path(path).expanduser()
    check_file(path)
    if not path.parent.exists():
        if not create_dirs:
            raise StorageError(f"directory {path.parent} does not exist (is the --db path right?)")
        try:
            make_private_dirs(path.parent)
        except OSError as exc:
            raise StorageError(f"cannot create {path.parent}: {exc.strerror or exc}") from exc
    if not path.exists():
        # A new database is the owner's alone (0600): SQLite gives its -wal and -shm files the
        # database's own mode, so they are private too.
        try:
            create_private_file(path)
        except FileExistsError:
            pass  # another process created it first
        except OSError as exc:
            raise StorageError(f"cannot create {path}: {exc.strerror or exc}") from exc
    # IMMEDIATE: a write transaction takes the write lock when it begins, so two writers queue on the
    # busy timeout instead of failing half-way when a read lock cannot be upgraded.
    db = SqliteDatabase(str(path), pragmas=PRAGMAS, timeout=BUSY_TIMEOUT_MS / 1000, lock_type="IMMEDIATE")
    try:
        db.connect(reuse_if_open=True)
        version = db.execute_sql("PRAGMA user_version").fetchone()[0]
        if version < SCHEMA_VERSION:
            with binding(db):
                _migrate(db, version)
        planner_statistics(db)
    except OperationalError as exc:
        db.close()
        raise StorageError(f"cannot open {path}: {exc}") from exc
    return db


def _migrate(db: SqliteDatabase, from_version: int) -> None:
    """Bring a schema from ``from_version`` to ``SCHEMA_VERSION``. Version 0 is a new file.

    Steps: 1 → 2 adds ``event.origin`` (the store session that made a change; console undo);
    2 → 3 adds ``memory.about`` (older rows are about the owner: it starts NULL); 3 → 4 adds the
    search index tables (``doc_index``): a new file gets its (empty) index now, an older one is
    indexed on first use or by ``bestie memory reindex`` (a large file takes a while, and opening it
    should not).
    """
    from bestie_tui.store import doc_index

    with db.atomic():
        if from_version == 0:
            db.create_tables(ALL_MODELS)
        else:
            migrator = SqliteMigrator(db)
            if from_version < 2:
                migrate(migrator.add_column("event", "origin", Event.origin))  # and its index
            if from_version < 3:
                migrate(migrator.add_column("memory", "about", TextField(null=True)))
        if from_version < 4:
            doc_index.create_tables(db)
            if from_version == 0:
                doc_index.rebuild(db)
        db.execute_sql(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")


#: Rows ``ANALYZE`` samples per index (``PRAGMA analysis_limit``): enough for the planner's choice,
#: and a few milliseconds even at a million rows.
ANALYSIS_LIMIT = 1000


#: Below this many memories the planner needs no statistics: opening such a file writes nothing.
STATISTICS_MIN_ROWS = 2000


def planner_statistics(db: SqliteDatabase, *, refresh: bool = False) -> None:
    """Give SQLite's query planner statistics of the ``memory`` table (``ANALYZE`` with
    ``ANALYSIS_LIMIT``) when it has none, when the table grew past four times the rows they were
    taken from (judged by the largest id, an index lookup), or always with ``refresh`` (after a
    bulk change, e.g. a search index rebuild). Without them the planner walks the ``status``/``layer``
    index over every approved row to find one user's few records (9 ms instead of 0.3 ms at 10,000
    memories). A read-only or busy file is left as it is."""
    try:
        if not refresh:
            has_table = db.execute_sql("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone()
            row = db.execute_sql("SELECT stat FROM sqlite_stat1 WHERE tbl = 'memory' LIMIT 1").fetchone() \
                if has_table else None
            rows = int(str(row[0]).split()[0]) if row and str(row[0]).split()[0].isdigit() else None
            largest = db.execute_sql("SELECT MAX(id) FROM memory").fetchone()[0] or 0
            if rows is not None and largest <= 4 * rows + 100:
                return
            if rows is None and largest < STATISTICS_MIN_ROWS:
                return  # a small table plans well without them, and a read leaves its file as it was
        db.execute_sql(f"PRAGMA analysis_limit = {ANALYSIS_LIMIT}")
        db.execute_sql("ANALYZE memory")
    except OperationalError:
        pass


def backup_database(db: SqliteDatabase, target: Path) -> Path:
    """Write a consistent copy of ``db`` to ``target`` with ``VACUUM INTO`` (safe with WAL).

    The copy is written under a temporary name (mode 0600, in a 0700 directory when it is created)
    and renamed to ``target`` only when complete: a kill half-way never leaves a file that looks like
    a real backup. Returns the target path. Raises ``FileExistsError`` if it exists.
    """
    target = Path(target)
    if target.exists():
        raise FileExistsError(target)
    make_private_dirs(target.parent)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    partial.unlink(missing_ok=True)
    try:
        create_private_file(partial)  # VACUUM INTO accepts an empty file
        db.execute_sql("VACUUM INTO ?", (str(partial),))
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target
