"""The prompt's conflict pass acts only on two memories about one thing (issue 29, PrefEval).

Two of the owner's preferences about different things ("paperback novels" / "a guesthouse in a new
town") are not a correction of one by the other, however the reader compares their "prefer" values;
two about one thing (two teas, two seats on a flight, two languages one speaks) still are."""

from __future__ import annotations

from bestie_tui.retrieval.assembly import build_context
from bestie_tui.retrieval.conflicts import CONFLICT_MARK


def _pack(store, clock, older: str, newer: str, query: str):
    a = store.add("preference", older, user="an")
    clock.advance(86400)
    b = store.add("preference", newer, user="an")
    return a, b, build_context(store, query, "an", record_access=False)


def test_a_preference_about_another_thing_does_not_take_a_relevant_ones_place(store, clock):
    novels, lodging, pack = _pack(store, clock, "I prefer paperback novels to e-books.",
                                  "I prefer a small guesthouse when I explore a new town.",
                                  "which paperback novels should I read this summer")
    assert [i.record.id for i in pack.working] == [novels.id]
    assert not any(x.reason == "state" for x in pack.left_out)


def test_a_stance_with_only_about_another_thing_pulls_nothing_in(store, clock):
    games, trains, pack = _pack(store, clock, "For board games I prefer cooperative ones.",
                                "I prefer to travel exclusively by train.", "suggest a board game for four players")
    assert [i.record.id for i in pack.working] == [games.id]
    assert CONFLICT_MARK not in pack.render()


def test_a_newer_preference_for_the_same_thing_still_corrects(store, clock):
    green, black, pack = _pack(store, clock, "I prefer green tea in the afternoon.",
                               "Now I prefer black tea in the afternoon.", "what tea should I brew this afternoon")
    assert [i.record.id for i in pack.working] == [black.id]
    assert any(x.id == green.id and x.detail == f"corrected by #{black.id}" for x in pack.left_out)


def test_only_one_language_against_another_still_goes_in_with_the_marker(store, clock):
    only, other, pack = _pack(store, clock, "I only speak Portuguese.", "I speak Italian fluently.",
                              "do I speak Portuguese or Italian")
    assert [i.record.id for i in pack.working] == [only.id, other.id]
    assert pack.working[1].line.endswith(CONFLICT_MARK)
