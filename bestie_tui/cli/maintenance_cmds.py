"""``bestie memory maintenance install|status|remove`` and ``bestie memory digest``.

The cron entry runs ``bestie memory digest --channel C --db D``; the digest is built by
``core.digest``, delivered by ``core.delivery`` and recorded in the database either way.
"""

from __future__ import annotations

import click

from bestie_tui.maintenance.schedule import DEFAULT_SCHEDULE
from bestie_tui.text.words import printable

from .common import db_option, json_option, memory, pass_app
from .render import emit_json, kv

crontab_option = click.option(
    "--crontab-file", type=click.Path(dir_okay=False), envvar="BESTIE_CRONTAB",
    help="Manage this tab file instead of the user's crontab (default: BESTIE_CRONTAB).")


def _target_file(store, crontab_file):
    """``--crontab-file`` / ``BESTIE_CRONTAB`` if given, else the tab file the entry was installed in
    (recorded in the database), else ``None`` (the user's crontab)."""
    if crontab_file:
        return crontab_file
    recorded = (store.get_setting("maintenance.entry") or {}).get("crontab")
    return recorded if recorded and recorded.startswith("/") else None


def _when(entry) -> str:
    if entry.next_run:
        return f"{entry.next_run:%Y-%m-%d %H:%M} (local time)"
    return "never (disabled)" if not entry.enabled else "never (the schedule never runs)"


def _shown(value) -> str:
    """A crontab value for the terminal: the owner may have edited anything into the line."""
    return printable(str(value))


@memory.group()
def maintenance() -> None:
    """Schedule the memory digest: a cron entry that sends it to Telegram or Zalo."""


@maintenance.command("install")
@click.option("--channel", required=True, help="Where to send the digest: telegram:<chat id> or zalo:<user id>.")
@click.option("--schedule", default=DEFAULT_SCHEDULE, show_default=True,
              help="Cron schedule (five fields or @daily/@weekly…); default weekly, Monday 09:00.")
@crontab_option
@json_option
@pass_app
def install_cmd(app, channel, schedule, crontab_file, as_json) -> None:
    """Install (or replace) the digest's cron entry. Nothing is written if an argument is invalid."""
    from bestie_tui.maintenance import schedule as maint

    store = app.store()  # refuses a foreign database before the crontab is touched
    entry = maint.install(channel, store.path, schedule, crontab_file)
    maint.remember_entry(store, entry)
    warning = maint.token_warning(entry.channel, entry.command)
    if as_json:
        emit_json({"entry": entry.to_dict(), "warnings": [warning] if warning else []})
        return
    kv([("installed in", _shown(entry.crontab)), ("schedule", entry.schedule), ("channel", entry.channel),
        ("database", _shown(entry.db)), ("next run", _when(entry)), ("command", _shown(entry.command))])
    if warning:
        click.echo(f"warning: {warning}", err=True)


