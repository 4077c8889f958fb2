"""Opening a database — a SQLite file or a PostgreSQL server — and every construct that differs
between the two engines: the rest of the code is engine-neutral and calls the helpers here.

SQLite (the embedded default): a bestie file is marked with ``PRAGMA application_id =
APPLICATION_ID`` and carries its schema version in ``PRAGMA user_version``. ``open_database``
creates a new file, migrates an older one, and refuses (without writing a byte) a file from a newer
bestie, a non-SQLite file, or a SQLite file that already holds someone else's tables.

PostgreSQL (``postgresql://user@host/dbname``, for a hosted Bestie with many users): the version is
the ``bestie_schema`` table of the connection's schema; a schema with other tables and no such row
is someone else's and is refused, a newer version too. ``PostgresDatabase`` takes the same ``?``
placeholders as SQLite, holds ids as 64-bit integers, returns ``bytea`` as ``bytes``, and begins
each write transaction with an advisory lock (the counterpart of SQLite's ``BEGIN IMMEDIATE``).
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import peewee
from peewee import Database, OperationalError, PostgresqlDatabase, SqliteDatabase, TextField
from playhouse.migrate import PostgresqlMigrator, SqliteMigrator, migrate

from bestie_tui.errors import InvalidValueError, SchemaError, StorageError
from bestie_tui.paths import create_private_file, is_database_url, make_private_dirs
from bestie_tui.store.binding import binding
from bestie_tui.store.dialect import is_postgres, json_text  # noqa: F401  (re-exported: the engine's SQL spellings)
from bestie_tui.store.models import ALL_MODELS, Event

APPLICATION_ID = 0x42535449  # "BSTI"
#: 1: the first schema. 2: ``event.origin``. 3: ``memory.about`` (who a statement about someone
#: else is about). 4: the persisted search index (``doc_index``: ix_meta, ix_term, ix_posting,
#: ix_block, ix_doc). 5: meaning vectors (``vectors``: memory_vector).
SCHEMA_VERSION = 5
BUSY_TIMEOUT_MS = 5000
PRAGMAS = {
    "journal_mode": "wal",
    "busy_timeout": BUSY_TIMEOUT_MS,
    "foreign_keys": 1,
    "synchronous": "normal",
}


SQLITE_MAGIC = b"SQLite format 3\x00"
#: The PostgreSQL counterpart of ``PRAGMA application_id``/``user_version``: one row ``(app, version)``.
PG_SCHEMA_TABLE = "bestie_schema"
PG_APP = "bestie"
#: Advisory lock keys (``pg_advisory_xact_lock``): one for every write transaction, one for the
#: schema check and migration of a new connection's database. "BSTI" and "BSTM".
PG_WRITE_LOCK = 0x42535449
PG_SCHEMA_LOCK = 0x4253544D


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
        StorageError: the file cannot be read, or its name cannot be looked up (too long, a
            directory in it that is a file, no permission).
    """
    try:
        if not path.exists():
            return
        is_dir = path.is_dir()
    except OSError as exc:  # ENAMETOOLONG, ENOTDIR, EACCES: the name itself cannot be looked up
        raise StorageError(f"cannot open {path}: {exc.strerror or exc}") from exc
    if is_dir:
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


class SqliteStoreDatabase(SqliteDatabase):
    """Peewee's SQLite database with the two engine hooks the search index (``doc_index``) calls
    on whichever database it is given: ``table_ddl`` and ``run_many``."""

    def table_ddl(self, statement: str) -> str:
        return statement

    def run_many(self, sql: str, rows: list[tuple] | list[list]) -> None:
        if rows:
            self.cursor().executemany(sql, rows)


def is_url(location: str | Path) -> bool:
    """True when ``location`` names a PostgreSQL server (``postgresql://…`` or ``postgres://…``)
    rather than a SQLite file."""
    return is_database_url(location)


