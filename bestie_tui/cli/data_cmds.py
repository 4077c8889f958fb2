"""``bestie memory messages|export|import|clear|erase|reindex|history|config``."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import click

from bestie_tui.paths import write_private_text
from bestie_tui.store.models import ROLES
from bestie_tui.text.clock import ago
from bestie_tui.text.words import clip, json_text, printable
from bestie_tui.transfer import backup as store_backup
from bestie_tui.transfer import exchange as transfer

from .common import json_option, memory, note_unknown_user, pass_app, progress_bar
from .render import emit_json, message_line


def _print_messages(items, as_json: bool, empty: str, tz=UTC, store=None) -> None:
    """Messages as JSON or one line each; with ``store``, times read "3 min ago" by its clock."""
    if as_json:
        emit_json([m.to_dict() for m in items])
    elif not items:
        click.echo(empty)
    else:
        now = store.clock() if store is not None else None
        for m in items:
            click.echo(message_line(m, tz, now))


@memory.group(invoke_without_command=True)
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--role", type=click.Choice(ROLES))
@click.option("--user", help="Only this user's messages.")
@json_option
@click.pass_context
def messages(ctx: click.Context, limit, role, user, as_json) -> None:
    """The raw chat history, newest first."""
    if ctx.invoked_subcommand:
        return
    store = ctx.obj.store()
    items = store.messages(limit=limit, role=role, user=user)
    if not items:
        note_unknown_user(store, user)
    _print_messages(items, as_json, f"no messages from user {user!r}" if user else "no messages", store.owner_zone,
                    store)


@messages.command("forget")
@click.argument("ids", nargs=-1, required=True, type=click.IntRange(min=1, max=2**63 - 1), metavar="ID...")
@json_option
@pass_app
def messages_forget(app, ids, as_json) -> None:
    """Remove chat messages from the history and the search index (undo brings them back while
    memory.undoRetentionDays lasts; then their text is purged from the log and the file)."""
    store = app.store()
    gone = store.forget_messages(ids)
    if as_json:
        emit_json({"forgotten": gone})
        return
    days = store.get_setting("memory.undoRetentionDays")
    click.echo(f"forgot {'message' if len(gone) == 1 else 'messages'} {', '.join(f'#{i}' for i in gone)} "
               f"(undo brings {'it' if len(gone) == 1 else 'them'} back for {days} days)")


@messages.command("search")
@click.argument("query")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--role", type=click.Choice(ROLES))
@click.option("--user", help="Only this user's messages.")
@click.option("--session", help="Only this session's messages.")
@json_option
@pass_app
def messages_search(app, query, limit, role, user, session, as_json) -> None:
    """Chat messages for QUERY, best first (history recall: each turn with the turns around it,
    shown dimmed); a query recall finds nothing for falls back to the tolerant text filter."""
    from bestie_tui.retrieval.recall import recall

    store = app.store()
    hits = recall(store, query, user, session=session, role=role, limit=limit, governance="full",
                  every_user=user is None)
    empty = f"no message matches {clip(query)!r}" + (f" for user {user!r}" if user else "")
    if not hits:
        note_unknown_user(store, user)
        items = [m for m in store.messages(limit=None if session else limit, role=role, query=query, user=user)
                 if session is None or m.session == session][:limit]
        _print_messages(items, as_json, empty, store.owner_zone, store)
        return
    if as_json:
        emit_json([{**h.message.to_dict(), "score": round(h.score, 4), "parts": {k: round(v, 4) for k, v in h.parts.items()},
                    "before": [m.to_dict() for m in h.before], "after": [m.to_dict() for m in h.after]} for h in hits])
        return
    now = store.clock()
    for n, hit in enumerate(hits):
        if n:
            click.echo("")
        for m in hit.before:
            click.echo(click.style("  " + message_line(m, store.owner_zone, now), dim=True))
        click.echo(message_line(hit.message, store.owner_zone, now))
        for m in hit.after:
            click.echo(click.style("  " + message_line(m, store.owner_zone, now), dim=True))


@memory.command("users")
@json_option
@pass_app
def users_cmd(app, as_json) -> None:
    """Every user the database holds memories or messages of, with their counts ("-": bound to no
    user, the owner's own)."""
    rows = app.store().users()
    if as_json:
        emit_json([u.to_dict() for u in rows])
        return
    if not rows:
        click.echo("no users: the database holds no memory and no message")
        return
    store = app.store()
    width = max(8, *(len(printable(u.user or "-")) for u in rows))
    click.echo(f"{'user':<{width}}  {'memories':>8}  {'approved':>8}  {'pending':>7}  {'messages':>8}  last message")
    for u in rows:
        last = ago(u.last_message_at, store.clock()) if u.last_message_at else "-"
        click.echo(f"{printable(u.user or '-'):<{width}}  {u.memories:>8}  {u.approved:>8}  {u.pending:>7}  "
                   f"{u.messages:>8}  {last}")


@memory.command("export")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), help="Write to a file instead of stdout.")
@click.option("--user", help="Only this user's memories and messages.")
@click.option("--format", "fmt", type=click.Choice(("bestie", "openclaw")), default="bestie", show_default=True,
              help="openclaw: MEMORY.md of the approved memories, one section per kind.")
