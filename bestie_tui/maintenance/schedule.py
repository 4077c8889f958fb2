"""The maintenance schedule: one cron entry that runs ``bestie memory digest --channel … --db …``.

The entry is a normal crontab line whose trailing comment is ``# bestie-tui maintenance digest``;
that comment is how we find *our* line again, so installing twice replaces it and ``remove`` deletes
only it. python-crontab builds, parses and validates the entry (and, with croniter, gives the next
run time); the crontab itself is edited line by line rather than re-rendered by python-crontab,
because a full re-render reorders environment lines, strips their quotes and drops ``NAME = value``
lines — the owner's other lines must stay byte for byte as they were, down to a missing final
newline (see ``JOINED_NOTE``).

Target: the user's crontab (through the ``crontab`` program) by default, or a tab file given by
``crontab_file`` / ``BESTIE_CRONTAB`` (a file in ``/etc/cron.d`` style or one the owner loads).
Times are the cron daemon's local time.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bestie_tui.errors import InvalidValueError
from bestie_tui.maintenance.crontab_file import MAX_CRONTAB_BYTES, CrontabError, CrontabTarget, NoCrontabProgram  # noqa: F401 (API)
from bestie_tui.paths import is_database_url
from bestie_tui.store.binding import uses_store
from bestie_tui.text.words import printable

#: The trailing comment that marks our cron line.
MARKER = "bestie-tui maintenance digest"
#: Appended to the marker when installing had to add a newline to the owner's last line (a tab
#: file may end without one); ``remove`` takes exactly that newline back, so the file is restored
#: byte for byte.
JOINED_NOTE = "(newline added above)"
_OUR_LINE = re.compile(rf"# {re.escape(MARKER)}(?: {re.escape(JOINED_NOTE)})?\s*$")
#: Weekly, Monday 09:00 local time.
DEFAULT_SCHEDULE = "0 9 * * 1"
#: cron @-specials accepted (``@reboot`` is not: a digest belongs to a calendar, not to boot).
SPECIALS = ("@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually")
#: Environment variables copied into the cron command when set at install time (paths, never tokens).
PASSED_ENV = ("BESTIE_TELEGRAM_TOKEN_FILE", "BESTIE_ZALO_TOKEN_FILE")
#: What may never reach a crontab line: C0 and C1 controls (tab, newline, CR, NEL…), DEL, the Unicode
#: line and paragraph separators (Python's ``splitlines`` and some cron readers break lines there) and
#: the bidi controls that make a line read other than it runs.
_LINE_BREAKERS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def check_one_line(value: str, what: str) -> str:
    """Refuse ``value`` if it holds a character that could split or disguise a crontab line.

    Shell quoting (``shlex.quote``) keeps a newline inside the quotes, but cron reads the file line by
    line, so a path holding ``\\n* * * * * …`` would install a second job. Returns ``value``.

    Raises:
        InvalidValueError: a control, line-separator or bidi character, named by its code point.
    """
    bad = _LINE_BREAKERS.search(value)
    if bad:
        raise InvalidValueError(f"{what} holds the control character U+{ord(bad.group()):04X}: "
                                "it cannot go into a crontab line; use a path without it")
    return value


@dataclass
class MaintenanceEntry:
    """Our cron line as found or installed. ``next_run`` is local time (what cron uses)."""

    schedule: str
    channel: str | None
    db: str | None
    command: str
    line: str
    enabled: bool
    crontab: str
    next_run: datetime | None = None
    #: What could not be read from a hand-edited line (its schedule never runs, its command has an
    #: unbalanced quote…): ``status`` reports the rest and warns about these.
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["next_run"] = self.next_run.isoformat(timespec="minutes") if self.next_run else None
        return data


@dataclass
class MaintenanceStatus:
    """What ``maintenance status`` shows: the entry (or ``None``), the last digest record from the
    database (see ``digest.last_digest_record``) and warnings worth acting on."""

    crontab: str
    entry: MaintenanceEntry | None
    last_digest: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    #: Why the crontab could not be read (``None`` when it was): no ``crontab`` program (then
    #: ``program_missing`` and nothing can be installed there), or a read failure (entry unknown).
    crontab_problem: str | None = None
    program_missing: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"crontab": self.crontab, "installed": self.entry is not None,
                "entry": self.entry.to_dict() if self.entry else None,
                "last_digest": self.last_digest, "warnings": list(self.warnings),
                "crontab_problem": self.crontab_problem}


# ------------------------------------------------------------------ validation and the command
def validate_schedule(schedule: str) -> str:
    """Check a cron schedule: five fields (``0 9 * * 1``, names such as ``mon`` allowed) or one of
    ``SPECIALS``. Returns it with whitespace collapsed.

    Raises:
        InvalidValueError: anything cron (python-crontab and croniter both) would not run.
    """
    from croniter import croniter
    from crontab import CronSlices

    check_one_line(schedule or "", "the schedule")
    if not (schedule or "").isascii():
        raise InvalidValueError(f"invalid schedule {printable(schedule)!r}: use ASCII digits, names and "
                                "'* , - /' only (e.g. '0 9 * * 1')")
    text = " ".join((schedule or "").split())
    if text.startswith("@"):
        if text.lower() in SPECIALS:
            return text.lower()
        raise InvalidValueError(f"invalid schedule {schedule!r}: use five cron fields "
                                f"(minute hour day month weekday) or one of {', '.join(SPECIALS)}")
    if len(text.split(" ")) != 5 or not CronSlices.is_valid(text) or not croniter.is_valid(text):
        raise InvalidValueError(f"invalid schedule {schedule!r}: use five cron fields "
                                "(minute hour day-of-month month day-of-week), e.g. '0 9 * * 1' for Monday 09:00")
    try:  # valid fields can still name no real date (31 February): cron would never run it
        next_run(text)
    except ValueError:  # croniter's CroniterBadDateError is a ValueError
        raise InvalidValueError(f"invalid schedule {schedule!r}: it never runs (no month has that day, "
                                "e.g. 31 February)") from None
    return text


def bestie_executable() -> list[str]:
    """The absolute command that runs this installation's CLI: the ``bestie`` script next to the
    running interpreter when there is one, else ``<python> -m bestie_tui.cli.main``."""
    # abspath, not resolve(): a venv's python is a symlink whose target has no bestie installed.
    python = os.path.abspath(sys.executable)
    script = Path(python).parent / "bestie"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [python, "-m", "bestie_tui.cli.main"]


def digest_command(channel: str, db_path: str | Path, env: Mapping[str, str] | None = None) -> str:
    """The shell command of the cron line (absolute paths, shell-quoted; ``render_line`` escapes
    ``%``, which cron would turn into a newline).

    Raises:
        InvalidValueError: a malformed channel.
    """
    from bestie_tui.maintenance.delivery import parse_channel

    env = os.environ if env is None else env
    check_one_line(str(channel), "the channel")
    check_one_line(str(db_path), "the database path")
    for name in PASSED_ENV:
        if env.get(name):
            check_one_line(env[name], f"${name}")
    channel = str(parse_channel(channel))
    argv = bestie_executable() + ["memory", "digest", "--channel", channel,
                                  "--db", str(db_path) if is_database_url(db_path) else os.path.abspath(os.path.expanduser(str(db_path)))]
    prefix = [f"{name}={shlex.quote(os.path.abspath(os.path.expanduser(env[name])))}"
              for name in PASSED_ENV if env.get(name)]
    return " ".join(prefix + [shlex.quote(a) for a in argv])


def render_line(schedule: str, command: str, joined: bool = False) -> str:
    """Our crontab line, built by python-crontab: ``<schedule> <command> # <MARKER>`` (``%`` → ``\\%``),
    with ``JOINED_NOTE`` after the marker when ``joined``."""
    from crontab import CronTab

    job = CronTab(tab="").new(command=command, comment=f"{MARKER} {JOINED_NOTE}" if joined else MARKER)
    job.setall(schedule)
    return job.render()


def next_run(schedule: str, now: datetime | None = None) -> datetime:
    """The next time ``schedule`` fires after ``now`` (local naive datetime; default: now).
    Uses croniter, the library python-crontab relies on for schedules."""
    from croniter import croniter

    return croniter(schedule, now or datetime.now()).get_next(datetime)


# ------------------------------------------------------------------ reading and writing the crontab
def is_our_line(line: str) -> bool:
    """True for our cron line, enabled or commented out by the owner."""
    return _OUR_LINE.search(line) is not None


#: The words every command we install holds (``digest_command``).
_OUR_COMMAND = " memory digest --channel "


def _is_our_fragment(line: str) -> bool:
    """True for the first part of one of our commands that a newline split from its marker."""
    return _OUR_COMMAND in line and not is_our_line(line)


def _is_joined(line: str) -> bool:
    return line.rstrip().endswith(f"# {MARKER} {JOINED_NOTE}")


def _split_lines(text: str) -> list[str]:
    """``text`` cut after each ``\\n`` only (``str.splitlines`` also cuts at ``\\r``, form feeds…),
    so that ``"".join`` gives back exactly ``text``."""
    pieces = text.split("\n")
    return [p + "\n" for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])


def _shown(text: str) -> str:
    """``text`` fit to show and store: bytes that were not UTF-8 (carried as surrogates, see
    ``CrontabTarget.read``) become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _parse_entry(line: str, target: CrontabTarget, now: datetime | None) -> MaintenanceEntry:
    """Our entry from its crontab line. Never raises: the owner may have edited the line into
    anything, and ``status`` must still report what it can (``problems`` says what it could not)."""
    from crontab import CronTab

    line = _shown(line)
    enabled = not line.lstrip().startswith("#")
    body = line.lstrip().lstrip("#").strip() if not enabled else line
    try:
        jobs = [j for j in CronTab(tab=body) if j.comment.startswith(MARKER)]
        schedule = jobs[0].slices.render() if jobs else None
    except Exception:  # noqa: BLE001 - python-crontab on hand-edited text: reported, never fatal
        jobs, schedule = [], None
    if not jobs or not schedule:
        return MaintenanceEntry("unreadable", None, None, body, line, False, str(target),
                                problems=["cron cannot read this line: install again to rewrite it"])
    command = jobs[0].command
    problems: list[str] = []
    try:
        argv = shlex.split(command.replace("\\%", "%"))
    except ValueError:
        argv = []
        problems.append("its command cannot be read (an unbalanced quote?): channel and database unknown")
    channel = argv[argv.index("--channel") + 1] if "--channel" in argv[:-1] else None
    db = argv[argv.index("--db") + 1] if "--db" in argv[:-1] else None
    when = None
    if enabled and schedule != "@reboot":
        try:
            when = next_run(schedule, now)
        except Exception:  # noqa: BLE001 - croniter on hand-edited text: reported, never fatal
            problems.append(f"its schedule {schedule!r} never runs (no month has that day?)")
    return MaintenanceEntry(schedule, channel, db, command, line, enabled, str(target), when, problems)