def display_location(location: str | Path) -> str:
    """``location`` as it may be shown: a file path as it is, a URL with its password masked.

    Raises:
        StorageError: ``location`` is a URL that cannot be parsed (an unclosed ``[`` of an IPv6
            host, say); the message shows it with its password masked. Every opening of a URL
            comes here first, so a malformed one never reaches the driver, whose message would
            quote it whole.
    """
    if not is_url(location):
        return str(location)
    try:
        parts = urlsplit(str(location))
    except ValueError as exc:
        raise StorageError(f"{_mask_password(str(location))} is not a valid database URL: {exc}") from None
    if parts.password is None:
        return str(location)
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def _mask_password(url: str) -> str:
    """``url`` with whatever follows ``user:`` up to the last ``@`` of its authority replaced by
    ``***``, done on the text alone: for a URL ``urlsplit`` refuses."""
    scheme, sep, rest = url.partition("://")
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:end], rest[end:]
    if "@" not in authority:
        return url
    userinfo, host = authority.rsplit("@", 1)
    if ":" not in userinfo:
        return url
    return f"{scheme}{sep}{userinfo.split(':', 1)[0]}:***@{host}{tail}"


def open_database(location: str | Path, *, create_dirs: bool = True) -> Database:
    """Open (creating or migrating) the bestie database at ``location``. The models talk to it only
    where it is bound (``store.binding``): the caller's store binds it for each of its methods.

    Args:
        location: the database file, or a ``postgresql://user[:password]@host[:port]/dbname`` URL
            (libpq's query options pass through, e.g. ``?options=-csearch_path%3Dtenant_a``).
        create_dirs: create missing parent directories (the default data dir); when False a missing
            directory is an error, so a mistyped ``--db`` does not silently start a new database.

    Returns:
        The connected database: a ``SqliteDatabase`` (WAL mode, busy timeout 5000 ms, IMMEDIATE write
        transactions) or a ``PostgresDatabase``.

    Raises:
        SchemaError: newer schema or foreign file/schema; it is left untouched.
        StorageError: the directory, file or server cannot be created, opened, reached or read.
    """
    if is_url(location):
        return _open_postgres(str(location))
    return _open_sqlite(Path(location).expanduser(), create_dirs)


def _open_sqlite(path: Path, create_dirs: bool) -> SqliteDatabase:
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
    db = SqliteStoreDatabase(str(path), pragmas=PRAGMAS, timeout=BUSY_TIMEOUT_MS / 1000, lock_type="IMMEDIATE")
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


