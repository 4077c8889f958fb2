"""Broad topics of life order word candidates (``text.topics``, ``bm25.TOPIC_SHARE``), never admit them.

A memory about the request's part of life (food, travel…) ranks above one that only shares spelling
with the request; a topic alone brings no memory into a prompt; English and Vietnamese requests name
their topics; the lexicon keeps Vietnamese members to compounds. Real SQLite store."""

from __future__ import annotations

from bestie_tui.retrieval.assembly import build_context
from bestie_tui.retrieval.index import get_index
from bestie_tui.text.analysis import query_features
from bestie_tui.text.topics import TOPICS, member_features, topics_of


def _topics(text: str) -> list[str]:
    return topics_of(query_features(text)[0])


def test_requests_name_their_topics_in_english_and_vietnamese():
    assert _topics("Where should we have dinner on Friday?") == ["food"]
    assert _topics("Find me a hotel near the beach") == ["travel"]
    assert _topics("Gợi ý giúp mình một khách sạn yên tĩnh") == ["travel"]
    assert _topics("Tối nay đi nhà hàng nào?") == ["food"]
    assert _topics("what is 17 times 23") == []


def test_vietnamese_members_are_compounds_and_every_topic_has_members():
    for topic, members in TOPICS.items():
        assert member_features(query_features(members[0])[0]), topic
        for member in members:
            if not member.isascii():
                assert " " in member, (topic, member)


def test_a_memory_on_the_requests_topic_ranks_above_one_that_shares_as_much_else(store):
    from bestie_tui.retrieval import bm25

    on_topic = store.add("note", "My sister never eats anything spicy.", user="vy").id
    elsewhere = store.add("note", "My sister plays the cello on weekends.", user="vy").id
    store.set_setting("semantic.model", "off")
    request = "suggest a place for dinner with my sister"
    rel = get_index(store).relevance(request, [on_topic, elsewhere])
    assert rel[0] > rel[1]
    assert rel[0] - bm25.TOPIC_SHARE < rel[1]  # the topic is what puts it first


def test_a_topic_alone_brings_no_memory_into_the_prompt(store):
    store.add("note", "Orders the mushroom risotto whenever it is on the menu.", user="vy")
    store.set_setting("semantic.model", "off")
    pack = build_context(store, "what time do restaurants close on holidays", "vy", record_access=False)
    assert [item.record.text for item in pack.working] == []
