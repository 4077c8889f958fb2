"""``bestie memory pending|approve|reject|reject-all|compare``: the owner's review of proposals, and
how two memories relate (``facts.relate``: duplicate, correction, contradiction, event vs state,
compatible)."""

from __future__ import annotations

import click

from bestie_tui.text.words import clip, printable

from .common import MEMORY_ID, SCOPE, json_option, memory, memory_id_arg, one_line, pass_app
from .render import emit_json, memory_detail, memory_line, memory_lines

#: Proposals whose relations to the approved memories ``pending`` works out without ``--limit``
#: (the oldest, the ones reviewed next): each costs about as much as a ``status`` (issue 31).
RELATED_SHOWN = 20


@memory.group(invoke_without_command=True)
@click.option("--limit", type=click.IntRange(min=1),
              help=f"At most N proposals, each with its relations (without it: all, relations for the oldest {RELATED_SHOWN}).")
@json_option
@click.pass_context
def pending(ctx: click.Context, limit, as_json) -> None:
    """Proposals waiting for review, oldest first, with what each replaces, contradicts or repeats
    among the approved memories (for the oldest 20; --limit N or "pending inspect ID" for more)."""
    if ctx.invoked_subcommand:
        return
    store = ctx.obj.store()
    items = store.pending(limit=limit)
    related = {m.id: _related(store, m) for m in items[: limit or RELATED_SHOWN]}
    if as_json:
        # "related": null where it was not worked out (past the oldest RELATED_SHOWN without --limit)
        emit_json([dict(m.to_dict(), related=[_related_json(r) for r in related[m.id]] if m.id in related else None)
                   for m in items])
        return
    if not items:
        click.echo("nothing pending")
    for m in items:
        click.echo(memory_line(m, store.clock()))
        for r in related.get(m.id, ()):
            click.echo(f"        {_verb(r)} #{r.memory.id}: {_short(r.memory.text)}")
    if len(items) > len(related):
        click.echo(f"relations shown for the oldest {len(related)} of {len(items):,}; "
                   f"`bestie memory pending --limit N` or `bestie memory pending inspect ID` for the others")


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
        memory_lines(items, empty=f"no pending proposal matches {clip(query)!r}")


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
    related = _related(store, m)
    if as_json:
        emit_json({"memory": m.to_dict(), "related": [_related_json(r) for r in related],
                   "similar": [{"score": s, "memory": r.to_dict()} for r, s in similar]})
        return
    memory_detail(m, store.owner_zone, store.clock())
    if related:
        click.echo("relation to approved memories:")
        for r in related:
            click.echo(f"  {_verb(r)} {memory_line(r.memory)}")
            click.echo(f"        {printable(r.relation.reason)}")
        if any(r.relation.kind == "correction" and r.relation.strong for r in related):
            click.echo(f"approving #{m.id} supersedes what it replaces (one undo step); "
                       f"`bestie memory approve {m.id} --keep-old` keeps them")
    click.echo("most similar approved memories:")
    if not similar:
        click.echo("  none")
    for r, score in similar:
        click.echo(f"  {score:.2f}  {memory_line(r)}")


_VERBS = {"correction": "replaces", "contradiction": "contradicts", "event_vs_state": "breaks the habit of",
          "duplicate": "repeats"}


def _related(store, m):
    from bestie_tui.store.corrections import find_related

    return find_related(store, m.text, m.user, exclude_id=m.id)


def _related_json(r) -> dict:
    return {"id": r.memory.id, "text": r.memory.text, "kind": r.relation.kind, "reason": r.relation.reason}


def _verb(r) -> str:
    if r.relation.kind == "correction" and not r.relation.strong:
        return "may replace"  # shown, not acted on: approving keeps it
    return _VERBS.get(r.relation.kind, r.relation.kind)


def _short(text: str, width: int = 70) -> str:
    text = printable(text).replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _all_pending(store, memory_ids: tuple[int, ...]) -> list[int]:
    """The ids once each, in order, after checking every one exists and is pending — so a bad id in
    the middle of a list changes nothing. Raises a ClickException naming every bad id in one line."""
    from bestie_tui.errors import NotFoundError

    unique = list(dict.fromkeys(memory_ids))
    problems = []
    for mid in unique:
        try:
            record = store.get(mid)
        except NotFoundError:
            problems.append(f"no memory with id {mid}")
            continue
        if record.status != "pending":
            problems.append(f"memory #{mid} is {record.status}, not pending")
    if problems:
        raise click.ClickException(f"{'; '.join(problems)}; nothing was changed")
    return unique


@memory.command()
@click.argument("memory_ids", nargs=-1, required=True, type=MEMORY_ID, metavar="ID...")
@click.option("--text", help="Approve with this edited text instead.")
@click.option("--keep-old", is_flag=True, help="Do not supersede the approved memories a proposal corrects.")
@click.option("--scope", type=SCOPE, help="Land it in this scope (project or session: the working tier) "
                                          "instead of the one it was proposed with.")
