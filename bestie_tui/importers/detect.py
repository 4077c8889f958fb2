"""Which format a file is in, and reading it into the bestie export shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bestie_tui.errors import ImportFormatError

#: The formats ``bestie memory import --format`` takes.
FORMATS = ("bestie", "mem0", "openclaw", "chatgpt")


def _json(path: Path) -> Any:
    """The file's JSON, within the import limits (``transfer.read_json_file``)."""
    from bestie_tui.transfer.exchange import read_json_file

    return read_json_file(path, "an import file")


def detect(path: str | Path, data: Any = None) -> str:
    """The format of ``path`` (its parsed JSON ``data`` when already read): a directory or a
    ``.md`` file is ``openclaw``; JSON is told by its shape.

    Raises:
        ImportFormatError: the shape matches none of ``FORMATS``, or more than one.
    """
    from bestie_tui.importers import chatgpt, mem0
    from bestie_tui.transfer.exchange import FORMAT

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
    from bestie_tui.transfer import exchange as transfer

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
        else:
            convert = mem0.convert if format == "mem0" else chatgpt.convert
            try:
                data = convert(raw, user, str(path))
            except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as exc:
                # A field of an unexpected shape deep in a foreign file ("create_time": "soon",
                # "message": "hi"): one line naming the file and the format, nothing imported.
                if isinstance(exc, ImportFormatError):
                    raise
                raise ImportFormatError(f"{path} is not a well-formed {format} export: a field has the wrong "
                                        f"type or value ({type(exc).__name__}); nothing was imported") from None
    from bestie_tui.transfer.full_export import check_schema

    transfer.validate(data, str(path))  # its messages first: they name the field in plain words
    check_schema(data, str(path), records=False)
    return data
