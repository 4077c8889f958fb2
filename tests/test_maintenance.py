"""The maintenance cron entry in a real crontab file: install, replace, remove, refuse bad input."""

from __future__ import annotations

import os
import shlex
import sys
from datetime import datetime
from pathlib import Path

import pytest
from conftest import finishes

from bestie_tui.errors import InvalidValueError
from bestie_tui.maintenance import schedule as m

#: A crontab the owner wrote by hand: env lines in several styles, odd spacing, a disabled job,
#: a job whose command contains ``#``, no newline at the end. python-crontab's own re-render would
#: change several of these lines; ours must not.
OWNER_TAB = (
    "# m h  dom mon dow   command\n"
    "SHELL=/bin/bash\n"
    'MAILTO="me@example.com"\n'
    "PATH = /usr/local/bin:/usr/bin:/bin\n"
    "\n"
    "*/5  *  * * *   /usr/bin/backup.sh   --fast # nightly\n"
    "@reboot /usr/bin/start-thing\n"
    "# 0 3 * * * /usr/bin/disabled-job\n"
    '0 4 * * * echo "a # b" > /tmp/x'
)
MONDAY_NOON = datetime(2026, 11, 30, 12, 0)  # a Monday


@pytest.fixture
def tab(tmp_path: Path) -> Path:
    path = tmp_path / "crontab"
    path.write_text(OWNER_TAB, encoding="utf-8")
    return path


def our_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if m.is_our_line(line)]


def test_install_appends_one_entry_with_absolute_paths_and_keeps_the_rest(tab, tmp_path):
    entry = m.install("telegram:123456", tmp_path / "sub" / ".." / "memory.db", crontab_file=tab,
                      now=MONDAY_NOON, env={})
    text = tab.read_text()
    assert text.startswith(OWNER_TAB + "\n")  # only a newline was added to the owner's last line
    [line] = our_lines(tab)
    assert line.startswith("0 9 * * 1 ")  # default: weekly, Monday 09:00
    assert line.endswith(f"# {m.MARKER} (newline added above)")  # so remove() can take it back
    argv = shlex.split(line.split(" # ")[0])[5:]
    assert os.path.isabs(argv[0])
    assert argv[0] == os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "bestie") \
        or argv[:3] == [os.path.abspath(sys.executable), "-m", "bestie_tui.cli.main"]
    assert argv[-6:] == ["memory", "digest", "--channel", "telegram:123456", "--db", str(tmp_path / "memory.db")]
    assert entry.schedule == "0 9 * * 1" and entry.channel == "telegram:123456"
    assert entry.next_run == datetime(2026, 12, 7, 9, 0)  # next Monday 09:00 after Monday noon


def test_reinstall_replaces_our_line_in_place_never_duplicates(tab, tmp_path):
    m.install("telegram:1", tmp_path / "a.db", crontab_file=tab, env={})
    tab.write_text(tab.read_text() + "15 2 * * * /usr/bin/after-ours\n")
    entry = m.install("zalo:987654321", tmp_path / "a.db", "30 18 * * fri", crontab_file=tab, env={})
    lines = tab.read_text().splitlines()
    [line] = our_lines(tab)
    assert line.startswith("30 18 * * fri ") and "--channel zalo:987654321" in line
    assert lines[-1] == "15 2 * * * /usr/bin/after-ours"  # the owner's later line stays after ours
    assert entry.channel == "zalo:987654321"


def test_remove_deletes_only_our_entry_byte_for_byte(tab, tmp_path):
    m.install("telegram:1", tmp_path / "a.db", crontab_file=tab, env={})
    m.install("zalo:2", tmp_path / "a.db", crontab_file=tab, env={})  # a replacement keeps the note
    assert m.remove(crontab_file=tab, env={}) is True
    assert tab.read_text() == OWNER_TAB  # even the missing final newline, which install had to add
    assert m.remove(crontab_file=tab, env={}) is False
    assert m.find_entry(tab, env={}) is None


@pytest.mark.parametrize("schedule", ["61 9 * * 1", "0 9 * *", "every monday", "@reboot", "0 9 * * 1 2026", ""])
def test_invalid_schedule_writes_nothing(tab, tmp_path, schedule):
    before = tab.read_bytes()
    with pytest.raises(InvalidValueError, match="invalid schedule"):
        m.install("telegram:1", tmp_path / "a.db", schedule, crontab_file=tab, env={})
    assert tab.read_bytes() == before


@pytest.mark.parametrize("channel", ["telegram", "whatsapp:1", "telegram:abc", "zalo:@x"])
def test_invalid_channel_writes_nothing_and_creates_no_file(tmp_path, channel):
    path = tmp_path / "new-crontab"
    with pytest.raises(InvalidValueError, match="invalid channel"):
        m.install(channel, tmp_path / "a.db", crontab_file=path, env={})
    assert not path.exists()


