"""Artifact excerpts for the prompt pack: on-disk plan and state files, each under its own cap.

The cap counts characters of the file's own text that are shown. When a file is longer, the excerpt
is that many characters followed, on its own line, by the complete marker
``[… cut: first N of M characters of PATH …]`` (the marker is added beside the cap, never counted in
it, so it is never broken). A missing, unreadable or binary file (NUL bytes, or bytes that are not
UTF-8) is not read into the prompt: the ``Excerpt`` carries the reason in ``error``. Only regular
files (or symlinks to them) are opened: a FIFO would block the reader until some writer appears, a
device such as ``/dev/zero`` never ends, so a directory, FIFO, socket or device is skipped with
``not a regular file (…)``. A UTF-8 byte order mark is dropped.
"""

from __future__ import annotations

import io
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from bestie_tui.conversation.pins import ARTIFACT, MEMORY_BLOCK, PIN_PREFIXES
from bestie_tui.errors import InvalidValueError

DEFAULT_ARTIFACT_CHARS = 4000
#: Largest cap, and the most characters read from a file (to count its length for the manifest).
MAX_ARTIFACT_CHARS = READ_LIMIT_CHARS = 1_000_000


@dataclass(frozen=True)
class ArtifactSpec:
    """An artifact file to excerpt: ``path`` and its cap in characters of content shown
    (1 … ``MAX_ARTIFACT_CHARS``; the cut marker is extra). ``prefix`` is the pin its excerpt goes in
    (``[ARTIFACT]``, or a segment of the Engineer pack such as ``[BUILD_STATE]``); an ``optional`` file
    that is not there is noted, not reported missing.

    Raises:
        InvalidValueError: an empty path, a cap out of range or a prefix that is no pin prefix.
    """

    path: str
    max_chars: int = DEFAULT_ARTIFACT_CHARS
    prefix: str = ARTIFACT
    optional: bool = False

    def __post_init__(self) -> None:
        if not str(self.path).strip():
            raise InvalidValueError("artifact path is empty: use --artifact PATH[:MAXCHARS]")
        if not 1 <= self.max_chars <= MAX_ARTIFACT_CHARS:
            raise InvalidValueError(f"artifact cap for {self.path} must be between 1 and "
                                    f"{MAX_ARTIFACT_CHARS:,} characters, not {self.max_chars}")
        if self.prefix not in PIN_PREFIXES or self.prefix == MEMORY_BLOCK:
            raise InvalidValueError(f"artifact prefix {self.prefix!r} is not a pin prefix for files")

    @classmethod
    def parse(cls, value: str) -> ArtifactSpec:
        """``PATH`` or ``PATH:MAXCHARS`` (the CLI's ``--artifact``). Raises InvalidValueError."""
        path, sep, cap = value.rpartition(":")
        if sep and cap.isdigit():
            return cls(path, int(cap))
        if sep and path and not cap.isdigit() and len(path) > 1:
            raise InvalidValueError(f"--artifact {value!r}: the character cap after ':' must be a whole number")
        return cls(value)


@dataclass
class Excerpt:
    """An artifact as read: ``text`` (the first ``shown`` characters, plus the cut marker when
    ``cut``), ``total_chars`` of the file (``None`` when over ``READ_LIMIT_CHARS``) and ``error``
    (``missing``, ``not a regular file (…)``, ``unreadable: …``, ``binary file (…)``) or ``None``."""

    path: str
    max_chars: int
    text: str = ""
    cut: bool = False
    shown: int = 0
    total_chars: int | None = None
    error: str | None = None
    prefix: str = ARTIFACT
    data: str = field(default="", repr=False)  # what was read, to cut again under a smaller cap
    mtime: float | None = None  # last modification (seconds since the epoch): the budget cuts older files first


