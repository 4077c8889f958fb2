"""Defects a new-user trial of the CLI found: each ends in one ``Error:`` line and an exit code,
never a traceback, and leaves no file behind."""

from __future__ import annotations

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
