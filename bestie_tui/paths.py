"""The one module that knows where files live (data dir, default and demo databases, backups).

Tests patch this seam (or set ``BESTIE_DB`` / ``BESTIE_DATA_DIR``) instead of touching the home directory.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "bestie"


def data_dir() -> Path:
    """Directory for bestie's data: ``$BESTIE_DATA_DIR`` or the platform's user data dir."""
    override = os.environ.get("BESTIE_DATA_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    """Directory for the console's own preferences (e.g. the theme): ``$BESTIE_CONFIG_DIR`` or the
    platform's user config dir (``~/.config/bestie`` on Linux)."""
    override = os.environ.get("BESTIE_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


#: What a PostgreSQL URL starts with (``--db``/``BESTIE_DB`` take one where they take a file).
DATABASE_URL_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(location: object) -> bool:
    """True when ``location`` is a PostgreSQL URL rather than a file path."""
    return isinstance(location, str) and location.startswith(DATABASE_URL_SCHEMES)


def default_db_path() -> Path | str:
    """Database used when neither ``--db`` nor ``BESTIE_DB`` is given: ``<data dir>/memory.db``.
    ``BESTIE_DB`` may name a file or a ``postgresql://`` URL (returned as the string it is)."""
    env = os.environ.get("BESTIE_DB")
    if env:
        return env if is_database_url(env) else Path(env).expanduser()
    return data_dir() / "memory.db"


def demo_db_path() -> Path:
    """The separate demo database that ``bestie tui --demo`` fills and opens."""
    return data_dir() / "demo.db"


def backup_dir(db_path: Path | str) -> Path:
    """Backups of a database go beside it, in ``<db dir>/backups``; those of a PostgreSQL database
    (a URL) in the data directory's ``backups``."""
    if is_database_url(db_path):
        return data_dir() / "backups"
    return Path(db_path).resolve().parent / "backups"


#: Modes of what bestie creates: only the owner can read a memory.
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def make_private_dirs(path: Path) -> None:
    """Create ``path`` and any missing parents with mode 0700 (whatever the umask); directories
    that exist already keep their mode. Raises ``OSError``."""
    path = Path(path)
    missing = []
    while not path.exists():
        missing.append(path)
        if path.parent == path:
            break
        path = path.parent
    for directory in reversed(missing):
        directory.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
        os.chmod(directory, PRIVATE_DIR_MODE)


def create_private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 (whatever the umask). Raises ``FileExistsError`` if it
    exists, ``OSError`` otherwise."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), PRIVATE_FILE_MODE)
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE) if hasattr(os, "fchmod") else None
    finally:
        os.close(fd)


def write_private_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` with mode 0600: into a temporary file beside it, renamed
    over ``path`` when complete, so a reader never sees half a file. Raises ``OSError``."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        partial.unlink(missing_ok=True)
        create_private_file(partial)
        with open(partial, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def styles_dir() -> Path:
    """The Textual CSS directory: inside the installed package (wheel) or the repo's top-level ``styles/``."""
    here = Path(__file__).resolve().parent
    packaged = here / "styles"
    if packaged.is_dir():
        return packaged
    return here.parent / "styles"
