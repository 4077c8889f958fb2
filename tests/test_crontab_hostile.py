"""Hostile schedules, channel ids and paths against ``bestie memory maintenance install|remove`` and a
real crontab file: each is refused in one line before the file is touched, or installed as exactly
one line whose command cron runs as the owner meant (no second job, nothing from the value run)."""

from __future__ import annotations

import shlex

import pytest
from click.testing import CliRunner
from crontab import CronTab

from bestie_tui.cli.main import cli
from bestie_tui.maintenance.schedule import MARKER, remove

OWNER_TAB = "MAILTO=me\n# keep me\n30 1 * * * /usr/bin/nightly\n"

# Each of these would split the cron line, hide part of it, or is not a schedule cron runs.
HOSTILE_SCHEDULES = [
    "0 9 * * 1\n* * * * * touch /tmp/owned",
    "0 9 * * 1\r* * * * * touch /tmp/owned",
    "0 9 * * 1\u2028* * * * * touch /tmp/owned",
    "0 9 * * 1\u2029x",
    "0 9 * * 1\x85x",
    "@reboot",
    "@reboot touch /tmp/owned",
    "0 9 * * 1; touch /tmp/owned",
    "0 9 * * $(touch /tmp/owned)",
    "0 9 * * `id`",
    "０ ９ * * １",  # fullwidth digits
    "0 9 * * 1 %",
    "0 9 * * \u202e1",
    "0\t9 * * 1\x00",
    "0 9 * * 1 # comment",
    "",
]
HOSTILE_CHANNELS = [
    "telegram:42\n* * * * * touch /tmp/owned #",
    "telegram:42\r",
    "telegram:42\u2028",
    "telegram:42;id",
    "telegram:$(id)",
    "zalo:`id`",
    "telegram:42 %",
    "telegram:\uff14\uff12",  # fullwidth 42
    "telegram:42\x1b]52;c;b3duZWQ=\x07",
]
# Paths: refused when they hold a line break or control character …
REFUSED_PATHS = [
    "x\n* * * * * touch /tmp/owned #",
    "x\r* * * * * touch /tmp/owned #",
    "x\u2028y",
    "x\u2029y",
    "x\x85y",
    "x\x1b[2Jy",
    "x\u202ey",
    "x\ty",
]
# … and installed quoted when they are merely odd: cron must see the path as one argument.
QUOTED_PATHS = ["a;touch owned", "$(touch owned)", "`touch owned`", "50%off", "it's here", "d b", "#notcomment"]


@pytest.fixture
def tab(tmp_path):
    path = tmp_path / "crontab"
    path.write_text(OWNER_TAB)
    return path


def install(tab, db, *extra, env=None):
    return CliRunner().invoke(cli, ["--db", str(db), "memory", "maintenance", "install",
                                    "--crontab-file", str(tab), *extra], env=env)


def test_at_least_26_hostile_values_are_held_here():
    assert len(HOSTILE_SCHEDULES) + len(HOSTILE_CHANNELS) + len(REFUSED_PATHS) + len(QUOTED_PATHS) >= 26


@pytest.mark.parametrize("schedule", HOSTILE_SCHEDULES)
def test_a_hostile_schedule_is_refused_before_the_crontab_is_touched(tab, db_path, schedule):
    result = install(tab, db_path, "--channel", "telegram:42", "--schedule", schedule)
    assert result.exit_code in (1, 2), result.output
    assert tab.read_text() == OWNER_TAB
    error = result.stderr.strip()
    assert error.count("\n") == 0 and "Traceback" not in result.output
    assert not any(c in error for c in "\r\x1b\u2028\u2029\x85\u202e\x00")


@pytest.mark.parametrize("channel", HOSTILE_CHANNELS)
def test_a_hostile_channel_is_refused_before_the_crontab_is_touched(tab, db_path, channel):
    result = install(tab, db_path, "--channel", channel)
    assert result.exit_code in (1, 2), result.output
    assert tab.read_text() == OWNER_TAB
    assert result.stderr.strip().count("\n") == 0
    assert "\x1b" not in result.stderr and "\u2028" not in result.stderr


@pytest.mark.parametrize("name", REFUSED_PATHS)
def test_a_database_path_with_a_line_break_or_control_is_refused(tab, tmp_path, name):
    result = install(tab, tmp_path / name, "--channel", "telegram:42")
    assert result.exit_code in (1, 2), result.output
    assert tab.read_text() == OWNER_TAB
    assert result.stderr.strip().count("\n") == 0 and "\x1b" not in result.stderr


@pytest.mark.parametrize("name", REFUSED_PATHS[:4])
def test_a_token_file_path_with_a_line_break_is_refused(tab, db_path, tmp_path, name):
    env = {"BESTIE_TELEGRAM_TOKEN_FILE": str(tmp_path / name)}
    result = install(tab, db_path, "--channel", "telegram:42", env=env)
    assert result.exit_code in (1, 2), result.output
    assert tab.read_text() == OWNER_TAB
    assert "BESTIE_TELEGRAM_TOKEN_FILE" in result.stderr


@pytest.mark.parametrize("name", QUOTED_PATHS)
def test_an_odd_path_becomes_one_quoted_argument_of_one_line(tab, tmp_path, name):
    db = tmp_path / name / "memory.db"
    db.parent.mkdir()
    result = install(tab, db, "--channel", "telegram:42")
    assert result.exit_code == 0, result.output
    text = tab.read_text()
    assert text.startswith(OWNER_TAB) and text.count("\n") == OWNER_TAB.count("\n") + 1
    [job] = [j for j in CronTab(tab=text) if j.comment == MARKER]
    argv = shlex.split(job.command.replace("\\%", "%"))
    assert argv[argv.index("--db") + 1] == str(db)
    assert remove(tab) and tab.read_text() == OWNER_TAB


def test_remove_takes_both_halves_of_an_entry_an_old_version_split(tab):
    # What an older bestie wrote for a --db path holding "\n* * * * * touch ~/owned #".
    split = ("0 9 * * 1 /opt/bestie memory digest --channel telegram:42 --db '/tmp/x\n"
             f"* * * * * touch ~/owned #' # {MARKER}\n")
    tab.write_text(OWNER_TAB + split)
    assert remove(tab)
    assert tab.read_text() == OWNER_TAB
