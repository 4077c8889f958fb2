"""``bestie memory context`` (preview of the memory block with score parts) and
``bestie memory governance status | policy full|governed``."""

from __future__ import annotations

import click

from bestie_tui.text.words import printable

from .common import BestieGroup, json_option, memory, note_unknown_user, owner_user, pass_app
from .render import emit_json, kv


def parts_line(parts) -> str:
    """``total 0.71 = rel 0.82 scope 0.83 rec 1.00 acc 0.00 conf 1.00 pin 0.00 when —``."""
    from bestie_tui.retrieval.scoring import PART_LABELS, format_part, signals_text

    line = f"total {parts.total:.2f} = " + " ".join(f"{label} {format_part(parts, name)}"
                                                    for name, label in PART_LABELS)
    lifted = signals_text(parts)
    return f"{line} · {lifted}" if lifted else line


def _one_line(text: str, width: int = 70) -> str:
    text = printable(" ".join(text.split()))
    return text if len(text) <= width else text[: width - 1] + "…"


@memory.command()
@click.argument("query")
@click.option("--user", help="The request's user (only their and unbound memories); default: the owner.user "
                             "setting.")
@click.option("--channel", help="The request's channel, e.g. telegram:123.")
@click.option("--project", help="The request's project.")
@click.option("--budget", "token_budget", type=click.IntRange(min=0), default=600, show_default=True,
              help="Token budget of the whole memory block.")
@click.option("--governance", type=click.Choice(("governed", "full")),
              help="Override memory.governance for this preview.")
@click.option("--record-access", is_flag=True,
              help="Count this as a real injection (bumps access of the included records).")
@json_option
@pass_app
def context(app, query, user, channel, project, token_budget, governance, record_access, as_json) -> None:
    """Preview the memory block a request would get, with each record's score parts and what was
    left out (budget, low relevance, scope, state). A preview does not count as an access.

    Only the memory block: 'bestie context pack' builds the whole prompt context (the compressed
    conversation history with this block inside it)."""
    from bestie_tui.retrieval.assembly import build_context

    if user is None:
        user = owner_user(app.store())
    pack = build_context(app.store(), query, user, channel, project, token_budget,
                         governance=governance, record_access=record_access)
    if not pack.items:
        note_unknown_user(app.store(), user)
    if as_json:
        emit_json(pack.to_dict())
        return
    where = ", ".join(f"{k} {v}" for k, v in (("user", user), ("channel", channel), ("project", project)) if v)
    click.echo(f"context for {printable(where)} · governance {pack.governance} · "
               f"{pack.tokens}/{pack.token_budget} tokens ({pack.token_mode})")
    if pack.paused:
        click.echo("memory is paused: the memory block is empty (bestie memory resume)")
        return
    if not pack.items:
        click.echo("no memory enters this prompt")
    for title, items in (("core", pack.core), ("answer", pack.instructions), ("working", pack.working)):
        for item in items:
            m = item.record
            click.echo(f"{title:<8}#{m.id:<5} {_one_line(m.text)}")
            click.echo(f"{'':<14} {parts_line(item.score)} · {item.tokens} tok"
                       + (f" · {printable(item.why)}" if item.why else ""))
    if pack.left_out or pack.low_relevance_count:
        click.echo("left out:")
        for x in pack.left_out:
            click.echo(f"  #{x.id:<5} {x.reason:<13} {printable(x.detail):<34} {_one_line(x.text, 50)}")
        if pack.unlisted_low_relevance:
            click.echo(f"  … and {pack.unlisted_low_relevance} more under the relevance floor")
    if pack.items:
        click.echo("--- block ---")
        click.echo(printable(pack.render()))


@memory.group(cls=BestieGroup, invoke_without_command=True)
@click.pass_context
def governance(ctx: click.Context) -> None:
    """Which memories a request may see: governed (its channel/project) or full (all of the user's)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(governance_status_cmd)


@governance.command("status")
@json_option
@pass_app
def governance_status_cmd(app, as_json: bool = False) -> None:
    """The mode, what it means, and how the active memories are bound."""
    from bestie_tui.retrieval.governance import governance_status

    _show(governance_status(app.store()), as_json)


@governance.command("policy")
@click.argument("mode", type=click.Choice(("full", "governed")))
@json_option
@pass_app
def governance_policy_cmd(app, mode: str, as_json: bool) -> None:
    """Set memory.governance to MODE (undo reverts it)."""
    from bestie_tui.retrieval.governance import set_policy

    st = set_policy(app.store(), mode)
    if as_json:
        emit_json(st.to_dict())
    else:
        click.echo(f"governance is now {st.mode}: {st.meaning}")


def _show(st, as_json: bool) -> None:
    if as_json:
        emit_json(st.to_dict())
        return
    kv([
        ("governance", st.mode),
        ("meaning", st.meaning),
        ("per user", "  ".join(f"{printable(u)} {n}" for u, n in st.users.items()) or "-"),
        ("channel-bound", st.channel_bound),
        ("project-bound", st.project_bound),
        ("unbound", f"{st.unbound} (seen by every request)"),
        ("never", "another user's memories, in any mode"),
    ])
