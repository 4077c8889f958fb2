"""The doctor and the cleanup plan run in a second process (``hygiene.isolated``), as the console
runs them at scale: the same report and plan as in the calling process, the store's frozen clock
and user binding honoured there, nothing written, and a cancel that ends the work at once."""

from __future__ import annotations

import threading

import pytest

from bestie_tui.hygiene.isolated import AnalysisCancelled, analyse, cancel_running
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.store.models import Memory
from bestie_tui.text.words import normalize


def _twin(store, memory_id: int, text: str) -> None:
    """Give a stored memory the text of another (the write gate refuses a repeat on the way in;
    an import of old data or another tool can still leave one behind)."""
    Memory.update(text=text, norm=normalize(text)).where(Memory.id == memory_id).execute()


@pytest.fixture
def untidy(store, clock):
    store.add("preference", "The owner drinks green tea every morning.")
    _twin(store, store.add("note", "Placeholder one.").id, "the owner drinks green tea every morning")
    store.add("identity", "I am vegetarian.")
    store.add("identity", "I am not vegetarian.")
    store.add("note", "Dentist appointment on Friday.", ttl="1d")
    store.add("note", "Call the plumber about the kitchen sink.", user="binh")
    _twin(store, store.add("note", "Placeholder two.", user="binh").id, "call the plumber about the kitchen sink")
    clock.advance(2 * 86400)  # the dentist note has expired by the store's (frozen) clock
    return store


def _shown(report) -> dict:
    out = report.to_dict()
    out.pop("timings")
    return out


def test_second_process_gives_the_same_report_and_plan(untidy):
    here, here_plan = analyse(untidy, plan=True, isolate=False)
    there, there_plan = analyse(untidy, plan=True, isolate=True)
    assert _shown(there) == _shown(here)
    assert there.generated_at == untidy.clock()  # the child used the parent's frozen clock
    assert any(f.reason.startswith("expired") for f in there.stale)
    assert there.counts()["duplicate_groups"] == 2 and there.counts()["contradictions"] == 1
    assert [(op.key, op.selected) for op in there_plan.operations] == [(op.key, op.selected) for op in here_plan.operations]


def test_second_process_builds_the_plan_from_a_given_report(untidy):
    report, _ = analyse(untidy, isolate=False)
    same, plan = analyse(untidy, plan=True, report=report, isolate=True)
    assert _shown(same) == _shown(report)
    assert {op.action for op in plan.operations} >= {"merge", "expire"}


def test_second_process_keeps_the_user_binding(untidy, db_path, clock):
    bound = MemoryStore(db_path, clock=clock, user="binh")
    try:
        report, _ = analyse(bound, isolate=True)
    finally:
        bound.close()
    assert report.total == 2
    assert [m.text for g in report.duplicates for m in g.members] == [
        "Call the plumber about the kitchen sink.", "call the plumber about the kitchen sink"]


def test_analysis_writes_nothing(untidy):
    before = [(m.id, m.text, m.status, m.layer, m.superseded_by) for m in Memory.select().order_by(Memory.id)]
    analyse(untidy, plan=True, isolate=True)
    after = [(m.id, m.text, m.status, m.layer, m.superseded_by) for m in Memory.select().order_by(Memory.id)]
    assert after == before


def test_cancel_ends_a_running_analysis(untidy):
    """Quitting the console ends the second process instead of waiting for its answer."""
    outcome: dict = {}
    started = threading.Event()

    def progress(stage: str, fraction: float) -> None:
        started.set()

    def work() -> None:
        try:
            outcome["report"] = analyse(untidy, isolate=True, progress=progress)
        except AnalysisCancelled as exc:
            outcome["cancelled"] = str(exc)

    thread = threading.Thread(target=work)
    thread.start()
    assert started.wait(60)
    cancel_running()
    thread.join(60)
    assert not thread.is_alive()
    # a child that answered before the cancel reached it is fine too: either way nothing waits
    assert "cancelled" in outcome or "report" in outcome
    assert cancel_running() == 0  # no second process left behind
