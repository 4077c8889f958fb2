"""``bestie context compress | pack | estimate``: the conversation-context tools of the second seed.

Messages are read as a JSON array (or ``{"messages": [...]}``) or JSONL, from a file or ``-`` (stdin).
Defaults for threshold, keep, summary size and token mode come from the ``context.*`` settings of the
database when it exists (``bestie memory config``), else from ``conversation.CONTEXT_DEFAULTS``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import click

from bestie_tui.errors import InvalidValueError
from bestie_tui.text.words import printable

from .common import AppContext, BestieGroup, db_option

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
    from .render import _default

    click.echo(_escape_surrogates(json.dumps(data, ensure_ascii=False, indent=2, default=_default)))


def parse_messages(text: str, source: str) -> list[Any]:
    """``conversation.parse_messages`` (imported when used: the CLI starts without the core's parts)."""
    from bestie_tui.conversation.compress import parse_messages as parse

    return parse(text, source)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _settings(app: AppContext) -> dict[str, Any]:
    from bestie_tui.conversation.compress import CONTEXT_DEFAULTS, context_settings

    if app.db_path().exists():
        return context_settings(app.store())
    return dict(CONTEXT_DEFAULTS)


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


@click.group(cls=BestieGroup)
@db_option
def context() -> None:
    """Compress a conversation, build a prompt pack, estimate tokens."""


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
        record = persist_summary(app.store(), result)
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
    click.echo(f"{what}; {result.tokens_before:,} → {result.tokens_after:,} tokens ({mode}){moved}{stored}",
               err=True)
    for warning in result.warnings:
        click.echo("warning: " + shown(warning), err=True)


@context.command()
@click.option("--history", "history_src", metavar="FILE|-",
              help="Conversation (JSON or JSONL). Default: the newest messages in the database.")
@click.option("--task", help="The request. Default: the history's last message, if it is the user's.")
@click.option("--artifact", "artifacts", multiple=True, metavar="PATH[:MAXCHARS]", callback=_artifact_specs,
              help="Artifact file to excerpt: at most MAXCHARS characters of it are shown (default 4000, "
                   "at most 1,000,000), plus a marker where it was cut. Repeatable.")
@click.option("--pin", "pins", multiple=True, metavar="KIND=TEXT",
              help="Pinned block: user_info, project_context, build_state or resource_digest. Repeatable.")
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
def pack(app, history_src, task, artifacts, pins, query, user, channel, project, no_memory, token_mode,
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
    if history_src:
        history = parse_messages(_read(history_src), "standard input" if history_src == "-" else history_src)
    else:
        rows = app.store().messages(limit=500)
        history = [{"role": m.role, "content": m.text, "created_at": m.created_at.isoformat(),
                    **({"name": m.user} if m.user else {})}
                   for m in reversed(rows) if m.session != "context-summary" and (user is None or m.user in (None, user))]
    mode = token_mode or settings["context.tokenMode"]
    result = build_pack(task, history, pins=pin_items, artifacts=list(artifacts),
                        store=None if no_memory else app.store(), query=query, user=user, channel=channel,
                        project=project, token_mode=mode, budget=budget,
                        threshold=settings["context.compressThreshold"] if threshold is None else threshold,
                        keep_recent=settings["context.keepRecent"] if keep is None else keep,
                        summarizer=_summarizer(summary_chars, settings), record_access=False)
    if result.compression and result.compression.compressed and settings["context.persistSummary"]:
        persist_summary(app.store(), result.compression, user=user, channel=channel)
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
    for warning in manifest.warnings:
        click.echo("warning: " + shown(warning))


@context.command()
@click.argument("text", nargs=-1)
@click.option("--file", "source", metavar="FILE|-", help="Read the text from a file ('-' for stdin).")
@click.option("--messages", "as_messages", is_flag=True,
              help="The input is chat messages (JSON/JSONL): count each with its chat framing.")
@mode_option
@json_option
def estimate(text, source, as_messages, token_mode, as_json) -> None:
    """Estimate tokens of TEXT (or a file, or stdin) in chars4 and tiktoken_cl100k.

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