@click.option("--full", is_flag=True, help="Also the event log (undo history) and the settings (policies).")
@pass_app
def export_cmd(app, output, user, fmt, full) -> None:
    """Export every memory and message as JSON (import reads it back), or MEMORY.md for OpenClaw.
    A file is written 0600. MEMORY.md carries each memory's scope, layer, pin and expiry in an HTML
    comment that import reads back, and names on stderr what it left out (superseded, archived or
    unapproved records)."""
    if fmt == "openclaw":
        from bestie_tui.importers.openclaw import memory_md

        md = memory_md(app.store(), user=user)
        text = md.text.rstrip("\n")
        data = {"memories": [None] * md.written, "messages": []}
        if md.warning():
            click.echo(md.warning(), err=True)
    else:
        if full and user:
            raise click.UsageError("--full exports the whole database; it cannot be limited to one --user")
        from bestie_tui.transfer.full_export import export_full

        data = export_full(app.store()) if full else transfer.export_data(app.store(), user=user)
        text = json_text(data, indent=2)  # controls and bidi characters as \u escapes; import restores them
    if output:
        try:
            write_private_text(Path(output), text + "\n")
        except OSError as exc:
            raise click.ClickException(f"cannot write {output}: {exc.strerror or exc}") from None
        click.echo(f"exported {len(data['memories'])} memories and {len(data['messages'])} messages to {output}", err=True)
    else:
        click.echo(text)


