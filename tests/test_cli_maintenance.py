"""``bestie memory maintenance install|status|remove`` and ``bestie memory digest`` through the real
CLI, with a real crontab file, a real database and a real HTTP stub on 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess

import pytest
from click.testing import CliRunner
from stub_http import Reply, StubServer

from bestie_tui.cli.main import cli
from bestie_tui.maintenance.schedule import MARKER
from bestie_tui.store.memory_store import MemoryStore

TOKEN = "4242:SECRET-cli-token"
OWNER_TAB = "MAILTO=me\n# keep me\n30 1 * * * /usr/bin/nightly\n"


@pytest.fixture
def tab(tmp_path):
    path = tmp_path / "crontab"
    path.write_text(OWNER_TAB)
    return path


@pytest.fixture
def run(db_path):
    runner = CliRunner()

    def invoke(*args, env=None):
        return runner.invoke(cli, ["--db", str(db_path), "memory", *args], env=env)

    return invoke


def ours(tab) -> list[str]:
    return [line for line in tab.read_text().splitlines() if line.endswith(MARKER)]


def test_install_status_remove_round_trip(run, tab, db_path):
    result = run("maintenance", "install", "--channel", "telegram:42", "--crontab-file", str(tab))
    assert result.exit_code == 0, result.output
    assert "schedule         0 9 * * 1" in result.stdout
    assert "next run" in result.stdout and "(local time)" in result.stdout
    assert "cron jobs do not inherit your shell's BESTIE_TELEGRAM_TOKEN" in result.stderr
    assert len(ours(tab)) == 1 and f"--db {db_path}" in ours(tab)[0]

    again = run("maintenance", "install", "--channel", "zalo:777", "--schedule", "15 8 * * *",
                "--crontab-file", str(tab))
    assert again.exit_code == 0
    [line] = ours(tab)
    assert line.startswith("15 8 * * * ") and "zalo:777" in line

    status = run("maintenance", "status", "--crontab-file", str(tab), "--json")
    data = json.loads(status.stdout)
    assert data["installed"] and data["entry"]["schedule"] == "15 8 * * *"
    assert data["entry"]["channel"] == "zalo:777" and data["entry"]["next_run"]
    assert data["last_digest"] is None

    removed = run("maintenance", "remove", "--crontab-file", str(tab))
    assert removed.exit_code == 0 and "removed the digest entry" in removed.stdout
    assert tab.read_text() == OWNER_TAB
    assert "not installed" in run("maintenance", "status", "--crontab-file", str(tab)).stdout


def test_bad_schedule_or_channel_is_a_one_line_error_and_writes_nothing(run, tab):
    bad = run("maintenance", "install", "--channel", "telegram:42", "--schedule", "0 25 * * *",
              "--crontab-file", str(tab))
    assert bad.exit_code == 1 and "invalid schedule '0 25 * * *'" in bad.output
    assert len(bad.output.strip().splitlines()) == 1
    bad = run("maintenance", "install", "--channel", "signal:1", "--crontab-file", str(tab))
    assert bad.exit_code == 1 and "invalid channel 'signal:1'" in bad.output
    assert tab.read_text() == OWNER_TAB
    assert run("maintenance", "install", "--crontab-file", str(tab)).exit_code == 2  # --channel is required


def test_crontab_file_from_bestie_crontab(run, tmp_path):
    path = tmp_path / "env-tab"
    result = run("maintenance", "install", "--channel", "telegram:1", env={"BESTIE_CRONTAB": str(path)})
    assert result.exit_code == 0 and len(ours(path)) == 1


def test_digest_prints_text_markdown_and_json(run, db_path):
    store = MemoryStore(db_path)
    store.propose("User prefers **short** replies", "communication_preference")
    store.close()
    text = run("digest")
    assert text.exit_code == 0 and "Pending review (1)" in text.stdout
    assert "User prefers **short** replies" in text.stdout
    md = run("digest", "--format", "markdown")
    assert md.stdout.startswith("# Bestie memory digest") and r"\*\*short\*\*" in md.stdout
    data = json.loads(run("digest", "--json").stdout)
    assert data["pending_total"] == 1 and data["findings"][0]["section"] == "pending"


def test_digest_to_a_channel_sends_records_and_status_shows_it(run, db_path, tab):
    env = {"BESTIE_TELEGRAM_TOKEN": TOKEN}
    with StubServer() as stub:
        env["BESTIE_TELEGRAM_API"] = stub.url
        sent = run("digest", "--channel", "telegram:42", env=env)
        assert sent.exit_code == 0, sent.output
        assert sent.stdout == "sent the digest to telegram:42 (1 message(s))\n"
        [req] = stub.requests
        assert req.path == f"/bot{TOKEN}/sendMessage" and req.body["chat_id"] == 42
        assert req.body["text"].startswith("Bestie memory digest")

        stub.default = Reply(401, {"ok": False, "description": "Unauthorized"})
        failed = run("digest", "--channel", "telegram:42", env=env)
        attempted = stub.requests[-1].body["text"]
    assert failed.exit_code == 1
    assert "HTTP 401" in failed.output and "the digest was kept" in failed.output
    assert TOKEN not in failed.output and "SECRET" not in failed.output

    status = run("maintenance", "status", "--crontab-file", str(tab))
    assert "last digest      FAILED" in status.stdout and "bestie memory digest --last" in status.stdout
    kept = run("digest", "--last")
    assert kept.exit_code == 0 and kept.stdout == attempted
    assert re.search(r"\(no change since \d{4}-\d\d-\d\d\)", attempted)  # from the digest sent before
    wal = db_path.with_name(db_path.name + "-wal")  # gone when the last connection closed cleanly
    assert TOKEN not in (db_path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")).decode("latin-1")


def test_digest_channel_typo_fails_before_anything(run):
    result = run("digest", "--channel", "telegram")
    assert result.exit_code == 1 and "invalid channel" in result.output
    assert run("digest", "--last").output.strip().endswith("no digest has been recorded yet")


@pytest.mark.slow
def test_the_installed_cron_command_runs_with_cron_s_bare_environment(tmp_path, tab, db_path):
    """Run the exact command of the cron line with an environment as empty as cron's: the token comes
    from the file named in the line, the API base URL from the database setting."""
    token_file = tmp_path / "telegram.token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    with StubServer() as stub:
        store = MemoryStore(db_path)
        store.set_setting("digest.telegramApi", stub.url)
        store.add("preference", "User prefers tea.")
        store.close()
        result = CliRunner().invoke(cli, ["--db", str(db_path), "memory", "maintenance", "install",
                                          "--channel", "telegram:42", "--crontab-file", str(tab)],
                                    env={"BESTIE_TELEGRAM_TOKEN_FILE": str(token_file)})
        assert result.exit_code == 0 and "warning" not in result.output
        [line] = ours(tab)
        command = line[len("0 9 * * 1 "):line.index(f" # {MARKER}")]
        assert TOKEN not in line
        proc = subprocess.run(["/bin/sh", "-c", command], env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == "sent the digest to telegram:42 (1 message(s))\n"
        assert [r.path for r in stub.requests] == [f"/bot{TOKEN}/sendMessage"]
    assert os.path.isabs(shlex.split(command)[-1])


def test_status_and_remove_find_the_tab_file_the_entry_was_installed_in(run, tab):
    assert run("maintenance", "install", "--channel", "telegram:5", "--crontab-file", str(tab)).exit_code == 0
    status = run("maintenance", "status")
    assert status.exit_code == 0 and f"crontab          {tab}" in status.stdout
    assert "channel          telegram:5" in status.stdout
    assert run("maintenance", "remove").exit_code == 0
    assert tab.read_text() == OWNER_TAB


def test_no_crontab_program_is_a_clear_error(run, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # never touches a real user crontab
    result = run("maintenance", "install", "--channel", "telegram:5")
    assert result.exit_code == 1
    assert "no `crontab` program on this machine; use --crontab-file FILE" in result.output


def test_status_and_remove_without_a_crontab_program_still_answer(run, db_path, tmp_path, monkeypatch):
    """Nothing installed, no ``crontab`` program, no BESTIE_CRONTAB: status says "not installed", why,
    and still shows the last (failed) digest; remove says there is nothing to remove."""
    from bestie_tui.maintenance import digest as dg

    store = MemoryStore(db_path)
    report = dg.build_digest(store)
    dg.record_delivery(store, report, "telegram:42", "kept text", outcome="failed", error="HTTP 500: boom")
    store.close()
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.delenv("BESTIE_CRONTAB", raising=False)
    status = run("maintenance", "status")
    assert status.exit_code == 0, status.output
    assert "not installed" in status.stdout and "no `crontab` program" in status.stdout
    assert "last digest      FAILED" in status.stdout and "HTTP 500: boom" in status.stdout
    data = json.loads(run("maintenance", "status", "--json").stdout)
    assert data["installed"] is False and data["last_digest"]["outcome"] == "failed"
    assert "no `crontab` program" in data["crontab_problem"]
    removed = run("maintenance", "remove")
    assert removed.exit_code == 0, removed.output
    assert "nothing to remove" in removed.stdout and "no `crontab` program" in removed.stdout


def test_status_says_how_many_parts_of_a_failed_digest_were_sent(run, db_path, tab, monkeypatch):
    from bestie_tui.maintenance import digest as dg
    from bestie_tui.maintenance.delivery import DeliveryError, RetryPolicy

    monkeypatch.setenv("BESTIE_TELEGRAM_TOKEN", TOKEN)
    store = MemoryStore(db_path)
    report = dg.build_digest(store)
    long_text = "\n".join(f"line {i} " + "x" * 95 for i in range(100))  # three Telegram messages
    with StubServer() as stub:
        monkeypatch.setenv("BESTIE_TELEGRAM_API", stub.url)
        stub.script = [Reply(200, {"ok": True, "result": {"message_id": 1}}),
                       Reply(403, {"ok": False, "description": "Forbidden: bot was blocked by the user"})]
        with pytest.raises(DeliveryError):
            dg.send_digest(store, report, "telegram:42", text=long_text, retry=RetryPolicy(sleep=lambda s: None))
    store.close()
    status = run("maintenance", "status", "--crontab-file", str(tab))
    assert "FAILED" in status.stdout and "sent 1 of 3 parts, then failed: telegram has no access to this chat " \
        "(HTTP 403: Forbidden: bot was blocked by the user)" in status.stdout
    last = json.loads(run("maintenance", "status", "--crontab-file", str(tab), "--json").stdout)["last_digest"]
    assert (last["parts"], last["total_parts"]) == (1, 3)


def test_a_malformed_api_url_fails_the_send_at_once_and_is_recorded(run):
    env = {"BESTIE_TELEGRAM_TOKEN": TOKEN, "BESTIE_TELEGRAM_API": "ht!tp://bad url"}
    result = run("digest", "--channel", "telegram:42", env=env)
    assert result.exit_code == 1
    assert "BESTIE_TELEGRAM_API 'ht!tp://bad url' is not a usable API base URL" in result.output
    assert "gave up" not in result.output and "the digest was kept" in result.output
    last = json.loads(run("digest", "--last", "--json").stdout)
    assert last["outcome"] == "failed" and "BESTIE_TELEGRAM_API" in last["error"]


def test_printing_a_digest_adds_no_health_snapshot_sending_one_does(run, db_path):
    from bestie_tui.hygiene.health import trend

    assert run("digest").exit_code == 0 and run("digest", "--json").exit_code == 0
    store = MemoryStore(db_path)
    assert trend(store) == []
    store.close()
    with StubServer() as stub:
        env = {"BESTIE_TELEGRAM_TOKEN": TOKEN, "BESTIE_TELEGRAM_API": stub.url}
        assert run("digest", "--channel", "telegram:42", env=env).exit_code == 0
    store = MemoryStore(db_path)
    assert [s.health for s in trend(store)] == [100]
    store.close()


def test_a_crontab_file_that_is_no_regular_file_is_a_one_line_error(run, tmp_path):
    import stat

    # /dev/null only to prove it is refused: the read-only status is asserted first, so a
    # regression stops here before install could write anything.
    status = run("maintenance", "status", "--crontab-file", "/dev/null")
    assert status.exit_code == 1 and "/dev/null: not a regular file" in status.output
    bad = run("maintenance", "install", "--channel", "telegram:42", "--crontab-file", "/dev/null")
    assert bad.exit_code == 1 and bad.output.strip().splitlines() == [
        "Error: cannot read /dev/null: not a regular file"]
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    missing = tmp_path / "nonexist" / "dir" / "tab"
    bad = run("maintenance", "install", "--channel", "telegram:42", "--crontab-file", str(missing))
    assert bad.exit_code == 1 and "does not exist" in bad.output and len(bad.output.strip().splitlines()) == 1
    assert not (tmp_path / "nonexist").exists()


@pytest.mark.parametrize("token", ["123:FAKE TOKEN sp", "123:FAKE\tTOKEN"])
def test_a_token_with_a_space_or_tab_fails_in_one_line_without_showing_it(run, token):
    with StubServer() as stub:
        result = run("digest", "--channel", "telegram:42",
                     env={"BESTIE_TELEGRAM_TOKEN": token, "BESTIE_TELEGRAM_API": stub.url})
        assert stub.requests == []
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    [line] = result.output.strip().splitlines()
    assert "BESTIE_TELEGRAM_TOKEN holds a space, control or non-ASCII character" in line
    assert "FAKE" not in result.output and "the digest was kept" in line
    last = json.loads(run("digest", "--last", "--json").stdout)
    assert last["outcome"] == "failed" and "FAKE" not in json.dumps(last)


def test_a_server_that_breaks_http_is_a_recorded_failure_with_the_digest_kept(run):
    from stub_http import RawServer

    def respond(conn, stopping):
        conn.sendall(b"HTTP/1.1 abc\r\n\r\n")

    with RawServer(respond) as server:
        result = run("digest", "--channel", "telegram:42",
                     env={"BESTIE_TELEGRAM_TOKEN": TOKEN, "BESTIE_TELEGRAM_API": server.url})
        assert server.connections == 1
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    [line] = result.output.strip().splitlines()
    assert "the server's answer is not valid HTTP (BadStatusLine" in line and "the digest was kept" in line
    assert TOKEN not in result.output
    last = json.loads(run("digest", "--last", "--json").stdout)
    assert last["outcome"] == "failed" and "not valid HTTP" in last["error"]
    assert last["text"].startswith("Bestie memory digest")


def test_a_schedule_that_never_fires_is_refused_and_status_survives_odd_lines(run, tab):
    bad = run("maintenance", "install", "--channel", "telegram:42", "--schedule", "0 9 31 2 *",
              "--crontab-file", str(tab))
    assert bad.exit_code == 1 and bad.output.strip().splitlines() == [
        "Error: invalid schedule '0 9 31 2 *': it never runs (no month has that day, e.g. 31 February)"]
    assert tab.read_text() == OWNER_TAB
    for line, shown in [
        (f"0 9 31 2 * /usr/bin/bestie memory digest --channel telegram:7 # {MARKER}",
         "never (the schedule never runs)"),
        (f"0 9 * * 1 /usr/bin/bestie memory digest --channel 'telegram:7 # {MARKER}", "channel          -"),
        (f"garbage \x1b[31m # {MARKER}", "schedule         unreadable"),
    ]:
        tab.write_bytes(OWNER_TAB.encode() + b"# caf\xe9\n" + line.encode() + b"\n")
        status = run("maintenance", "status", "--crontab-file", str(tab))
        assert status.exit_code == 0, status.output
        assert shown in status.stdout and "\x1b" not in status.output
        assert "warning: the entry in the crontab: " in status.stderr
        assert json.loads(run("maintenance", "status", "--crontab-file", str(tab), "--json").stdout)["installed"]