def _migrate(db: Database, from_version: int) -> None:
    """Bring a schema from ``from_version`` to ``SCHEMA_VERSION``. Version 0 is a new database.

    Steps: 1 → 2 adds ``event.origin`` (the store session that made a change; console undo);
    2 → 3 adds ``memory.about`` (older rows are about the owner: it starts NULL); 3 → 4 adds the
    search index tables (``doc_index``): a new file gets its (empty) index now, an older one is
    indexed on first use or by ``bestie memory reindex`` (a large file takes a while, and opening it
    should not); 4 → 5 adds ``memory_vector`` (``vectors``), empty: memories get their vectors as
    they are written, when a search by meaning needs them, or by ``reindex --semantic``.
    """
    from bestie_tui.store import doc_index, vectors

    postgres = is_postgres(db)
    with db.atomic():
        if from_version == 0:
            db.create_tables(ALL_MODELS)
        else:
            migrator = PostgresqlMigrator(db) if postgres else SqliteMigrator(db)
            if from_version < 2:
                migrate(migrator.add_column("event", "origin", Event.origin))  # and its index
            if from_version < 3:
                migrate(migrator.add_column("memory", "about", TextField(null=True)))
        if from_version < 4:
            doc_index.create_tables(db)
            if from_version == 0:
                doc_index.rebuild(db)
        if from_version < 5:
            vectors.create_tables(db)
        if postgres:
            db.execute_sql(f"CREATE TABLE IF NOT EXISTS {PG_SCHEMA_TABLE} (app TEXT PRIMARY KEY, version BIGINT NOT NULL)")
            db.execute_sql(f"INSERT INTO {PG_SCHEMA_TABLE} (app, version) VALUES (?, ?) "
                           "ON CONFLICT (app) DO UPDATE SET version = excluded.version", (PG_APP, SCHEMA_VERSION))
        else:
            db.execute_sql(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")


#: Rows ``ANALYZE`` samples per index (``PRAGMA analysis_limit``): enough for the planner's choice,
#: and a few milliseconds even at a million rows.
ANALYSIS_LIMIT = 1000


#: Below this many memories the planner needs no statistics: opening such a file writes nothing.
STATISTICS_MIN_ROWS = 2000


def planner_statistics(db: Database, *, refresh: bool = False) -> None:
    """Give SQLite's query planner statistics of the ``memory`` table (``ANALYZE`` with
    ``ANALYSIS_LIMIT``) when it has none, when the table grew past four times the rows they were
    taken from (judged by the largest id, an index lookup), or always with ``refresh`` (after a
    bulk change, e.g. a search index rebuild). Without them the planner walks the ``status``/``layer``
    index over every approved row to find one user's few records (9 ms instead of 0.3 ms at 10,000
    memories). A read-only or busy file is left as it is. PostgreSQL's autovacuum keeps its own
    statistics; there only ``refresh`` runs ``ANALYZE``, of ``memory`` and of the search index's
    tables too: without their statistics after a rebuild, PostgreSQL reads every term of a
    collection to find a query's few (``ix_term``: 11 ms instead of 0.1 ms a lookup at 10,000
    memories), until autovacuum gets to them."""
    if is_postgres(db):
        if refresh:
            db.execute_sql("ANALYZE memory, ix_term, ix_posting, ix_doc, ix_block")
        return
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


def backup_database(db: Database, target: Path) -> Path:
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


# ------------------------------------------------------------------------------------ PostgreSQL
#: Milliseconds a PostgreSQL writer waits for the write lock (``lock_timeout``), as SQLite's busy timeout.
PG_LOCK_TIMEOUT_MS = BUSY_TIMEOUT_MS
#: SQLSTATE codes that mean "another writer was in the way; nothing was changed, try again":
#: lock_not_available (a lock timeout), serialization_failure, deadlock_detected.
PG_BUSY_CODES = frozenset({"55P03", "40001", "40P01"})

#: Peewee's wrapper that turns driver errors into ``peewee.OperationalError`` and its kin.
_PEEWEE_ERRORS = peewee.__exception_wrapper__  # type: ignore[attr-defined]

_LITERAL_OR_MARK = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\?|%")


@lru_cache(maxsize=4096)
def _pyformat(sql: str) -> str:
    """``sql`` with ``?`` placeholders (outside quoted literals) as psycopg2's ``%s``, and every
    literal ``%`` doubled (psycopg2 reads ``%`` everywhere in a statement that has parameters)."""

    def swap(match: re.Match[str]) -> str:
        token = match.group()
        if token == "?":
            return "%s"
        return token.replace("%", "%%")

    return _LITERAL_OR_MARK.sub(swap, sql)


class PostgresDatabase(PostgresqlDatabase):
    """Peewee's PostgreSQL database as bestie uses it: the same ``?`` placeholders as SQLite in
    generated and hand-written SQL alike, integer columns and ids 64-bit (as SQLite's), ``bytea``
    read back as ``bytes``, a lock timeout instead of an endless wait, and write transactions that
    begin with ``pg_advisory_xact_lock(PG_WRITE_LOCK)`` — one writer at a time, as ``BEGIN
    IMMEDIATE`` gives on SQLite, so the event log's ids commit in order (the search index follows
    them). A read transaction (``lock_type="DEFERRED"``) takes no lock and reads one snapshot
    (REPEATABLE READ)."""

    param = "?"
    field_types = {**PostgresqlDatabase.field_types, "INT": "BIGINT", "AUTO": "BIGSERIAL"}

    def execute_sql(self, sql: str, params: Any = None) -> Any:
        try:
            return super().execute_sql(_pyformat(sql), params)
        except ValueError as exc:
            raise _nul_refused(exc) from None

    def table_ddl(self, statement: str) -> str:
        """A ``CREATE TABLE``/``INDEX`` statement written for SQLite, as PostgreSQL takes it:
        ``BLOB`` is ``BYTEA``, ``INTEGER`` is ``BIGINT``, ``REAL`` is ``DOUBLE PRECISION``, and
        ``WITHOUT ROWID`` (a SQLite storage choice) is dropped."""
        statement = statement.replace(" WITHOUT ROWID", "")
        statement = re.sub(r"\bBLOB\b", "BYTEA", statement)
        statement = re.sub(r"\bINTEGER\b", "BIGINT", statement)
        return re.sub(r"\bREAL\b", "DOUBLE PRECISION", statement)

    def run_many(self, sql: str, rows: list[tuple] | list[list]) -> None:
        """``sql`` once per row, in batches (``psycopg2.extras.execute_batch``: one round trip per 200 rows)."""
        if not rows:
            return
        from psycopg2.extras import execute_batch

        try:
            with _PEEWEE_ERRORS:
                execute_batch(self.cursor(), _pyformat(sql), rows, page_size=200)
        except ValueError as exc:
            raise _nul_refused(exc) from None

    def begin(self, lock_type: str | None = None, isolation_level: Any = None) -> None:  # type: ignore[override]
        cursor = self.cursor()
        with _PEEWEE_ERRORS:
            if lock_type == "DEFERRED":
                cursor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
                return
            cursor.execute("BEGIN")
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (PG_WRITE_LOCK,))

    def _connect(self) -> Any:
        import psycopg2
        import psycopg2.extensions as ext

        conn = super()._connect()  # type: ignore[misc]
        binary = ext.new_type(psycopg2.BINARY.values, "BESTIE_BYTES",
                              lambda value, cursor: None if value is None else bytes(psycopg2.BINARY(value, cursor)))
        ext.register_type(binary, conn)
        with conn.cursor() as cursor:
            cursor.execute(f"SET lock_timeout = {int(PG_LOCK_TIMEOUT_MS)}")
        return conn