def test_crontab_file_from_the_environment_and_file_mode_kept(tmp_path):
    path = tmp_path / "cron.d-bestie"
    path.write_text("MAILTO=\"\"\n")
    path.chmod(0o600)
    m.install("telegram:1", tmp_path / "a.db", "@weekly", env={"BESTIE_CRONTAB": str(path)})
    assert path.stat().st_mode & 0o777 == 0o600
    entry = m.find_entry(env={"BESTIE_CRONTAB": str(path)}, now=MONDAY_NOON)
    assert entry.schedule == "@weekly" and entry.next_run == datetime(2026, 12, 6, 0, 0)


def test_token_file_path_is_passed_to_cron_but_never_a_token(tab, tmp_path):
    env = {"BESTIE_TELEGRAM_TOKEN": "123:SECRET", "BESTIE_TELEGRAM_TOKEN_FILE": str(tmp_path / "tg token")}
    entry = m.install("telegram:1", tmp_path / "a.db", crontab_file=tab, env=env)
    text = tab.read_text()
    assert "SECRET" not in text
    assert f"BESTIE_TELEGRAM_TOKEN_FILE='{tmp_path / 'tg token'}'" in text
    assert m.token_warning(entry.channel, entry.command) is None
    assert "BESTIE_ZALO_TOKEN_FILE" in m.token_warning("zalo:1", "bestie memory digest")


def test_status_reports_a_commented_out_entry_and_another_database(tab, tmp_path, store):
    m.install("telegram:1", tmp_path / "other.db", crontab_file=tab, env={})
    tab.write_text(tab.read_text().replace("0 9 * * 1 ", "# 0 9 * * 1 "))
    status = m.maintenance_status(store, tab, env={})
    assert status.entry is not None and status.entry.enabled is False and status.entry.next_run is None
    assert any("commented out" in w for w in status.warnings)
    assert any("other.db" in w for w in status.warnings)
    assert status.to_dict()["installed"] is True


def test_percent_in_a_path_is_escaped_for_cron(tab, tmp_path):
    entry = m.install("telegram:1", tmp_path / "50%" / "a.db", crontab_file=tab, env={})
    assert "50\\%" in our_lines(tab)[0]
    assert entry.db == str(tmp_path / "50%" / "a.db")


def test_validate_schedule_collapses_whitespace_and_accepts_names():
    assert m.validate_schedule("  0   9 * *  mon ") == "0 9 * * mon"
    assert m.validate_schedule("@Daily") == "@daily"


def test_status_of_an_unreadable_crontab_says_why_and_keeps_the_last_digest(tmp_path, store):
    from bestie_tui.maintenance import digest as dg

    report = dg.build_digest(store)
    dg.record_delivery(store, report, "zalo:1", "text", outcome="sent", parts=1)
    status = m.maintenance_status(store, tmp_path, env={})  # a directory, not a tab file
    assert status.entry is None and not status.program_missing
    assert status.crontab_problem.startswith(f"cannot read {tmp_path}")
    assert status.last_digest["channel"] == "zalo:1"


def test_removal_and_reinstall_keep_a_later_last_line_without_newline(tmp_path):
    path = tmp_path / "tab"
    path.write_text("MAILTO=me\n")
    m.install("telegram:1", tmp_path / "a.db", crontab_file=path, env={})
    path.write_text(path.read_text() + "15 2 * * * /usr/bin/after-ours")  # the owner's, no newline
    m.install("telegram:2", tmp_path / "a.db", crontab_file=path, env={})
    assert path.read_text().endswith("\n15 2 * * * /usr/bin/after-ours")
    assert m.remove(crontab_file=path, env={}) is True
    assert path.read_text() == "MAILTO=me\n15 2 * * * /usr/bin/after-ours"


# ------------------------------------------------------------------ what a crontab file may be


def test_a_device_is_refused_and_left_a_device(tmp_path):
    import stat

    # /dev/null is only pointed at to prove it is refused: nothing may be written there. The read
    # (which writes nothing) is asserted first, so a regression stops the test before install runs.
    with pytest.raises(m.CrontabError, match="/dev/null.*not a regular file"):
        m.CrontabTarget("/dev/null").read()
    with pytest.raises(m.CrontabError, match="/dev/null.*not a regular file"):
        m.install("telegram:1", tmp_path / "a.db", crontab_file="/dev/null", env={})
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    status = m.maintenance_status(None, "/dev/null", env={})
    assert status.entry is None and "not a regular file" in status.crontab_problem


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(m.CrontabError, match="not a regular file"):
        m.install("telegram:1", tmp_path / "a.db", crontab_file=tmp_path, env={})
    assert list(tmp_path.iterdir()) == []


def test_a_missing_directory_is_refused_never_created(tmp_path):
    path = tmp_path / "nonexist" / "dir" / "tab"
    with pytest.raises(m.CrontabError, match="directory .*nonexist/dir does not exist"):
        m.install("telegram:1", tmp_path / "a.db", crontab_file=path, env={})
    assert not (tmp_path / "nonexist").exists()
    assert m.find_entry(path, env={}) is None  # reading a tab that is not there yet is fine


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    how, exc = finishes(lambda: m.install("telegram:1", tmp_path / "a.db", crontab_file=fifo, env={}))
    assert how == "raised" and isinstance(exc, m.CrontabError) and "not a regular file" in str(exc)
    how, status = finishes(lambda: m.maintenance_status(None, fifo, env={}))
    assert how == "returned" and "not a regular file" in status.crontab_problem
    assert os.path.exists(fifo) and not os.path.isfile(fifo)


