"""The owner's calendar reaches the prompt (issue 30, item 9; mem0 #4402, openclaw #67568): with
``owner.timezone`` Asia/Shanghai (UTC+8), a note made at 00:30 local on 16 April — 16:30 UTC on the
15th in the database — is quoted as ``[2026-04-16]`` by recall's excerpts, and the ``when`` part of
its score counts it as of 16 April, not 15 April."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from bestie_tui.store.memory_store import MemoryStore
from tests.conftest import FrozenClock

SHANGHAI = "Asia/Shanghai"
#: 00:30 on Thursday 16 April 2026 in Shanghai.
LOCAL_0030 = datetime(2026, 4, 15, 16, 30)


@pytest.fixture
def noted(db_path):
    clock = FrozenClock(LOCAL_0030)
    store = MemoryStore(db_path, clock=clock)
    store.set_setting("owner.timezone", SHANGHAI)
    store.log_message("user", "The plumber fixed the kitchen sink valve tonight.", user="ana", session="s1")
    store.add("fact", "Plumber replaced the kitchen sink valve", user="ana")
    clock.advance(3 * 86400)
    store.log_message("user", "Booked a table for Friday.", user="ana", session="s2")
    store.close()
    return db_path


def test_recall_quotes_the_excerpt_on_the_owners_day(noted, run):
    block = run("memory", "recall", "kitchen sink valve plumber", "--user", "ana").stdout
    assert "- [2026-04-16] The plumber fixed the kitchen sink valve tonight." in block.splitlines()
    history = json.loads(run("memory", "recall", "kitchen sink valve plumber", "--user", "ana", "--json").stdout)
    assert [h["line"] for h in history["history"]] == ["- [2026-04-16] The plumber fixed the kitchen sink valve tonight."]


def test_recall_quotes_the_utc_day_when_the_owner_lives_in_utc(noted, run):
    assert run("memory", "config", "owner.timezone", "UTC").exit_code == 0
    block = run("memory", "recall", "kitchen sink valve plumber", "--user", "ana").stdout
    assert "- [2026-04-15] The plumber fixed the kitchen sink valve tonight." in block.splitlines()


def _when(run, query: str) -> float:
    result = run("memory", "context", query, "--user", "ana", "--json")
    assert result.exit_code == 0, result.output
    [item] = [w for w in json.loads(result.stdout)["working"] if "valve" in w["text"]]
    return item["score"]["when"]


def test_the_when_part_reads_a_named_day_on_the_owners_calendar(noted, run):
    on_the_16th = _when(run, "what did the plumber do to the kitchen sink valve on 16 April 2026")
    on_the_15th = _when(run, "what did the plumber do to the kitchen sink valve on 15 April 2026")
    assert on_the_16th == 1.0 and on_the_15th < on_the_16th
    assert _when(run, "kitchen sink valve plumber 2026-04-17") < on_the_16th
