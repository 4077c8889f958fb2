"""OpenClaw's Markdown memory: ``MEMORY.md`` (curated long-term memory) and the daily notes
``memory/YYYY-MM-DD.md`` (or ``YYYY-MM-DD-<slug>.md``) of an agent workspace.

Each Markdown bullet (``-``, ``*``, ``+``, ``1.``; indented lines continue it) is one memory and the
nearest heading above it is its kind. ``MEMORY.md`` bullets are proposed as core, daily notes as
working memories dated by their file name. ``to_memory_md`` writes approved memories back.

What Markdown bullets cannot say — a layer or scope other than the file's default, a pin, an
expiry (TTL), a kind its heading does not spell — the export writes in an HTML comment at the end
of the bullet, ``<!-- bestie: scope=project layer=working pinned expires=2026-05-01T09:00:00 -->``,
which renders as nothing and which the import reads back. What a MEMORY.md cannot hold at all
(superseded and archived records, records that are not approved) is left out and counted
(``MemoryMd.left_out``), so the export can say so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bestie_tui.errors import ImportFormatError
from bestie_tui.importers.common import envelope, kind_of, proposal
from bestie_tui.store.binding import uses_store
from bestie_tui.store.limits import IMPORT_FILE_MAX, MARKDOWN_LINE_MAX, MEMORY_TEXT_MAX
from bestie_tui.store.models import LAYERS, SCOPE_DEFAULT_LAYER, SCOPES
from bestie_tui.text.words import printable

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_DAILY = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-[\w.-]+)?\.md$")
#: The top heading ``to_memory_md`` writes (a title, not a kind).
TITLE = "# MEMORY"
#: The comment at the end of a bullet that carries what Markdown cannot (``meta``/``split_meta``).
_META = re.compile(r"\s*<!--\s*bestie:([^<>]*?)-->\s*$")
_META_KEYS = ("kind", "scope", "layer", "pinned", "expires")


def bullets(markdown: str | Iterable[str], default_kind: str, where: str = "the Markdown") -> list[tuple[str, str]]:
    """``(kind, text)`` of each bullet of ``markdown`` (its text, or its lines as ``_lines`` reads
    them); a level-1 heading is the file's title and names no kind. Continuation lines are
    gathered in a list and joined once (linear in the file's size).

    Raises:
        ImportFormatError: a bullet grows past ``limits.MEMORY_TEXT_MAX`` characters (refused as
            soon as it does, ``where`` naming the file).
    """
    out: list[tuple[str, str]] = []
    kind, parts, size, start, in_code = default_kind, None, 0, 0, False

    def close() -> None:
        if parts is not None:
            out.append((kind, " ".join(parts)))

    lines = markdown.splitlines() if isinstance(markdown, str) else markdown
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\r\n")
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code:
            continue
        heading = _HEADING.match(line)
        bullet = None if heading else _BULLET.match(line)
        if heading:
            close()
            parts = None
            kind = default_kind if len(heading.group(1)) == 1 else kind_of(heading.group(2), default_kind)
        elif bullet and bullet.group(1).strip():
            close()
            parts, size, start = [bullet.group(1).strip()], len(bullet.group(1).strip()), n
        elif parts is not None and line.startswith((" ", "\t")) and line.strip():
            parts.append(line.strip())
            size += 1 + len(parts[-1])
        elif not line.strip():
            close()
            parts = None
        if parts is not None and size > MEMORY_TEXT_MAX + _META_ROOM:
            raise ImportFormatError(f"{where}: the bullet on line {start} is over {MEMORY_TEXT_MAX:,} characters, "
                                    f"the most a memory holds; nothing was imported")
    close()
    return out


#: Room a bullet keeps past the memory text limit for its ``<!-- bestie: … -->`` comment.
_META_ROOM = 200


def meta(kind: str, heading_kind: str, scope: str, layer: str, pinned: bool, expires_at: datetime | None,
         default_scope: str = "core", force: bool = False) -> str:
    """The comment that carries a memory's fields a bullet under ``heading_kind`` in a file whose
    bullets default to ``default_scope`` would lose; ``""`` when there are none (unless ``force``,
    for a text that itself ends in a comment)."""
    parts = [f"kind={kind}"] if kind != heading_kind else []
    if scope != default_scope:
        parts.append(f"scope={scope}")
    if layer != SCOPE_DEFAULT_LAYER[scope]:
        parts.append(f"layer={layer}")
    if pinned:
        parts.append("pinned")
    if expires_at is not None:
        parts.append(f"expires={expires_at.replace(microsecond=0).isoformat()}")
    return f" <!-- bestie: {' '.join(parts)} -->" if parts or force else ""


def split_meta(text: str, where: str) -> tuple[str, dict[str, Any]]:
    """``text`` without a trailing ``<!-- bestie: … -->`` comment, and the fields it carries
    (``kind``, ``scope``, ``layer``, ``pinned``, ``expires_at``).

    Raises:
        ImportFormatError: a field of the comment is unknown or has a bad value (``where`` names the bullet).
    """
    found = _META.search(text)
    if not found:
        return text, {}
    fields: dict[str, Any] = {}
    for part in found.group(1).split():
        key, _, value = part.partition("=")
        if key not in _META_KEYS or (key == "pinned") == bool(value):
            raise ImportFormatError(f"{where}: the bestie comment holds {part!r}; it takes "
                                    "kind=K scope=S layer=L pinned expires=ISO")
        if key == "scope" and value not in SCOPES or key == "layer" and value not in LAYERS:
            raise ImportFormatError(f"{where}: the bestie comment's {key} is {value!r}; expected one of "
                                    f"{', '.join(SCOPES if key == 'scope' else LAYERS)}")
        if key == "expires":
            try:
                fields["expires_at"] = datetime.fromisoformat(value).replace(tzinfo=None).isoformat()
            except ValueError:
                raise ImportFormatError(f"{where}: the bestie comment's expires is not a date-time: {value!r}") from None
        else:
            fields[key] = True if key == "pinned" else value
    return text[:found.start()].rstrip(), fields


def _lines(path: Path) -> Iterator[str]:
    """The lines of ``path``, read one at a time: a file over ``limits.IMPORT_FILE_MAX`` bytes is
    refused from its size before any of it is read, and a line over ``limits.MARKDOWN_LINE_MAX``
    characters when it is met (memory stays bounded by one line).

    Raises:
        ImportFormatError: unreadable, not UTF-8, too large, or a line too long.
    """
    try:
        size = path.stat().st_size
        if size > IMPORT_FILE_MAX:
            raise ImportFormatError(f"{path} is {size / 2**20:,.1f} MiB; an import file holds at most "
                                    f"{IMPORT_FILE_MAX // 2**20} MiB; nothing was imported (split it)")
        with path.open(encoding="utf-8", newline="") as handle:
            read = 0
            n = 0
            while True:
                line = handle.readline(MARKDOWN_LINE_MAX + 1)
                if not line:
                    return
                n += 1
                read += len(line)
                if len(line) > MARKDOWN_LINE_MAX:
                    raise ImportFormatError(f"{path}: line {n} is over {MARKDOWN_LINE_MAX:,} characters; a memory "
                                            f"holds at most {MEMORY_TEXT_MAX:,}; nothing was imported")
                if read > IMPORT_FILE_MAX:  # a file that grew after stat, or a FIFO
                    raise ImportFormatError(f"{path} holds more than {IMPORT_FILE_MAX // 2**20} MiB; nothing was imported (split it)")
                yield line
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFormatError(f"cannot read {path}: {exc}") from None


def files(path: Path) -> list[Path]:
    """The Markdown files an OpenClaw import reads: the file itself, or a workspace's ``MEMORY.md``
    and ``memory/*.md`` daily notes."""
    if path.is_file():
        return [path]
    found = [p for p in (path / "MEMORY.md", path / "memory.md") if p.is_file()][:1]
    daily = path / "memory" if (path / "memory").is_dir() else path
    found += sorted(p for p in daily.glob("*.md") if _DAILY.match(p.name))
    return found


def convert(path: str | Path, user: str | None = None) -> dict[str, Any]:
    """Every bullet of the files as a pending proposal bound to ``user``.

    Raises:
        ImportFormatError: no OpenClaw memory file there, or one that cannot be read.
    """
    path = Path(path)
    paths = files(path)
    if not paths:
        raise ImportFormatError(f"{path} holds no OpenClaw MEMORY.md or memory/YYYY-MM-DD.md notes")
    memories = []
    for p in paths:
        day = _DAILY.match(p.name)
        created = f"{day.group(1)}T00:00:00" if day else None
        for n, (kind, text) in enumerate(bullets(_lines(p), "daily_note" if day else "note", str(p)), 1):
            text, fields = split_meta(text, f"{p.name}: bullet {n}")
            if not text.strip():
                continue
            scope = fields.get("scope", "project" if day else "core")
            record = proposal(text, fields.get("kind", kind), source=f"import:openclaw:{p.name}", user=user,
                              created_at=created, scope=scope)
            record["layer"] = fields.get("layer", SCOPE_DEFAULT_LAYER[scope])
            record["pinned"] = bool(fields.get("pinned"))
            record["expires_at"] = fields.get("expires_at")
            memories.append(record)
    return envelope(memories, [])


@dataclass
class MemoryMd:
    """``text``: the MEMORY.md; ``written``: how many bullets it holds; ``left_out``: what it could not
    hold, counted by reason (``superseded``, ``archived``, ``pending``, ``rejected``, ``forgotten``)."""

    text: str
    written: int = 0
    left_out: dict[str, int] = field(default_factory=dict)

    def warning(self) -> str | None:
        """One line naming what was left out, or ``None`` when nothing was."""
        if not self.left_out:
            return None
        counts = ", ".join(f"{n} {why}" for why, n in self.left_out.items())
        return (f"left out of MEMORY.md: {counts} (OpenClaw keeps only current memories; "
                "export --format bestie keeps every record)")


@uses_store
def memory_md(store, user: str | None = None) -> MemoryMd:
    """``MEMORY.md`` of the current approved memories (only ``user``'s and unbound ones when given),
    one ``## Kind`` section per kind, one bullet per memory on one line, each with the comment that
    carries what the bullet cannot (``meta``). Control characters are shown as visible escapes,
    never written raw. Superseded and archived records and the ones not approved are counted in
    ``left_out``, not written."""
    groups: dict[str, list[str]] = {}
    left_out: dict[str, int] = {}
    for m in reversed(store.list()):
        if user is not None and m.user not in (None, user):
            continue
        why = (m.status if m.status != "approved" else "superseded" if m.superseded_by is not None
               else "archived" if m.layer == "archive" else None)
        if why:
            left_out[why] = left_out.get(why, 0) + 1
            continue
        heading = m.kind.replace("_", " ").capitalize()
        text = printable(" ".join(m.text.split()))
        groups.setdefault(heading, []).append(text + meta(m.kind, kind_of(heading), m.scope, m.layer, m.pinned,
                                                          m.expires_at, force="<!--" in text))
    lines = [TITLE, ""]
    for heading, texts in groups.items():
        lines += [f"## {heading}", ""] + [f"- {t}" for t in texts] + [""]
    return MemoryMd("\n".join(lines), sum(len(t) for t in groups.values()), left_out)


@uses_store
def to_memory_md(store, user: str | None = None) -> str:
    """The text of ``memory_md(store, user)``."""
    return memory_md(store, user).text
