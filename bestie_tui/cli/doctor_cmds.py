"""``bestie memory analyze | cleanup | hygiene | rebalance``: the doctor and its plans.

Every plan command shows the plan as a diff with ``--dry-run`` (the default) and changes nothing;
``--apply`` obeys ``memory.deletePolicy`` (deny refuses, ask needs ``--yes``, allow applies) and
is one transaction that ``bestie memory undo`` reverts as a whole.
"""

from __future__ import annotations

import click

from bestie_tui.text.clock import ago
from bestie_tui.text.words import printable

from .common import echo_diff, json_option, memory, pass_app
from .render import emit_json

SECTION_LIMIT = 20


def _pin(m) -> str:
    return "(pinned) " if m.pinned else ""


def _short(text: str, width: int = 90) -> str:
    text = printable(text).replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def print_report(report, limit: int, details: bool = False, now=None) -> None:
    """The doctor report as text: a heading with the count per section, then up to ``limit`` items,
    each named in plain words (``hygiene.wording``); ``details`` adds how each was found (rungs,
    TF-IDF cosines). Items whose headings read the same share one heading with a count."""
    from bestie_tui.hygiene import wording

    now = now or report.generated_at
    c = report.counts()
    click.echo(f"doctor: {c['total']} active memories"
               + (f" of user {printable(report.user)}" if report.user else "")
               + (f" (mode {report.mode})" if report.mode else ""))
    if report.mode in (None, "duplicates"):
        click.echo(f"\nduplicate groups: {c['duplicate_groups']} ({c['redundant']} redundant records)")
        for _key, groups in wording.collapse(report.duplicates[:limit], wording.duplicate_collapse_key):
            single = groups[0].user if len(groups) == 1 and groups[0].user else None
            click.echo("  " + printable(wording.duplicates_collapsed_heading(groups))
                       + (f" (user {printable(single)})" if single else ""))
            for g in groups:
                owner = f"user {printable(g.user)}" if g.user and len(groups) > 1 else ""
                found = wording.duplicate_details(g) if details else ""
                if owner or found:
                    click.echo("    " + " · ".join(x for x in (" ".join(f"#{i}" for i in g.ids), owner, found) if x))
                for m in g.members[:6]:
                    click.echo(f"      #{m.id:<5} {_pin(m)}{_short(m.text)}")
                if len(g.members) > 6:
                    click.echo(f"      … and {len(g.members) - 6} more")
    if report.mode in (None, "conflicts"):
        strong = sum(1 for k in report.corrections if getattr(k, "strong", True))
        click.echo(f"\ncorrections: {c.get('corrections', 0)} (the newer record may replace the older; cleanup "
                   f"selects the {strong} on strong evidence, the rest are off until you choose)")
        _pairs(report.corrections[:limit], wording.correction_heading,
               wording.correction_details if details else None, "corrections")
        click.echo(f"\ncontradiction candidates: {c['contradictions']}"
                   + (f" ({c['negation_pairs']} negated twins kept out of duplicate groups)" if details else ""))
        _pairs(report.contradictions[:limit], wording.contradiction_heading,
               wording.contradiction_details if details else None, "pairs", topic=wording.contradiction_topic)
        related = getattr(report, "related", [])
        click.echo(f"\nrelated — review: {len(related)} (close enough to matter; the doctor cannot tell how)")
        for r in related[:limit]:
            click.echo(f"  {printable(_related_line(r))}")
            click.echo(f"      older #{r.older.id:<5} {_pin(r.older)}{_short(r.older.text)}")
            click.echo(f"      newer #{r.newer.id:<5} {_pin(r.newer)}{_short(r.newer.text)}")
            if r.suggestion:
                click.echo(f"      {printable(r.suggestion)}")
        if related:
            click.echo("  resolve: bestie memory resolve OLDER NEWER --keep-both | --merge | --newer | --older")
        if getattr(report, "judge_note", None):
            click.echo(f"  {printable(report.judge_note)}")
    if report.mode in (None, "stale"):
        _findings("stale memories", report.stale, limit, now)
    if report.mode is None:
        _findings("low-value noisy memories", report.noisy, limit, now)
        core = report.core
        state = f"{core.over} over" if core.over else "within"
        click.echo(f"\npinned/core memories: {len(report.pinned)} (core {core.tokens}/{core.cap} tokens, {state} its cap)")
        for m in report.pinned[:limit]:
            flag = "pinned" if m.pinned else "core"
            click.echo(f"  #{m.id:<5} [{flag}] {_short(m.text)}")
        _findings("memories missing metadata", report.missing_metadata, limit, now)
    if max(len(report.duplicates), len(report.contradictions), len(getattr(report, "corrections", []))) > limit:
        click.echo(f"\n(first {limit} per section; --limit N or --json for all)")
    if not details and (report.duplicates or report.contradictions or report.corrections):
        click.echo("(--details shows how each was found)")


