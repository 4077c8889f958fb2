"""Undo writes back what the change changed and nothing else: the times of the row keep their
fractions of a second (a created_at cut to whole seconds reorders two memories of one second)."""

from __future__ import annotations


def test_undoing_a_pin_keeps_created_at_to_the_microsecond(store, clock):
    clock.advance(0.25)
    m = store.add("fact", "The spare bike lock key hangs by the door.")
    before = store.get(m.id).created_at
    assert before.microsecond  # the clock gave it a fraction
    store.pin(m.id)
    store.undo()
    after = store.get(m.id)
    assert after.pinned is False and after.created_at == before


def test_undoing_keep_both_leaves_both_rows_exactly_as_they_were(store, clock):
    clock.advance(0.5)
    a = store.add("fact", "Our allotment is plot 14 by the canal.")
    clock.advance(0.25)
    b = store.add("fact", "The allotment committee meets on the first Sunday.")
    rows = [store.get(a.id), store.get(b.id)]
    store.keep_both(a.id, b.id)
    store.undo()
    assert [store.get(a.id), store.get(b.id)] == rows
