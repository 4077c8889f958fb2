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


def default_db_path() -> Path:
    """Database used when neither ``--db`` nor ``BESTIE_DB`` is given: ``<data dir>/memory.db``."""
    env = os.environ.get("BESTIE_DB")
    if env:
        return Path(env).expanduser()
    return data_dir() / "memory.db"


def demo_db_path() -> Path:
    """The separate demo database that ``bestie tui --demo`` fills and opens."""
    return data_dir() / "demo.db"


def backup_dir(db_path: Path) -> Path:
    """Backups of a database go beside it, in ``<db dir>/backups``."""
    return Path(db_path).resolve().parent / "backups"


def styles_dir() -> Path:
    """The Textual CSS directory: inside the installed package (wheel) or the repo's top-level ``styles/``."""
    here = Path(__file__).resolve().parent
    packaged = here / "styles"
    if packaged.is_dir():
        return packaged
    return here.parent / "styles"
