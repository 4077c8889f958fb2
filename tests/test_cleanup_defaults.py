"""Cleanup and rebalance never surprise: after a fresh import of old, never-used memories nothing is
archived by default; protected kinds are never pre-selected; a large plan asks a second time."""

from __future__ import annotations

import json
from datetime import timedelta

from cleanup_import import old_import
from conftest import FROZEN_NOW

from bestie_tui.hygiene.plan_apply import apply_plan
from bestie_tui.hygiene.plan_build import build_cleanup_plan, build_rebalance_plan
from bestie_tui.store.models import Memory
from bestie_tui.transfer.exchange import import_data


def archived(store) -> int:
    return Memory.select().where(Memory.layer == "archive").count()


def test_a_fresh_import_of_old_records_is_not_unused(store):
    import_data(store, old_import(FROZEN_NOW, n=300))
    for build in (build_cleanup_plan, build_rebalance_plan):
        plan = build(store)
        assert [o for o in plan.operations if o.action == "archive"] == []
        apply_plan(store, plan, yes=True)
    assert archived(store) == 0


def test_unused_records_are_shown_but_not_selected_and_protected_kinds_never(store, clock):
    import_data(store, old_import(FROZEN_NOW, n=60))
    clock.advance(timedelta(days=120).total_seconds())  # now really unused since the import
    low = store.add("note", "Zq.", confidence=0.2)  # low-value: never used, low confidence
    low_id = low.id
    Memory.update(created_at=FROZEN_NOW - timedelta(days=300)).where(Memory.id == low_id).execute()
    decision = Memory.get(Memory.kind == "decision")
    Memory.update(stale=True).where(Memory.id == decision.id).execute()
    plan = build_cleanup_plan(store)
    archives = {o.records[0].id: o for o in plan.operations if o.action == "archive"}
    assert len(archives) == 61
    selected = {i for i, o in archives.items() if o.selected}
    assert selected == {low_id}
    assert "not selected: a decision" in archives[decision.id].reason
    plan = build_rebalance_plan(store)
    assert {o.records[0].id for o in plan.selected_operations() if o.action == "archive"} == {low_id}
    assert len([o for o in plan.operations if o.action == "archive"]) == 61


def test_the_demo_decision_on_deploy_days_is_not_preselected(tmp_path, clock):
    from bestie_tui.cli.demo import populate
    from bestie_tui.store.memory_store import MemoryStore

    demo = MemoryStore(tmp_path / "demo.db", clock=clock)
    with demo.bound():
        populate(demo, now=FROZEN_NOW)
        clock.advance(timedelta(days=400).total_seconds())
        plan = build_rebalance_plan(demo)
        chosen = [o.records[0].text for o in plan.selected_operations()]
        assert not any("Deploys go out on Tuesdays" in t for t in chosen)
        assert any("Deploys go out on Tuesdays" in o.records[0].text for o in plan.operations)
    demo.close()


def test_a_plan_changing_over_a_fifth_asks_again_with_the_count(store, run, tmp_path):
    doc = old_import(FROZEN_NOW, n=50)
    for m in doc["memories"][:20]:
        m["stale"], m["kind"] = True, "preference"  # marked stale: selected for archive
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    assert run("memory", "import", str(path)).exit_code == 0
    dry = run("memory", "cleanup", "--dry-run")
    assert "This plan changes 20 of 50 active memories (40 %)." in dry.output
    refused = run("memory", "cleanup", "--apply", "--yes")
    assert refused.exit_code == 2
    assert "--confirm-count 20" in refused.output
    assert archived(store) == 0
    ok = run("memory", "cleanup", "--apply", "--yes", "--confirm-count", "20")
    assert ok.exit_code == 0, ok.output
    assert archived(store) == 20


def test_a_merge_of_texts_that_differ_is_shown_but_not_selected(store):
    """The reader may read one fact in two texts that say different things ("the spare kettle key" /
    "the spare fan key"): the merge is offered, unselected, naming the words that differ; a bare
    apply changes nothing. Texts that differ only in framing words stay selected."""
    kettle = store.add("note", "The spare kettle key lives in the blue drawer.")
    fan = store.add("note", "The spare fan key lives in the blue drawer.")
    a = store.add("preference", "User prefers Vietnamese.")
    b = store.add("preference", "Always answer in Vietnamese")
    plan = build_cleanup_plan(store)
    merges = {tuple(o.ids): o for o in plan.operations if o.action == "merge"}
    keys = merges[(kettle.id, fan.id)]
    assert not keys.selected and "off until you choose it" in keys.reason
    assert "'kettle'" in keys.reason and "'fan'" in keys.reason
    assert merges[(a.id, b.id)].selected
    apply_plan(store, plan, yes=True, selected=[merges[(a.id, b.id)].key])
    plan = build_cleanup_plan(store)
    apply_plan(store, plan, yes=True)
    assert store.get(kettle.id).superseded_by is None and store.get(fan.id).superseded_by is None


def test_a_merge_of_texts_with_other_times_or_months_is_not_selected_but_one_date_two_ways_is(store):
    """Numbers and dates count as the same value only where the texts' quantities agree: "8/7" and
    "the 8th of July"; not 2am and 4am, nor May and June. A word that is also a day's short name
    ("sun") is a word."""
    pairs = [("The router restarts every night at 2am and the backup runs after it.",
              "The router restarts every night at 4am and the backup runs after it.", False),
             ("The yearly backup of the photo archive runs in May.",
              "The yearly backup of the photo archive runs in June.", False),
             ("In summer the old cat sleeps in the sun on the balcony.",
              "In summer the old cat sleeps in the shade on the balcony.", False),
             ("My birthday is 8/7.", "My birthday is on the 8th of July.", True)]
    made = [(store.add("note", a, user=f"u{n}").id, store.add("note", b, user=f"u{n}").id, want)
            for n, (a, b, want) in enumerate(pairs)]
    merges = {tuple(o.ids): o for o in build_cleanup_plan(store).operations if o.action == "merge"}
    for a, b, want in made:
        if (a, b) in merges:  # the doctor may not group them at all, which is as safe
            assert merges[(a, b)].selected is want, merges[(a, b)].reason
        else:
            assert not want, "the birthday written two ways is one memory"


def test_texts_one_accent_apart_are_never_merged_by_default(store):
    """"Tôi dị ứng bơ." (avocado) and "Tôi dị ứng bò." (beef) fold to the same letters: the doctor may
    group them, but the merge is off until chosen and names the words; with a pinned member it is a
    note, never an operation that folds one into the other."""
    a = store.add("fact", "Tôi dị ứng bơ.", user="linh")
    b = store.add("fact", "Tôi dị ứng bò.", user="linh")
    plan = build_cleanup_plan(store)
    merges = [o for o in plan.operations if o.action == "merge" and set(o.ids) == {a.id, b.id}]
    assert merges and not merges[0].selected and "'bơ' / 'bò'" in merges[0].reason
    apply_plan(store, plan, yes=True)
    assert store.get(a.id).superseded_by is None and store.get(b.id).superseded_by is None
    store.pin(a.id)
    plan = build_cleanup_plan(store)
    assert not [o for o in plan.operations if o.action == "merge"]
    assert any("written differently" in n for n in plan.notes)
