"""Opening a database file: pragmas, schema version, refusing newer or foreign files.

A bestie database is marked with ``PRAGMA application_id = APPLICATION_ID`` and carries its schema
version in ``PRAGMA user_version``. ``open_database`` creates a new file, migrates an older one, and
refuses (without writing a byte) a file from a newer bestie, a non-SQLite file, or a SQLite file
that already holds someone else's tables.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from peewee import SqliteDatabase

from .errors import SchemaError
from .models import ALL_MODELS, database_proxy

APPLICATION_ID = 0x42535449  # "BSTI"
SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 5000
PRAGMAS = {
    "journal_mode": "wal",
    "busy_timeout": BUSY_TIMEOUT_MS,
    "foreign_keys": 1,
    "synchronous": "normal",
}


def inspect_file(path: Path) -> tuple[int, int, bool]:
    """Read ``(application_id, user_version, has_tables)`` of an existing file, read-only.

    Raises:
        SchemaError: the file is not a SQLite database.
    """
    uri = f"file:{path.resolve().as_posix()}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise SchemaError(f"{path} is not a SQLite database; refusing to open it") from exc
    return app_id, version, tables > 0


def check_file(path: Path) -> None:
    """Raise ``SchemaError`` if ``path`` exists and is not a bestie database this version can open."""
    if not path.exists() or path.stat().st_size == 0:
        return
    app_id, version, has_tables = inspect_file(path)
    if app_id == 0 and not has_tables:
        return  # an empty SQLite file: ours to initialise
    if app_id != APPLICATION_ID:
        raise SchemaError(f"{path} is a SQLite database but not a bestie memory database; refusing to touch it")
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"{path} was written by a newer bestie (schema {version}, this program knows {SCHEMA_VERSION}); "
            "upgrade bestie-tui to open it"
        )


def open_database(path: str | Path) -> SqliteDatabase:
    """Open (creating or migrating) the bestie database at ``path`` and bind the models to it.

    Returns:
        The connected ``SqliteDatabase`` (WAL mode, busy timeout 5000 ms).

    Raises:
        SchemaError: newer schema or foreign file; the file is left untouched.
    """
    path = Path(path).expanduser()
    check_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = SqliteDatabase(str(path), pragmas=PRAGMAS, timeout=BUSY_TIMEOUT_MS / 1000)
    database_proxy.initialize(db)
    db.connect(reuse_if_open=True)
    version = db.execute_sql("PRAGMA user_version").fetchone()[0]
    if version < SCHEMA_VERSION:
        _migrate(db, version)
    return db


def _migrate(db: SqliteDatabase, from_version: int) -> None:
    """Bring a schema from ``from_version`` to ``SCHEMA_VERSION``. Version 0 is a new file."""
    with db.atomic():
        if from_version == 0:
            db.create_tables(ALL_MODELS)
        # Later versions add steps here with playhouse.migrate, one per version.
        db.execute_sql(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")


def backup_database(db: SqliteDatabase, target: Path) -> Path:
    """Write a consistent copy of ``db`` to ``target`` with ``VACUUM INTO`` (safe with WAL).

    Returns the target path. Raises ``FileExistsError`` if it exists.
    """
    target = Path(target)
    if target.exists():
        raise FileExistsError(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    db.execute_sql("VACUUM INTO ?", (str(target),))
    return target
