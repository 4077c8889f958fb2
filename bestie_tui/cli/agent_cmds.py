"""``bestie memory log|propose-turn|recall|forget-requests`` and ``bestie mcp``: the per-turn calls
of ``bestie_tui.agent`` for assistants written in any language (one process per call, ``--json``),
and the Model Context Protocol server for those that speak it."""

from __future__ import annotations

import click

from bestie_tui.store.models import ROLES
from bestie_tui.text.words import printable

from .common import MEMORY_ID, AppContext, db_option, json_option, memory, note_unknown_user, owner_user, pass_app
from .render import emit_json


def _binding(*names: str, user_required: bool = True):
    """``--user`` (required unless ``user_required`` is false: then the ``owner.user`` setting is the
    default) and the given ones of ``--channel``, ``--project``, ``--session``."""
    helps = {"channel": "Channel of the conversation (e.g. telegram:42).",
             "project": "Project the conversation is about.", "session": "Session (conversation) id."}

    def wrap(func):
        for name in reversed(names):
            func = click.option(f"--{name}", help=helps[name])(func)
        if not user_required:
            return click.option("--user", help="The request's user; default: the owner.user setting.")(func)
        return click.option("--user", required=True, help="The user the turn belongs to.")(func)
    return wrap


@memory.command("log")
@click.argument("role", type=click.Choice(ROLES))
@click.argument("text")
@_binding("channel", "session")
@json_option
@pass_app
def log_cmd(app: AppContext, role, text, user, channel, session, as_json) -> None:
    """Append one chat message to the history (secrets redacted), as the assistant logs each turn."""
    from bestie_tui.agent.turns import log_message

    message = log_message(app.store(), role, text, user=user, channel=channel, session=session)
    if as_json:
        emit_json({"message": message.to_dict()})
    else:
        click.echo(f"logged message #{message.id}")


@memory.command("propose-turn")
@click.argument("text")
@_binding("channel", "project", "session")
@json_option
@pass_app
def propose_turn_cmd(app: AppContext, text, user, channel, project, session, as_json) -> None:
    """Propose memories from one user turn: lasting statements only, each through the write gate."""
    from bestie_tui.agent.turns import propose_turn

    results = propose_turn(app.store(), text, user=user, channel=channel, project=project, session=session)
    if as_json:
        emit_json({"proposals": [{"outcome": r.outcome, "message": r.message, "memory": r.memory.to_dict()}
                                 for r in results]})
        return
    if not results:
        click.echo("nothing to remember in this turn")
    for r in results:
        click.echo(printable(r.message))


@memory.command("recall")
@click.argument("query")
@_binding("channel", "project", "session", user_required=False)
@click.option("--budget", type=click.IntRange(0), default=None, help="Token budget of the block (default 600).")
@json_option
@pass_app
def recall_cmd(app: AppContext, query, user, channel, project, session, budget, as_json) -> None:
    """Print the memory block a prompt for QUERY gets, with its excerpts of past conversations (the
    recall segment; never the current --session's recent turns). Its memories' access is recorded."""
    from bestie_tui.agent.turns import recall

    store = app.store()
    user = user or owner_user(store)
    result = recall(store, query, user=user, channel=channel, project=project, token_budget=budget,
                    session=session)
    hidden = {} if result.history else _turns_in_other_channels(store, query, user, channel)
    if result.note:
        note_unknown_user(store, user)
    if as_json:
        emit_json({**result.to_dict(), "outside_scope": [{"channel": c, "turns": n} for c, n in hidden.items()]})
        return
    if result.block:
        click.echo("\n".join(printable(line) for line in result.block.split("\n")))
    for name, count in hidden.items():
        click.echo(f"note: {count} past turn(s) matching this are in channel {printable(name)!r}, which governed "
                   f"recall keeps from this request: add --channel {printable(name)!r} (or set "
                   f"memory.governance full)", err=True)


def _turns_in_other_channels(store, query: str, user: str | None, channel: str | None) -> dict[str, int]:
    """Channel → how many of the best turns for ``query`` sit there, of those governed recall keeps
    from a request in ``channel`` (other channels' turns); empty under ``full`` governance."""
    from bestie_tui.retrieval.recall import recall as recall_turns

    if store.get_setting("memory.governance") == "full":
        return {}
    out: dict[str, int] = {}
    for hit in recall_turns(store, query, user, channel=channel, governance="full", limit=10):
        bound = hit.message.channel
        if bound is not None and bound != channel:
            out[bound] = out.get(bound, 0) + 1
    return out


@memory.group("forget-requests", invoke_without_command=True)
@json_option
@click.pass_context
def forget_requests(ctx: click.Context, as_json) -> None:
    """Forgets the assistant asked for; only you confirm them (confirm ID | dismiss ID)."""
    if ctx.invoked_subcommand is not None:
        return
    from bestie_tui.agent.forget_requests import pending_forgets

    store = ctx.find_object(AppContext).store()
    queue = pending_forgets(store)
    if as_json:
        emit_json({"requests": [{**i, "text": store.get(i["memory_id"]).text} for i in queue]})
        return
    if not queue:
        click.echo("no forget requests")
    for item in queue:
        reason = f" — {printable(item['reason'])}" if item.get("reason") else ""
        click.echo(f"#{item['memory_id']}  {printable(store.get(item['memory_id']).text)}{reason}")


@forget_requests.command("confirm")
@click.argument("memory_id", type=MEMORY_ID, metavar="ID")
@pass_app
def forget_confirm(app: AppContext, memory_id: int) -> None:
    """Forget the memory as asked (undo brings it back)."""
    from bestie_tui.agent.forget_requests import confirm_forget

    record = confirm_forget(app.store(), memory_id)
    click.echo(f"forgot #{record.id}  {printable(record.text)}")


@forget_requests.command("dismiss")
@click.argument("memory_id", type=MEMORY_ID, metavar="ID")
@pass_app
def forget_dismiss(app: AppContext, memory_id: int) -> None:
    """Drop the request; the memory stays."""
    from bestie_tui.agent.forget_requests import dismiss_forget

    dismiss_forget(app.store(), memory_id)
    click.echo(f"dismissed the request for #{memory_id}; the memory stays")


@click.command("mcp")
@click.option("--user", required=True, envvar="BESTIE_USER", help="Whose memory to serve (or BESTIE_USER).")
@click.option("--channel", envvar="BESTIE_CHANNEL", help="Channel of the conversations (or BESTIE_CHANNEL).")
@click.option("--project", envvar="BESTIE_PROJECT", help="Project of the conversations (or BESTIE_PROJECT).")
@click.option("--session", envvar="BESTIE_SESSION", help="Session id for logged messages (or BESTIE_SESSION).")
@db_option
@pass_app
def mcp_cmd(app: AppContext, user, channel, project, session) -> None:
    """Serve the memory over the Model Context Protocol on stdio (needs the mcp extra).

    The user, channel and project are fixed here; the model never chooses them."""
    from bestie_tui.agent.mcp_server import Binding, serve

    if app.user is not None and app.user != user:
        raise click.UsageError(f"bound to user {app.user!r} (--user before the command); cannot serve user {user!r}")
    app.user = user  # the server's store is bound to its user: no tool reaches another user's rows
    serve(app.store(), Binding(user=user, channel=channel, project=project, session=session))
