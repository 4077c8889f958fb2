"""Shared fixtures: a real temp-file SQLite store with a frozen clock, the CLI runner, shared data."""

from __future__ import annotations

import os
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


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def store(db_path: Path, clock: FrozenClock):
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