# ------------------------------------------------------------------ the operations
def find_entry(crontab_file: str | Path | None = None, *, now: datetime | None = None,
               env: Mapping[str, str] | None = None) -> MaintenanceEntry | None:
    """Our entry in the target crontab, or ``None``. Raises CrontabError."""
    target = CrontabTarget.resolve(crontab_file, env)
    for line in target.read().splitlines():
        if is_our_line(line):
            return _parse_entry(line, target, now)
    return None


def install(channel: str, db_path: str | Path, schedule: str = DEFAULT_SCHEDULE,
            crontab_file: str | Path | None = None, *, now: datetime | None = None,
            env: Mapping[str, str] | None = None) -> MaintenanceEntry:
    """Write our cron entry, replacing a previous one in place (never a second line).

    Everything is validated before the crontab is touched: a bad schedule or channel writes nothing.

    Returns:
        The installed entry with its next run time.
    Raises:
        InvalidValueError: invalid schedule or channel.
        CrontabError: the crontab cannot be read or written.
    """
    schedule = validate_schedule(schedule)
    command = digest_command(channel, db_path, env)
    target = CrontabTarget.resolve(crontab_file, env)
    lines = _split_lines(target.read())
    ours = [i for i, existing in enumerate(lines) if is_our_line(existing)]
    if ours:  # keep the owner's ordering: the new line takes the old one's place
        line = render_line(schedule, command, joined=_is_joined(lines[ours[0]]))
        lines[ours[0]] = line + "\n"
        lines = [existing for i, existing in enumerate(lines) if i not in ours[1:]]
    else:
        joined = bool(lines) and not lines[-1].endswith("\n")
        if joined:  # a line needs one to follow it; remembered in our comment for remove()
            lines[-1] += "\n"
        line = render_line(schedule, command, joined=joined)
        lines.append(line + "\n")
    target.write("".join(lines))
    return _parse_entry(line, target, now)


