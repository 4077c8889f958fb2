"""``bestie memory pending|approve|reject|reject-all``: the owner's review of proposals."""

from __future__ import annotations

import click

from .common import MEMORY_ID, json_option, memory, memory_id_arg, pass_app
from .render import emit_json, memory_detail, memory_line, memory_lines


@memory.group(invoke_without_command=True)
@click.option("--limit", type=click.IntRange(min=1), help="At most N proposals.")
@json_option
@click.pass_context
def pending(ctx: click.Context, limit, as_json) -> None:
    """Proposals waiting for review, oldest first."""
    if ctx.invoked_subcommand:
        return
    store = ctx.obj.store()
    items = store.pending(limit=limit)
    if as_json:
        emit_json([m.to_dict() for m in items])
    else:
        memory_lines(items, store.clock(), empty="nothing pending")


@pending.command("search")
@click.argument("query")
@click.option("--limit", type=click.IntRange(min=1), help="At most N proposals.")
@json_option
@pass_app
def pending_search(app, query, limit, as_json) -> None:
    """Pending proposals matching QUERY."""
    items = app.store().pending(query=query, limit=limit)
    if as_json:
        emit_json([m.to_dict() for m in items])
    else:
        memory_lines(items, empty=f"no pending proposal matches {query!r}")


@pending.command("inspect")
@memory_id_arg()
@json_option
@pass_app
def pending_inspect(app, memory_id, as_json) -> None:
    """One proposal with the approved memories most similar to it."""
    store = app.store()
    m = store.get(memory_id)
    if m.status != "pending":
        raise click.ClickException(f"memory #{memory_id} is {m.status}, not pending")
    similar = store.similar(m.text, user=m.user, exclude_id=m.id)
    if as_json:
        emit_json({"memory": m.to_dict(), "similar": [{"score": s, "memory": r.to_dict()} for r, s in similar]})
        return
    memory_detail(m, store.owner_zone)
    click.echo("most similar approved memories:")
    if not similar:
        click.echo("  none")
    for r, score in similar:
        click.echo(f"  {score:.2f}  {memory_line(r)}")


def _all_pending(store, memory_ids: tuple[int, ...]) -> list[int]:
    """The ids once each, in order, after checking every one exists and is pending — so a bad id in
    the middle of a list changes nothing. Raises the store's NotFoundError / a ClickException."""
    unique = list(dict.fromkeys(memory_ids))
    for mid in unique:
        record = store.get(mid)
        if record.status != "pending":
            raise click.ClickException(f"memory #{mid} is {record.status}, not pending; nothing was changed")
    return unique


@memory.command()
@click.argument("memory_ids", nargs=-1, required=True, type=MEMORY_ID, metavar="ID...")
@click.option("--text", help="Approve with this edited text instead.")
@pass_app
def approve(app, memory_ids, text) -> None:
    """Approve pending proposals."""
    if text is not None and len(memory_ids) > 1:
        raise click.UsageError("--text works with one id at a time")
    store = app.store()
    memory_ids = _all_pending(store, memory_ids)
    for mid in memory_ids:
        click.echo(f"approved {memory_line(store.approve(mid, text=text))}")


@memory.command()
@click.argument("memory_ids", nargs=-1, required=True, type=MEMORY_ID, metavar="ID...")
@pass_app
def reject(app, memory_ids) -> None:
    """Reject pending proposals (kept as rejected; undo brings them back)."""
    store = app.store()
    memory_ids = _all_pending(store, memory_ids)
    for mid in memory_ids:
        click.echo(f"rejected {memory_line(store.reject(mid))}")


@memory.command("reject-all")
@click.option("--yes", is_flag=True, help="Confirm: reject every pending proposal.")
@pass_app
def reject_all(app, yes) -> None:
    """Reject every pending proposal in one undoable step."""
    n = app.store().count(status="pending")
    if n == 0:
        click.echo("nothing pending")
        return
    if not yes:
        raise click.UsageError(f"this rejects all {n} pending proposal{'s' if n != 1 else ''}; add --yes to confirm")
    n = app.store().reject_all()
    click.echo(f"rejected {n} pending proposal(s); `bestie memory undo` brings them back")
