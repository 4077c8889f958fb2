"""``bestie memory …``: status, listing, search and the owner's edits of single memories.

Review commands (pending/approve/reject) live in ``review_cmds``, history/transfer/config in
``data_cmds``, and so on; every one of them adds its commands to the ``memory`` group of ``common``,
and ``main`` imports them all.
"""

from __future__ import annotations

import click

from bestie_tui.retrieval.search import search as search_memories
from bestie_tui.store.models import LAYERS, SCOPES, STATUSES
from bestie_tui.text.clock import show
from bestie_tui.text.words import clip, printable

from .common import SCOPE, AppContext, json_option, memory, memory_id_arg, note_unknown_user, pass_app
from .render import emit_json, kv, memory_detail, memory_line, memory_lines


@memory.command()
@json_option
@pass_app
def status(app: AppContext, as_json: bool) -> None:
    """Policies, paused state, database and counts."""
    st = app.store().status()
    if as_json:
        emit_json(st.to_dict())
        return
    kv([
        ("database", st.db_path),
        ("schema", st.schema_version),
        ("write policy", st.write_policy),
        ("delete policy", st.delete_policy),
        ("memory", "PAUSED (no writes, no injection)" if st.paused else "active"),
        ("governance", st.governance),
        ("tiers", "  ".join(f"{k} {v}" for k, v in st.tiers.items())),
        ("statuses", "  ".join(f"{k} {v}" for k, v in st.counts.items())),
        ("messages", st.messages),
        ("events", st.events),
    ] + ([("forget requests", f"{st.forget_requests} from the assistant (bestie memory forget-requests)")]
         if st.forget_requests else []))


@memory.command()
@pass_app
def pause(app: AppContext) -> None:
    """Stop the assistant's memory writes and injection until resume."""
    app.store().pause()
    click.echo("memory paused: the assistant will not write or inject memories (browsing still works)")


@memory.command()
@pass_app
def resume(app: AppContext) -> None:
    """Resume memory writes and injection."""
    app.store().resume()
    click.echo("memory resumed")


@memory.command("list")
@click.option("--scope", type=click.Choice(SCOPES), help="Only this scope.")
@click.option("--status", type=click.Choice(STATUSES + ("all",)), default="all", show_default=True)
@click.option("--tier", type=click.Choice(LAYERS), help="Only this tier as the console shows it.")
@click.option("--user", help="Only memories bound to this user (for owner.user, with the ones bound to no user).")
@click.option("--limit", type=click.IntRange(min=0), help="At most N records.")
@json_option
@pass_app
def list_cmd(app: AppContext, scope, status, tier, user, limit, as_json) -> None:
    """Every memory, archive included, newest first."""
    store = app.store()
    owner = user is not None and user == store.get_setting("owner.user")  # their general memories too, as recall
    items = store.list(scope=scope, status=status, tier=tier, user=user, limit=limit, with_unbound=owner)
    if not items:
        note_unknown_user(store, user)
    if as_json:
        emit_json([m.to_dict() for m in items])
    else:
        memory_lines(items, store.clock())


@memory.command()
@json_option
@pass_app
def tiers(app: AppContext, as_json: bool) -> None:
    """Counts per tier (core / working / archive) and pending, with what each one does at runtime."""
    counts = app.store().tier_counts()
    if as_json:
        emit_json(counts)
        return
    meaning = {
        "core": "always injected; must stay tiny",
        "working": "top-scored records injected per request",
        "archive": "never injected; search/list/export only",
        "pending": "awaiting the owner's review",
    }
    for tier, n in counts.items():
        click.echo(f"{tier:<8} {n:>6}   {meaning[tier]}")


@memory.command()
@json_option
@pass_app
def summary(app: AppContext, as_json: bool) -> None:
    """Counts by status, tier, kind and scope, and the newest approved memories."""
    store = app.store()
    s = store.summary()
    if as_json:
        emit_json(s.to_dict())
        return
    for title, counts in (("status", s.by_status), ("tier", s.by_tier), ("scope", s.by_scope), ("kind", s.by_kind)):
        click.echo(f"{title:<7} " + "  ".join(f"{k} {v}" for k, v in sorted(counts.items())) if counts else f"{title:<7} -")
    click.echo(f"flags   pinned {s.pinned}  stale {s.stale}  expired {s.expired}")
    click.echo("newest approved:")
    memory_lines(s.recent, store.clock(), empty="  none")