def remove(crontab_file: str | Path | None = None, *, env: Mapping[str, str] | None = None) -> bool:
    """Delete our entry; every other line stays byte for byte as it was — including a missing final
    newline that ``install`` had to add (noted in our line's comment) when nothing of the owner's
    follows our line any more. Returns False if there was none. Raises CrontabError."""
    target = CrontabTarget.resolve(crontab_file, env)
    lines = _split_lines(target.read())
    kept: list[str] = []
    for i, line in enumerate(lines):
        if not is_our_line(line):
            kept.append(line)
            continue
        # An entry installed by an older bestie from a path holding a newline is split over lines: its
        # first part (our command, no marker) goes with it, never left behind as a broken half-line.
        while kept and _is_our_fragment(kept[-1]) and _OUR_COMMAND not in line:
            kept.pop()
        last = all(is_our_line(rest) for rest in lines[i + 1:])
        if _is_joined(line) and last and kept and kept[-1].endswith("\n"):
            kept[-1] = kept[-1][:-1]
    if len(kept) == len(lines):
        return False
    target.write("".join(kept))
    return True


def token_warning(channel: str | None, command: str, env: Mapping[str, str] | None = None) -> str | None:
    """Why the cron job may not find its token, or ``None``. cron starts jobs with an almost empty
    environment, so ``BESTIE_<KIND>_TOKEN`` from the owner's shell is not there; a ``…_TOKEN_FILE``
    path in the command (copied at install time) or a variable defined in the crontab is needed."""
    if not channel or ":" not in channel:
        return None
    name = f"BESTIE_{channel.split(':', 1)[0].upper()}_TOKEN"
    if f"{name}_FILE=" in command:
        return None
    return (f"cron jobs do not inherit your shell's {name}: put the token in a file only you can read "
            f"(chmod 600), set {name}_FILE to its path and install again (never put the token itself "
            "in the crontab: other tools print it)")