@memory.command("copy")
@click.option("--to", "to", required=True, metavar="URL|FILE",
              help="The empty database to copy into: a postgresql://user@host/dbname URL or a SQLite file.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@json_option
@pass_app
def copy_cmd(app, to, quiet, as_json) -> None:
    """Copy the whole database into an empty one, on the other engine or the same: every memory
    (ids kept), message, event (undo goes on), setting, meaning vector and the search index, then
    count the rows again in the target. Refuses a target that holds anything. The source is not
    changed; move --db (or BESTIE_DB) to the target once it is done."""
    from bestie_tui.store.db import display_location, is_url
    from bestie_tui.transfer.copy import check_file_target, sqlite_companions

    source = app.db_path()
    if not to:
        raise click.UsageError("--to is empty; give a postgresql:// URL or a SQLite file to copy into")
    if not is_url(source) and not app.db_exists():
        raise click.ClickException(f"{_shown_path(str(source))} does not exist; nothing was copied "
                                   "(is the --db path right?)")
    if is_url(to) or is_url(source):
        same = str(source) == to
    else:
        target = Path(to).expanduser().resolve()
        same = target in [Path(source).resolve(), *sqlite_companions(Path(source).resolve())]
    if same:
        raise click.UsageError("--to names the database being copied (or its -wal, -shm or -journal file); "
                               "give another (an empty one)")
    if not is_url(to):
        check_file_target(to)
    store = app.store()
    store.require_unbound("a copy of the database")
    from bestie_tui.transfer.copy import copy_database

    with progress_bar("copying", not (as_json or quiet)) as progress:
        result = copy_database(store.db, to if is_url(to) else Path(to).expanduser(), progress=progress)
    if as_json:
        emit_json(result.to_dict())
        return
    rows = result.rows
    click.echo(f"copied {rows.get('memory', 0):,} memories, {rows.get('message', 0):,} messages, "
               f"{rows.get('event', 0):,} events, {rows.get('setting', 0):,} settings and "
               f"{rows.get('memory_vector', 0):,} meaning vectors to {_shown_path(display_location(to))} "
               "(every table's rows counted again there)")


def _shown_path(text: str) -> str:
    """A path or URL on one visible line: control characters (tab and newline too) as escapes."""
    from bestie_tui.text.words import printable

    return printable(text).replace("\t", "\\t").replace("\n", "\\n")


@memory.command("import")
@click.argument("file", type=click.Path(exists=True))
@click.option("--allow-secret", is_flag=True, help="Also import memories that look like secrets (explicit owner request).")
@click.option("--format", "fmt", type=click.Choice(("bestie", "mem0", "openclaw", "chatgpt")),
              help="The file's format (default: told from the file when unambiguous).")
@click.option("--user", help="Bind imported records that name no user to this one.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@json_option
@pass_app
def import_cmd(app, file, allow_secret, fmt, user, quiet, as_json) -> None:
    """Import a bestie export, a Mem0 get_all JSON, OpenClaw's MEMORY.md (or workspace) or ChatGPT's
    conversations.json. Foreign memories arrive pending, for review; records already present are
    skipped; memories that look like secrets are refused unless --allow-secret. On a terminal a
    progress line shows the rate and the time left (none with --quiet or when stderr is not a terminal)."""
    from bestie_tui.importers import load
    from bestie_tui.store.bulk import Progress
    from bestie_tui.transfer.full_export import import_any

    progress = Progress.off() if quiet else Progress()
    try:
        full = import_any(app.store(), load(file, fmt, user), allow_secrets=allow_secret, progress=progress,
                          validated=True)
    finally:
        progress.finish()
    result = full.base
    if as_json:
        emit_json(full.to_dict())
        return
    if full.events_restored or full.settings_restored:
        click.echo(f"restored {full.events_restored} history events and {len(full.settings_restored)} settings")
    if full.events_kept_local:
        click.echo(f"kept this database's own history ({full.events_kept_local} events in the file not restored)", err=True)
    for key, why in full.settings_refused.items():
        click.echo(f"setting {key} not restored: {why}", err=True)
    click.echo(f"imported {result.memories_added} memories ({result.memories_skipped} already present), "
               f"{result.messages_added} messages ({result.messages_skipped} already present)")
    if result.secrets_refused:
        click.echo(f"refused {result.secrets_refused} memories that look like secrets "
                   "(not written anywhere; --allow-secret imports them)", err=True)
    others = {rule: n for rule, n in result.refused.items() if rule != "secret"}
    if others:
        reasons = {"injected": "carry injected prompt blocks", "venting": "read as one-off venting"}
        click.echo("refused " + ", ".join(f"{n} that {reasons.get(rule, rule)}" for rule, n in sorted(others.items()))
                   + " (not written)", err=True)
    if result.moved_to_working:
        click.echo(f"{result.moved_to_working} core memories came in as working:", err=True)
        for line in result.moved_why[:10]:
            click.echo(f"  {line}", err=True)
        if len(result.moved_why) > 10:
            click.echo(f"  … and {len(result.moved_why) - 10} more (--json lists them all)", err=True)


@memory.command()
@click.option("--yes", is_flag=True, help="Confirm: delete every memory, message and event.")
@pass_app
def clear(app, yes) -> None:
    """Delete every memory, message and event after writing a backup (settings are kept)."""
    if not yes:
        raise click.UsageError("clear deletes every memory and message; add --yes to confirm (a backup is written first)")
    backup = store_backup.clear(app.store())
    click.echo(f"cleared; backup written to {backup}")


@memory.command()
@click.option("--user", required=True, help="The user whose memories, messages and history text go.")
@click.option("--yes", is_flag=True, help="Confirm without asking (scripts).")
@json_option
@pass_app
def erase(app, user, yes, as_json) -> None:
    """Erase one user for good: their memories, messages and the text of their history (a backup
    is written first). Not undoable."""
    from bestie_tui.transfer.erase import erase_user

    store = app.store()
    n_mem, n_msg = store.count(user=user), store.message_count(user=user)
    warning = (f"erase deletes {n_mem} memories and {n_msg} messages of user {printable(user)!r} and the text of their "
               "history for good; this cannot be undone (a backup of the database is written first)")
    if not yes:
        click.echo(warning, err=True)
        if not click.confirm("Erase?", default=False, err=True):
            raise click.ClickException("nothing was erased")
    result = erase_user(store, user)
    if as_json:
        emit_json(result.to_dict())
        return
    click.echo(f"erased user {printable(user)!r}: {result.memories} memories, {result.messages} messages, "
               f"history text of {result.events_purged} events purged"
               + (f", {result.digests_scrubbed} recorded digests scrubbed" if result.digests_scrubbed else ""))
    click.echo(f"backup of the database before the erase: {result.backup} (it still holds the erased data; "
               "delete it to finish the erase)")


@memory.command()
@click.option("--semantic", is_flag=True,
              help="Embed every pending and approved memory again for search by meaning (the semantic extra).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@json_option
@pass_app
def reindex(app, semantic, quiet, as_json) -> None:
    """Rebuild the search indexes of the approved memories and of the chat messages (a progress bar
    on a terminal).

    Writes keep the memory index current by themselves, and a search brings the message index up to
    date with the messages logged since; this is for an index you suspect, or to build them ahead of
    the first search after an upgrade or a bulk load of messages, which would otherwise build them
    then (saying "building the message index (n of N)" on stderr). --semantic
    rebuilds the meaning vectors instead, with the model the setting semantic.model names (after installing
    the extra, or changing the model). Refused (exit 1) for a command bound to a user (--user): the
    indexes and vectors hold every user's rows."""
    app.store().require_unbound("rebuilding the search indexes" if not semantic else "rebuilding the meaning vectors")
    if semantic:
        _reindex_semantic(app, quiet, as_json)
        return
    import time

    from peewee import DatabaseError

    from bestie_tui.errors import StorageError
    from bestie_tui.store import doc_index

    store = app.store()
    started = time.perf_counter()
    try:
        with progress_bar("indexing memories", not (as_json or quiet)) as progress:
            docs = doc_index.reindex(store.db, progress=progress)
        with progress_bar("indexing messages", not (as_json or quiet)) as progress:
            messages = doc_index.reindex(store.db, doc_index.MESSAGE, progress=progress)
    except DatabaseError as exc:
        raise StorageError(f"cannot rebuild the index of {store.path}: {exc}; nothing was changed") from exc
    seconds = time.perf_counter() - started
    if as_json:
        emit_json({"documents": docs, "messages": messages, "seconds": round(seconds, 3),
                   "format": doc_index.FORMAT, "message_format": doc_index.MESSAGE_FORMAT})
    else:
        click.echo(f"indexed {docs} approved {'memory' if docs == 1 else 'memories'} and {messages} "
                   f"{'message' if messages == 1 else 'messages'} in {seconds:.1f} s")


@memory.command()
@click.option("--limit", type=click.IntRange(min=1), default=30, show_default=True)
@json_option
@pass_app
def history(app, limit, as_json) -> None:
    """The audit log of changes, newest first."""
    store = app.store()
    events = store.history(limit=limit)
    if as_json:
        emit_json([e.to_dict() for e in events])
        return
    if not events:
        click.echo("no changes recorded")
    now = store.clock()
    for e in events:
        said = (e.before or e.after or {}).get("message")
        target = f"#{e.memory_id}" if e.memory_id else f"message #{said}" if said else \
            (e.after or {}).get("key", "-") if e.after else "-"
        mark = " (undone)" if e.undone else ""
        click.echo(f"{ago(e.at, now):<13}  {e.action:<14} {target:<22} by {e.actor}{mark}")


def _value_or_default(stored, default):
    return default if stored is None else stored


@memory.command()
@click.argument("key", required=False)
@click.argument("value", required=False)
@json_option
@pass_app
def config(app, key, value, as_json) -> None:
    """Show settings, one setting, or set KEY VALUE (e.g. memory.writePolicy allow)."""
    from bestie_tui.store.settings import known_settings

    store = app.store()
    if key is not None and value is not None:
        try:
            parsed = json.loads(value)
        except ValueError:  # not JSON, or a whole number past Python's digit limit: the text itself
            parsed = value
        store.set_setting(key, parsed)
        click.echo(f"{key} = {json.dumps(store.get_setting(key))}")
        return
    known = known_settings()
    if key is not None and key not in known:
        raise click.ClickException(f"unknown setting {key!r}; known: {', '.join(sorted(known))}")
    keys = [key] if key is not None else sorted(known)
    values = {k: _value_or_default(store.get_setting(k), known[k]) for k in keys}
    if as_json:
        emit_json(values)
    else:
        for k, v in values.items():
            click.echo(f"{k:<24} {json.dumps(v)}")


def _reindex_semantic(app, quiet: bool, as_json: bool) -> None:
    """``reindex --semantic``: every pending and approved memory embedded again (``vectors.rebuild``)."""
    import time

    from peewee import DatabaseError

    from bestie_tui.errors import InvalidValueError, StorageError
    from bestie_tui.store import vectors

    store = app.store()
    resolved = vectors.current(store.db)
    if resolved.embedder is None:
        from bestie_tui.semantic.loader import take_notes

        take_notes()  # said in the error instead
        raise InvalidValueError(resolved.note or "search by meaning is off (semantic.model off, or the extra is not "
                                "installed: pip install 'bestie-tui[semantic]'); nothing was changed")
    started = time.perf_counter()
    try:
        with progress_bar("embedding memories", not (as_json or quiet)) as progress:
            docs = vectors.rebuild(store.db, resolved.embedder, progress=progress)
    except DatabaseError as exc:
        raise StorageError(f"cannot store the vectors in {store.location}: {exc}; the batches before stay") from exc
    seconds = time.perf_counter() - started
    if as_json:
        emit_json({"documents": docs, "seconds": round(seconds, 3), "model": resolved.embedder.name,
                   "dim": int(resolved.embedder.dim)})
    else:
        click.echo(f"embedded {docs} {'memory' if docs == 1 else 'memories'} with {resolved.embedder.name} "
                   f"in {seconds:.1f} s")
