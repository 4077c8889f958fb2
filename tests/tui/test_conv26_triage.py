"""Real input: LoCoMo conv-26 imported, then triaged in the console by keys alone."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from bestie_tui.transfer.exchange import import_data
from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.pending_screen import PendingScreen
from tests.conftest import shared_data

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "locomo.py"
SUFFIX = " (said in their first chat)"


def load_locomo_module():
    spec = importlib.util.spec_from_file_location("locomo_benchmark", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.slow
async def test_conv26_triage_by_keys_is_recorded_and_undoable(store):
    data = load_locomo_module().convert_file(shared_data("locomo_dev.json"), "conv-26")
    result = import_data(store, data)
    total = len(data["memories"])
    assert result.memories_added == total > 6
    queue = store.pending_ids()
    before = {i: store.get(i) for i in queue[:6]}
    originals = {i: record.text for i, record in before.items()}
    decided_at = {}

    app = BestieApp(store, poll_interval=0, start_mode="pending")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PendingScreen)
        # approve 3, reject 2 (both reject keys), one minute apart so each event has its own time
        for key, memory_id in zip(["a", "a", "a", "r", "x"], queue[:5]):
            assert screen.current_id == memory_id
            store.clock.advance(60)
            decided_at[memory_id] = store.clock()
            await pilot.press(key)
            await settle(pilot)
        # edit-then-approve the sixth: append to the text in the editor, save with ctrl+s
        assert screen.current_id == queue[5]
        store.clock.advance(60)
        decided_at[queue[5]] = store.clock()
        await pilot.press("e", *SUFFIX, "ctrl+s")
        await settle(pilot)
        assert str(screen.query_one("#pending-progress").render()).startswith(f"reviewed 6 / {total}")

        statuses = [store.get(i).status for i in queue[:7]]
        assert statuses == ["approved"] * 3 + ["rejected"] * 2 + ["approved", "pending"]
        edited = store.get(queue[5])
        assert edited.text == originals[queue[5]] + SUFFIX
        # still bound to its speaker and session after the edit
        assert (edited.user, edited.session) == (before[queue[5]].user, before[queue[5]].session)
        assert edited.user in {"Caroline", "Melanie"}
        expected_actions = ["approve"] * 3 + ["reject"] * 2 + ["edit+approve"]
        for memory_id, action in zip(queue[:6], expected_actions):
            event = store.history(memory_id)[0]
            assert (event.action, event.actor, event.at) == (action, "owner", decided_at[memory_id])
            assert event.before["status"] == "pending"
        assert store.history(queue[5])[0].after["text"] == edited.text

        # undo the last decision by key: the proposal is pending again, with its original text, and current
        await pilot.press("u")
        await settle(pilot)
        back = store.get(queue[5])
        assert (back.status, back.text) == ("pending", originals[queue[5]])
        assert screen.current_id == queue[5]
        assert originals[queue[5]] in str(screen.query_one("#proposal-text").render())
        assert str(screen.query_one("#pending-progress").render()).startswith(f"reviewed 5 / {total}")
    assert [store.get(i).status for i in queue[:5]] == ["approved"] * 3 + ["rejected"] * 2
    assert store.count(status="pending") == total - 5