@uses_store
def maintenance_status(store=None, crontab_file: str | Path | None = None, *, now: datetime | None = None,
                       env: Mapping[str, str] | None = None) -> MaintenanceStatus:
    """Our entry (with its next run), the last digest recorded in ``store`` and warnings: a token the
    cron job cannot see, an entry that sends another database's digest, a disabled entry.

    Never raises for the crontab: an unreadable one (or no ``crontab`` program) leaves ``entry``
    ``None`` with the reason in ``crontab_problem``, and the last digest is still read — a failed
    digest must stay visible on a machine without cron.
    """
    target = CrontabTarget.resolve(crontab_file, env)
    entry, problem, missing = None, None, False
    try:
        entry = find_entry(crontab_file, now=now, env=env)
    except CrontabError as exc:
        problem, missing = str(exc), isinstance(exc, NoCrontabProgram)
    status = MaintenanceStatus(crontab=str(target), entry=entry, crontab_problem=problem,
                               program_missing=missing)
    if store is not None:
        from bestie_tui.maintenance.digest import last_digest_record

        status.last_digest = last_digest_record(store)
    if entry is None:
        return status
    if not entry.enabled:
        status.warnings.append("the entry is commented out in the crontab: it does not run")
    status.warnings += [f"the entry in the crontab: {problem}" for problem in entry.problems]
    warning = token_warning(entry.channel, entry.command, env)
    if warning:
        status.warnings.append(warning)
    if store is not None and entry.db and os.path.abspath(entry.db) != os.path.abspath(store.path):
        status.warnings.append(f"the entry sends the digest of {entry.db}, not of this database ({store.path})")
    return status


@uses_store
def remember_entry(store, entry: MaintenanceEntry | None) -> None:
    """Keep the installed entry in ``store`` (setting ``maintenance.entry``; ``None`` clears it) so
    the Health view and ``status`` find it without being told which crontab. Not an undo step."""
    from bestie_tui.maintenance.digest import put_record

    value = None if entry is None else {k: v for k, v in entry.to_dict().items() if k != "next_run"}
    put_record(store, "maintenance.entry", value)
