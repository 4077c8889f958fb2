"""Score parts, weights as settings, the index's refresh behaviour, and search ranked by the scorer."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import pytest

from bestie_tui.errors import InvalidValueError
from bestie_tui.retrieval.index import get_index
from bestie_tui.retrieval.scoring import (
    DEFAULT_WEIGHTS,
    ScoringConfig,
    access_part,
    named_periods,
    recency_part,
    scope_part,
    score,
    when_part,
)
from bestie_tui.retrieval.search import search


def test_parts_follow_their_formulas(store, clock):
    m = store.add("preference", "Prefers concise replies", user="linh", channel="telegram:1",
                  confidence=0.8)
    later = clock.now + timedelta(days=30)
    assert recency_part(m, later, 30) == pytest.approx(0.5)
    assert recency_part(m, clock.now, 30) == pytest.approx(1.0)
    assert access_part(0, 20) == 0
    assert access_part(20, 20) == pytest.approx(1.0)
    assert access_part(500, 20) == 1.0  # bounded
    assert access_part(3, 20) == pytest.approx(math.log(4) / math.log(21))
    # user equal (1), channel equal (1), project unbound (0.5)
    assert scope_part(m, "linh", "telegram:1", "bestie") == pytest.approx(2.5 / 3)
    # channel bound elsewhere counts 0
    assert scope_part(m, "linh", "zalo:2", None) == pytest.approx(1.5 / 3)


def test_total_is_relevance_times_the_weighted_mean_of_the_other_parts(store, clock):
    m = store.add("preference", "Prefers concise replies", user="linh", pinned=True, confidence=0.6)
    parts = score(m, 0.5, user="linh", channel=None, project=None, now=clock.now, config=ScoringConfig())
    # the query named no date: the when part is None and its weight is left out
    assert parts.when is None
    counted = [p for p in DEFAULT_WEIGHTS if p != "when"]
    expected = 0.5 * (DEFAULT_WEIGHTS["relevance"] + sum(DEFAULT_WEIGHTS[p] * getattr(parts, p) for p in counted[1:])) \
        / sum(DEFAULT_WEIGHTS[p] for p in counted)
    assert parts.total == pytest.approx(expected)
    # relevance gates: an off-topic memory scores 0 however pinned, recent and confident it is
    assert score(m, 0.0, user="linh", channel=None, project=None, now=clock.now, config=ScoringConfig()).total == 0.0
    assert parts.pinned == 1.0 and parts.confidence == pytest.approx(0.6) and parts.relevance == 0.5


def test_weights_are_settings(store, clock):
    m = store.add("note", "Likes jazz", user="linh", confidence=1.0)
    store.set_setting("score.relevance", 0)
    store.set_setting("score.scope", 0)
    store.set_setting("score.recency", 0)
    store.set_setting("score.access", 0)
    store.set_setting("score.pinned", 0)
    config = ScoringConfig.from_store(store)
    assert config.weights["confidence"] == DEFAULT_WEIGHTS["confidence"]
    # only confidence left: the total is relevance × confidence
    assert score(m, 0.9, user="linh", channel=None, project=None, now=clock.now, config=config).total == pytest.approx(0.9)
    low = store.add("note", "Likes jazz a bit", user="linh", confidence=0.5)
    assert score(low, 0.9, user="linh", channel=None, project=None, now=clock.now, config=config).total == pytest.approx(0.45)


def test_bad_score_setting_is_a_clear_error(store):
    with pytest.raises(InvalidValueError, match="score.relevance must be a number"):
        store.set_setting("score.relevance", "lots")
    from bestie_tui.store.models import Setting

    Setting.replace(key="score.relevance", value='"lots"').execute()  # stored by another writer
    with pytest.raises(InvalidValueError, match="score.relevance must be a number"):
        ScoringConfig.from_store(store)
    with pytest.raises(InvalidValueError):
        ScoringConfig(weights={"relevance": -1.0})


def test_index_sees_an_edit_made_by_another_connection(store, db_path, clock):
    from bestie_tui.store.memory_store import MemoryStore

    m = store.add("note", "Morning run at six", user="linh")
    for i in range(10):
        store.add("note", f"filler memory {i} about books", user="linh")
    index = get_index(store)
    before = index.relevance("swimming pool", [m.id])[0]
    other = MemoryStore(db_path, clock=clock)  # the assistant, elsewhere
    other.edit(m.id, "Morning swim at the swimming pool")
    assert index.relevance("swimming pool", [m.id])[0] > before + 0.3


def test_search_ranks_by_the_scorer_and_keeps_tolerance(store):
    a = store.add("note", "Went to Hà Nội for the weekend; Hà Nội was hot", user="linh")
    b = store.add("preference", "Prefers concise replies", user="linh")
    c = store.add("preference", "Concise replies, concise plans, concise everything", user="linh")
    assert [m.id for m in search(store, "hanoi")] == [a.id]
    found = [m.id for m in search(store, "concise")]
    assert set(found) == {b.id, c.id}
    assert found[0] == c.id  # more about the query: higher TF-IDF relevance
    # the access count is not bumped by a search
    assert store.get(c.id).access_count == 0


def test_named_periods_read_days_months_and_years(store, clock):
    day = (datetime(2023, 6, 26), datetime(2023, 6, 27))
    for query in ("on 26 June, 2023", "on June 26th, 2023", "2023-06-26", "ngày 26 tháng 6 năm 2023",
                  "the 26th of Jun 2023"):
        assert named_periods(query) == (day,), query
    assert named_periods("in July 2022, then 2021") == (
        (datetime(2022, 7, 1), datetime(2022, 8, 1)), (datetime(2021, 1, 1), datetime(2022, 1, 1)))
    assert named_periods("tháng 12 năm 2023") == ((datetime(2023, 12, 1), datetime(2024, 1, 1)),)
    assert named_periods("31 February 2023") == ((datetime(2023, 2, 1), datetime(2023, 3, 1)),)
    assert named_periods("what does she drink in the morning?") == ()
    m = store.add("note", "Likes jazz", user="linh")  # created at the frozen clock's now
    start = m.created_at.replace(hour=0, minute=0, second=0, microsecond=0)
    assert when_part(m, ((start, start + timedelta(days=1)),), 7) == 1.0
    week_later = (start + timedelta(days=8), start + timedelta(days=9))
    assert when_part(m, (week_later,), 7) == pytest.approx(2 ** (-(week_later[0] - m.created_at).total_seconds()
                                                              / 86400 / 7))
    assert when_part(m, (), 7) is None
    parts = score(m, 0.5, user="linh", channel=None, project=None, now=clock.now, config=ScoringConfig(),
                  periods=(week_later,))
    counted = list(DEFAULT_WEIGHTS)
    expected = 0.5 * (DEFAULT_WEIGHTS["relevance"] + sum(DEFAULT_WEIGHTS[p] * getattr(parts, p) for p in counted[1:])) \
        / sum(DEFAULT_WEIGHTS.values())
    assert parts.total == pytest.approx(expected)


@pytest.mark.parametrize("query", ["31 December 9999", "December 9999", "Dec 9999", "tháng 12 năm 9999", "9999"])
def test_dates_at_the_end_of_the_calendar_are_ignored_not_fatal(store, query):
    from bestie_tui.retrieval.assembly import build_context
    from bestie_tui.retrieval.scoring import named_periods

    store.add("note", "Plans for the far future", user="u")
    assert all(end.year <= 9999 for _, end in named_periods(query))
    build_context(store, query, "u", record_access=False)
