"""The doctor and cleanup on corrections: a corrections section beside duplicates and
contradictions, in text and JSON; the cleanup plan supersedes corrected records (selected) and
leaves contradictions to the owner (never selected)."""

from __future__ import annotations

import json

from bestie_tui.hygiene.doctor import run_doctor
from bestie_tui.hygiene.plan_apply import apply_plan
from bestie_tui.hygiene.plan_build import build_cleanup_plan


def seed(store, clock):
    ids = {}
    for name, text in (("hanoi", "User lives in Hanoi."), ("vungtau", "We moved to Vung Tau in March."),
                       ("yes", "Production deployment is allowed."), ("no", "Production deployment is not allowed."),
                       ("p14", "My phone is an iPhone 14."), ("p15", "My phone is an iPhone 15."),
                       ("cat", "I have a cat named Mochi.")):
        ids[name] = store.add("note", text).id
        clock.advance(86400)
    return ids


def test_the_report_has_corrections_beside_duplicates_and_contradictions(store, clock):
    ids = seed(store, clock)
    report = run_doctor(store)
    assert [(c.older.id, c.newer.id, c.attribute) for c in report.corrections] == [
        (ids["hanoi"], ids["vungtau"], "residence"), (ids["p14"], ids["p15"], "tool (phone)")]
    assert [(c.kind, c.ids) for c in report.contradictions] == [("negation", (ids["yes"], ids["no"]))]
    assert report.counts()["corrections"] == 2
    data = json.loads(json.dumps(report.to_dict()))
    assert data["corrections"][0] == {
        "older": {"id": ids["hanoi"], "text": "User lives in Hanoi."},
        "newer": {"id": ids["vungtau"], "text": "We moved to Vung Tau in March."},
        "attribute": "residence", "old_value": "Hanoi", "new_value": "Vung Tau",
        "reason": "same subject: owner; attribute: residence; Hanoi → Vung Tau", "strong": True}
    assert set(data) >= {"duplicates", "corrections", "contradictions"}
    assert run_doctor(store, mode="duplicates").corrections == []
    assert len(run_doctor(store, mode="conflicts").corrections) == 2


def test_cleanup_supersedes_corrections_by_default_and_never_a_contradiction(store, clock):
    ids = seed(store, clock)
    plan = build_cleanup_plan(store)
    ops = {o.key: o for o in plan.operations}
    assert ops[f"supersede:{ids['hanoi']}>{ids['vungtau']}"].selected
    phone = ops[f"supersede:{ids['p14']}>{ids['p15']}"]  # no word of change: shown, off until chosen
    assert not phone.selected and "off until you choose it" in phone.reason
    contradiction = ops[f"supersede:{ids['yes']}>{ids['no']}"]
    assert not contradiction.selected and contradiction.needs_acceptance
    result = apply_plan(store, plan, yes=True, selected=[o.key for o in plan.selected_operations()] + [phone.key])
    assert store.get(ids["hanoi"]).superseded_by == ids["vungtau"] and store.get(ids["p14"]).superseded_by == ids["p15"]
    assert store.get(ids["yes"]).superseded_by is None and len(result.applied) == 2
    store.undo()
    assert store.get(ids["hanoi"]).superseded_by is None and store.get(ids["p14"]).superseded_by is None


def test_a_chain_of_corrections_is_superseded_by_the_newest(store, clock):
    a = store.add("identity", "I live in Vinh.").id
    clock.advance(86400)
    b = store.add("identity", "I moved to Hue.").id
    clock.advance(86400)
    c = store.add("identity", "We moved to Da Lat.").id
    plan = build_cleanup_plan(store)
    supersedes = sorted(o.key for o in plan.operations if o.action == "supersede")
    assert supersedes == [f"supersede:{a}>{c}", f"supersede:{b}>{c}"]


def test_analyze_prints_the_corrections_section(run, store, clock):
    ids = seed(store, clock)
    out = run("memory", "analyze").output
    assert "corrections: 2" in out and "you: residence changed Hanoi → Vung Tau" in out
    assert f"older #{ids['hanoi']:<5} User lives in Hanoi." in out
    data = json.loads(run("memory", "analyze", "--json").output)
    assert [c["newer"]["id"] for c in data["corrections"]] == [ids["vungtau"], ids["p15"]]
