"""The prompt on corrections and contradictions: a corrected or superseded record never enters a
pack, and two records that contradict each other never go in one side silently."""

from __future__ import annotations

from bestie_tui.retrieval.assembly import build_context
from bestie_tui.retrieval.conflicts import CONFLICT_MARK


def test_friday_deploys_both_sides_go_in_with_a_marker(store, clock):
    yes = store.add("project_context", "Production deployment is allowed.", user="an")
    clock.advance(86400)
    no = store.add("project_context", "Production deployment is not allowed.", user="an")
    pack = build_context(store, "are friday deploys allowed", "an", record_access=False)
    ids = [i.record.id for i in pack.working]
    assert ids == [yes.id, no.id]  # the older first, the newer right after it, marked
    assert pack.working[1].line.endswith(CONFLICT_MARK)
    assert CONFLICT_MARK in pack.render()


def test_with_room_for_one_the_newer_goes_in_and_the_older_is_listed(store, clock):
    yes = store.add("project_context", "Production deployment is allowed on every weekday.", user="an")
    clock.advance(86400)
    no = store.add("project_context", "Production deployment is not allowed on any weekday.", user="an")
    pack = build_context(store, "is production deployment allowed", "an", token_budget=52, record_access=False)
    assert [i.record.id for i in pack.items] == [no.id]
    assert any(x.id == yes.id and x.detail == f"contradicted by #{no.id}" for x in pack.left_out)


def test_a_corrected_record_never_enters_and_its_correction_takes_its_place(store, clock):
    hanoi = store.add("identity", "User lives in Hanoi.", user="an")
    clock.advance(86400)
    moved = store.add("identity", "I moved from Hanoi to Da Nang last month.", user="an")
    pack = build_context(store, "where do I live", "an", record_access=False)
    assert [i.record.id for i in pack.items] == [moved.id]
    assert any(x.id == hanoi.id and x.detail == f"corrected by #{moved.id}" for x in pack.left_out)
    assert "Hanoi" not in pack.render().replace("from Hanoi", "")


def test_a_superseded_record_never_enters(store, clock):
    old = store.add("identity", "User lives in Hanoi.", user="an")
    clock.advance(86400)
    new = store.add("identity", "User lives in Da Nang.", user="an")
    store.supersede(old.id, new.id)
    pack = build_context(store, "where does the user live", "an", record_access=False)
    assert [i.record.id for i in pack.items] == [new.id]