_ACTION_WORDS = {"keep_both": "keep both", "merge": "merge them", "newer": "the newer replaces the older",
                 "older": "keep the older", "review": "you decide"}


def _related_line(r) -> str:
    """One line for a related pair: its evidence and the suggested action."""
    evidence = "; ".join(r.evidence) or "close in words"
    return f"{evidence} — suggested: {_ACTION_WORDS.get(r.action, r.action)}"


def _pairs(items, heading, details, unit: str, topic=None) -> None:
    from bestie_tui.hygiene import wording

    for text, pairs in wording.collapse(items, heading, topic):
        click.echo("  " + printable(wording.collapsed_heading(text, pairs, unit)))
        for k in pairs:
            if details is not None:
                click.echo(f"    [{printable(details(k))}]")
            click.echo(f"      older #{k.older.id:<5} {_pin(k.older)}{_short(k.older.text)}")
            click.echo(f"      newer #{k.newer.id:<5} {_pin(k.newer)}{_short(k.newer.text)}")


def _findings(title: str, items, limit: int, now) -> None:
    from bestie_tui.hygiene.wording import finding_reason

    click.echo(f"\n{title}: {len(items)}")
    for f in items[:limit]:
        click.echo(f"  #{f.memory.id:<5} {_short(f.memory.text, 60):<60}  {printable(finding_reason(f, now))}")


@memory.command()
@click.option("--mode", type=click.Choice(["duplicates", "stale", "conflicts"]), help="Only this section.")
@click.option("--user", help="Only memories bound to this user.")
@click.option("--limit", type=click.IntRange(min=1), default=SECTION_LIMIT, show_default=True,
              help="Items shown per section (text output).")
@click.option("--details", is_flag=True, help="Show how each group or pair was found (rungs, TF-IDF cosines).")
@json_option
@pass_app
def analyze(app, mode, user, limit, details, as_json) -> None:
    """Doctor report: duplicates, corrections, contradictions, stale, noisy, pinned/core, missing metadata."""
    from bestie_tui.hygiene.doctor import run_doctor
    from bestie_tui.hygiene.health import record_snapshot

    store = app.store()
    report = run_doctor(store, mode=mode, user=user, judge=True)
    if mode is None:
        record_snapshot(store, report)  # one snapshot per full doctor run feeds `hygiene trend`
    if as_json:
        emit_json(report.to_dict())
    else:
        print_report(report, limit, details)


def _non_empty_fingerprint(_ctx, _param, value):
    # `--plan "$FP"` with an empty variable must not silently drop the protection it asks for.
    if value is not None and not value.strip():
        raise click.BadParameter("is empty: pass the fingerprint printed by --dry-run")
    return value


def _plan_options(func):
    for opt in reversed([
        click.option("--dry-run", "dry_run", is_flag=True, help="Show the plan as a diff; change nothing (default)."),
        click.option("--apply", "do_apply", is_flag=True, help="Apply the plan (obeys memory.deletePolicy)."),
        click.option("--yes", is_flag=True, help="Confirm the apply (needed when deletePolicy is ask)."),
        click.option("--plan", "fingerprint", metavar="FP", callback=_non_empty_fingerprint,
                     help="Apply only if the plan's fingerprint is still FP (printed by --dry-run)."),
        click.option("--confirm-count", "confirm_count", type=int, metavar="N",
                     help="Second confirmation for a plan changing more than 20 % of active memories: "
                          "N is the count it states."),
        json_option,
    ]):
        func = opt(func)
    return func


