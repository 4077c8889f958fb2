"""Which format a file is in, and reading it into the bestie export shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bestie_tui.errors import ImportFormatError

#: The formats ``bestie memory import --format`` takes.
FORMATS = ("bestie", "mem0", "openclaw", "chatgpt")


def _json(path: Path) -> Any:
    from bestie_tui.store.transfer import FORMAT

    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFormatError(f"cannot read {path}: {exc}") from exc
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from exc
    except RecursionError:
        raise ImportFormatError(f"{path} nests too deeply to be a {FORMAT}") from None


def detect(path: str | Path, data: Any = None) -> str:
    """The format of ``path`` (its parsed JSON ``data`` when already read): a directory or a
    ``.md`` file is ``openclaw``; JSON is told by its shape.

    Raises:
        ImportFormatError: the shape matches none of ``FORMATS``, or more than one.
    """
    from bestie_tui.importers import chatgpt, mem0
    from bestie_tui.store.transfer import FORMAT

    path = Path(path)
    if path.is_dir() or path.suffix.lower() in (".md", ".markdown"):
        return "openclaw"
    data = _json(path) if data is None else data
    matches = [name for name, ok in (
        ("bestie", isinstance(data, dict) and data.get("format") == FORMAT),
        ("mem0", mem0.records(data) is not None),
        ("chatgpt", chatgpt.looks_like(data)),
    ) if ok]
    if len(matches) != 1:
        raise ImportFormatError(f"cannot tell which format {path} is in; pass --format {'|'.join(FORMATS)}")
    return matches[0]


def load(path: str | Path, format: str | None = None, user: str | None = None) -> dict[str, Any]:
    """``path`` read in ``format`` (detected when ``None``) as validated bestie export data; the
    memories of a foreign format are all ``pending``, bound to ``user`` unless the file names one.

    Raises:
        ImportFormatError: unreadable, an unknown format, or not in the format named.
    """
    from bestie_tui.importers import chatgpt, mem0, openclaw
    from bestie_tui.store import transfer

    path = Path(path)
    if format is not None and format not in FORMATS:
        raise ImportFormatError(f"unknown import format {format!r}; use one of {', '.join(FORMATS)}")
    if not path.exists():
        raise ImportFormatError(f"{path} does not exist")
    if format == "openclaw" or (format is None and detect(path) == "openclaw"):
        data = openclaw.convert(path, user)
    else:
        raw = _json(path)
        format = format or detect(path, raw)
        if format == "bestie":
            data = raw
        elif format == "mem0":
            data = mem0.convert(raw, user, str(path))
        else:
            data = chatgpt.convert(raw, user, str(path))
    from bestie_tui.store.full_export import check_schema

    transfer.validate(data, str(path))  # its messages first: they name the field in plain words
    check_schema(data, str(path))
    return data