def test_a_symlinked_tab_updates_its_target_and_stays_a_link(tab, tmp_path):
    link = tmp_path / "link-to-tab"
    link.symlink_to(tab)
    m.install("telegram:1", tmp_path / "a.db", crontab_file=link, env={})
    assert link.is_symlink() and os.readlink(link) == str(tab)
    assert len(our_lines(tab)) == 1
    assert m.remove(crontab_file=link, env={}) is True
    assert link.is_symlink() and tab.read_text() == OWNER_TAB


def test_a_dangling_symlink_creates_its_target_in_an_existing_directory(tmp_path):
    target = tmp_path / "real-tab"
    link = tmp_path / "link"
    link.symlink_to(target)
    m.install("telegram:1", tmp_path / "a.db", crontab_file=link, env={})
    assert link.is_symlink() and len(our_lines(target)) == 1


def test_an_oversized_tab_file_is_refused_unread_and_unchanged(tmp_path):
    path = tmp_path / "huge"
    path.write_bytes(b"# x\n" * (m.MAX_CRONTAB_BYTES // 4 + 1))
    before = path.stat().st_size
    with pytest.raises(m.CrontabError, match="larger than"):
        m.install("telegram:1", tmp_path / "a.db", crontab_file=path, env={})
    assert path.stat().st_size == before


# ------------------------------------------------------------------ schedules that never fire, odd content
@pytest.mark.parametrize("schedule", ["0 9 31 2 *", "0 9 30 2 *", "0 9 31 4 *"])
def test_a_schedule_that_never_fires_is_refused_and_nothing_written(tab, tmp_path, schedule):
    before = tab.read_bytes()
    with pytest.raises(InvalidValueError, match="never runs"):
        m.install("telegram:1", tmp_path / "a.db", schedule, crontab_file=tab, env={})
    assert tab.read_bytes() == before


def test_a_leap_day_schedule_is_accepted():
    assert m.validate_schedule("0 9 29 2 *") == "0 9 29 2 *"


def test_status_of_a_hand_edited_entry_that_never_fires(tab, tmp_path, store):
    m.install("telegram:1", tmp_path / "a.db", crontab_file=tab, env={})
    tab.write_text(tab.read_text().replace("0 9 * * 1 ", "0 9 31 2 * "))
    status = m.maintenance_status(store, tab, env={})
    assert status.entry.schedule == "0 9 31 2 *" and status.entry.next_run is None
    assert status.entry.channel == "telegram:1"
    assert any("never runs" in w for w in status.warnings)


def test_status_of_our_line_with_an_unbalanced_quote(tab, store):
    tab.write_text(OWNER_TAB + f"\n0 9 * * 1 /usr/bin/bestie memory digest --channel 'telegram:1 # {m.MARKER}\n")
    status = m.maintenance_status(store, tab, env={})
    assert status.entry is not None and status.entry.schedule == "0 9 * * 1"
    assert status.entry.channel is None and status.entry.next_run is not None
    assert any("cannot be read" in w for w in status.warnings)


def test_a_non_utf8_byte_anywhere_survives_install_and_remove_byte_for_byte(tmp_path, store):
    path = tmp_path / "tab"
    owner = b"# caf\xe9 in latin-1\n30 1 * * * /usr/bin/nightly --to \xff\xfe\n"
    path.write_bytes(owner)
    entry = m.install("telegram:1", tmp_path / "a.db", crontab_file=path, env={})
    assert entry.channel == "telegram:1"
    assert path.read_bytes().startswith(owner) and path.read_bytes().count(b"\n") == 3
    assert m.maintenance_status(store, path, env={}).entry.channel == "telegram:1"
    assert m.remove(crontab_file=path, env={}) is True
    assert path.read_bytes() == owner


def test_a_non_utf8_byte_in_our_own_line_is_shown_not_crashed_on(tmp_path, store):
    import json

    path = tmp_path / "tab"
    m.install("telegram:1", tmp_path / "a.db", crontab_file=path, env={})
    path.write_bytes(path.read_bytes().replace(b"a.db", b"\xe9.db"))
    status = m.maintenance_status(store, path, env={})
    assert status.entry.db.endswith("\ufffd.db")  # shown with a replacement character
    json.dumps(status.to_dict(), ensure_ascii=False).encode("utf-8")  # printable and storable
    m.remember_entry(store, status.entry)


def test_a_chat_id_in_other_digits_is_refused_and_nothing_installed(tab, tmp_path):
    before = tab.read_bytes()
    with pytest.raises(InvalidValueError, match="invalid channel"):
        m.install("telegram:١٢٣", tmp_path / "a.db", crontab_file=tab, env={})
    assert tab.read_bytes() == before
