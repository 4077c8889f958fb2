"""Corrections end to end, one kind of example at a time, in sentences of our own: the relation,
the doctor's three sections (text and JSON, by id), the cleanup plan and the prompt.

Each kind is one the corrections issue names: a move (English, Vietnamese with and without
diacritics), a new device, a new favourite, a new reply language, a birthday said twice with two
days, a job change; and the reader's known mistakes the other way (a wine is not a colour, another
person's glasses, a favourite food is not a reply language, vegetarian food is not a diet, fishing
is not eating fish, "both X and Y" is not "only Y")."""

from __future__ import annotations

import json

import pytest

from bestie_tui.facts.relations import relate
from bestie_tui.hygiene.doctor import run_doctor
from bestie_tui.hygiene.plan_build import build_cleanup_plan
from bestie_tui.retrieval.assembly import build_context
from bestie_tui.retrieval.conflicts import CONFLICT_MARK

DAY = 86400

CORRECTIONS = [
    # (older, newer, attribute, old value, new value)
    ("User lives in Hue.", "We moved from Hue to Can Tho in October.", "residence", "Hue", "Can Tho"),
    ("Tôi sống ở Huế.", "Tôi đã chuyển từ Huế vào Cần Thơ tháng trước.", "residence", "Huế", "Cần Thơ"),
    ("Toi song o Hue.", "Toi da chuyen tu Hue vao Can Tho thang truoc.", "residence", "Hue", "Can Tho"),
    ("My work laptop is a Dell.", "My work laptop is a Lenovo now.", "tool (laptop)", "Dell", "Lenovo"),
    ("My favourite tennis player is Federer.", "My favourite tennis player is Alcaraz these days.",
     "favourite (tenni player)", "Federer", "Alcaraz"),
    ("I prefer replies in Vietnamese.", "I prefer replies in English now.", "reply language", "vietnamese",
     "english"),
    ("I work at Grab.", "I quit Grab and joined Shopee in May.", "employer", "Grab", "Shopee"),
    ("Tôi làm việc ở FPT.", "Tôi đã nghỉ FPT và chuyển sang làm ở Viettel.", "employer", "FPT", "Viettel"),
    ("Toi lam viec o FPT.", "Toi da nghi FPT va chuyen sang lam o Viettel.", "employer", "FPT", "Viettel"),
]


@pytest.mark.parametrize(("older", "newer"), [
    ("Tôi uống cà phê mỗi sáng.", "Tôi không còn uống cà phê nữa."),
    ("Toi uong ca phe moi sang.", "Toi khong con uong ca phe nua."),
    ("I smoke cigarettes.", "I quit smoking in the spring."),
])
def test_no_longer_ends_what_was_said(older, newer):
    r = relate(older, newer)
    assert r.kind == "correction" and r.reason.endswith("→ ended")


def test_vietnamese_particles_are_not_flags():
    from bestie_tui.facts.reader import read

    assert not read("Hãy gọi tôi là Minh thôi.").ended  # "thôi" closing the clause: "just Minh"
    assert not read("Tôi uống trà mỗi tối.").only  # "mỗi tối" is every evening
    assert relate("Gọi tôi là anh Tuấn.", "Hãy gọi tôi là Tuấn thôi.").kind == "correction"


@pytest.mark.parametrize(("older", "newer", "attribute", "old", "new"), CORRECTIONS)
def test_a_new_value_of_the_same_fact_is_a_correction_with_its_reason(older, newer, attribute, old, new):
    r = relate(older, newer)
    assert (r.kind, r.attribute, r.old_value, r.new_value) == ("correction", attribute, old, new)
    assert r.reason == f"same subject: owner; attribute: {attribute}; {old} → {new}"


