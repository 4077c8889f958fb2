"""History recall's signals on memories (``retrieval.signals``): session neighbours, the named
person, time questions — each a ``score.*`` setting, neutral where it does not apply."""

from __future__ import annotations

import pytest

from bestie_tui.retrieval.assembly import build_context
from bestie_tui.retrieval.scoring import ScoringConfig

pytestmark = pytest.mark.both_engines


def _working(pack) -> list[int]:
    return [item.record.id for item in pack.working]


def _trip(store, clock, session: str | None = "chat-1"):
    """Three memories of one conversation, in order; the last one's topic is only in the one before it."""
    ids = []
    for text in ("Went hiking on Mount Fansipan with my cousin", "Loved every minute of it, going back",
                 "Bought a new rice cooker"):
        ids.append(store.add("note", text, user="linh", session=session).id)
        clock.advance(60)
    store.add("note", "Reads a novel every night before sleeping", user="linh")
    return ids


def test_a_short_memory_is_found_by_the_topic_of_the_one_before_it_in_its_session(store, clock):
    hike, reply, cooker = _trip(store, clock)
    store.set_setting("score.neighbour", 0.5)
    pack = build_context(store, "Fansipan hiking", "linh")
    assert _working(pack)[:2] == [hike, reply]
    lifted = pack.working[1].score
    assert lifted.relevance < 0.1 <= lifted.relevance + lifted.neighbour  # under the floor on its own
    assert cooker not in _working(pack)  # two memories away: not a neighbour of the hike


def test_without_the_setting_or_a_session_the_neighbour_lifts_nothing(store, clock):
    hike, reply, _ = _trip(store, clock, session=None)
    store.set_setting("score.neighbour", 0.5)
    assert _working(build_context(store, "Fansipan hiking", "linh")) == [hike]


def test_neighbour_zero_leaves_the_pack_as_it_was(store, clock):
    hike, reply, _ = _trip(store, clock)
    store.set_setting("score.neighbour", 0)
    pack = build_context(store, "Fansipan hiking", "linh")
    assert _working(pack) == [hike] and pack.working[0].score.neighbour == 0


def test_a_neighbour_of_another_user_or_outside_governance_is_no_neighbour(store, clock):
    store.add("note", "Went hiking on Mount Fansipan with my cousin", user="linh", session="chat-1")
    clock.advance(60)
    theirs = store.add("note", "Loved every minute of it, going back", user="minh", session="chat-1").id
    clock.advance(60)
    elsewhere = store.add("note", "Loved every minute of it, going back soon", user="linh", session="chat-1",
                          channel="telegram:9").id
    store.set_setting("score.neighbour", 0.5)
    found = _working(build_context(store, "Fansipan hiking", "linh"))
    assert theirs not in found and elsewhere not in found
    assert theirs not in _working(build_context(store, "Fansipan hiking", "minh"))


def test_a_memory_bound_to_the_named_person_ranks_above_an_otherwise_equal_one(store, clock):
    mine = store.add("note", "Likes green tea with jasmine", user="linh").id
    clock.advance(60)
    mai = store.add("note", "Likes green tea with lotus", user="linh", about="Mai").id
    store.set_setting("score.person", 0.5)
    pack = build_context(store, "What tea does Mai like?", "linh")
    assert _working(pack) == [mai, mine]
    assert pack.working[0].score.person == 1 and pack.working[1].score.person == 0
    store.set_setting("score.person", 0)
    assert build_context(store, "What tea does Mai like?", "linh").working[0].score.person == 0


def test_a_memory_spoken_by_the_named_person_counts_and_a_lower_case_about_does_not(store, clock):
    other = store.add("note", "Hung: I like green tea with lotus", user="linh").id
    clock.advance(60)
    spoken = store.add("note", "Caroline: I like green tea with lotus", user="linh").id
    store.set_setting("score.person", 0.5)
    assert _working(build_context(store, "What tea does Caroline like?", "linh"))[0] == spoken
    # two people named: neither counts
    both = build_context(store, "Does Caroline like tea more than Hung?", "linh")
    assert {i.record.id for i in both.working} == {other, spoken}
    assert all(i.score.person == 0 for i in both.working)