def _nul_refused(exc: ValueError) -> Exception:
    """psycopg2's ``ValueError`` for a NUL character in a text parameter (PostgreSQL's text type
    cannot hold U+0000) as the one line SQLite's path gives (``text.check_encodable`` refuses NUL
    on every write path first; this is the net under any path it missed). Other errors as they are."""
    if "NUL" in str(exc):
        return InvalidValueError("a value holds a NUL character (U+0000), which bestie does not store; "
                                 "nothing was saved (remove it and try again)")
    return exc


def _open_postgres(url: str) -> PostgresDatabase:
    shown = display_location(url)
    try:
        import psycopg2  # noqa: F401  (the driver: pip install 'bestie-tui[postgres]')
    except ImportError:
        raise StorageError(f"cannot open {shown}: PostgreSQL needs the psycopg2 driver "
                           "(pip install 'bestie-tui[postgres]')") from None
    # Peewee hands a "postgresql://" string to libpq as it is; libpq reads "postgres://" too.
    db = PostgresDatabase(url if url.startswith("postgresql://") else "postgresql://" + url.split("://", 1)[1],
                          autorollback=False)
    try:
        db.connect(reuse_if_open=True)
        # One process migrates at a time: several workers that open a new database at once would
        # otherwise all create its tables.
        db.execute_sql("SELECT pg_advisory_lock(?)", (PG_SCHEMA_LOCK,))
        try:
            version = _pg_version(db, shown)
            if version < SCHEMA_VERSION:
                with binding(db):
                    _migrate(db, version)
        finally:
            db.execute_sql("SELECT pg_advisory_unlock(?)", (PG_SCHEMA_LOCK,))
    except SchemaError:
        db.close()
        raise
    except Exception as exc:  # psycopg2/peewee errors: unreachable server, refused login, no database
        db.close()
        detail = " ".join(str(exc).split())
        raise StorageError(f"cannot open {shown}: {detail}") from exc
    return db


