"""Private by default: under the usual umask (022) what bestie creates is the owner's alone — the data
directory 0700; the database, its WAL and shared-memory files, backups and exports 0600."""

from __future__ import annotations

import os
import stat

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def usual_umask():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_the_data_dir_database_backups_and_exports_are_private(tmp_path, usual_umask):
    data = tmp_path / "data" / "bestie"
    env = {"BESTIE_DATA_DIR": str(data), "BESTIE_DB": None}
    runner = CliRunner()
    assert runner.invoke(cli, ["memory", "add", "fact", "--", "User likes tea."], env=env).exit_code == 0
    db = data / "memory.db"
    assert mode(data) == 0o700 and mode(data.parent) == 0o700
    for path in (db, db.with_name("memory.db-wal"), db.with_name("memory.db-shm")):
        if path.exists():
            assert mode(path) == 0o600, path
    out = tmp_path / "export.json"
    assert runner.invoke(cli, ["memory", "export", "--output", str(out)], env=env).exit_code == 0
    assert mode(out) == 0o600 and "User likes tea." in out.read_text()
    cleared = runner.invoke(cli, ["memory", "clear", "--yes"], env=env)
    assert cleared.exit_code == 0, cleared.output
    backups = list((data / "backups").iterdir())
    assert [p.suffix for p in backups] == [".db"] and mode(backups[0]) == 0o600
    assert mode(data / "backups") == 0o700
    assert not [p for p in data.rglob("*") if ".partial" in p.name]


def test_a_db_given_in_an_existing_directory_is_private_but_the_directory_is_left_alone(tmp_path, usual_umask):
    tmp_path.chmod(0o755)
    db = tmp_path / "mine.db"
    assert CliRunner().invoke(cli, ["--db", str(db), "memory", "status"]).exit_code == 0
    assert mode(db) == 0o600 and mode(tmp_path) == 0o755
