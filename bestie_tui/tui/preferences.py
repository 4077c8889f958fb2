"""The console's own preferences (not the memory database's settings): ``console.json`` in the
platform's config dir (``paths.config_dir``). Today it keeps the theme picked in the palette."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..paths import config_dir


def preferences_path() -> Path:
    return config_dir() / "console.json"


def load() -> dict[str, Any]:
    """The saved preferences, or ``{}`` when there are none or the file cannot be read (never fatal)."""
    try:
        data = json.loads(preferences_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save(**values: Any) -> None:
    """Merge ``values`` into the file; a read-only config dir is ignored (the console keeps working)."""
    data = load() | values
    try:
        path = preferences_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    except OSError:
        pass
