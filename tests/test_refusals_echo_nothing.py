"""Found by trying the product as a new user: a value error never prints a secret back, a secret in a
memory's kind is refused like one in its text, redaction is idempotent (a redacted message survives
export → import unchanged), and a malformed foreign or tampered full export is refused in one line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli
from bestie_tui.store.gate.secrets import redact
from bestie_tui.store.memory_store import MemoryStore

TOKEN = "ghp_" + "R4nd0mT0k3nAbCdEfGhIjKlMnOpQrStUvWx12"


def run(db, *args):
    return CliRunner().invoke(cli, ["--db", str(db), "memory", *args])


@pytest.mark.parametrize("args", [("config", "memory.writePolicy", TOKEN), ("config", TOKEN),
                                  ("expire", "1", TOKEN), ("add", "--ttl", TOKEN, "fact", "--", "tea"),
                                  ("propose", TOKEN, "--", "I like tea.")])
def test_a_value_error_never_prints_the_secret_it_was_given(db_path, args):
    assert run(db_path, "add", "fact", "--", "User likes tea.").exit_code == 0
    result = run(db_path, *args)
    # a secret given as the kind is a usage error (exit 2, the usage lines above it); elsewhere a refusal
    usage = args[0] == "propose"
    assert result.exit_code == (2 if usage else 1) and TOKEN not in result.output and TOKEN[4:20] not in result.output
    assert result.stderr.count("\n") == (4 if usage else 1)


def test_a_secret_as_the_kind_is_refused_and_nothing_is_stored(db_path):
    result = run(db_path, "propose", TOKEN, "--", "I like blues.")
    assert result.exit_code == 2 and "[redacted: GitHub token]" in result.stderr and TOKEN not in result.output
    store = MemoryStore(db_path)
    try:
        assert store.list(status="all") == []
    finally:
        store.close()


def test_redaction_is_idempotent_and_a_logged_message_survives_a_round_trip(tmp_path):
    once, kinds = redact("my password is hunter2-Blue!")
    assert kinds and redact(once) == (once, [])
    a, b, out = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "x.json"
    store = MemoryStore(a)
    try:
        store.log_message("user", "my password is hunter2-Blue!")
        stored = store.messages()[0].text
    finally:
        store.close()
    assert "hunter2" not in stored
    assert run(a, "export", "--output", str(out)).exit_code == 0
    assert run(b, "import", str(out)).exit_code == 0
    assert [m["text"] for m in json.loads(run(b, "messages", "--json").stdout)] == [stored]


@pytest.mark.parametrize("message", ['"hi"', '{"author": {"role": "user"}, "content": {"parts": ["hi"]}, '
                                              '"create_time": "soon"}', '{"author": 5}'])
def test_a_malformed_chatgpt_export_is_one_line_and_imports_nothing(db_path, tmp_path, message):
    path = tmp_path / "conversations.json"
    path.write_text(f'[{{"mapping": {{"a": {{"message": {message}, "parent": null}}, '
                    f'"b": {{"message": {message}, "parent": "a"}}}}}}]')
    result = run(db_path, "import", str(path), "--format", "chatgpt")
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output and result.stderr.count("\n") <= 1
    assert json.loads(run(db_path, "messages", "--json").stdout) == []


def test_a_tampered_full_export_is_refused_before_anything_is_written(tmp_path):
    a, b, out = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "full.json"
    assert run(a, "add", "fact", "--", "User likes tea.").exit_code == 0
    assert run(a, "export", "--full", "--output", str(out)).exit_code == 0
    data = json.loads(out.read_text())
    data["events"][0]["after"] = "{not json"
    out.write_text(json.dumps(data))
    result = run(b, "import", str(out))
    assert result.exit_code == 1 and "events[0] (event #1).after" in result.stderr
    assert json.loads(run(b, "list", "--json").stdout) == []


def test_an_argument_that_is_not_utf8_is_refused_before_an_access_is_recorded(db_path):
    assert run(db_path, "add", "fact", "--", "User likes green tea.").exit_code == 0
    before = json.loads(run(db_path, "inspect", "1", "--json").stdout)["memory"]["access_count"]
    result = run(db_path, "context", "--user", "p1", "--record-access", "--", "green tea \udc80")
    assert result.exit_code == 1 and "not valid UTF-8" in result.stderr
    assert json.loads(run(db_path, "inspect", "1", "--json").stdout)["memory"]["access_count"] == before
