"""Where bestie's cron line lives: the user's crontab (through the ``crontab`` program) or a tab file,
read and written safely — regular files only, size-capped, symlinks followed, other lines kept byte
for byte. Split from ``maintenance`` (which decides what the line says); re-exported there.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from bestie_tui.errors import BestieError


class CrontabError(BestieError):
    """The crontab could not be read or written (no ``crontab`` program, permission, I/O)."""


class NoCrontabProgram(CrontabError):
    """The user's crontab was asked for but this machine has no ``crontab`` program: then there is no
    user crontab either, so nothing of ours can be installed there (``status``/``remove`` say so
    instead of failing)."""




#: A tab file larger than this (bytes) is refused, not read: a real crontab is a few kilobytes, and a
#: mistaken path (a log, a disk image) must not fill memory.
MAX_CRONTAB_BYTES = 1_000_000


class CrontabTarget:
    """Where our line lives: a tab file, or the user's crontab through the ``crontab`` program."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path).expanduser().absolute() if path else None

    @classmethod
    def resolve(cls, crontab_file: str | Path | None = None, env: Mapping[str, str] | None = None) -> CrontabTarget:
        """``crontab_file``, else ``BESTIE_CRONTAB``, else the user's crontab."""
        env = os.environ if env is None else env
        return cls(crontab_file or env.get("BESTIE_CRONTAB") or None)

    def __str__(self) -> str:
        return str(self.path) if self.path else "the user's crontab"

    def _file(self, writing: bool = False) -> Path:
        """The file to read and write: the final target of a symlink (so a linked tab is updated in
        place and the link kept), which must be a regular file or a missing file (in an existing
        directory when ``writing``; reading a tab that is not there gives ''). Devices, FIFOs and
        directories are refused: an atomic rename would replace a device node with a regular file,
        and reading a FIFO blocks. Raises CrontabError."""
        assert self.path is not None
        real = Path(os.path.realpath(self.path))
        via = f" (it links to {real})" if real != self.path else ""
        try:
            info = os.stat(real)
        except FileNotFoundError:
            if writing and not real.parent.is_dir():  # parents are never created: a typo must not grow a tree
                raise CrontabError(f"cannot use {self.path}: the directory {real.parent} "
                                   f"does not exist{via}") from None
            return real
        except OSError as exc:
            raise CrontabError(f"cannot read {self.path}: {exc.strerror}{via}") from None
        if not stat.S_ISREG(info.st_mode):
            raise CrontabError(f"cannot read {self.path}: not a regular file{via}")
        return real

    def read(self) -> str:
        """The whole crontab text ('' when there is none yet). A tab file is read only if it is a
        regular file (see ``_file``) of at most ``MAX_CRONTAB_BYTES``. Bytes that are not UTF-8 are
        carried as surrogates (``surrogateescape``) and written back as the same bytes, so the
        owner's lines stay byte for byte. Raises CrontabError."""
        if self.path is not None:
            real = self._file()
            try:  # O_NONBLOCK: should a FIFO be swapped in after the check, opening it must not block
                fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
            except FileNotFoundError:
                return ""
            except OSError as exc:
                raise CrontabError(f"cannot read {self.path}: {exc.strerror}") from None
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    raise CrontabError(f"cannot read {self.path}: not a regular file")
                try:
                    data = fh.read(MAX_CRONTAB_BYTES + 1)
                except OSError as exc:
                    raise CrontabError(f"cannot read {self.path}: {exc.strerror}") from None
            if len(data) > MAX_CRONTAB_BYTES:
                raise CrontabError(f"cannot read {self.path}: larger than {MAX_CRONTAB_BYTES} bytes, "
                                   "not a crontab")
            return data.decode("utf-8", "surrogateescape")
        proc = self._run(["-l"])
        if proc.returncode != 0:
            if "no crontab for" in proc.stderr:
                return ""
            raise CrontabError(f"`crontab -l` failed: {proc.stderr.strip()}")
        return proc.stdout

    def write(self, text: str) -> None:
        """Replace the crontab with ``text``. A tab file is replaced atomically (a temporary file in
        the same directory, renamed over it), keeping its mode and, when allowed, its owner; a
        symlink's target is written, the link kept; parent directories are never created. A tab
        file is written exactly as given; the ``crontab`` program refuses input without a final
        newline, so one is added there (its own ``crontab -l`` output always has one).
        Raises CrontabError."""
        if self.path is None:
            if text and not text.endswith("\n"):
                text += "\n"
            proc = self._run(["-"], stdin=text)
            if proc.returncode != 0:
                raise CrontabError(f"`crontab -` failed: {proc.stderr.strip()}")
            return
        real = self._file(writing=True)
        tmp = None
        try:
            info = real.stat() if real.exists() else None
            fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.")
            with os.fdopen(fd, "wb") as fh:
                fh.write(text.encode("utf-8", "surrogateescape"))
            os.chmod(tmp, info.st_mode & 0o7777 if info else 0o644)
            if info is not None and (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
                try:  # root editing another user's tab file: it stays theirs
                    os.chown(tmp, info.st_uid, info.st_gid)
                except PermissionError:
                    pass
            os.replace(tmp, real)
            tmp = None
        except OSError as exc:
            raise CrontabError(f"cannot write {self.path}: {exc.strerror}") from None
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass

    @staticmethod
    def _run(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess:
        program = shutil.which("crontab")
        if program is None:
            raise NoCrontabProgram("no `crontab` program on this machine; use --crontab-file FILE "
                               "(or BESTIE_CRONTAB) to manage a tab file instead")
        data = None if stdin is None else stdin.encode("utf-8", "surrogateescape")
        proc = subprocess.run([program, *args], input=data, capture_output=True, check=False)
        # The crontab's bytes are carried as they are (see read); crontab's own messages are text.
        return subprocess.CompletedProcess(proc.args, proc.returncode,
                                           proc.stdout.decode("utf-8", "surrogateescape"),
                                           proc.stderr.decode("utf-8", "replace"))
