"""Artifacts are confined to a base directory — the project root by default, ``--artifact-root`` to
widen it — with ``..`` and symlinks resolved before the check."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli
from bestie_tui.conversation.pack import build_pack
from bestie_tui.errors import InvalidValueError


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / "docs").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (root / "docs" / "plan.md").write_text("Ship the memory console.\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("the owner's private notes\n")
    (root / "docs" / "link.md").symlink_to(outside)
    monkeypatch.chdir(root / "docs")
    return root


def pack(db_path, *args):
    return CliRunner().invoke(cli, ["--db", str(db_path), "context", "pack", "--task", "plan?", "--no-memory", *args])


def test_a_file_in_the_project_is_read_from_a_subdirectory(project, db_path):
    result = pack(db_path, "--artifact", "plan.md", "--show")
    assert result.exit_code == 0, result.output
    assert "Ship the memory console." in result.stdout


@pytest.mark.parametrize("path", ["../../secret.txt", "link.md", "/etc/passwd", "~/../../etc/hostname"])
def test_a_file_outside_the_project_is_refused_in_one_line(project, db_path, path):
    result = pack(db_path, "--artifact", path, "--show")
    assert result.exit_code == 1
    assert "outside the artifact root" in result.stderr and result.stderr.count("\n") == 1
    assert "private notes" not in result.output


def test_artifact_root_widens_the_base(project, db_path):
    result = pack(db_path, "--artifact", "link.md", "--artifact-root", str(project.parent), "--show")
    assert result.exit_code == 0, result.output
    assert "the owner's private notes" in result.stdout


def test_the_python_api_keeps_the_same_rule(project):
    with pytest.raises(InvalidValueError, match="outside the artifact root"):
        build_pack("plan?", artifacts=["../../secret.txt"])
    assert any("Ship the memory console." in m["content"] for m in build_pack("plan?", artifacts=["plan.md"]).messages)
