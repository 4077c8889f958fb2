"""The package's public face: what a runtime imports from ``bestie_tui`` itself."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import bestie_tui


def test_import_is_light_and_names_load_on_first_use():
    code = (
        "import sys\n"
        "import bestie_tui\n"
        "before = sorted(m for m in ('textual', 'sklearn', 'peewee') if m in sys.modules)\n"
        "from bestie_tui import MemoryStore, build_context\n"
        "after = sorted(m for m in ('textual', 'sklearn', 'peewee') if m in sys.modules)\n"
        "print(','.join(before) + '|' + ','.join(after))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "|peewee"


def test_the_public_names_are_the_real_objects(tmp_path):
    from bestie_tui.conversation.proposals import propose_from_turn
    from bestie_tui.errors import NotFoundError
    from bestie_tui.store.memory_store import MemoryStore

    assert bestie_tui.MemoryStore is MemoryStore
    assert bestie_tui.propose_from_turn is propose_from_turn
    for name in bestie_tui.__all__:
        assert getattr(bestie_tui, name) is not None
    store = bestie_tui.MemoryStore(tmp_path / "m.db")
    with pytest.raises(bestie_tui.NotFoundError):
        store.get(1)
    assert issubclass(NotFoundError, bestie_tui.BestieError)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Memorystore'"):
        bestie_tui.Memorystore  # noqa: B018


def test_version_is_the_one_pyproject_declares():
    assert bestie_tui.__version__ == version("bestie-tui")
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    assert f'version = "{bestie_tui.__version__}"' in pyproject
    assert (Path(bestie_tui.__file__).parent / "py.typed").exists()
