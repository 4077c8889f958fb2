"""The doctor report's sections and modes, the health score and hygiene snapshots."""

from __future__ import annotations

import json

import pytest

from bestie_tui.errors import InvalidValueError
from bestie_tui.hygiene.doctor import run_doctor
from bestie_tui.hygiene.health import health_score, hygiene_status, record_snapshot, trend
from bestie_tui.store.models import Memory


@pytest.fixture
def messy(store, clock):
    store.add("communication_preference", "User prefers Vietnamese.")
    store.add("communication_preference", "Always answer in Vietnamese with diacritics.")
    store.add("identity", "I am vegan.")
    store.add("identity", "I am not a vegan.")
    store.add("identity", "Owner's name is Lan.", scope="core", pinned=True)
    store.add("note", "ok", confidence=0.3)
    old = store.add("project_context", "Building the bestie memory console.")
    Memory.update(created_at=clock.now.replace(year=2025)).where(Memory.id == old.id).execute()
    store.add("note", "Trip to Huế next week.", ttl="1d")
    clock.advance(2 * 86400)
    return store


def test_full_report_has_every_section(messy):
    r = run_doctor(messy)
    counts = r.counts()
    assert counts["total"] == 8
    assert [m.text for g in r.duplicates for m in g.members] == [
        "User prefers Vietnamese.", "Always answer in Vietnamese with diacritics."]
    assert [(c.kind, c.newer.text) for c in r.contradictions] == [("negation", "I am not a vegan.")]
    stale = {f.memory.text: f.reason for f in r.stale}
    assert stale["Trip to Huế next week."].startswith("expired")
    assert stale["Building the bestie memory console."].startswith("unused for")
    assert [f.memory.text for f in r.noisy] == ["ok"]
    assert [m.text for m in r.pinned] == ["Owner's name is Lan."]
    assert r.core.tokens > 0 and r.core.cap == 200 and r.core.records == 1
    assert [f.memory.kind for f in r.missing_metadata] == ["note", "note"]
    data = json.loads(json.dumps(r.to_dict()))
    assert data["counts"]["duplicate_groups"] == 1 and data["contradictions"][0]["kind"] == "negation"


def test_modes_narrow_the_report(messy):
    dup = run_doctor(messy, mode="duplicates")
    assert dup.duplicates and not dup.contradictions and not dup.stale
    conflicts = run_doctor(messy, mode="conflicts")
    assert conflicts.contradictions and not conflicts.duplicates and not conflicts.stale
    stale = run_doctor(messy, mode="stale")
    assert stale.stale and not stale.duplicates and not stale.contradictions
    with pytest.raises(InvalidValueError, match="unknown doctor mode"):
        run_doctor(messy, mode="everything")


def test_user_filter(store):
    store.add("identity", "I am vegan.", user="an")
    store.add("identity", "I am not a vegan.", user="an")
    store.add("identity", "I am vegan.", user="binh")
    assert run_doctor(store, user="binh").total == 1
    assert len(run_doctor(store, user="an").contradictions) == 1


def test_health_score_formula(messy):
    r = run_doctor(messy)
    h = health_score(r)
    # 8 active: 1 redundant duplicate (30/8), 2 conflicting (25·2/8), 2 stale (20·2/8),
    # 1 noisy (10/8), 2 missing metadata (10·2/8), core under its cap
    assert h.penalties == {"duplicates": 3.75, "contradictions": 6.25, "stale": 5.0, "noisy": 1.25,
                           "metadata": 2.5, "core": 0.0}
    assert h.score == 81.2


def test_empty_store_scores_100(store):
    assert health_score(run_doctor(store)).score == 100.0


def test_snapshots_and_trend(messy, clock):
    first = hygiene_status(messy)
    assert first.previous is None and first.snapshot.health == first.health.score
    messy.forget(4)
    clock.advance(86400)
    second = hygiene_status(messy)
    assert second.previous.id == first.snapshot.id
    assert second.change > 0  # the contradiction is gone
    record_snapshot(messy, run_doctor(messy))
    history = trend(messy)
    assert [s.id for s in history] == [first.snapshot.id, second.snapshot.id, history[-1].id]
    assert history[0].counts["contradictions"] == 1 and history[1].counts["contradictions"] == 0


def test_a_name_that_looks_like_an_article_is_content(store):
    from bestie_tui.hygiene.doctor import run_doctor

    store.add("identity", "Name is An.")
    store.add("note", "It is what it is.")
    noisy = [f.memory.text for f in run_doctor(store).noisy]
    assert noisy == ["It is what it is."]