@pytest.mark.parametrize(("older", "newer", "kind"), [
    # a birthday does not change: two days are a contradiction, never a duplicate
    ("My birthday is on July 8.", "My birthday is July 9.", "contradiction"),
    # the same day in three spellings is one fact
    ("My birthday is 8/7.", "My birthday is on the 8th of July.", "duplicate"),
    ("Sinh nhật tôi là 8 tháng 7.", "My birthday is July 8th.", "duplicate"),
    # known misreadings: each pair can hold together
    ("I enjoy red wine.", "My favourite colour is red.", "compatible"),
    ("My brother wears glasses.", "I do not wear glasses.", "compatible"),
    ("My favourite food is Vietnamese.", "Please reply in English.", "compatible"),
    ("My favourite subject at school was French.", "Always reply in Vietnamese.", "compatible"),
    ("I like vegetarian food.", "I eat chicken most days.", "compatible"),
    ("I enjoy fishing at the lake.", "I am vegetarian.", "compatible"),
    # more languages than "only" allows is a clash for the owner, not one fact said twice
    ("I speak both German and English.", "I only speak English.", "contradiction"),
    ("Deploying on Friday is allowed.", "Deploying on Friday is not allowed.", "contradiction"),
])
def test_relation_of_each_kind_of_pair(older, newer, kind):
    from bestie_tui.facts.relations import rule_relation

    assert rule_relation(older, newer).kind == kind
    if kind == "compatible":
        assert not relate(older, newer).strong  # the judgement may show it, never act on it


def test_the_reader_knows_whose_glasses_and_which_favourite():
    from bestie_tui.facts.reader import read

    assert read("He wears glasses.").subject.kind != "owner"
    assert read("My sister wears glasses.").subject.kind != "owner"
    assert {f.attribute for f in read("My favourite subject is English.").facts} == {"favourite"}
    assert "diet" not in {f.attribute for f in read("I like vegetarian food.").facts}


def seed(store, clock):
    """One owner's memories: two corrections, a duplicate pair, a contradiction and bystanders."""
    ids = {}
    for name, text in (
            ("hue", "User lives in Hue."), ("dell", "My work laptop is a Dell."),
            ("wine", "I enjoy red wine."), ("colour", "My favourite colour is red."),
            ("both", "I speak both German and English."),
            ("bday1", "My birthday is 8/7."),
            ("fri_yes", "Deploying on Friday is allowed."),
            ("cantho", "We moved from Hue to Can Tho in October."),
            ("lenovo", "My work laptop is a Lenovo now."),
            ("only", "I only speak English."),
            ("bday2", "My birthday is on the 8th of July."),
            ("fri_no", "Deploying on Friday is not allowed.")):
        ids[name] = store.add("note", text, user="an").id
        clock.advance(DAY)
    return ids


def test_doctor_sections_by_id_in_json_and_text(store, clock, run):
    ids = seed(store, clock)
    report = run_doctor(store)
    assert {(c.older.id, c.newer.id, c.attribute) for c in report.corrections} == {
        (ids["hue"], ids["cantho"], "residence"), (ids["dell"], ids["lenovo"], "tool (laptop)")}
    groups = [sorted(m.id for m in g.members) for g in report.duplicates]
    assert groups == [sorted([ids["bday1"], ids["bday2"]])]  # red wine is not merged with the colour
    pairs = {c.ids for c in report.contradictions}
    assert pairs == {(ids["both"], ids["only"]), (ids["fri_yes"], ids["fri_no"])}

    data = json.loads(run("memory", "analyze", "--json").output)
    assert {(c["older"]["id"], c["newer"]["id"]) for c in data["corrections"]} == {
        (ids["hue"], ids["cantho"]), (ids["dell"], ids["lenovo"])}
    assert {(c["old_value"], c["new_value"]) for c in data["corrections"]} == {("Hue", "Can Tho"), ("Dell", "Lenovo")}
    assert [sorted(g["ids"]) for g in data["duplicates"]] == groups
    assert {(c["older"]["id"], c["newer"]["id"]) for c in data["contradictions"]} == pairs
    assert all(c["kind"] for c in data["contradictions"])

    text = run("memory", "analyze").output
    assert "corrections: 2" in text and "residence changed Hue → Can Tho" in text
    assert "tool (laptop) changed Dell → Lenovo" in text
    assert f"older #{ids['dell']:<5} My work laptop is a Dell." in text
    assert f"newer #{ids['lenovo']:<5} My work laptop is a Lenovo now." in text
    assert "contradiction" in text and "I only speak English." in text


