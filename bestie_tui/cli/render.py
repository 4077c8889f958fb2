"""Text and JSON rendering of core objects for the CLI. Memory text is data: control characters are
shown as visible escapes and nothing is ever interpreted as markup."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, tzinfo
from typing import Any

import click

from bestie_tui.store.instructions import is_instruction
from bestie_tui.store.records import MEMORY_FIELDS, MemoryRecord, MessageRecord, iso
from bestie_tui.text.clock import ago, exact, show
from bestie_tui.text.words import json_text, printable, yes_no


def emit_json(data: Any) -> None:
    """Print ``data`` as indented JSON: non-ASCII kept, every control and bidi character escaped
    (``words.json_text``), so the output is safe to print and still parses to the same values."""
    click.echo(json_text(data, indent=2, default=_default))


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    raise TypeError(f"cannot serialise {type(value).__name__}")


def flags(m: MemoryRecord, now: datetime | None = None) -> str:
    marks = []
    if m.pinned:
        marks.append("pinned")
    if is_instruction(m):
        marks.append("instruction")
    if m.stale:
        marks.append("stale")
    if m.superseded_by:
        marks.append(f"superseded→#{m.superseded_by}")
    if now is not None and m.is_expired(now):
        marks.append("expired")
    if m.about:
        marks.append(f"about {printable(m.about)}")
    return ",".join(marks)


def paint(text: str, **style: Any) -> str:
    """``text`` styled through ``click.style`` (e.g. ``fg="green"``), or as it is under ``NO_COLOR``
    (https://no-color.org). ``click.echo`` drops the colour itself when output is not a terminal."""
    import os

    return text if not style or os.environ.get("NO_COLOR") else click.style(text, **style)


#: Colours of a memory's status and tier in CLI lines (``paint``); the text itself stays unstyled.
STATUS_STYLE: dict[str, dict[str, Any]] = {"approved": {"fg": "green"}, "pending": {"fg": "yellow"},
                                           "rejected": {"fg": "red"}, "forgotten": {"dim": True}}
TIER_STYLE: dict[str, dict[str, Any]] = {"core": {"fg": "cyan", "bold": True}, "archive": {"dim": True}}


def memory_line(m: MemoryRecord, now: datetime | None = None) -> str:
    """One line: ``#id  tier  status  kind  text  [flags]``; id, tier, status and flags coloured
    (``paint``), the text as stored."""
    extra = flags(m, now)
    text = printable(m.text).replace("\n", " ")
    line = (f"{paint(f'#{m.id:<5}', dim=True)} {paint(f'{m.tier:<8}', **TIER_STYLE.get(m.tier, {}))} "
            f"{paint(f'{m.status:<9}', **STATUS_STYLE.get(m.status, {}))} {printable(m.kind):<24} {text}")
    return f"{line}  {paint(f'[{extra}]', dim=True)}" if extra else line


def memory_lines(items: Iterable[MemoryRecord], now: datetime | None = None, empty: str = "no memories") -> None:
    items = list(items)
    if not items:
        click.echo(empty)
        return
    for m in items:
        click.echo(memory_line(m, now))


def memory_detail(m: MemoryRecord, tz: tzinfo = UTC, now: datetime | None = None) -> None:
    """Every field, one per line, the text first; times on the owner's clock ``tz`` (with
    "3 days ago" beside them when ``now``, naive UTC, is given); flags as yes/no."""
    click.echo(f"#{m.id}  {printable(m.text)}")
    for name in MEMORY_FIELDS:
        if name in ("id", "text"):
            continue
        value = getattr(m, name)
        if isinstance(value, bool):
            value = yes_no(value)
        elif isinstance(value, datetime):
            value = show(value, tz, seconds=True) if now is None else exact(value, tz, now, seconds=True)
        if name == "expires_at" and now is not None and m.is_expired(now):
            value = f"{value}  expired (not injected)"
        click.echo(f"  {name:<17} {'-' if value is None else printable(str(value))}")
    click.echo(f"  {'tier':<17} {m.tier}")
    click.echo(f"  {'instruction':<17} {yes_no(is_instruction(m))}  (standing: enters every prompt)"
               if is_instruction(m) else f"  {'instruction':<17} no")


def message_line(m: MessageRecord, tz: tzinfo = UTC, now: datetime | None = None) -> str:
    """``id  time  role  user  text``: the time as "3 min ago" when ``now`` (naive UTC) is given,
    else on the owner's clock ``tz`` (a file's messages, which have no "now")."""
    who = m.user or "-"
    at = f"{ago(m.created_at, now):<13}" if now is not None else show(m.created_at, tz)
    return f"{m.id:<6} {at}  {m.role:<9} {printable(who):<12} {printable(m.text).replace(chr(10), ' ')}"


def kv(pairs: Iterable[tuple[str, Any]]) -> None:
    for key, value in pairs:
        click.echo(f"{key:<16} {value}")