@memory.command(short_help="Find memories by words and, with the semantic extra, by meaning.")
@click.argument("query")
@click.option("--status", type=click.Choice(STATUSES + ("all",)), default="all", show_default=True)
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--user", help="Only memories bound to this user (for owner.user, with the ones bound to no user).")
@json_option
@pass_app
def search(app: AppContext, query, status, limit, user, as_json) -> None:
    """Find memories by words and, with the semantic extra, by meaning.

    Words match case-, accent- and inflection-tolerantly. With the extra (pip install
    'bestie-tui[semantic]'), approved memories close in meaning to QUERY are found too, even when
    they share no word with it, and both kinds are ranked together.
    """
    store = app.store()
    owner = user is not None and user == store.get_setting("owner.user")  # their general memories too, as recall
    items = search_memories(store, query, status=status, limit=limit, user=user, with_unbound=owner)
    if not items:
        note_unknown_user(store, user)
    if as_json:
        emit_json([m.to_dict() for m in items])
    else:
        memory_lines(items, store.clock(), empty=f"no memory matches {clip(query)!r}")


def _binding_options(func):
    for opt in reversed([
        click.option("--user", help="Bind to this user."),
        click.option("--channel", help="Bind to a channel such as telegram:123."),
        click.option("--project", help="Bind to a project."),
        click.option("--session", help="Bind to a session."),
        click.option("--scope", type=click.Choice(SCOPES), default="project", show_default=True),
        click.option("--ttl", help="Expire after a TTL: 7d, '2 weeks', 'until friday', 2027-01-31."),
        click.option("--about", help="Who it is about when not the owner (read from the text otherwise)."),
    ]):
        func = opt(func)
    return func


def _kind(_ctx, _param, value: str) -> str:
    """The kind as typed (spaces as ``_``); the store settles it (``support.settle_kind``: an unknown
    kind is stored as ``note``, the kind given kept in its source). A value that is no kind at all
    (punctuation, over 64 characters, a secret) is a usage error."""
    from bestie_tui.errors import InvalidValueError
    from bestie_tui.store.support import KNOWN_KINDS, settle_kind

    from .common import shortened

    try:
        settle_kind(value)
    except InvalidValueError:  # a usage error, with the whole list (only the typed value is shortened)
        error = click.BadParameter(f"a memory kind is a word such as {', '.join(KNOWN_KINDS)}; "
                                   f"not {shortened(repr(value))}")
        error._bestie_clean = True  # type: ignore[attr-defined]
        raise error from None
    return "_".join(value.split())


def _with_kind_note(message: str, kind: str, record) -> str:
    """``message`` and, when this write stored ``kind`` as another kind, the note that says so."""
    from bestie_tui.store.support import kind_note

    note = kind_note(kind, record.source)
    return f"{message}; {note}" if note else message


def _complete_kind(_ctx, _param, incomplete: str):
    from click.shell_completion import CompletionItem

    from bestie_tui.store.support import KNOWN_KINDS

    return [CompletionItem(k) for k in KNOWN_KINDS if k.startswith(incomplete.lower())]


_kind_argument = click.argument("kind", callback=_kind, shell_complete=_complete_kind)


@memory.command()
@_kind_argument
@click.argument("text")
@_binding_options
@click.option("--pin", is_flag=True, help="Pin it (never auto-cleaned).")
@click.option("--confidence", type=click.FloatRange(0, 1), default=1.0, show_default=True)
@click.option("--allow-secret", is_flag=True, help="Store it even if it looks like a secret (explicit owner request).")
@click.option("--keep-venting", is_flag=True, help="Keep a venting note anyway: archived, never injected, expires in 7 days.")
@json_option
@pass_app
def add(app: AppContext, kind, text, user, channel, project, session, scope, ttl, about, pin, confidence,
        allow_secret, keep_venting, as_json) -> None:
    """Store a memory as the owner (approved at once), through the write gate. Saying a fact again
    reinforces it, or brings it back if it had expired, been superseded, forgotten or rejected.

    Put the text after -- (bestie memory add fact -- TEXT) so a text starting with '-' is not
    taken for an option. Without --user it is bound to the owner.user setting when that is set (as
    the console's n does), else to no user (the owner's general memories)."""
    if user is None:
        user = app.store().get_setting("owner.user")
    r = app.store().add_result(kind, text, user=user, channel=channel, project=project, session=session,
                               scope=scope, ttl=ttl, pinned=pin, confidence=confidence, about=about,
                               allow_secret=allow_secret, keep_venting=keep_venting)
    if as_json:
        emit_json(r.memory.to_dict())
        return
    click.echo(printable(_with_kind_note(r.message, kind, r.memory)))
    click.echo(f"  {memory_line(r.memory, app.store().clock())}")