def test_cleanup_selects_corrections_and_never_a_contradiction(store, clock):
    ids = seed(store, clock)
    ops = {o.key: o for o in build_cleanup_plan(store).operations}
    assert ops[f"supersede:{ids['hue']}>{ids['cantho']}"].selected
    assert ops[f"supersede:{ids['dell']}>{ids['lenovo']}"].selected
    for older, newer in (("fri_yes", "fri_no"), ("both", "only")):  # the owner decides which holds
        op = ops[f"supersede:{ids[older]}>{ids[newer]}"]
        assert not op.selected and op.needs_acceptance
    assert ops[f"merge:{ids['bday1']},{ids['bday2']}"].selected
    # nothing of the wine or the colour is touched
    assert len(ops) == 5


def test_the_prompt_carries_both_sides_of_a_clash_with_a_marker(store, clock):
    ids = seed(store, clock)
    for query in ("may we deploy on friday", "are friday deploys allowed"):
        pack = build_context(store, query, "an", record_access=False)
        assert [i.record.id for i in pack.working] == [ids["fri_yes"], ids["fri_no"]]
        assert pack.working[1].line.endswith(CONFLICT_MARK) and CONFLICT_MARK in pack.render()


def test_with_room_for_one_side_the_newer_goes_in_and_the_older_is_named(store, clock):
    yes = store.add("project_context", "Hotfixes may ship to production on Fridays after review.", user="an")
    clock.advance(DAY)
    no = store.add("project_context", "Hotfixes may not ship to production on Fridays after review.", user="an")
    pack = build_context(store, "can a hotfix ship to production on a friday", "an", token_budget=50,
                         record_access=False)
    assert [i.record.id for i in pack.items] == [no.id]
    assert any(x.id == yes.id and x.detail == f"contradicted by #{no.id}" for x in pack.left_out)


def test_the_prompt_never_carries_a_corrected_or_superseded_record(store, clock):
    ids = seed(store, clock)
    where = build_context(store, "do I still live in Hue", "an", record_access=False)
    assert ids["hue"] not in [i.record.id for i in where.items]
    assert any(x.id == ids["hue"] and x.detail == f"corrected by #{ids['cantho']}" for x in where.left_out)
    laptop = build_context(store, "what laptop do I use at work", "an", record_access=False)
    assert [i.record.id for i in laptop.items if "laptop" in i.record.text] == [ids["lenovo"]]
    store.supersede(ids["lenovo"], ids["dell"])  # the owner says the older one holds after all
    again = build_context(store, "what laptop do I use at work", "an", record_access=False)
    assert ids["lenovo"] not in [i.record.id for i in again.items]


def test_cli_propose_under_allow_queues_a_correction_unless_the_policy_is_auto(store, clock, run):
    old = store.add("identity", "My work laptop is a Dell.", user="an")
    clock.advance(DAY)
    assert run("memory", "config", "memory.writePolicy", "allow").exit_code == 0
    queued = json.loads(run("memory", "propose", "identity", "My work laptop is a Lenovo now.", "--user", "an",
                            "--json").output)
    assert queued["outcome"] == "pending"
    assert store.get(old.id).superseded_by is None and store.get(old.id).status == "approved"
    listing = run("memory", "pending").output
    assert f"replaces #{old.id}: My work laptop is a Dell." in listing and "possible duplicate" not in listing

    assert run("memory", "config", "memory.correctionPolicy", "auto").exit_code == 0
    clock.advance(DAY)
    stored = run("memory", "propose", "identity", "My work laptop is a ThinkPad X1 now.", "--user", "an")
    assert stored.exit_code == 0 and f"superseded #{old.id}" in stored.output
    assert store.get(old.id).superseded_by is not None
    # one undo step brings the old record back and takes the new one out
    assert run("memory", "undo", "--any").exit_code == 0
    assert store.get(old.id).superseded_by is None


def test_cli_propose_a_contradiction_is_queued_even_when_corrections_are_auto(store, clock, run):
    yes = store.add("project_context", "Deploying on Friday is allowed.", user="an")
    clock.advance(DAY)
    run("memory", "config", "memory.writePolicy", "allow")
    run("memory", "config", "memory.correctionPolicy", "auto")
    out = json.loads(run("memory", "propose", "project_context", "Deploying on Friday is not allowed.",
                         "--user", "an", "--json").output)
    assert out["outcome"] == "pending"
    listing = run("memory", "pending").output
    assert f"#{yes.id}" in listing and "Deploying on Friday is allowed." in listing
    assert store.get(yes.id).superseded_by is None