@maintenance.command("status")
@crontab_option
@json_option
@pass_app
def status_cmd(app, crontab_file, as_json) -> None:
    """Show the cron entry, its next run and the last digest.

    The last digest is the newest one sent or failed (a failed one is kept in the database).

    Without --crontab-file it reads the tab file the entry was installed in, else the user's crontab.
    With no crontab program it says so (nothing can be installed there) and still shows the last
    digest; a crontab that cannot be read is shown as unknown and the exit code is 1."""
    from bestie_tui.maintenance.schedule import maintenance_status

    store = app.store()
    st = maintenance_status(store, _target_file(store, crontab_file))
    unreadable = st.crontab_problem if st.crontab_problem and not st.program_missing else None
    if as_json:
        emit_json(st.to_dict())
        if unreadable:
            raise click.ClickException(unreadable)
        return
    pairs = [("crontab", _shown(st.crontab))]
    entry = st.entry
    if unreadable:
        pairs.append(("schedule", _shown(f"unknown: {unreadable}")))
    elif entry is None:
        pairs.append(("schedule", "not installed (bestie memory maintenance install --channel …)"))
        if st.program_missing:
            pairs.append(("", st.crontab_problem))
    else:
        pairs += [("schedule", _shown(entry.schedule)), ("channel", _shown(entry.channel or "-")),
                  ("database", _shown(entry.db or "-")), ("next run", _when(entry))]
    last = st.last_digest
    if last is None:
        pairs.append(("last digest", "none sent yet"))
    else:
        where = f"{last['at']} UTC to {last['channel']}"
        if last["outcome"] == "sent":
            pairs.append(("last digest", f"sent {where} ({last['parts']} message(s))"))
        else:
            pairs.append(("last digest", f"FAILED {where}: {last['error']}"))
            pairs.append(("", "the digest was kept: bestie memory digest --last"))
    kv(pairs)
    for warning in st.warnings:
        click.echo(f"warning: {_shown(warning)}", err=True)
    if unreadable:
        raise click.ClickException(unreadable)  # everything else was shown first


@maintenance.command("remove")
@crontab_option
@pass_app
def remove_cmd(app, crontab_file) -> None:
    """Remove the digest's cron entry (other lines untouched).

    Every other line of the crontab is left exactly as it was.

    Without --crontab-file it edits the tab file the entry was installed in, else the user's crontab."""
    from bestie_tui.maintenance.schedule import (
        CrontabTarget,
        NoCrontabProgram,
        remember_entry,
        remove,
    )

    store = app.store()
    crontab_file = _target_file(store, crontab_file)
    target = CrontabTarget.resolve(crontab_file)
    try:
        removed = remove(crontab_file)
    except NoCrontabProgram as exc:  # no crontab program, so no user crontab and no entry in it
        remember_entry(store, None)
        click.echo(f"nothing to remove: {exc}")
        return
    remember_entry(store, None)
    click.echo(f"removed the digest entry from {target}" if removed else f"no digest entry in {target}")


@memory.command("digest")
@click.option("--channel", help="Send it to telegram:<chat id> or zalo:<user id> instead of printing it.")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True,
              help="How to print it (a channel always gets plain text).")
@click.option("--last", is_flag=True, help="Print the last recorded digest (sent or failed) instead of a new one.")
@json_option
@db_option
@pass_app
def digest_cmd(app, channel, fmt, last, as_json) -> None:
    """The memory health report now: counts, pending, doctor findings, health, and the fixes."""
    from bestie_tui.maintenance import digest as digest_mod
    from bestie_tui.maintenance.delivery import DeliveryError, parse_channel

    store = app.store()
    if last:
        record = digest_mod.last_digest_record(store)
        if record is None:
            raise click.ClickException("no digest has been recorded yet")
        if as_json:
            emit_json(record)
        else:
            click.echo(record["text"], nl=False)
        return
    if channel:
        parse_channel(channel)  # a typo fails before the doctor runs
        # the scheduled run is the maintenance run: the undo window of hard-deleted records ends here
        from bestie_tui.transfer.erase import purge_history

        purge_history(store)
    report = digest_mod.build_digest(store, snapshot=bool(channel))  # a printed preview adds no trend point
    if not channel:
        if as_json:
            emit_json(report.to_dict())
        else:
            click.echo(report.render_markdown() if fmt == "markdown" else report.render_text(), nl=False)
        return
    try:  # chats get the plain text: Markdown escapes would show as backslashes there
        record = digest_mod.send_digest(store, report, channel)
    except DeliveryError as exc:
        raise click.ClickException(f"{exc} (the digest was kept: `bestie memory digest --last`)") from None
    if as_json:
        emit_json({"digest": report.to_dict(), "delivery": {k: v for k, v in record.items() if k != "text"}})
    else:
        click.echo(f"sent the digest to {record['channel']} ({record['parts']} message(s))")