_KINDS = ((stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"),
          (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"))


def file_kind(mode: int) -> str:
    """What an ``st_mode`` that is not a regular file is, in words (``FIFO``, ``socket``, …)."""
    return next((name for test, name in _KINDS if test(mode)), "special file")


def not_regular(st: os.stat_result) -> str | None:
    """``not a regular file (KIND)`` for anything but a regular file, else ``None``."""
    return None if stat.S_ISREG(st.st_mode) else f"not a regular file ({file_kind(st.st_mode)})"


class NotRegularFileError(OSError):
    """``open_regular`` refused a path that is not a regular file; ``str()`` says what it is."""

    def __str__(self) -> str:
        return str(self.args[0])


def open_regular(path: str | Path) -> io.BufferedReader:
    """Open ``path`` for reading bytes only if it is a regular file (symlinks followed).

    ``os.stat`` is checked before opening, so a FIFO or device is never opened; the file is then
    opened non-blocking and checked again with ``fstat`` (the path may have been swapped in between),
    after which blocking mode is restored for the read.

    Raises:
        FileNotFoundError: missing, or a dangling symlink.
        NotRegularFileError: a directory, FIFO, socket or device (the message says which).
        OSError: anything else (permission, a symlink loop…).
    """
    problem = not_regular(os.stat(path))
    if problem:
        raise NotRegularFileError(problem)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        problem = not_regular(os.fstat(fd))
        if problem:
            raise NotRegularFileError(problem)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


#: What marks a project's top directory, the default artifact root.
PROJECT_MARKERS = (".git", ".hg", "pyproject.toml", "package.json")


def project_root(start: str | Path | None = None) -> Path:
    """The default artifact root: the nearest directory at or above ``start`` (default: the working
    directory) holding one of ``PROJECT_MARKERS``, else ``start`` itself. Symlinks resolved."""
    here = Path(os.path.realpath(start or os.getcwd()))
    for directory in (here, *here.parents):
        if any((directory / marker).exists() for marker in PROJECT_MARKERS):
            return directory
    return here


def check_confined(path: str | Path, root: str | Path) -> None:
    """Refuse an artifact outside ``root``. Both are resolved first (``~``, ``..`` and every symlink),
    so neither ``../../etc/shadow`` nor a link inside the project that points out of it gets in.

    Raises:
        InvalidValueError: ``path`` resolves outside ``root`` (the message says how to widen it).
    """
    real = Path(os.path.realpath(Path(path).expanduser()))
    base = Path(os.path.realpath(Path(root).expanduser()))
    if not real.is_relative_to(base):
        from bestie_tui.text.words import printable

        raise InvalidValueError(f"artifact {printable(str(path))!r} is outside the artifact root {printable(str(base))} "
                                "(pass --artifact-root DIR to allow another directory)")


def segment_name(spec: ArtifactSpec) -> str:
    """The manifest name of an artifact: ``artifact:PATH``, or ``BUILD_STATE:PATH`` for a named segment."""
    return ("artifact:" if spec.prefix == ARTIFACT else spec.prefix.strip("[]") + ":") + spec.path


def read_artifact(path: str | Path, max_chars: int, prefix: str = ARTIFACT) -> Excerpt:
    """Read a UTF-8 file and excerpt it under ``max_chars`` characters of content (see the module
    docstring). Never raises for the file itself: problems go to ``Excerpt.error``.

    Raises:
        InvalidValueError: ``max_chars`` out of 1 … ``MAX_ARTIFACT_CHARS``.
    """
    spec = ArtifactSpec(str(path), max_chars, prefix)  # validates the cap and the prefix
    ex = Excerpt(spec.path, max_chars, prefix=prefix)
    try:
        raw = open_regular(Path(path).expanduser())
        ex.mtime = os.fstat(raw.fileno()).st_mtime
        with io.TextIOWrapper(raw, encoding="utf-8-sig", errors="strict") as fh:
            data = fh.read(READ_LIMIT_CHARS)  # a huge file is never loaded whole
            more = fh.read(1) != ""
    except FileNotFoundError:
        ex.error = "missing"
        return ex
    except NotRegularFileError as exc:
        ex.error = str(exc)
        return ex
    except UnicodeDecodeError:
        ex.error = "binary file (not UTF-8 text)"
        return ex
    except OSError as exc:
        ex.error = f"unreadable: {exc.strerror or exc}"
        return ex
    if "\x00" in data:
        ex.error = "binary file (NUL bytes)"
        return ex
    ex.data = data
    ex.total_chars = None if more else len(data)
    return recut(ex, max_chars)


def recut(ex: Excerpt, shown: int) -> Excerpt:
    """``ex`` with at most ``shown`` characters of its content (0 leaves the marker alone): a new
    ``Excerpt``; the whole file when it fits."""
    out = Excerpt(ex.path, ex.max_chars, total_chars=ex.total_chars, prefix=ex.prefix, data=ex.data, mtime=ex.mtime)
    if ex.total_chars is not None and ex.total_chars <= shown:
        out.text, out.shown = ex.data, ex.total_chars
        return out
    out.shown, out.cut = shown, True
    marker = cut_marker(shown, ex)
    out.text = ex.data[:shown] + "\n" + marker if shown else marker
    return out


def total_text(ex: Excerpt) -> str:
    """The file's length as the manifest and the marker print it."""
    return f"{ex.total_chars:,}" if ex.total_chars is not None else f"more than {READ_LIMIT_CHARS:,}"


def cut_marker(shown: int, ex: Excerpt) -> str:
    """``[… cut: first N of M characters of PATH …]``."""
    return f"[… cut: first {shown:,} of {total_text(ex)} characters of {ex.path} …]"
