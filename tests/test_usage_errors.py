"""Usage errors never echo a secret or a control sequence from the command line: what they quote is
shortened and escaped; a memory text that starts with ``-`` is stored when it follows ``--``."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli
from bestie_tui.store.memory_store import MemoryStore

KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Vq3xYz"
PEMS = [f"-----BEGIN {kind}PRIVATE KEY-----\n{KEY_BODY}\n{KEY_BODY[::-1]}\n-----END {kind}PRIVATE KEY-----"
        for kind in ("", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED ")]
CONTROLS = ["--x\x1b]52;c;b3duZWQ=\x07", "-\x1b[2J\x1b[31mred", "--\u202egnp.exe", "-a\rb\nc"]


def run(db_path, *args):
    return CliRunner().invoke(cli, ["--db", str(db_path), *args])


@pytest.mark.parametrize("pem", PEMS)
@pytest.mark.parametrize("where", [("memory", "add", "fact"), ("memory", "propose", "fact"),
                                   ("memory", "search"), ("memory", "edit", "1")])
def test_a_private_key_taken_for_an_option_is_not_echoed(db_path, pem, where):
    result = run(db_path, *where, pem)
    assert result.exit_code == 2
    assert KEY_BODY[:8] not in result.output and KEY_BODY[::-1][:8] not in result.output
    error = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(error) == 1 and "goes after '--'" in error[0]


@pytest.mark.parametrize("arg", CONTROLS)
def test_a_usage_error_shows_control_characters_as_escapes(db_path, arg):
    result = run(db_path, "memory", "search", arg)
    assert result.exit_code == 2
    for c in "\x1b\x07\r\u202e":
        assert c not in result.output
    assert result.stderr.strip().splitlines()[-1].startswith("Error: No such option")


def test_a_text_after_double_dash_is_taken_as_text_and_still_guarded(db_path):
    assert run(db_path, "memory", "add", "fact", "--", "-dash first, as written").exit_code == 0
    refused = run(db_path, "memory", "add", "fact", "--", PEMS[0])
    assert refused.exit_code == 1 and "private key" in refused.stderr and KEY_BODY[:8] not in refused.output
    store = MemoryStore(db_path)
    try:
        assert [m.text for m in store.list()] == ["-dash first, as written"]
    finally:
        store.close()


def test_a_core_error_naming_a_hostile_path_stays_one_line(tmp_path):
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "x\n\x1b[2Jy" / "m.db"), "memory", "status"])
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "\x1b" not in result.stderr and "\\x1b" in result.stderr


def test_estimate_takes_text_after_double_dash_and_its_help_says_so(db_path):
    counted = run(db_path, "context", "estimate", "--token-mode", "chars4", "--", "-5 degrees is cold")
    assert counted.exit_code == 0, counted.output
    assert "characters       18" in counted.stdout
    assert 'estimate -- "some text"' in run(db_path, "context", "estimate", "--help").stdout
