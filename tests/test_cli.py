"""The ``bestie memory`` CLI: spellings, --json, exit codes, bad input, literal text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli
from bestie_tui.store.memory_store import MemoryStore


def test_add_list_inspect_and_json(run):
    assert run("memory", "add", "preference", "Prefers concise replies", "--user", "linh").exit_code == 0
    listing = run("memory", "list")
    assert "#1" in listing.output and "Prefers concise replies" in listing.output
    data = json.loads(run("memory", "list", "--json").output)
    assert data[0]["text"] == "Prefers concise replies" and data[0]["user"] == "linh"
    inspected = json.loads(run("memory", "inspect", "1", "--json").output)
    assert inspected["memory"]["access_count"] == 0  # reading is not an access
    assert inspected["events"][0]["action"] == "add"


def test_every_read_command_has_json(run):
    run("memory", "add", "note", "Uses Postgres")
    run("memory", "propose", "preference", "Likes tea")
    for args in (["status"], ["list"], ["tiers"], ["summary"], ["search", "postgres"], ["inspect", "1"],
                 ["messages"], ["messages", "search", "x"], ["pending"], ["pending", "search", "tea"],
                 ["pending", "inspect", "2"], ["history"], ["config"]):
        result = run("memory", *args, "--json")
        assert result.exit_code == 0, (args, result.output)
        json.loads(result.output)


def test_review_flow(run):
    run("memory", "propose", "preference", "Likes tea")
    run("memory", "propose", "preference", "Likes coffee")
    run("memory", "propose", "preference", "Likes mate")
    assert "approved" in run("memory", "approve", "1").output
    assert run("memory", "approve", "2", "--text", "Likes black coffee").exit_code == 0
    assert run("memory", "reject", "3").exit_code == 0
    statuses = {m["id"]: (m["status"], m["text"]) for m in json.loads(run("memory", "list", "--json").output)}
    assert statuses == {1: ("approved", "Likes tea"), 2: ("approved", "Likes black coffee"), 3: ("rejected", "Likes mate")}
    assert "undid reject" in run("memory", "undo").output
    assert json.loads(run("memory", "pending", "--json").output)[0]["id"] == 3


def test_reject_all_needs_yes(run):
    nothing = run("memory", "reject-all")
    assert nothing.exit_code == 0 and nothing.output.strip() == "nothing pending"
    run("memory", "propose", "note", "one thing")
    refused = run("memory", "reject-all")
    assert refused.exit_code == 2 and "--yes" in refused.output
    assert json.loads(run("memory", "pending", "--json").output)
    assert "rejected 1" in run("memory", "reject-all", "--yes").output


@pytest.mark.parametrize("args, code, message", [
    (["memory", "inspect", "99"], 1, "no memory with id 99"),
    (["memory", "pin", "99"], 1, "no memory with id 99"),
    (["memory", "inspect", "abc"], 2, "a memory id is a whole number such as 12"),
    (["memory", "approve", "0"], 2, "a memory id is 1 or more"),
    (["memory", "move", "1"], 2, "Missing option '--scope'"),
    (["memory", "list", "--scope", "galaxy"], 2, "galaxy"),
    (["memory", "add", "note", "x y", "--ttl", "someday"], 1, "cannot read TTL"),
    (["memory", "propose", "note", "my password is hunter2"], 1, "looks like a password"),
    (["memory", "config", "memory.writePolicy", "sometimes"], 1, "must be one of"),
    (["memory", "clear"], 2, "--yes"),
    (["memory", "undo"], 1, "nothing to undo"),
    (["memory", "frobnicate"], 2, "No such command"),
])
def test_bad_input_gives_one_clear_line_and_stable_code(run, args, code, message):
    result = run(*args)
    assert result.exit_code == code
    assert message in result.output
    assert "Traceback" not in result.output


def test_secret_is_not_echoed(run):
    result = run("memory", "propose", "note", "my password is Tr0ub4dor&3")
    assert result.exit_code == 1 and "Tr0ub4dor" not in result.output


def test_empty_store(run):
    assert run("memory", "list").output.strip() == "no memories"
    assert run("memory", "pending").output.strip() == "nothing pending"
    assert "no memory matches" in run("memory", "search", "anything").output
    assert run("memory", "messages").output.strip() == "no messages"


def test_markup_and_escape_sequences_print_literally(run):
    run("memory", "add", "note", "Shown [bold]as is[/bold] \x1b[31mred\x07")
    out = run("memory", "list").output
    assert "[bold]as is[/bold]" in out
    assert "\x1b" not in out and "\\x1b[31mred\\x07" in out
    assert json.loads(run("memory", "list", "--json").output)[0]["text"].endswith("\x1b[31mred\x07")


def test_export_clear_import_round_trip(run, tmp_path):
    run("memory", "add", "identity", "Lives in Hà Nội", "--scope", "core", "--pin")
    run("memory", "propose", "preference", "Likes durian")
    before = run("memory", "list", "--json").output
    out = tmp_path / "export.json"
    assert run("memory", "export", "--output", str(out)).exit_code == 0
    cleared = run("memory", "clear", "--yes")
    assert cleared.exit_code == 0 and "backup written to" in cleared.output
    backup = Path(cleared.output.rsplit("backup written to ", 1)[1].strip())
    assert backup.exists()
    assert run("memory", "list").output.strip() == "no memories"
    assert "imported 2 memories" in run("memory", "import", str(out)).output
    assert run("memory", "list", "--json").output == before
    assert "imported 0 memories (2 already present)" in run("memory", "import", str(out)).output


def test_malformed_import_file(run, tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "bestie-memory-export", "version": 1, "memories": [{"text": 5}]')
    result = run("memory", "import", str(bad))
    assert result.exit_code == 1 and "not valid JSON" in result.output


def test_pause_resume_status(run):
    assert "paused" in run("memory", "pause").output
    status = json.loads(run("memory", "status", "--json").output)
    assert status["paused"] is True
    assert run("memory", "propose", "note", "something new").exit_code == 1
    run("memory", "resume")
    assert json.loads(run("memory", "status", "--json").output)["paused"] is False


def test_refuses_foreign_database(tmp_path):
    import sqlite3

    path = tmp_path / "foreign.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    result = CliRunner().invoke(cli, ["--db", str(path), "memory", "status"])
    assert result.exit_code == 1 and "not a bestie memory database" in result.output


def _bestie_executable() -> str:
    candidate = Path(sys.executable).with_name("bestie")
    if not candidate.exists():
        pytest.fail(f"the installed `bestie` script is missing next to {sys.executable}")
    return str(candidate)


def test_installed_executable_runs_as_a_subprocess(tmp_path):
    env = {**os.environ, "BESTIE_DB": str(tmp_path / "sub.db")}
    exe = _bestie_executable()
    added = subprocess.run([exe, "memory", "add", "note", "From a subprocess"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert added.returncode == 0, added.stderr
    listed = subprocess.run([exe, "memory", "list", "--json"], env=env, capture_output=True, text=True, timeout=60)
    assert json.loads(listed.stdout)[0]["text"] == "From a subprocess"
    missing = subprocess.run([exe, "memory", "forget", "7"], env=env, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1 and "no memory with id 7" in missing.stderr


LIGHT_COMMANDS = [
    ["memory", "status"],
    ["memory", "list"],
    ["memory", "inspect", "1"],
    ["memory", "pending"],
    ["memory", "search", "short replies"],
    ["memory", "context", "short replies", "--user", "linh"],
    ["memory", "messages", "search", "replies"],
    ["memory", "log", "user", "short replies again", "--user", "linh"],
    ["memory", "propose-turn", "I prefer short replies in the morning", "--user", "linh"],
    ["memory", "recall", "short replies", "--user", "linh"],
]


@pytest.mark.parametrize("command", LIGHT_COMMANDS, ids=lambda c: " ".join(c[1:3]))
def test_everyday_commands_import_neither_textual_nor_sklearn(tmp_path, command):
    db = tmp_path / "s.db"
    store = MemoryStore(db)
    store.add("preference", "Linh prefers short replies", user="linh")
    store.propose("Linh likes replies in Vietnamese", user="linh")
    store.log_message("user", "short replies please", user="linh")
    store.close()
    code = (
        "import sys, json\n"
        "from bestie_tui.cli.main import cli\n"
        "try:\n"
        "    cli(['--db', sys.argv[1], *json.loads(sys.argv[2])], standalone_mode=False)\n"
        "finally:\n"
        "    heavy = sorted(m for m in ('textual', 'sklearn', 'scipy') if m in sys.modules)\n"
        "    print('HEAVY=' + ','.join(heavy))\n"
    )

    out = subprocess.run([sys.executable, "-c", code, str(db), json.dumps(command)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[-1] == "HEAVY="
    assert len(lines) > 1  # the command printed its answer before the check


def test_kind_is_a_known_list_case_insensitive_with_completion(run, store, monkeypatch):
    ok = run("memory", "add", "Decision", "Deploys go out on Tuesdays.")
    assert ok.exit_code == 0, ok.output
    assert store.list()[0].kind == "decision"
    # a kind that is none of the known ones is kept as a note, saying so and naming the known kinds
    typo = run("memory", "add", "decisoin", "Deploys go out on Thursdays.")
    assert typo.exit_code == 0 and "is not one of preference," in typo.output and "stored as note" in typo.output
    assert "decision, project_context" in typo.output
    assert [m.kind for m in store.list()].count("note") == 1 and store.count() == 2
    from click.testing import CliRunner

    from bestie_tui.cli.main import cli

    result = CliRunner().invoke(cli, [], env={"_BESTIE_COMPLETE": "bash_complete", "COMP_WORDS": "bestie memory add comm",
                                             "COMP_CWORD": "3"}, prog_name="bestie")
    assert "communication_preference" in result.output
