"""SVG snapshots of the main views on the demo database: fixed size, frozen clock, workers awaited.

Regenerate after an intended UI change with ``pytest tests/tui/test_snapshots.py --snapshot-update``
and look at the report before committing.
"""

from __future__ import annotations

import pytest
from conftest import FROZEN_NOW, FrozenClock

from bestie_tui.cli.demo import populate
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.tui.app import BestieApp

SIZE = (120, 36)


@pytest.fixture
def demo_app(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    clock = FrozenClock(FROZEN_NOW)
    store = MemoryStore(tmp_path / "demo.db", clock=clock)
    populate(store, now=FROZEN_NOW)

    def make(mode: str) -> BestieApp:
        app = BestieApp(store, poll_interval=0, start_mode=mode)
        return app

    yield make
    store.close()


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_tiers_view_snapshot(snap_compare, demo_app):
    assert snap_compare(demo_app("tiers"), terminal_size=SIZE, press=["w", "j"], run_before=settle)


def test_pending_view_snapshot(snap_compare, demo_app):
    assert snap_compare(demo_app("pending"), terminal_size=SIZE, run_before=settle)