@memory.command()
@_kind_argument
@click.argument("text")
@_binding_options
@click.option("--confidence", type=click.FloatRange(0, 1), default=0.7, show_default=True)
@json_option
@pass_app
def propose(app: AppContext, kind, text, user, channel, project, session, scope, ttl, about, confidence,
            as_json) -> None:
    """Propose a memory as the assistant would (memory.writePolicy and the write gate decide).
    Without --user it is bound to the owner.user setting when that is set, as add is."""
    if user is None:
        user = app.store().get_setting("owner.user")
    r = app.store().propose(text, kind, user=user, channel=channel, project=project, session=session,
                            scope=scope, ttl=ttl, confidence=confidence, about=about)
    if as_json:
        emit_json({"outcome": r.outcome, "message": r.message, "memory": r.memory.to_dict(),
                   "decision": r.decision.to_dict() if r.decision else None})
    else:
        click.echo(printable(_with_kind_note(r.message, kind, r.memory)))


@memory.command()
@memory_id_arg()
@json_option
@pass_app
def inspect(app: AppContext, memory_id: int, as_json: bool) -> None:
    """Every field of one memory and its change history."""
    store = app.store()
    m = store.get(memory_id)  # reading is not an access: only prompt packs bump access counts
    events = store.history(memory_id)
    if as_json:
        emit_json({"memory": m.to_dict(), "events": [e.to_dict() for e in events]})
        return
    memory_detail(m, store.owner_zone, store.clock())
    click.echo("history:")
    for e in events:
        mark = " (undone)" if e.undone else ""
        click.echo(f"  {show(e.at, store.owner_zone, seconds=True)}  {e.action:<14} by {e.actor}{mark}")


def _simple(name: str, help_text: str, method: str, verb: str):
    @memory.command(name, help=help_text)
    @memory_id_arg()
    @pass_app
    def command(app: AppContext, memory_id: int) -> None:
        m = getattr(app.store(), method)(memory_id)
        click.echo(f"{verb} {memory_line(m)}")

    return command


_simple("pin", "Pin a memory: never auto-cleaned, merged or archived.", "pin", "pinned")
_simple("unpin", "Unpin a memory.", "unpin", "unpinned")
_simple("instruct", "Make a memory a standing instruction (how to answer): once approved it enters every prompt "
                    "of its user, in the block's 'How to answer:' section. Undoable.", "instruct", "standing instruction")
_simple("uninstruct", "Make a standing instruction an ordinary memory again: it enters a prompt only when "
                      "relevant. Undoable.", "uninstruct", "ordinary memory")


@memory.command()
@memory_id_arg()
@click.option("--messages/--no-messages", default=None,
              help="Also redact it from the chat messages that state it (undoable); default: only under "
                   "memory.deletePolicy allow.")
@click.option("--purge", is_flag=True, help="Delete it, the text of its history and its statement in messages "
                                            "for good (not undoable).")
