"""A working memory enters a request only on evidence of the same topic (issue 29).

Not on one common word ("morning", "times", "mean"), on the grams of "is" and "the", or on a
Vietnamese word that differs from the request's only by its marks when both are written with them;
still on two words of the request, the request's one word, a name or a rare word, and a request typed
without diacritics still finds a memory written with them. Real SQLite store, ``build_context``."""

from __future__ import annotations

import pytest

from bestie_tui.retrieval.assembly import build_context
from bestie_tui.retrieval.evidence import judge, shared

MEMORIES = (
    "Swims at the community pool on Sunday mornings before work.",
    "'Ship it' means the review is done and the branch can merge.",
    "The staging database is nicknamed 'teapot' and lives on two nodes.",
    "Keeps a sourdough starter called Bruno in the fridge; feeds it twice a week.",
    "Is learning the cello, two lessons a month with a retired teacher.",
    "Anh Tùng đang công tác ở Quảng Ngãi tuần này.",
    "Hộp thuốc của bà để trên nóc tủ lạnh.",
    "Thích uống trà sen vào buổi chiều.",
)


@pytest.fixture
def owner(store):
    return {text: store.add("note", text, user="vy").id for text in MEMORIES}


def working(store, query: str) -> list[str]:
    pack = build_context(store, query, "vy", record_access=False)
    return [item.record.text for item in pack.working]


@pytest.mark.parametrize("query", [
    "translate 'good morning' into Spanish",
    "what is 12 times 7",
    "what does the word 'serendipity' mean",
    "how many years are there in a decade",
    "who is the president of the world chess federation",
    "why is the ocean salty",
])
def test_a_stray_word_brings_no_working_memory(store, owner, query):
    assert working(store, query) == []


@pytest.mark.parametrize("query, wanted", [
    ("which pool do I swim at", "Swims at the community pool on Sunday mornings before work."),
    ("how many nodes does the staging database have", "The staging database is nicknamed 'teapot' and lives on two nodes."),
    ("how often should I feed the sourdough starter", "Keeps a sourdough starter called Bruno in the fridge; feeds it twice a week."),
    ("cello", "Is learning the cello, two lessons a month with a retired teacher."),
    ("is Bruno hungry", "Keeps a sourdough starter called Bruno in the fridge; feeds it twice a week."),
])
def test_a_request_on_the_topic_still_gets_its_memory(store, owner, query, wanted):
    assert wanted in working(store, query)


def test_the_manifest_says_why_a_relevant_memory_without_evidence_stayed_out(store, owner):
    pack = build_context(store, "what does the word 'serendipity' mean", "vy", record_access=False)
    ship = owner["'Ship it' means the review is done and the branch can merge."]
    assert all(item.record.id != ship for item in pack.working)
    why = next(x for x in pack.left_out if x.id == ship)
    assert why.reason == "low relevance" and "no word of the request" in why.detail


@pytest.mark.parametrize("query", [
    "Quang học là gì?",                # optics: "Quang" is not "Quảng" when both carry their marks
    "Hợp tác xã là gì?",              # a cooperative: "Hợp" is not "Hộp"
    "Trà sữa có bao nhiêu calo?",      # bubble tea: "trà" alone is one common word
])
def test_vietnamese_words_apart_by_their_marks_do_not_meet(store, owner, query):
    assert working(store, query) == []


@pytest.mark.parametrize("query, wanted", [
    ("anh tung cong tac o quang ngai den bao gio", "Anh Tùng đang công tác ở Quảng Ngãi tuần này."),
    ("hop thuoc cua ba de o dau", "Hộp thuốc của bà để trên nóc tủ lạnh."),
    ("Hộp thuốc của bà để đâu?", "Hộp thuốc của bà để trên nóc tủ lạnh."),
])
def test_a_request_typed_without_marks_still_finds_a_marked_memory(store, owner, query, wanted):
    assert wanted in working(store, query)


