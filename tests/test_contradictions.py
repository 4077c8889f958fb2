"""Contradiction candidates without a language model, English and Vietnamese."""

from __future__ import annotations

from bestie_tui.hygiene.contradictions import find_contradictions
from bestie_tui.hygiene.doctor import load_active, run_doctor


def found(store):
    records, _ = load_active(store)
    return [(c.kind, c.older.text, c.newer.text) for c in find_contradictions(records)]


def corrected(store):
    return [(c.attribute, c.older.text, c.newer.text) for c in run_doctor(store, mode="conflicts").corrections]


def test_negation_is_a_contradiction_not_a_duplicate(store):
    store.add("identity", "I am vegan.")
    store.add("identity", "I am not a vegan.")
    report = run_doctor(store)
    assert report.duplicates == []
    assert [(c.kind, c.older.text, c.newer.text) for c in report.contradictions] == [
        ("negation", "I am vegan.", "I am not a vegan.")]
    assert report.negation_pairs == 1


def test_antonyms_love_hate(store):
    store.add("preference", "I love durian.")
    store.add("preference", "I hate durian.")
    assert found(store) == [("antonym", "I love durian.", "I hate durian.")]


def test_vietnamese_negation_and_antonym(store):
    store.add("preference", "Tôi thích sầu riêng.")
    store.add("preference", "Tôi không thích sầu riêng.")
    store.add("preference", "Tôi ghét cà phê.", user="lan")
    store.add("preference", "Tôi thích cà phê.", user="lan")
    assert sorted(found(store)) == sorted([
        ("negation", "Tôi thích sầu riêng.", "Tôi không thích sầu riêng."),
        ("antonym", "Tôi ghét cà phê.", "Tôi thích cà phê."),
    ])


def test_dung_use_is_not_dung_dont(store):
    store.add("project_context", "Tôi dùng Python.")
    store.add("project_context", "Tôi đừng Python.")
    store.add("project_context", "Tôi chưa dùng Python.")
    kinds = found(store)
    # "chưa dùng" (not yet used) contradicts "dùng"; "dùng" is not read as the negation "đừng"
    assert ("negation", "Tôi dùng Python.", "Tôi chưa dùng Python.") in kinds


def test_a_new_preferred_language_is_a_correction_not_a_contradiction(store):
    # issue 12: a new value of a one-valued attribute replaces the old one (was a "value" contradiction)
    store.add("communication_preference", "User prefers Vietnamese.")
    store.add("communication_preference", "User prefers English.")
    assert found(store) == []
    assert corrected(store) == [("reply language", "User prefers Vietnamese.", "User prefers English.")]


def test_liking_two_colours_is_compatible_and_a_new_favourite_is_a_correction(store):
    store.add("preference", "I like blue.")
    store.add("preference", "I like red.")
    assert found(store) == [] and corrected(store) == []
    store.add("preference", "My favourite colour has always been purple.")
    store.add("preference", "My favorite color is yellow.")
    assert found(store) == []
    assert corrected(store) == [("favourite (colour)", "My favourite colour has always been purple.", "My favorite color is yellow.")]


def test_different_relation_is_neither(store):
    store.add("preference", "I love durian.")
    store.add("note", "I grow durian in my garden.")
    report = run_doctor(store)
    assert report.contradictions == [] and report.duplicates == []


def test_event_against_state_is_flagged_not_resolvable(store):
    store.add("identity", "I am vegetarian.")
    store.add("note", "I had steak on Friday.")
    report = run_doctor(store)
    assert [(c.kind, c.resolvable) for c in report.contradictions] == [("event_vs_state", False)]
    assert "does not replace a state" in report.contradictions[0].reason


def test_other_users_never_contradict(store):
    store.add("identity", "I am vegan.", user="an")
    store.add("identity", "I am not a vegan.", user="binh")
    assert found(store) == []


def test_speaking_a_language_is_not_a_reply_preference(store):
    store.add("identity", "I speak French.")
    store.add("communication_preference", "Always answer in English.")
    assert found(store) == []
    store.add("communication_preference", "Trả lời bằng tiếng Việt.")
    assert found(store) == []
    assert corrected(store) == [("reply language", "Always answer in English.", "Trả lời bằng tiếng Việt.")]


def reasons(store):
    records, _ = load_active(store)
    return [(c.kind, c.reason.split(" against")[0].split(" does not")[0]) for c in find_contradictions(records)]


def test_vietnamese_food_words_are_matched_with_their_accents_and_shown_as_written(store):
    store.add("identity", "I am vegetarian.")
    store.add("habit", "Drinks cà phê sữa đá every morning.")  # cà (in cà phê) is not cá (fish)
    assert found(store) == []
    store.add("event", "Ăn thịt bò hôm qua.")
    store.add("event", "I had cheese and bacon burgers on Friday.")
    assert reasons(store) == [("event_vs_state", "an event (thịt bò)"),
                              ("event_vs_state", "an event (bacon, burgers)")]


def test_a_contradiction_is_found_when_one_side_has_extra_words(store):
    store.add("preference", "Linh loves durian and wants it suggested at fruit markets.")
    store.add("preference", "Linh hates durian; never suggest it.")
    store.add("habit", "I drink coffee.")
    store.add("habit", "I do not drink coffee anymore.")
    # a different relation, another subject, or another object is not a contradiction
    store.add("habit", "I drink green tea every evening.")
    store.add("preference", "My brother hates durian.")
    store.add("habit", "I do not drink soda.")
    assert sorted(found(store)) == [
        ("antonym", "Linh loves durian and wants it suggested at fruit markets.", "Linh hates durian; never suggest it.")]
    # issue 12: "not … anymore" says the habit ended: a correction, not a contradiction
    assert [(old, new) for _, old, new in corrected(store)] == [("I drink coffee.", "I do not drink coffee anymore.")]
