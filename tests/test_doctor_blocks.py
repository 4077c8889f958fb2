"""The doctor at scale (issue 31): its pair scan works through the users in blocks and forgets each
block's readings, and the second process hands back a trimmed missing-metadata list. Neither may
change what the owner is told."""

from __future__ import annotations

import pytest

from bestie_tui.hygiene import pairs
from bestie_tui.hygiene.doctor import run_doctor
from bestie_tui.hygiene.health import hygiene_status
from bestie_tui.hygiene.isolated import FINDINGS_BACK, analyse
from bestie_tui.store.models import Memory
from bestie_tui.text.words import normalize


def _shown(report) -> dict:
    out = report.to_dict()
    out.pop("timings")
    return out


@pytest.fixture
def several_users(store):
    for user in ("an", "binh", "chau", "dung"):
        store.add("identity", "I am vegetarian.", user=user)
        store.add("identity", "I am not vegetarian.", user=user)
        store.add("fact", f"{user.title()} lives in Hanoi.", user=user)
        store.add("fact", f"{user.title()} moved to Da Nang last spring.", user=user)
        store.add("preference", "Likes strong black coffee with no sugar.", user=user)
        twin = store.add("note", f"Placeholder for {user}.", user=user)
        text = "likes strong black coffee with no sugar"
        Memory.update(text=text, norm=normalize(text)).where(Memory.id == twin.id).execute()
    return store


def test_blocks_of_a_few_units_give_the_report_of_one_block(several_users, monkeypatch):
    whole = _shown(run_doctor(several_users))
    monkeypatch.setattr(pairs, "BLOCK_UNITS", 2)  # every user a block of its own
    assert _shown(run_doctor(several_users)) == whole
    assert whole["counts"]["duplicate_groups"] == 4 and whole["counts"]["contradictions"] >= 4


def test_second_process_hands_back_the_first_findings_and_their_count(store):
    for i in range(FINDINGS_BACK + 30):
        store.add("note", f"Locker {i} opens with code {1000 + 37 * i}.")
    here, _ = analyse(store, isolate=False)
    there, _ = analyse(store, isolate=True)
    assert len(here.missing_metadata) == FINDINGS_BACK + 30
    assert len(there.missing_metadata) == FINDINGS_BACK
    assert there.counts() == here.counts()
    assert [f.memory.id for f in there.missing_metadata] == [f.memory.id for f in here.missing_metadata][:FINDINGS_BACK]
    assert hygiene_status(store, report=there).health.score == hygiene_status(store, report=here).health.score
