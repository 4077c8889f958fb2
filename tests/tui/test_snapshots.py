"""SVG snapshots of every view on the demo database at 80×24 and 160×48: fixed size, frozen clock,
animations off, cursor blink off, workers awaited.

Regenerate after an intended UI change with ``pytest tests/tui/test_snapshots.py --snapshot-update``
and look at the report before committing.
"""

from __future__ import annotations

import pytest
from conftest import FROZEN_NOW, FrozenClock

from bestie_tui.cli.demo import populate
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.tui.app import BestieApp

SIZES = {"80x24": (80, 24), "160x48": (160, 48)}
VIEWS = ["tiers", "pending", "context", "doctor", "cleanup", "messages", "health"]


@pytest.fixture
def demo_app(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.setenv("HOME", str(tmp_path))  # the status line shows the path as ~/demo.db
    clock = FrozenClock(FROZEN_NOW)
    store = MemoryStore(tmp_path / "demo.db", clock=clock)
    populate(store, now=FROZEN_NOW)

    def make(mode: str) -> BestieApp:
        return BestieApp(store, poll_interval=0, start_mode=mode)

    yield make
    store.close()


async def settle(pilot) -> None:
    await pilot.pause(0.35)  # past the Context view's debounce
    await pilot.app.workers.wait_for_complete()
    for box in pilot.app.screen.query("Input"):
        box.cursor_blink = False
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("view", VIEWS)
def test_view_snapshot(snap_compare, demo_app, view, size):
    assert snap_compare(demo_app(view), terminal_size=SIZES[size], run_before=settle)
