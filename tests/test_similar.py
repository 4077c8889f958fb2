"""``MemoryStore.similar``: the prepared term sets give what a fresh ranking gives, and follow writes
and expiry."""

from __future__ import annotations

from bestie_tui.text.similarity import rank_similar
from bestie_tui.text.words import search_text

TEXTS = ["Linh drinks egg coffee on weekends", "Linh drinks green tea at work", "Bao drinks egg coffee daily",
         "The console ships with seven views"]


def test_similar_matches_a_fresh_ranking_and_follows_writes_and_expiry(store, clock):
    ids = [store.add("note", t).id for t in TEXTS]
    expected = [(ids[i], s) for i, s in rank_similar("egg coffee", [(i, search_text(t)) for i, t in enumerate(TEXTS)], 5)]
    assert [(m.id, s) for m, s in store.similar("egg coffee")] == expected
    store.forget(ids[0])  # a write: prepared again
    assert ids[0] not in [m.id for m, _ in store.similar("egg coffee")]
    store.set_ttl(ids[2], "1d")
    assert ids[2] in [m.id for m, _ in store.similar("egg coffee")]
    clock.advance(2 * 86400)  # expired without any write: left out all the same
    found = [m.id for m, _ in store.similar("egg coffee")]
    assert ids[2] not in found
    rest = [(i, search_text(TEXTS[i])) for i in (1, 3)]
    assert [(m.id, s) for m, s in store.similar("egg coffee drinks")] == \
        [(ids[i], s) for i, s in rank_similar("egg coffee drinks", rest, 5)]
