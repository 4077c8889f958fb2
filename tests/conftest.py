"""Shared fixtures: a real temp-file SQLite store with a frozen clock, the CLI runner, shared data."""

from __future__ import annotations

import os
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bestie_tui.store.memory_store import MemoryStore

FROZEN_NOW = datetime(2026, 11, 30, 12, 0, 0)
#: ../shared/data beside the checkout, or wherever BESTIE_SHARED_DATA points.
SHARED_DATA = Path(os.environ.get("BESTIE_SHARED_DATA") or Path(__file__).resolve().parents[1].parent / "shared" / "data")


class FrozenClock:
    """A clock tests can move: ``clock()`` returns ``now``; ``advance(seconds)`` moves it."""

    def __init__(self, now: datetime = FROZEN_NOW):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock()


ENGINES = ("sqlite", "postgres")
#: The PostgreSQL server the ``postgres`` runs of ``both_engines`` tests use (``.ci/run`` starts one
#: with ``scripts/pg_throwaway.sh`` and exports it); each test gets a schema of its own there.
PG_ENV = "BESTIE_TEST_PG"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test marked ``both_engines`` (or in a module so marked) runs once per engine."""
    if "engine" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_engines"):
        metafunc.parametrize("engine", ENGINES, indirect=True)


def _no_server(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI is set, so this is a failure (.ci/run starts a throwaway server)")
    pytest.skip(f"{reason} (run `bash .ci/run`, or start one with scripts/pg_throwaway.sh start and "
                f"export {PG_ENV}=<the URL it prints>)")


def pg_server_url() -> str:
    """The test server's URL (``BESTIE_TEST_PG``), checked to answer. Skips the test when it is
    unset or down, and fails it under ``CI``."""
    url = os.environ.get(PG_ENV)
    if not url:
        _no_server(f"{PG_ENV} is not set, so no PostgreSQL server is known to this test run")
    try:
        import psycopg2
    except ImportError:
        _no_server("psycopg2 is not installed (pip install -e '.[test]')")
    try:
        psycopg2.connect(url, connect_timeout=5).close()
    except psycopg2.Error as exc:
        _no_server(f"the PostgreSQL server at {url} does not answer: {' '.join(str(exc).split())}")
    return url


def pg_schema_url(server: str, schema: str) -> str:
    """``server``'s URL with ``schema`` first on the search path: a database of its own for one test."""
    sep = "&" if "?" in server else "?"
    return f"{server}{sep}options=-csearch_path%3D{schema}"


@contextmanager
def pg_schema(prefix: str = "t"):
    """A fresh, empty schema on the test server; yields its URL and drops it afterwards."""
    import uuid

    import psycopg2

    server = pg_server_url()
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    conn = psycopg2.connect(server)
    conn.autocommit = True
    try:
        conn.cursor().execute(f'CREATE SCHEMA "{name}"')
        yield pg_schema_url(server, name)
    finally:
        conn.cursor().execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        conn.close()


