"""``bestie context compress | pack | engineer-pack | estimate | settings``: the conversation-context
tools of the second seed.

Messages are read as a JSON array (or ``{"messages": [...]}``) or JSONL, from a file or ``-`` (stdin).
Defaults for threshold, keep, summary size, token mode and artifact caps come from the ``context.*``
settings (``conversation.config.context_settings``): the defaults, then the database's when it exists
(``bestie memory config``), then the ``FREETEXT_*`` environment variables of the design note.
"""

from __future__ import annotations

import re
from typing import Any

import click

from bestie_tui.errors import InvalidValueError
from bestie_tui.text.words import printable

from .common import AppContext, TextToolGroup, db_option, user_option

pass_app = click.make_pass_decorator(AppContext)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
TOKEN_MODES = ("chars4", "tiktoken_cl100k")


def _read(source: str) -> str:
    """The text of FILE or ``-`` (stdin), decoded as UTF-8 (a leading byte order mark dropped).

    A path must be a regular file (``artifacts.open_regular``): a FIFO (``<(cmd)``) or device would
    block or never end; its text can come through stdin instead.

    Raises:
        InvalidValueError: unreadable or not a regular file, or not UTF-8 (the first bad byte and its
            offset are named).
    """
    from bestie_tui.conversation.artifacts import NotRegularFileError, open_regular

    name = "standard input" if source == "-" else source
    try:
        with (click.open_file("-", "rb") if source == "-" else open_regular(source)) as fh:
            data = fh.read()
    except NotRegularFileError as exc:
        raise InvalidValueError(f"cannot read {source}: {exc}; pipe it to standard input with - instead") from None
    except OSError as exc:
        raise InvalidValueError(f"cannot read {source}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = f"byte 0x{data[exc.start]:02x} at offset {exc.start}"
        raise InvalidValueError(f"{name} is not UTF-8 text ({bad})") from None


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_surrogates(text: str) -> str:
    # A lone surrogate (from a non-UTF-8 argument) cannot be encoded for the terminal: it is shown as
    # its \\u escape, which is also how JSON writes it, so --json output still parses back to the same text.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def shown(text: str) -> str:
    """``printable`` text that any UTF-8 terminal can take (lone surrogates escaped too)."""
    return _escape_surrogates(printable(text))


def emit_json(data: Any) -> None:
    """Indented JSON, non-ASCII kept, lone surrogates written as ``\\uXXXX`` escapes."""
    from bestie_tui.text.words import json_text

    from .render import _default

    click.echo(_escape_surrogates(json_text(data, indent=2, default=_default)))


def parse_messages(text: str, source: str) -> list[Any]:
    """``conversation.parse_messages`` (imported when used: the CLI starts without the core's parts)."""
    from bestie_tui.conversation.compress import parse_messages as parse

    return parse(text, source)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _settings(app: AppContext) -> dict[str, Any]:
    from bestie_tui.conversation.config import context_settings

    return context_settings(app.store() if app.db_exists() else None)


def _summarizer(chars: int | None, settings: dict[str, Any]):
    from bestie_tui.conversation.summarize import ExtractiveSummarizer

    return ExtractiveSummarizer(chars or settings["context.summaryChars"])


def message_line(m: dict[str, Any]) -> str:
    """``[role name] text`` with control characters made visible; multi-line text kept."""
    from bestie_tui.conversation.summarize import message_text

    who = m.get("role", "?") + (f" {m['name']}" if m.get("name") else "")
    return f"[{shown(str(who))}] {shown(message_text(m)).replace(chr(10), chr(10) + '  ')}"


def _artifact_specs(ctx, param, values):
    """``--artifact`` values as ``ArtifactSpec``s; a bad one is a usage error (exit 2)."""
    from bestie_tui.conversation.pack import ArtifactSpec

    try:
        return [ArtifactSpec.parse(v) for v in values]
    except InvalidValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


@click.group(cls=TextToolGroup)
@db_option
@user_option
def context() -> None:
    """Compress a conversation, build a prompt pack (or the Engineer's), estimate tokens, show settings.

    Not to be confused with 'bestie memory context QUERY': that previews only the memory block one
    request would get (which memories, their scores, what was left out). 'bestie context' works on
    the whole conversation: history compressed to a token budget, with the memory block inside the pack."""


threshold_option = click.option("--threshold", type=click.IntRange(min=0),
                                 help="Most messages left as they are (default: context.compressThreshold, 40).")
keep_option = click.option("--keep", type=click.IntRange(min=0),
                           help="Turns kept verbatim after the summary (default: context.keepRecent, 10).")
chars_option = click.option("--summary-chars", type=click.IntRange(min=80),
                            help="Cap of the summary body in characters; the [CONTEXT_SUMMARY …] header and closing "
                                 "marker (about 70 more) are not counted (default: context.summaryChars, 2000).")
mode_option = click.option("--token-mode", type=click.Choice(TOKEN_MODES),
                           help="Token estimate (default: context.tokenMode, chars4).")


@context.command()
@click.argument("source", default="-", metavar="[FILE|-]")
@threshold_option
@keep_option
@chars_option
@mode_option
@json_option
@pass_app
def compress(app, source, threshold, keep, summary_chars, token_mode, as_json) -> None:
    """Compress the messages in FILE (JSON or JSONL; default stdin) and print the compressed list.

    With --json the output is a JSON array that can be fed back in. When the setting
    context.persistSummary is on, the new summary is also stored as a system message.
    """
    from bestie_tui.conversation.compress import compress as run
    from bestie_tui.conversation.compress import persist_summary

    settings = _settings(app)
    messages = parse_messages(_read(source), "standard input" if source == "-" else source)
    mode = token_mode or settings["context.tokenMode"]
    result = run(messages, settings["context.compressThreshold"] if threshold is None else threshold,
                 settings["context.keepRecent"] if keep is None else keep,
                 _summarizer(summary_chars, settings), token_mode=mode)
    stored = ""
    if result.compressed and settings["context.persistSummary"]:
        record = persist_summary(app.store(), result, settings=settings)
        stored = ("; summary stored in the database (session context-summary)" if record is not None
                  else "; summary already stored")
    if as_json:
        emit_json(result.messages)
    else:
        for m in result.messages:
            click.echo(message_line(m))
    what = (f"summarised {_plural(len(result.evicted), 'message')} of {len(messages):,}" if result.compressed
            else result.note)
    moved = f"; {', '.join(result.cut_moved)}" if result.cut_moved else ""
    injected = f"; {result.injected}" if result.injected and result.compressed else ""
    click.echo(f"{what}; {result.tokens_before:,} → {result.tokens_after:,} tokens ({mode}){moved}{injected}{stored}",
               err=True)
    for warning in result.warnings:
        click.echo("warning: " + shown(warning), err=True)


def _history(app, history_src: str | None, user: str | None) -> list[dict[str, Any]]:
    """The conversation: ``--history`` FILE or ``-``, else the newest 500 messages in the database."""
    if history_src:
        return parse_messages(_read(history_src), "standard input" if history_src == "-" else history_src)
    if not app.db_exists():
        return []
    rows = app.store().messages(limit=500)
    return [{"role": m.role, "content": m.text, "created_at": m.created_at.isoformat(),
             **({"name": m.user} if m.user else {})}
            for m in reversed(rows) if m.session != "context-summary" and (user is None or m.user in (None, user))]


@context.command()
@click.option("--history", "history_src", metavar="FILE|-",
              help="Conversation (JSON or JSONL). Default: the newest messages in the database.")
@click.option("--task", help="The request. Default: the history's last message, if it is the user's.")
@click.option("--artifact", "artifacts", multiple=True, metavar="PATH[:MAXCHARS]", callback=_artifact_specs,
              help="Artifact file to excerpt: at most MAXCHARS characters of it are shown (default 4000, "
                   "at most 1,000,000), plus a marker where it was cut. Repeatable.")
@click.option("--artifact-root", type=click.Path(file_okay=False, exists=True), metavar="DIR",
              help="Directory the artifacts must be in (symlinks resolved). Default: the project root, "
                   "the nearest directory above here with .git or pyproject.toml, else this one.")
@click.option("--pin", "pins", multiple=True, metavar="KIND=TEXT",
              help="Pinned block: user_info, kyb, project_context, fe_spec, product_plan, master, build_state, "
                   "cross_stack or resource_digest (the note's names work too: 'FE spec=…'). Repeatable.")
@click.option("--query", help="Query for the memory block (default: the task).")
@click.option("--user", help="The request's user (whose memories may enter).")
@click.option("--channel", help="The request's channel, e.g. telegram:123.")
@click.option("--project", help="The request's project.")
@click.option("--no-memory", is_flag=True, help="Leave the memory block out.")
@mode_option
@click.option("--budget", type=click.IntRange(min=1), help="Token budget of the whole pack.")
@threshold_option
@keep_option
@chars_option
@click.option("--show", is_flag=True, help="Print the pack's messages after the manifest.")
@json_option
@pass_app
def pack(app, history_src, task, artifacts, artifact_root, pins, query, user, channel, project, no_memory, token_mode,
         budget, threshold, keep, summary_chars, show, as_json) -> None:
    """Build the prompt pack: pins, memory block, artifact excerpts, compressed history, task; and
    print its manifest (every segment with its characters and tokens, what was cut or missing).
    A preview: memories shown here are not counted as accessed."""
    from bestie_tui.conversation.compress import persist_summary
    from bestie_tui.conversation.pack import build_pack

    settings = _settings(app)
    pin_items = []
    for item in pins:
        kind, sep, body = item.partition("=")
        if not sep or not body.strip():
            raise click.BadParameter(f"{item!r} is not KIND=TEXT", param_hint="--pin")
        pin_items.append((kind.strip(), body))
    history = _history(app, history_src, user)
    result = build_pack(task, history, pins=pin_items, artifacts=list(artifacts),
                        store=None if no_memory else app.store(), query=query, user=user, channel=channel,
                        project=project, token_mode=token_mode, budget=budget, threshold=threshold,
                        keep_recent=keep, summarizer=_summarizer(summary_chars, settings), record_access=False,
                        settings=settings, artifact_root=artifact_root)
    if result.compression and result.compression.compressed and settings["context.persistSummary"]:
        persist_summary(app.store(), result.compression, user=user, channel=channel, settings=settings)
    if as_json:
        emit_json(result.to_dict())
        return
    _print_manifest(result.manifest, len(result.messages))
    if show:
        click.echo("")
        for m in result.messages:
            click.echo(message_line(m))


def _print_manifest(manifest, n_messages: int) -> None:
    budget = f" of a {manifest.budget:,} budget" if manifest.budget else ""
    click.echo(f"pack: {_plural(n_messages, 'message')}, {manifest.total_chars:,} characters, "
               f"{manifest.total_tokens:,} tokens ({manifest.token_mode}){budget}")
    click.echo(f"{'segment':<40} {'kind':<9} {'msgs':>4} {'chars':>7} {'tokens':>7}  note")
    for s in manifest.segments:
        name = shown(s.name if len(s.name) <= 40 else "…" + s.name[-39:])
        note = ("CUT " if s.cut else "") + shown(s.note)
        click.echo(f"{name:<40} {s.kind:<9} {s.messages:>4} {s.chars:>7,} {s.tokens:>7,}  {note}")
    if manifest.missing:
        click.echo("missing: " + ", ".join(shown(p) for p in manifest.missing))
    others = [f"{shown(p)} ({shown(why)})" for p, why in manifest.skipped.items() if why != "missing"]
    if others:
        click.echo("skipped: " + ", ".join(others))
    if manifest.cut:
        click.echo("cut: " + "; ".join(shown(c) for c in manifest.cut))
    for line in manifest.dropped:
        click.echo("dropped: " + shown(line))
    for warning in manifest.warnings:
        click.echo("warning: " + shown(warning))


def _text_or_file(value: str | None, source: str | None, what: str) -> str | None:
    if value is not None and source is not None:
        raise click.UsageError(f"give --{what} or --{what}-file, not both")
    return _read(source) if source is not None else value


@context.command("engineer-pack")
@click.option("--design-dir", default="design-system", show_default=True, metavar="DIR",
              help="Folder of PRODUCT_PLAN.md, MASTER.md, BUILD_STATE.md, CROSS_STACK.md, beguru_chat_context.json.")
@click.option("--task", help="The request. Default: the history's last message, if it is the user's.")
@click.option("--spec", help="The FE spec (default: fe_spec of beguru_chat_context.json).")
@click.option("--spec-file", metavar="FILE|-", help="Read the FE spec from a file.")
@click.option("--digest", help="The resource digest (default: resource_digest of beguru_chat_context.json).")
@click.option("--digest-file", metavar="FILE|-", help="Read the resource digest from a file.")
@click.option("--history", "history_src", metavar="FILE|-", help="Conversation to compress before the task (JSON or JSONL).")
@click.option("--plan-chars", type=click.IntRange(1, 1_000_000), default=4000, show_default=True,
              help="Cap of the PRODUCT_PLAN excerpt, in characters.")
@click.option("--master-chars", type=click.IntRange(1, 1_000_000), default=4000, show_default=True,
              help="Cap of the MASTER excerpt, in characters.")
@click.option("--build-state-chars", type=click.IntRange(1, 1_000_000),
              help="Cap of BUILD_STATE (default: context.buildStateMaxChars, env FREETEXT_BUILD_STATE_MAX_CHARS).")
@click.option("--cross-stack-chars", type=click.IntRange(1, 1_000_000),
              help="Cap of CROSS_STACK (default: context.crossStackMaxChars, env FREETEXT_CROSS_STACK_MAX_CHARS).")
@mode_option
@click.option("--budget", type=click.IntRange(min=1), help="Token budget of the whole pack.")
@click.option("--show", is_flag=True, help="Print the pack's messages after the manifest.")
@json_option
@pass_app
def engineer_pack(app, design_dir, task, spec, spec_file, digest, digest_file, history_src, plan_chars, master_chars,
                  build_state_chars, cross_stack_chars, token_mode, budget, show, as_json) -> None:
    """Build the Engineer's pack of the design note: spec, PRODUCT_PLAN excerpt, MASTER, BUILD_STATE,
    CROSS_STACK (when there), digest, task; and print its manifest. Missing files are listed, not fatal."""
    from bestie_tui.conversation.engineer import build_nextjs_context_pack

    settings = _settings(app)
    history = parse_messages(_read(history_src), "standard input" if history_src == "-" else history_src) \
        if history_src else []
    result = build_nextjs_context_pack(
        task, design_dir, spec=_text_or_file(spec, spec_file, "spec"), digest=_text_or_file(digest, digest_file, "digest"),
        history=history, budget=budget, token_mode=token_mode, plan_chars=plan_chars, master_chars=master_chars,
        build_state_chars=build_state_chars, cross_stack_chars=cross_stack_chars, settings=settings,
        summarizer=_summarizer(None, settings))
    if as_json:
        emit_json(result.to_dict())
        return
    _print_manifest(result.manifest, len(result.messages))
    if show:
        click.echo("")
        for m in result.messages:
            click.echo(message_line(m))


@context.command("settings")
@json_option
@pass_app
def settings_cmd(app, as_json) -> None:
    """Show the context settings in force and where each comes from: default, database
    (bestie memory config) or an environment variable (FREETEXT_…), which wins."""
    from bestie_tui.conversation.config import env_names, setting_sources

    sources = setting_sources(app.store() if app.db_exists() else None)
    names = env_names()
    rows = [{"key": k, "value": v, "source": src, "env": names.get(k, [])} for k, (v, src) in sources.items()]
    if as_json:
        emit_json(rows)
        return
    click.echo(f"{'setting':<30} {'value':<16} {'from':<40} environment")
    for r in rows:
        value = str(r["value"]).lower() if isinstance(r["value"], bool) else str(r["value"])
        click.echo(f"{r['key']:<30} {value:<16} {r['source']:<40} {', '.join(r['env'])}")


@context.command()
@click.argument("text", nargs=-1)
@click.option("--file", "source", metavar="FILE|-", help="Read the text from a file ('-' for stdin).")
@click.option("--messages", "as_messages", is_flag=True,
              help="The input is chat messages (JSON/JSONL): count each with its chat framing.")
@mode_option
@json_option
def estimate(text, source, as_messages, token_mode, as_json) -> None:
    """Estimate tokens of TEXT (or a file, or stdin) in chars4 and tiktoken_cl100k. TEXT goes after
    --: bestie context estimate -- "some text".

    Without --token-mode both are shown; tiktoken_cl100k needs the extra bestie-tui[tokens].
    """
    from bestie_tui.conversation.compress import history_tokens
    from bestie_tui.conversation.summarize import message_text
    from bestie_tui.text.tokens import MissingExtraError, count_tokens

    body = " ".join(text) if text else _read(source or "-")
    messages = parse_messages(body, source or "input") if as_messages else None
    chars = sum(len(message_text(m)) for m in messages) if messages is not None else len(body)
    out: dict[str, Any] = {"characters": chars}
    if messages is not None:
        out["messages"] = len(messages)
    for mode in ([token_mode] if token_mode else TOKEN_MODES):
        try:
            out[mode] = history_tokens(messages, mode) if messages is not None else count_tokens(body, mode)
        except MissingExtraError as exc:
            if token_mode:
                raise
            out[mode] = None
            out[f"{mode}_error"] = str(exc)
    if as_json:
        emit_json(out)
        return
    for key, value in out.items():
        if key.endswith("_error"):
            continue
        shown = f"{value:,}" if value is not None else out.get(f"{key}_error", "unavailable")
        unit = " tokens" if key in TOKEN_MODES and value is not None else ""
        click.echo(f"{key:<16} {shown}{unit}")