def _pg_version(db: PostgresDatabase, shown: str) -> int:
    """The bestie schema version of the connection's current schema; 0 for an empty one.

    Raises:
        SchemaError: tables but no ``bestie_schema`` row (someone else's), or a newer or invalid version.
    """
    tables = {name for (name,) in db.execute_sql(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
    if not tables:
        return 0
    row = None
    if PG_SCHEMA_TABLE in tables:
        row = db.execute_sql(f"SELECT version FROM {PG_SCHEMA_TABLE} WHERE app = ?", (PG_APP,)).fetchone()
    if row is None:
        raise SchemaError(f"{shown} holds tables that are not a bestie memory database; refusing to touch it")
    version = int(row[0])
    if version > SCHEMA_VERSION:
        raise SchemaError(f"{shown} was written by a newer bestie (schema {version}, this program knows "
                          f"{SCHEMA_VERSION}); upgrade bestie-tui to open it")
    if version < 1:
        raise SchemaError(f"{shown} carries an invalid bestie schema version ({version}); refusing to touch it")
    return version


# ------------------------------------------------------------------- engine-neutral helpers
def schema_version(db: Database) -> int:
    """The schema version stored in ``db`` (``user_version`` or the ``bestie_schema`` row)."""
    if is_postgres(db):
        row = db.execute_sql(f"SELECT version FROM {PG_SCHEMA_TABLE} WHERE app = ?", (PG_APP,)).fetchone()
        return int(row[0]) if row else 0
    return int(db.execute_sql("PRAGMA user_version").fetchone()[0])


def group_concat(db: Database, column: str) -> str:
    """SQL aggregating ``column`` of a group into one comma-separated text (order unspecified)."""
    if is_postgres(db):
        return f"string_agg(CAST({column} AS TEXT), ',')"
    return f"group_concat({column})"


def change_mark(db: Database) -> Any:
    """A value that changes whenever anything (this connection or another) commits a write to
    ``db``; the console polls it to notice the assistant's writes. SQLite: ``total_changes()`` (this
    connection) with ``PRAGMA data_version`` (the others). PostgreSQL: the next transaction id of the
    current snapshot, which moves only when a transaction that wrote something ends (reads take none)."""
    if is_postgres(db):
        return db.execute_sql("SELECT pg_snapshot_xmax(pg_current_snapshot())::text").fetchone()[0]
    return (db.execute_sql("SELECT total_changes()").fetchone()[0],
            db.execute_sql("PRAGMA data_version").fetchone()[0])


def read_stamp(db: Database) -> Any:
    """A value that two calls on the same thread return equal only if nothing was written to ``db``
    in between, by this connection or another; ``None`` when the engine cannot say cheaply (then a
    reader checks in full). SQLite: this thread's connection, its ``total_changes`` and
    ``PRAGMA data_version`` (no statement through Peewee). PostgreSQL: ``change_mark`` outside a
    transaction; inside one, this connection's own uncommitted writes do not move it, so ``None``."""
    if is_postgres(db):
        if db.in_transaction():
            return None
        scope = _STAMPS.get()
        if scope is None:
            return change_mark(db)
        if id(db) not in scope:
            scope[id(db)] = change_mark(db)
        return scope[id(db)]
    conn = db.connection()
    return conn, conn.total_changes, conn.execute("PRAGMA data_version").fetchone()[0]


#: Inside ``one_stamp``: ``id(db)`` → the PostgreSQL ``change_mark`` read once for the block.
_STAMPS: ContextVar[dict[int, Any] | None] = ContextVar("bestie_read_stamps", default=None)


@contextmanager
def one_stamp() -> Iterator[None]:
    """Within the block, ``read_stamp`` asks a PostgreSQL server for its mark once per database and
    gives that value to every later call (a ``build_context`` asked four times, a round trip each).
    The block's readers then check their caches against the database as it was when the block
    began, as one request should: a write landing during the block is seen by the next call after
    it, because the first stamp taken after the block differs from the one the caches keep. Nested
    blocks share the outer one. SQLite's stamps cost no round trip and are read as ever."""
    if _STAMPS.get() is not None:
        yield
        return
    token = _STAMPS.set({})
    try:
        yield
    finally:
        _STAMPS.reset(token)


def one_stamp_per_call(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` run inside ``one_stamp`` (a decorator for a request such as ``build_context``)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with one_stamp():
            return func(*args, **kwargs)

    return wrapper


def external_change_mark(db: Database) -> Any:
    """A value that changes when *another* connection commits a write (SQLite's ``PRAGMA
    data_version``). PostgreSQL has no per-connection counter: there it is ``change_mark``, which
    moves on this connection's writes too (the console then refreshes once more than it needs)."""
    if is_postgres(db):
        return change_mark(db)
    return db.execute_sql("PRAGMA data_version").fetchone()[0]


def is_busy_error(exc: BaseException) -> bool:
    """True when ``exc`` (a Peewee/driver error) means another writer was in the way and nothing
    was changed: SQLite's "database is locked"/"busy", PostgreSQL's lock timeout, serialization
    failure or deadlock (``PG_BUSY_CODES``)."""
    for candidate in (exc, *getattr(exc, "args", ())[:1], exc.__cause__, exc.__context__):
        if getattr(candidate, "pgcode", None) in PG_BUSY_CODES:
            return True
    text = str(exc)
    return "locked" in text or "busy" in text


def next_memory_id(db: Database, used_max: int) -> int:
    """The id for a new memory on an engine with sequences (PostgreSQL): ``nextval`` of the memory
    id sequence, moved past ``used_max`` (the highest id the memory table or the event log has
    seen, passed in by the store) when an import wrote ids above it. SQLite has no sequences: there
    the store's ``used_max + 1`` is taken under the write lock (``BEGIN IMMEDIATE``), so no two
    writers get one id."""
    if not is_postgres(db):
        return used_max + 1
    value = int(db.execute_sql("SELECT nextval(pg_get_serial_sequence('memory', 'id'))").fetchone()[0])
    if value <= used_max:
        db.execute_sql("SELECT setval(pg_get_serial_sequence('memory', 'id'), ?)", (used_max + 1,))
        value = used_max + 1
    return value


def sync_sequences(db: Database) -> None:
    """After rows were written with explicit ids (an import), move each table's id sequence past
    the largest id, so the next generated id is free. Nothing to do on SQLite."""
    if not is_postgres(db):
        return
    for table in ("memory", "message", "event", "hygiene_snapshot"):
        db.execute_sql(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                       f"GREATEST((SELECT MAX(id) FROM {table}), 1), (SELECT MAX(id) FROM {table}) IS NOT NULL)")


def erase_begin(db: Database) -> None:
    """Before an erase: SQLite zeroes the pages this connection frees (``secure_delete``).
    PostgreSQL keeps dead row versions until vacuum; ``erase_end`` vacuums the tables."""
    if not is_postgres(db):
        db.execute_sql("PRAGMA secure_delete = ON")


def erase_end(db: Database) -> None:
    """After an erase committed: old page versions leave SQLite's WAL file (a checkpoint); on
    PostgreSQL ``VACUUM`` removes the dead row versions of the erased rows."""
    if is_postgres(db):
        if not db.in_transaction():
            for table in ("memory", "message", "event", "setting"):
                db.execute_sql(f"VACUUM {table}")
        return
    db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def vacuum(db: Database) -> None:
    """After an erase committed, where SQLite needs it: rewrite the file (``VACUUM``), so no free
    page or free space inside a page keeps a deleted row's bytes (rows deleted by a connection
    without ``secure_delete``), then truncate the WAL it wrote. PostgreSQL: ``erase_end`` vacuumed."""
    if is_postgres(db) or db.in_transaction():
        return
    db.execute_sql("VACUUM")
    db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def executemany(db: Database, sql: str, rows: list[tuple] | list[list]) -> None:
    """Run ``sql`` (``?`` placeholders) once per row of ``rows`` in the current transaction."""
    db.run_many(sql, rows)  # type: ignore[attr-defined]