@click.option("--yes", is_flag=True, help="With --purge: confirm without asking.")
@json_option
@pass_app
def forget(app: AppContext, memory_id: int, messages: bool | None, purge: bool, yes: bool, as_json: bool) -> None:
    """Forget a memory (soft delete; restore or undo brings it back), with --messages redacting it
    from the chat messages that state it too, or --purge it for good."""
    store = app.store()
    if not purge:
        r = store.forget_result(memory_id, messages=messages)
        if as_json:
            emit_json(r.to_dict())
            return
        click.echo(f"#{r.memory.id} was already forgotten" if r.already else f"forgot {memory_line(r.memory)}")
        ids, n = ", ".join(f"#{i}" for i in r.redacted or r.stating), len(r.redacted or r.stating)
        if r.redacted:
            click.echo(f"  redacted it from {n} message{'' if n == 1 else 's'} ({ids}); undo gives the text back")
        elif r.stating:
            click.echo(f"  {n} message{'' if n == 1 else 's'} ({ids}) {'states' if n == 1 else 'state'} it: "
                       f"bestie memory forget {r.memory.id} --messages redacts {'it' if n == 1 else 'them'}")
        return
    from bestie_tui.transfer.erase import purge_memory

    m = store.get(memory_id)
    if not yes:
        click.echo(f"forget --purge deletes #{m.id} and the text of its history for good, and redacts it from "
                   "the chat messages that state it; this cannot be undone", err=True)
        if not click.confirm("Purge?", default=False, err=True):
            raise click.ClickException("nothing was purged")
    result = purge_memory(store, memory_id)
    if as_json:
        emit_json({"purged": m.id, "events": result.events, "redacted_messages": list(result.messages)})
        return
    n = len(result.messages)
    said = f" and redacted it from {n} message{'' if n == 1 else 's'} that stated it" if n else ""
    click.echo(f"purged #{m.id} and the text of {result.events} history events{said} (not undoable)")


@memory.command()
@memory_id_arg()
@pass_app
def restore(app: AppContext, memory_id: int) -> None:
    """Bring a memory back: a rejected proposal to pending, a forgotten, superseded or archived one
    to its layer."""
    store = app.store()
    before = store.get(memory_id)
    after = store.restore(memory_id)
    click.echo(f"{printable(store.restore_message(before, after))}: {memory_line(after)}")


@memory.command()
@memory_id_arg()
@click.argument("text")
@pass_app
def edit(app: AppContext, memory_id: int, text: str) -> None:
    """Replace a memory's text (bestie memory edit ID -- TEXT)."""
    click.echo(f"edited {memory_line(app.store().edit(memory_id, text))}")


@memory.command()
@memory_id_arg()
@click.option("--scope", type=SCOPE, required=True)
@pass_app
def move(app: AppContext, memory_id: int, scope: str) -> None:
    """Change a memory's scope (its layer follows unless pinned). Moving an expired memory is done
    and said: it stays out of every prompt until it gets a new TTL (expire ID never)."""
    store = app.store()
    m = store.move(memory_id, scope)
    click.echo(f"moved {memory_line(m)}")
    if m.is_expired(store.clock()):  # warned, not refused: the owner may be about to renew it
        click.echo(f"#{m.id} expired {show(m.expires_at, store.owner_zone)}: in {m.layer} it still stays out of "
                   f"every prompt until it gets a new TTL (bestie memory expire {m.id} never)", err=True)


@memory.command()
@memory_id_arg()
@click.argument("ttl")
@pass_app
def expire(app: AppContext, memory_id: int, ttl: str) -> None:
    """Set when a memory expires: 7d, '2 weeks', 'until friday', 2027-01-31, or 'never'."""
    store = app.store()
    m = store.set_ttl(memory_id, None if ttl.lower() == "never" else ttl)
    click.echo(f"#{m.id} expires {show(m.expires_at, store.owner_zone)}" if m.expires_at else f"#{m.id} never expires")


@memory.command()
@memory_id_arg("old_id")
@memory_id_arg("new_id")
@pass_app
def supersede(app: AppContext, old_id: int, new_id: int) -> None:
    """Mark OLD as replaced by NEW (OLD is kept, no longer injected)."""
    app.store().supersede(old_id, new_id)
    click.echo(f"#{old_id} is now superseded by #{new_id}")


@memory.command()
@click.option("--actor", "of", help="Undo this actor's last change instead of the owner's (e.g. assistant).")
@click.option("--any", "any_actor", is_flag=True, help="Undo the newest change, whoever made it.")
@json_option
@pass_app
def undo(app: AppContext, of, any_actor, as_json: bool) -> None:
    """Undo the owner's last change (repeat to go further back); --actor or --any reach others'."""
    if of and any_actor:
        raise click.UsageError("--actor and --any cannot be combined")
    r = app.store().undo(of=(of,) if of else None, any_actor=any_actor)
    if as_json:
        emit_json({"action": r.action, "actor": r.actor, "memory_ids": r.memory_ids, "message": r.message})
    else:
        click.echo(printable(r.message))

