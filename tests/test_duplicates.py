"""The duplicate ladder over a real store: exact, normalised, frame, TF-IDF cosine; no chaining."""

from __future__ import annotations

import pytest

from bestie_tui.hygiene.doctor import load_active
from bestie_tui.hygiene.duplicates import find_duplicates

pytestmark = pytest.mark.both_engines


def groups_of(store):
    records, norms = load_active(store)
    return find_duplicates(records, norms=norms)


def texts(group):
    return sorted(m.text for m in group.members)


def test_seed_example_is_one_group(store):
    for t in ("User prefers Vietnamese.", "User wants Vietnamese-first.",
              "Always answer in Vietnamese with diacritics.", "I have a cat named Mochi."):
        store.add("communication_preference", t)
    a = groups_of(store)
    assert [texts(g) for g in a.groups] == [sorted(["User prefers Vietnamese.", "User wants Vietnamese-first.",
                                                     "Always answer in Vietnamese with diacritics."])]


def test_four_paraphrases_are_one_group_of_four(store):
    paraphrases = ["favourite colour is blue", "mentioned they like blue", "prefers blue", "blue is preferred"]
    for t in paraphrases + ["I love durian."]:
        store.add("preference", t)
    a = groups_of(store)
    assert len(a.groups) == 1
    assert texts(a.groups[0]) == sorted(paraphrases)


def test_exact_and_normalised_levels(store):
    # add() itself reinforces a same-text record, so duplicates arrive by edits (or imports, or
    # another process): edit distinct records into copies.
    store.add("note", "I walk to work.")
    store.edit(store.add("note", "placeholder one").id, "I walk to work.")
    store.add("note", "Hà Nội is home")
    store.edit(store.add("note", "placeholder two").id, "  ha noi IS   home!! ")
    a = groups_of(store)
    levels = {g.level: texts(g) for g in a.groups}
    assert levels["exact"] == ["I walk to work.", "I walk to work."]
    assert levels["normalized"] == sorted(["Hà Nội is home", "ha noi IS   home!!"])


def test_negated_twin_is_never_a_duplicate(store):
    store.add("identity", "I am vegan.")
    store.add("identity", "I am not a vegan.")
    a = groups_of(store)
    assert a.groups == []
    assert [(p.a.text, p.b.text) for p in a.opposite_pairs] == [("I am vegan.", "I am not a vegan.")]


def test_different_relation_about_same_subject_is_not_a_duplicate(store):
    store.add("preference", "I love durian.")
    store.add("note", "I grow durian in my garden.")
    store.add("note", "I have a dog.")
    store.add("preference", "I love dogs.")
    assert groups_of(store).groups == []


def test_users_are_never_compared(store):
    store.add("note", "I like hiking.", user="an")
    store.add("note", "I like hiking.", user="binh")
    assert groups_of(store).groups == []


def test_groups_do_not_chain_through_a_middle_record(store):
    # pie~pie crust (0.84) and pie crust~apple pie crust (0.84), but red apple pie~apple pie crust is
    # only 0.58: with a 0.6 threshold single linkage would chain all three; complete linkage does not.
    for t in ("red apple pie", "red apple pie crust", "apple pie crust", "blue car", "green house"):
        store.add("note", t)
    records, norms = load_active(store)
    analysis = find_duplicates(records, norms=norms, threshold=0.6)
    assert len(analysis.groups) == 1
    assert len(analysis.groups[0].members) == 2
    assert "red apple pie crust" in texts(analysis.groups[0])
    # at 0.5 every pair of the three is similar, so they form one clique
    assert [len(g.members) for g in find_duplicates(records, norms=norms, threshold=0.5).groups] == [3]


def test_big_dog_does_not_pull_in_big_house(store):
    for t in ("I have a dog", "I have a big dog", "I have a big house"):
        store.add("note", t)
    records, norms = load_active(store)
    groups = find_duplicates(records, norms=norms, threshold=0.5).groups
    assert [texts(g) for g in groups] == [["I have a big dog", "I have a dog"]]


def test_records_that_differ_only_in_numbers_stay_apart(store):
    for i in range(40):
        store.add("note", f"Erin{i} prefers Vietnamese replies, ticket number {i}.")
    store.add("note", "I have 2 dogs.")
    store.add("note", "User has 2 dogs.")
    store.add("note", "I have 3 dogs.")
    a = groups_of(store)
    assert [texts(g) for g in a.groups] == [["I have 2 dogs.", "User has 2 dogs."]]


def test_a_paraphrase_group_reports_its_real_minimum_pairwise_cosine(store):
    for t in ["User prefers Vietnamese.", "User wants Vietnamese-first.", "Always answer in Vietnamese with diacritics."]:
        store.add("communication_preference", t)
    [g] = groups_of(store).groups
    assert g.level == "frame" and 0.0 < g.score < 1.0