def _run_plan(store, plan, dry_run: bool, do_apply: bool, yes: bool, as_json: bool, selected=None,
              fingerprint: str | None = None, confirm_count: int | None = None) -> None:
    from bestie_tui.hygiene.plan_apply import apply_plan

    if dry_run and do_apply:
        raise click.UsageError("--dry-run and --apply exclude each other")
    if do_apply and fingerprint:
        plan.check_fingerprint(fingerprint)
    if do_apply and not yes and store.get_setting("memory.deletePolicy") == "ask":
        # a missing confirmation is a usage error (2), like reject-all/clear; deny stays a refusal (1)
        raise click.UsageError("memory.deletePolicy is ask: review the plan (--dry-run), then apply it with "
                               "--apply --yes; nothing changed")
    if do_apply and plan.is_large() and confirm_count != plan.changed_count():
        raise click.UsageError(f"{plan.large_text()} That is more than 20 %: review it (--dry-run), then add "
                               f"--confirm-count {plan.changed_count()}; nothing changed")
    if not do_apply:
        if as_json:
            emit_json(plan.to_dict())
        else:
            echo_diff(plan.diff())
            if plan.operations:
                click.echo("(dry run: nothing changed)")
            if plan.is_large():
                click.echo(f"{plan.large_text()} Applying it asks for --confirm-count {plan.changed_count()}.")
        return
    if not as_json:
        echo_diff(plan.diff())
    result = apply_plan(store, plan, yes=yes, selected=selected)
    if as_json:
        emit_json({"plan": plan.to_dict(), "result": result.to_dict()})
        return
    for key, reason in result.skipped:
        click.echo(f"skipped {key}: {printable(reason)}")
    click.echo(result.message)


@memory.command()
@_plan_options
@click.option("--accept", multiple=True, metavar="N", help="Accept contradiction resolution N (number or key).")
@click.option("--skip", multiple=True, metavar="N", help="Leave operation N out.")
@click.option("--text", "texts", multiple=True, metavar="N=TEXT", help="Merged text for merge operation N.")
@click.option("--user", help="Only memories bound to this user.")
@pass_app
def cleanup(app, dry_run, do_apply, yes, fingerprint, confirm_count, as_json, accept, skip, texts, user) -> None:
    """Merge duplicates, archive stale/expired records, purge old forgotten ones (diff first).

    Operations are named by the key the dry run shows ('merge:1,2,3', 'supersede:4>7'; quote it
    in the shell). A plain number is a position in the plan, which shifts when memories change, so
    with --apply it needs --plan FP, the fingerprint of the plan the dry run showed."""
    from bestie_tui.hygiene.plan_apply import check_merged_text
    from bestie_tui.hygiene.plan_build import build_cleanup_plan

    store = app.store()
    plan = build_cleanup_plan(store, user=user)
    refs = list(accept) + list(skip) + [item.partition("=")[0].strip() for item in texts]
    if do_apply and not fingerprint and any(ref.strip().isdigit() for ref in refs):
        raise click.UsageError("operation numbers shift when memories change: with --apply, name operations "
                               "by the key the dry run shows (e.g. --accept 'supersede:4>7'), or add "
                               "--plan FP with the fingerprint the dry run printed")
    if fingerprint:
        plan.check_fingerprint(fingerprint)  # before any number is read against this plan
    accepted = {plan.op(ref).key: ref for ref in accept}
    for ref in skip:
        key = plan.op(ref).key
        if key in accepted:
            raise click.UsageError(f"operation {key} is both accepted ({accepted[key]}) and skipped ({ref})")
    for ref in accept:
        plan.op(ref).selected = True
    for ref in skip:
        plan.op(ref).selected = False
    for item in texts:
        ref, sep, text = item.partition("=")
        if not sep:
            raise click.UsageError(f"--text expects N=TEXT, not {item!r}")
        op = plan.op(ref.strip())
        if op.action != "merge":
            raise click.UsageError(f"operation {ref} is a {op.action}; only a merge has a text")
        if op.into is not None:
            raise click.UsageError(f"{op.key} folds into the pinned #{op.into.id}, which keeps its text")
        check_merged_text(op.key, text, store, op.records)  # refused in the dry run too, not only at apply
        op.text = text
    _run_plan(store, plan, dry_run, do_apply, yes, as_json, fingerprint=fingerprint, confirm_count=confirm_count)


