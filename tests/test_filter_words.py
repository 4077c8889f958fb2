"""The tolerant text filter matches whole words or word prefixes, accent-folded; squashing words
together ("hanoi" for "Hà Nội") never matches inside a word."""

from __future__ import annotations


def texts(store, query):
    return sorted(m.text for m in store.list(query=query))


def test_ho_tay_finds_the_lake_not_a_word_that_merely_contains_it(store):
    store.add("preference", "Runs on Saturday mornings around Hồ Tây.")
    store.add("decision", "cho-bot will stay free and private.")
    store.add("identity", "Lives in Hà Nội.")
    assert texts(store, "Hồ Tây") == ["Runs on Saturday mornings around Hồ Tây."]
    assert texts(store, "ho tay") == ["Runs on Saturday mornings around Hồ Tây."]
    assert texts(store, "hanoi") == ["Lives in Hà Nội."]
    assert texts(store, "stay") == ["cho-bot will stay free and private."]