@pytest.fixture
def engine(request: pytest.FixtureRequest) -> str:
    """The database engine of this run of the test: ``sqlite`` unless the test is ``both_engines``."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def db_path(tmp_path: Path, engine: str):
    """The test's database: a temp SQLite file, or (``postgres`` runs) the URL of a schema of its
    own on the test server, dropped afterwards."""
    if engine == "sqlite":
        yield tmp_path / "memory.db"
        return
    with pg_schema() as url:
        yield url


@pytest.fixture
def store(db_path, clock: FrozenClock):
    """The test's store. It is bound for the whole test, so a test that queries the models directly
    means this file even while other stores (the CLI's, a console's) are open in the process."""
    s = MemoryStore(db_path, clock=clock)
    with s.bound():
        yield s
    s.close()


@pytest.fixture
def run(db_path: Path):
    """Invoke the ``bestie`` CLI in-process on the test's database: ``run("memory", "list", input=…)``.
    Unexpected exceptions propagate (a traceback is a defect, not an exit code)."""
    from click.testing import CliRunner

    from bestie_tui.cli.main import cli

    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None):
        return runner.invoke(cli, ["--db", str(db_path), *args], input=input, env=env, catch_exceptions=False)

    return invoke


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Never touch the real user data dir; the default database lives in the test's temp dir; the
    ``FREETEXT_*`` overrides of the ``context.*`` settings are unset unless a test sets them."""
    from bestie_tui.store.settings import ENV_OVERRIDES

    monkeypatch.setenv("BESTIE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BESTIE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("BESTIE_DB", raising=False)
    # The owner's calendar defaults to the system's zone: pin it, so no test depends on the machine.
    monkeypatch.setenv("TZ", "UTC")
    for var in ENV_OVERRIDES:
        monkeypatch.delenv(var, raising=False)


def shared_data(name: str) -> Path:
    """Path of a file in ../shared/data. Skips the test where it is absent, but fails under CI=…"""
    path = SHARED_DATA / name
    if not path.exists():
        reason = f"shared data file {path} is absent (the data is read by path, never copied into the repo)"
        if os.environ.get("CI"):
            pytest.fail(reason + "; CI is set, so this is a failure")
        pytest.skip(reason)
    return path


def finishes(fn, seconds: float = 10.0):
    """Run ``fn`` in a daemon thread; return ``("returned", value)`` or ``("raised", exc)``. Fails the
    test if ``fn`` still runs after ``seconds``: a FIFO or a slow server must fail a test, not hang
    the suite."""
    import threading

    box: dict = {}

    def target():
        try:
            box["value"] = ("returned", fn())
        except BaseException as exc:  # noqa: BLE001 - handed back to the test to assert on
            box["value"] = ("raised", exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    return box["value"]


class _PgRaw:
    """A plain DB-API connection to a test schema with ``sqlite3.Connection``'s short forms
    (``execute`` returning the cursor, ``?`` placeholders, ``bytea`` as ``bytes``): what a test
    uses to look at or damage the database behind the store's back."""

    def __init__(self, url: str):
        import psycopg2

        self._conn = psycopg2.connect(url)

    def execute(self, sql: str, params=()):
        from bestie_tui.store.db import _pyformat

        cursor = self._conn.cursor()
        cursor.execute(_pyformat(sql), tuple(params))
        return cursor if cursor.description is None else _Rows(cursor)

    def commit(self) -> None:
        self._conn.commit()

    def close(self) -> None:
        self._conn.close()


class _Rows:
    def __init__(self, cursor):
        self._rows = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in cursor.fetchall()]

    def fetchone(self):
        return self._rows[0] if self._rows else None

    def fetchall(self):
        return list(self._rows)

    def __iter__(self):
        return iter(self._rows)


def raw_connect(db_path):
    """A second, plain connection to the test's database (``sqlite3`` for a file, psycopg2 for a
    PostgreSQL URL), committed by hand."""
    import sqlite3

    if isinstance(db_path, str) and db_path.startswith("postgresql://"):
        return _PgRaw(db_path)
    return sqlite3.connect(db_path)


def make_read_only(db) -> None:
    """Make the connection of ``db`` (a store's database) refuse writes, as a read-only file does."""
    from bestie_tui.store.db import is_postgres

    if is_postgres(db):
        db.execute_sql("SET default_transaction_read_only = on")
    else:
        db.execute_sql("PRAGMA query_only = 1")


def stored_bytes(db_path) -> bytes:
    """Everything the database holds, to search for text that must be gone: every byte of a SQLite
    file and its WAL, however SQLite left them; on PostgreSQL every row of every table of the
    test's schema as text (the server's files are its own; erase vacuums the tables)."""
    if isinstance(db_path, str) and db_path.startswith("postgresql://"):
        conn = raw_connect(db_path)
        try:
            tables = [t for (t,) in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")]
            out = []
            for table in tables:
                out += [row[0] for row in conn.execute(f'SELECT t::text FROM "{table}" AS t')]
            return "\n".join(out).encode()
        finally:
            conn.close()
    path = Path(db_path)
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
