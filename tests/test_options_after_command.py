"""``--db`` and ``--user`` work after the command as well as before it (issue 31, item 6): the README
says ``--db`` works "on any command", so ``bestie memory list --db x.db`` must reach x.db."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli


def bestie(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def two_files(tmp_path):
    """Two databases; only the first holds a memory (added with --db after the command)."""
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    added = bestie("memory", "add", "fact", "--db", str(first), "--", "The owner keeps bees on the roof")
    assert added.exit_code == 0, added.output
    assert bestie("memory", "status", "--db", str(second)).exit_code == 0
    return first, second


def test_db_after_the_command_reaches_that_file(two_files):
    first, second = two_files
    assert "bees" in bestie("memory", "list", "--db", str(first)).output
    assert "bees" not in bestie("memory", "list", "--db", str(second)).output
    # before and after give the same answer
    assert bestie("memory", "list", "--db", str(first)).output == bestie("--db", str(first), "memory", "list").output


def test_db_after_a_nested_command(two_files):
    first, _ = two_files
    result = bestie("memory", "pending", "search", "--db", str(first), "bees")
    assert result.exit_code == 0, result.output
    status = bestie("memory", "status", "--json", "--db", str(first))
    assert str(first) in status.output


def test_two_different_db_before_and_after_the_command_are_a_usage_error(two_files, monkeypatch):
    first, second = two_files
    monkeypatch.chdir(first.parent)
    result = bestie("--db", "second.db", "memory", "list", "--db", "first.db")
    assert result.exit_code == 2
    assert "naming 'second.db' and 'first.db'" in result.output
    # the same file twice is no clash
    assert "bees" in bestie("--db", str(first), "memory", "list", "--db", str(first)).output


def test_user_after_the_command_binds_it(tmp_path):
    db = str(tmp_path / "m.db")
    assert bestie("memory", "add", "fact", "--db", db, "--user", "ana", "--", "Ana plays the cello").exit_code == 0
    assert bestie("memory", "add", "fact", "--db", db, "--user", "ben", "--", "Ben plays the drums").exit_code == 0
    # ``status`` has no --user of its own: the group's binds the command to that user
    ana = bestie("memory", "status", "--json", "--db", db, "--user", "ana")
    assert ana.exit_code == 0, ana.output
    before = bestie("--user", "ana", "--db", db, "memory", "status", "--json")
    assert ana.output == before.output
    everyone = bestie("memory", "status", "--json", "--db", db)
    assert ana.output != everyone.output


def test_user_after_the_command_cannot_undo_a_binding_before_it(tmp_path):
    db = str(tmp_path / "m.db")
    result = bestie("--user", "ana", "memory", "status", "--db", db, "--user", "ben")
    assert result.exit_code == 2
    assert "bound to user 'ana'" in result.output


def test_a_bad_user_after_the_command_is_refused_in_one_line(tmp_path):
    db = tmp_path / "m.db"
    result = bestie("memory", "status", "--db", str(db), "--user", "a\x1bb")
    assert result.exit_code == 1
    assert len(result.output.strip().splitlines()) == 1 and "\x1b" not in result.output
    assert not db.exists()


def test_help_of_a_command_lists_both(tmp_path):
    text = bestie("memory", "list", "--help").output
    assert "--db" in text and "--user" in text
