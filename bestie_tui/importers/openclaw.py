"""OpenClaw's Markdown memory: ``MEMORY.md`` (curated long-term memory) and the daily notes
``memory/YYYY-MM-DD.md`` (or ``YYYY-MM-DD-<slug>.md``) of an agent workspace.

Each Markdown bullet (``-``, ``*``, ``+``, ``1.``; indented lines continue it) is one memory and the
nearest heading above it is its kind. ``MEMORY.md`` bullets are proposed as core, daily notes as
working memories dated by their file name. ``to_memory_md`` writes approved memories back.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bestie_tui.errors import ImportFormatError
from bestie_tui.importers.common import envelope, kind_of, proposal
from bestie_tui.store.binding import uses_store
from bestie_tui.text.words import printable

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_DAILY = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-[\w.-]+)?\.md$")
#: The top heading ``to_memory_md`` writes (a title, not a kind).
TITLE = "# MEMORY"


def bullets(markdown: str, default_kind: str) -> list[tuple[str, str]]:
    """``(kind, text)`` of each bullet of ``markdown``; a level-1 heading is the file's title and
    names no kind."""
    out: list[tuple[str, str]] = []
    kind, current, in_code = default_kind, None, False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code:
            continue
        heading = _HEADING.match(line)
        bullet = _BULLET.match(line)
        if heading:
            current = None
            kind = default_kind if len(heading.group(1)) == 1 else kind_of(heading.group(2), default_kind)
        elif bullet and bullet.group(1).strip():
            current = [kind, bullet.group(1).strip()]
            out.append((current[0], current[1]))
        elif current is not None and line.startswith((" ", "\t")) and line.strip():
            current[1] += " " + line.strip()
            out[-1] = (current[0], current[1])
        elif not line.strip():
            current = None
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
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
        for kind, text in bullets(_read(p), "daily_note" if day else "note"):
            memories.append(proposal(text, kind, source=f"import:openclaw:{p.name}", user=user, created_at=created,
                                     scope="project" if day else "core"))
    return envelope(memories, [])


@uses_store
def to_memory_md(store, user: str | None = None) -> str:
    """``MEMORY.md`` of the active approved memories (only ``user``'s and unbound ones when given),
    one ``## Kind`` section per kind, one bullet per memory on one line. Control characters are
    shown as visible escapes, never written raw."""
    groups: dict[str, list[str]] = {}
    for m in reversed(store.list(status="approved")):
        if m.superseded_by is not None or m.layer == "archive" or (user is not None and m.user not in (None, user)):
            continue
        groups.setdefault(m.kind, []).append(printable(" ".join(m.text.split())))
    lines = [TITLE, ""]
    for kind, texts in groups.items():
        lines += [f"## {kind.replace('_', ' ').capitalize()}", ""] + [f"- {t}" for t in texts] + [""]
    return "\n".join(lines)