def test_the_side_typed_without_marks_is_folded_and_marked_sides_compare_as_written():
    assert [s.word.folded for s in shared("quang ngai", "Công tác ở Quảng Ngãi.")] == ["quang", "ngai"]
    assert shared("Quang học", "Công tác ở Quảng Ngãi.") == []
    assert [s.word.folded for s in shared("Quảng Ngãi", "cong tac o quang ngai")] == ["quang", "ngai"]


def test_a_rare_word_is_evidence_alone_and_a_common_one_is_not():
    text = "Keeps a sourdough starter in the fridge."
    assert judge("sourdough recipes for beginners", text, lambda w: (1, 200)).enough
    assert not judge("sourdough recipes for beginners", text, lambda w: (60, 200)).enough
    assert not judge("good morning in Spanish", "Swims on Sunday mornings.", lambda w: (1, 200)).enough


def test_words_of_time_and_vietnamese_numerals_together_are_no_topic(store):
    store.add("note", "Sinh nhật mẹ tôi vào tháng hai hằng năm, cả nhà ăn tối ở ngoài.", user="vy")
    store.add("note", "Cuối tuần nào tôi cũng chạy bộ mười cây số.", user="vy")
    assert working(store, "Tháng hai năm nay có bao nhiêu ngày?") == []
    assert working(store, "thang hai nam nay co bao nhieu ngay") == []
    assert working(store, "Mười nhân hai bằng mấy?") == []
    assert working(store, "Sinh nhật mẹ nên tặng gì?") == [
        "Sinh nhật mẹ tôi vào tháng hai hằng năm, cả nhà ăn tối ở ngoài."]


def test_vietnamese_grammatical_words_are_no_topic(store):
    for n in range(20):  # enough memories that a word held by one of them is rare
        store.add("note", f"Ghi chú số {n}: mã kho {n * 7} ở kệ {n}.", user="vy")
    store.add("note", "Con bé bị sốt từ tối qua.", user="vy")
    store.add("note", "Tôi không ăn được rau mùi.", user="vy")
    assert working(store, "Chuẩn bị gì cho chuyến đi Đà Lạt?") == []  # "bị" of "chuẩn bị" is no topic
    assert working(store, "Trời có mưa không?") == []
    assert working(store, "Con bé bị sốt thì uống thuốc gì?") == ["Con bé bị sốt từ tối qua."]


def test_an_english_word_does_not_meet_a_vietnamese_one_that_only_folds_to_it(store):
    for n in range(20):  # enough memories that a word held by one of them is rare
        store.add("note", f"Ghi chú số {n}: mã kho {n * 7} ở kệ {n}.", user="vy")
    store.add("note", "Mình cất giấy tờ xe trong ngăn kéo bàn.", user="vy")  # "cất": to put away
    store.add("note", "Travelling to Huế next weekend for a cousin's wedding.", user="vy")
    assert working(store, "What is the best food for a cat?") == []
    assert working(store, "book a train to Hue for me") == ["Travelling to Huế next weekend for a cousin's wedding."]
    assert working(store, "giay to xe cat o dau") == ["Mình cất giấy tờ xe trong ngăn kéo bàn."]  # typed bare


def test_one_word_of_a_name_of_several_is_not_another_name(store):
    for n in range(20):
        store.add("note", f"Ghi chú số {n}: mã kho {n * 7} ở kệ {n}.", user="vy")
    store.add("note", "Anh Tùng đang công tác ở Quảng Nam tuần này.", user="vy")
    assert working(store, "Quảng Ninh có gì đẹp?") == []
    assert working(store, "Ai là người giàu nhất Việt Nam?") == []
    assert working(store, "Quảng Nam có gì đẹp?") == ["Anh Tùng đang công tác ở Quảng Nam tuần này."]


def test_the_manifest_says_why_a_working_memory_entered(run, store, owner):
    store.set_setting("semantic.model", "off")
    pack = build_context(store, "how many nodes does the staging database have", "vy", record_access=False)
    assert [(i.record.text, i.why) for i in pack.working] == [
        ("The staging database is nicknamed 'teapot' and lives on two nodes.", "3 words in common: nodes, staging, database")]
    shown = run("memory", "context", "how many nodes does the staging database have", "--user", "vy")
    assert "· 3 words in common: nodes, staging, database" in shown.output