def test_a_relation_is_not_a_name(store):
    store.add("note", "My brother likes green tea", user="linh", about="my brother")
    store.set_setting("score.person", 0.5)
    assert all(i.score.person == 0 for i in build_context(store, "What tea do my friends like?", "linh").working)


def test_a_time_question_lifts_a_memory_that_says_when(store, clock):
    plain = store.add("note", "Moved to Hue", user="linh").id
    clock.advance(60)
    dated = store.add("note", "Moved to Hue with the two cats last year", user="linh").id
    store.set_setting("score.timeQuestion", 0)
    assert _working(build_context(store, "When did she move to Hue?", "linh"))[0] == plain
    store.set_setting("score.timeQuestion", 0.5)
    pack = build_context(store, "When did she move to Hue?", "linh")
    assert _working(pack) == [dated, plain] and pack.working[0].score.time == 1
    other = build_context(store, "Did she move to Hue?", "linh")  # not a time question
    assert _working(other)[0] == plain and all(i.score.time == 0 for i in other.working)


def test_the_signals_are_settings_and_shown_with_the_weights(store):
    store.set_setting("score.neighbour", 0.75)
    config = ScoringConfig.from_store(store)
    assert config.neighbour == 0.75
    assert build_context(store, "anything", "linh").weights["neighbour"] == 0.75


# --- the same signals order a memory search (``scoring.rank_records``, ``bestie memory search``)

def test_a_search_ranks_a_memory_whose_session_neighbour_is_on_topic_first(store, clock):
    from bestie_tui.retrieval.search import search

    store.add("note", "Went hiking on Mount Fansipan with my cousin", user="linh", session="chat-1")
    clock.advance(60)
    beside = store.add("note", "The Fansipan photos came out sharp", user="linh", session="chat-1").id
    clock.advance(60)
    store.add("note", "Bought a new rice cooker for the kitchen", user="linh", session="chat-2")
    clock.advance(60)
    alone = store.add("note", "The Fansipan photos came out clear", user="linh", session="chat-2").id
    store.set_setting("score.neighbour", 0)
    order = [m.id for m in search(store, "Fansipan photos")]
    assert order.index(alone) < order.index(beside)  # equally relevant: the newer first
    store.set_setting("score.neighbour", 0.5)
    order = [m.id for m in search(store, "Fansipan photos")]
    assert order.index(beside) < order.index(alone)


def test_a_search_lifts_the_named_person_and_for_a_time_question_a_memory_that_says_when(store, clock):
    from bestie_tui.retrieval.scoring import rank_records

    mine = store.get(store.add("note", "Likes green tea with jasmine", user="linh").id)
    clock.advance(60)
    mai = store.get(store.add("note", "Likes green tea with lotus", user="linh", about="Mai").id)
    store.set_setting("score.person", 0.5)
    ranked = rank_records(store, "What tea does Mai like?", [mine, mai])
    assert [m.id for m, _ in ranked] == [mai.id, mine.id] and ranked[0][1].person == 1
    plain = store.get(store.add("note", "Moved to Hue", user="linh").id)
    clock.advance(60)
    dated = store.get(store.add("note", "Moved to Hue with the two cats last year", user="linh").id)
    store.set_setting("score.timeQuestion", 0.5)
    assert [m.id for m, _ in rank_records(store, "When did she move to Hue?", [plain, dated])] == [dated.id, plain.id]
    assert [m.id for m, _ in rank_records(store, "Did she move to Hue?", [plain, dated])] == [plain.id, dated.id]
    store.set_setting("score.timeQuestion", 0)
    assert rank_records(store, "When did she move to Hue?", [plain, dated])[0][0].id == plain.id


def test_a_search_neighbour_is_an_approved_memory_of_the_same_user(store, clock):
    from bestie_tui.retrieval.scoring import rank_records

    store.add("note", "Went hiking on Mount Fansipan with my cousin", user="minh", session="chat-1")
    clock.advance(60)
    reply = store.get(store.add("note", "Loved every minute of it", user="linh", session="chat-1").id)
    store.set_setting("score.neighbour", 0.5)
    assert rank_records(store, "Fansipan hiking", [reply])[0][1].neighbour == 0