@json_option
@pass_app
def approve(app, memory_ids, text, keep_old, scope, as_json) -> None:
    """Approve pending proposals. A proposal that corrects an approved memory supersedes it in the
    same undo step ('--keep-old' keeps it active). Each approval is its own undo step.

    A proposal the write gate refuses (core over its cap, a secret…) stays pending and is reported on
    its own line; the others are approved. Exit 1 when any was refused. An id that does not exist or
    is not pending changes nothing at all."""
    from bestie_tui.errors import WriteRefusedError
    from bestie_tui.store.corrections import find_related, replaced

    if text is not None and len(memory_ids) > 1:
        raise click.UsageError("--text works with one id at a time")
    store = app.store()
    memory_ids = _all_pending(store, memory_ids)
    approved: list[dict] = []
    refused: list[dict] = []
    for mid in memory_ids:
        m = store.get(mid)
        found = [] if keep_old else find_related(store, text or m.text, m.user, exclude_id=mid, kinds=("correction",))
        try:
            record = store.approve(mid, text=text, replaces=replaced(found), scope=scope)
        except WriteRefusedError as exc:  # this one stays pending; the rest of the list goes on
            if len(memory_ids) == 1 and not as_json:
                raise
            reason = one_line(str(exc)).removeprefix("refused: ")
            refused.append({"id": mid, "rule": exc.rule, "reason": reason})
            if not as_json:
                click.echo(f"#{mid} refused, left pending: {reason}", err=True)
            continue
        approved.append(dict(record.to_dict(), superseded=replaced(found)))
        if as_json:
            continue
        click.echo(f"approved {memory_line(record)}")
        for r in found:
            if not r.relation.strong:
                click.echo(f"  kept #{r.memory.id} (it may be replaced; `bestie memory supersede` if so): "
                           f"{_short(r.memory.text)}")
                continue
            click.echo(f"  superseded #{r.memory.id}: {_short(r.memory.text)} ({printable(r.relation.reason)})")
    if as_json:
        emit_json({"approved": approved, "refused": refused})
    if refused:
        if as_json:
            click.get_current_context().exit(1)
        ids = [r["id"] for r in refused]
        way = (f"; `bestie memory approve {' '.join(map(str, ids))} --scope project` lands them in working"
               if scope != "project" and any(r["rule"] == "core_cap" for r in refused) else "")
        raise click.ClickException(f"approved {len(approved)} of {len(memory_ids)}; {len(refused)} refused and "
                                   f"left pending: {', '.join(f'#{i}' for i in ids)}{way}")


@memory.command()
@click.argument("first", metavar="ID_OR_TEXT")
@click.argument("second", metavar="ID_OR_TEXT")
@json_option
@pass_app
def compare(app, first, second, as_json) -> None:
    """How two memories relate: duplicate, correction, contradiction, event_vs_state or compatible.

    Each argument is a memory id ('12' or '#12') or a text in quotes. With two ids the older
    record is the older statement; otherwise the first argument is the older one.
    """
    from bestie_tui.facts.relations import relate
    from bestie_tui.store.limits import MEMORY_TEXT_MAX

    a, b = _text_or_memory(app, first), _text_or_memory(app, second)
    if a[1] is not None and b[1] is not None and a[1].id == b[1].id:
        raise click.UsageError(f"#{a[1].id} given twice: compare two different memories")
    for name, (text, _record) in (("first", a), ("second", b)):
        if len(text) > MEMORY_TEXT_MAX:
            raise click.UsageError(f"the {name} text is {len(text):,} characters; a memory holds at most "
                                   f"{MEMORY_TEXT_MAX:,}")
    older, newer = (a, b) if not (a[1] and b[1]) or (a[1].created_at, a[1].id) <= (b[1].created_at, b[1].id) \
        else (b, a)
    rel = relate(older[0], newer[0])
    strength = ("strong evidence: a default action may follow" if rel.strong else
                "weak evidence: shown, nothing done until you choose") if rel.kind in ("duplicate", "correction") else ""
    if as_json:
        emit_json({"older": _side_json(older), "newer": _side_json(newer), "relation": rel.to_dict()})
        return
    click.echo(f"{rel.kind}: {printable(rel.reason)}" + (f" ({strength})" if strength else ""))
    for name, (text, record) in (("older", older), ("newer", newer)):
        click.echo(f"  {name}: " + (memory_line(record) if record else printable(text)))


def _text_or_memory(app, value: str):
    """``(text, record or None)``: an id of an existing memory, else the argument as a text."""
    stripped = value.strip().lstrip("#")
    if stripped.isdigit():
        record = app.store().get(MEMORY_ID.convert(stripped, None, None))
        return record.text, record
    if not value.strip():
        raise click.UsageError("a memory text to compare must have words in it")
    return value, None


def _side_json(side) -> dict:
    text, record = side
    return {"id": record.id if record else None, "text": text}


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
