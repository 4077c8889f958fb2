"""Defects a new-user trial of the CLI found: each ends in one ``Error:`` line and an exit code,
never a traceback, and leaves no file behind."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli


def bestie(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def one_error_line(result) -> str:
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ")
    assert "Traceback" not in result.output
    return lines[0]


BAD_URL = "postgresql://ana:hunter2pw@[db.example"


def test_a_url_with_an_unclosed_ipv6_bracket_is_one_line_without_its_password():
    result = bestie("--db", BAD_URL, "memory", "status")
    assert result.exit_code == 1
    line = one_error_line(result)
    assert "not a valid database URL" in line and "IPv6" in line
    assert "postgresql://ana:***@[db.example" in line and "hunter2pw" not in line


def test_copy_to_such_a_url_is_refused_the_same_way(tmp_path):
    source = tmp_path / "m.db"
    assert bestie("--db", str(source), "memory", "status").exit_code == 0
    result = bestie("--db", str(source), "memory", "copy", "--to", BAD_URL)
    assert result.exit_code == 1
    line = one_error_line(result)
    assert "not a valid database URL" in line and "hunter2pw" not in line


def test_a_file_name_too_long_for_the_system_is_one_line(tmp_path):
    path = tmp_path / ("x" * 300 + ".db")
    result = bestie("--db", str(path), "memory", "status")
    assert result.exit_code == 1  # as any other --db that cannot be opened (a missing directory)
    assert "File name too long" in one_error_line(result)
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def two_files(tmp_path):
    """Two databases; only the first holds an approved memory and a pending proposal."""
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    assert bestie("--db", str(first), "memory", "add", "fact", "--", "The owner keeps bees on the roof").exit_code == 0
    proposed = bestie("--db", str(first), "memory", "propose", "fact", "--", "The owner grows tomatoes in pots")
    assert proposed.exit_code == 0, proposed.output
    assert bestie("--db", str(second), "memory", "status").exit_code == 0
    return first, second


@pytest.mark.parametrize("group", ["messages", "pending", "governance", "hygiene", "forget-requests"])
def test_db_after_a_group_run_without_a_subcommand_reaches_that_file(two_files, group):
    first, _ = two_files
    bestie("--db", str(first), "memory", group)  # hygiene's first run has no trend yet; its second has
    after = bestie("memory", group, "--db", str(first))
    assert after.exit_code == 0, after.output
    assert after.output == bestie("--db", str(first), "memory", group).output


def test_pending_after_the_group_shows_that_files_proposals(two_files):
    first, second = two_files
    assert "tomatoes" in bestie("memory", "pending", "--db", str(first)).output
    assert "tomatoes" not in bestie("memory", "pending", "--db", str(second)).output


def test_user_after_a_group_binds_it(two_files):
    first, _ = two_files
    bob = bestie("memory", "pending", "--user", "bob", "--db", str(first))
    assert bob.exit_code == 0, bob.output
    assert "tomatoes" not in bob.output  # the owner's proposal is not bob's
    clash = bestie("--user", "ana", "memory", "pending", "--user", "bob", "--db", str(first))
    assert clash.exit_code == 2 and "bound to user 'ana'" in clash.output


def test_two_different_db_values_are_a_usage_error_naming_both(two_files, monkeypatch):
    monkeypatch.chdir(two_files[0].parent)
    result = bestie("--db", "first.db", "memory", "export", "--db", "second.db")
    assert result.exit_code == 2
    assert "Error: --db is given twice, naming 'first.db' and 'second.db'; give one" in result.output
    assert "Traceback" not in result.output
    on_a_group = bestie("memory", "--db", "first.db", "pending", "--db", "second.db")
    assert on_a_group.exit_code == 2 and "given twice" in on_a_group.output
    # one file, spelt two ways, is no clash
    same = bestie("--db", "first.db", "memory", "list", "--db", str(two_files[0]))
    assert same.exit_code == 0 and "bees" in same.output


def test_a_url_in_that_error_has_its_password_masked(tmp_path):
    result = bestie("--db", str(tmp_path / "m.db"), "memory", "status", "--db", "postgresql://ana:hunter2pw@db.example/b")
    assert result.exit_code == 2
    assert "postgresql://ana:***@db.example/b" in result.output and "hunter2pw" not in result.output


def test_bestie_db_in_the_environment_gives_way_to_a_typed_db(two_files):
    first, second = two_files
    result = CliRunner().invoke(cli, ["memory", "list", "--db", str(first)], env={"BESTIE_DB": str(second)},
                                catch_exceptions=False)
    assert result.exit_code == 0 and "bees" in result.output


@pytest.mark.parametrize("args", [
    ["--user", "alice", "memory", "reindex"],
    ["memory", "reindex", "--user", "alice"],
    ["--user", "alice", "memory", "reindex", "--semantic"],
])
def test_reindex_bound_to_a_user_is_refused_as_copy_is(two_files, args):
    first, _ = two_files
    result = bestie("--db", str(first), *args)
    assert result.exit_code == 1
    line = one_error_line(result)
    assert "belongs to the whole database; a store bound to user 'alice' cannot do it" in line
    assert "indexed" not in result.output
    copy = bestie("--db", str(first), "--user", "alice", "memory", "copy", "--to", str(first.parent / "c.db"))
    assert copy.exit_code == result.exit_code


def test_reindex_of_the_whole_database_still_runs(two_files):
    first, _ = two_files
    result = bestie("--db", str(first), "memory", "reindex", "--quiet")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("indexed 1 approved memory")