@memory.command()
@_plan_options
@pass_app
def rebalance(app, dry_run, do_apply, yes, fingerprint, confirm_count, as_json) -> None:
    """Move records between layers: over-cap core → working, unused working → archive, used archive → working."""
    from bestie_tui.hygiene.plan_build import build_rebalance_plan

    store = app.store()
    _run_plan(store, build_rebalance_plan(store), dry_run, do_apply, yes, as_json, fingerprint=fingerprint,
              confirm_count=confirm_count)


@memory.group(invoke_without_command=True)
@_plan_options
@click.pass_context
def hygiene(ctx, dry_run, do_apply, yes, fingerprint, confirm_count, as_json) -> None:
    """Health score and trend; --dry-run/--apply the hygiene plan (metadata fixes, expiry)."""
    if ctx.invoked_subcommand:
        return
    store = ctx.obj.store()
    if dry_run or do_apply:
        from bestie_tui.hygiene.plan_build import build_hygiene_plan

        _run_plan(store, build_hygiene_plan(store), dry_run, do_apply, yes, as_json, fingerprint=fingerprint,
                  confirm_count=confirm_count)
        return
    ctx.invoke(hygiene_status, as_json=as_json)


def _print_health(status) -> None:
    h = status.health
    change = "" if status.change is None else f" ({status.change:+.1f} since the last run)"
    click.echo(f"health {h.score:.1f}/100{change}")
    for part, points in h.penalties.items():
        click.echo(f"  −{points:>5.2f}  {part}")
    click.echo(f"formula: {h.formula}")


@hygiene.command("status")
@json_option
@pass_app
def hygiene_status(app, as_json) -> None:
    """Run the doctor, print the health score with its formula, record a snapshot."""
    from bestie_tui.hygiene.health import hygiene_status as run_status

    status = run_status(app.store())
    if as_json:
        emit_json(status.to_dict())
        return
    _print_health(status)
    counts = status.report.counts()
    click.echo("  ".join(f"{k} {counts[k]}" for k in ("total", "duplicate_groups", "contradictions", "stale",
                                                      "noisy", "missing_metadata")))


@hygiene.command("doctor")
@click.option("--fix", is_flag=True, help="Apply the safe metadata fixes (one undoable step).")
@json_option
@pass_app
def hygiene_doctor(app, fix, as_json) -> None:
    """The full doctor report with the health score; --fix applies safe metadata fixes."""
    from bestie_tui.hygiene.health import hygiene_status as run_status
    from bestie_tui.hygiene.plan_apply import apply_plan
    from bestie_tui.hygiene.plan_build import build_hygiene_plan

    store = app.store()
    status = run_status(store)
    plan = build_hygiene_plan(store, status.report, fixes_only=True)
    result = apply_plan(store, plan, yes=True) if fix and plan.operations else None
    if as_json:
        emit_json({**status.to_dict(), "report": status.report.to_dict(), "fixes": plan.to_dict(),
                   "fixed": result.to_dict() if result else None})
        return
    print_report(status.report, SECTION_LIMIT)
    click.echo()
    _print_health(status)
    if fix:
        click.echo(result.message if result else "no safe metadata fix to apply")
    elif plan.operations:
        click.echo(f"{len(plan.operations)} safe metadata fix(es) available: `bestie memory hygiene doctor --fix`")


@hygiene.command("trend")
@click.option("--limit", type=click.IntRange(min=1), default=30, show_default=True)
@json_option
@pass_app
def hygiene_trend(app, limit, as_json) -> None:
    """Health per recorded doctor run, oldest first, with a bar."""
    from bestie_tui.hygiene.health import trend

    store = app.store()
    snaps = trend(store, limit)
    if as_json:
        emit_json([s.to_dict() for s in snaps])
        return
    if not snaps:
        click.echo("no snapshots yet: run `bestie memory hygiene status`")
        return
    now = store.clock()
    for s in snaps:
        bar = "█" * int(round(s.health / 5))
        c = s.counts
        click.echo(f"{ago(s.at, now):<13}  {s.health:5.1f}  {bar:<20}  "
                   f"dup {c.get('duplicate_groups', 0)}  conflicts {c.get('contradictions', 0)}  "
                   f"stale {c.get('stale', 0)}  total {c.get('total', 0)}")
