"""Restated facts come back: a proposal or an add that matches an expired, superseded, forgotten or
rejected record makes it active again (or queues it again) with a new event and says which; said
again without an expiry, the old expiry is cleared; the answer that had replaced it stops being
injected."""

from __future__ import annotations

import pytest

from bestie_tui.retrieval.assembly import build_context

pytestmark = pytest.mark.both_engines


def _injected(store, query: str, user: str = "an") -> list[str]:
    return [i.record.text for i in build_context(store, query, user, record_access=False).items]


def test_an_expired_fact_said_again_is_revived_with_a_new_event(store, clock):
    m = store.add("note", "Staying in Đà Nẵng this week", user="an", ttl="7d")
    clock.advance(8 * 86400)
    assert _injected(store, "where am I staying") == []
    r = store.propose("Staying in Đà Nẵng this week", "note", user="an", ttl="7d")
    assert r.outcome == "revived" and r.memory.id == m.id
    assert "revived #1 (it had expired on 2026-12-07T12:00:00)" in r.message
    assert store.count() == 1
    assert store.get(m.id).expires_at == clock.now.replace(microsecond=0) + (m.expires_at - m.created_at)
    assert [e.action for e in store.history(m.id)][:1] == ["revive"]
    assert _injected(store, "where am I staying") == ["Staying in Đà Nẵng this week"]
    assert "revive" in store.undo(any_actor=True).message  # the assistant's change, not the owner's
    assert store.get(m.id).is_expired(clock.now)


def test_restating_without_an_expiry_clears_the_old_one(store, clock):
    m = store.add("preference", "Prefers tea", user="an", ttl="2 weeks")
    r = store.add_result("preference", "prefers tea!", user="an")
    assert r.outcome == "duplicate" and "its expiry was cleared" in r.message
    assert store.get(m.id).expires_at is None
    clock.advance(30 * 86400)
    assert _injected(store, "tea") == ["Prefers tea"]
    p = store.propose("Prefers tea", "preference", user="an", ttl="3d")  # with one: set anew
    assert p.outcome == "duplicate" and store.get(m.id).expires_at is not None


def test_a_superseded_answer_said_again_by_the_owner_comes_back_and_replaces_the_newer_one(store):
    tea = store.add("preference", "Prefers tea in the morning", user="an")
    coffee = store.add("preference", "Prefers coffee in the morning", user="an")
    store.supersede(tea.id, coffee.id)
    assert _injected(store, "coffee or tea in the morning") == ["Prefers coffee in the morning"]
    r = store.add_result("preference", "Prefers tea in the morning", user="an")
    assert r.outcome == "revived" and r.memory.id == tea.id
    assert f"it had been superseded by #{coffee.id}" in r.message and f"it replaces #{coffee.id} again" in r.message
    assert store.get(coffee.id).superseded_by == tea.id and store.get(tea.id).superseded_by is None
    assert _injected(store, "coffee or tea in the morning") == ["Prefers tea in the morning"]
    store.undo()  # one batch: both records as they were
    assert store.get(tea.id).superseded_by == coffee.id and store.get(coffee.id).superseded_by is None


def test_under_ask_the_assistants_restatement_is_queued_and_takes_over_on_approval(store):
    tea = store.add("preference", "Prefers tea in the morning", user="an")
    coffee = store.add("preference", "Prefers coffee in the morning", user="an")
    store.supersede(tea.id, coffee.id)
    r = store.propose("Prefers tea in the morning", "preference", user="an")
    assert r.outcome == "pending" and r.memory.id not in (tea.id, coffee.id)
    assert f"it restates #{tea.id} (it had been superseded by #{coffee.id})" in r.message
    assert _injected(store, "coffee or tea in the morning") == ["Prefers coffee in the morning"]  # the owner decides
    store.approve(r.memory.id)
    assert store.get(coffee.id).superseded_by == r.memory.id
    assert _injected(store, "coffee or tea in the morning") == ["Prefers tea in the morning"]
    assert [e.action for e in store.history(coffee.id)][0] == "supersede"


def test_under_allow_the_assistants_restatement_revives_in_place(store):
    store.set_setting("memory.writePolicy", "allow")
    old = store.add("preference", "Uses vim", user="an")
    new = store.add("preference", "Uses emacs", user="an")
    store.supersede(old.id, new.id)
    r = store.propose("Uses vim", "preference", user="an")
    assert r.outcome == "revived" and r.memory.id == old.id
    assert _injected(store, "which editor do I use, vim or emacs") == ["Uses vim"]


def test_a_forgotten_fact_said_again_by_the_owner_is_revived(store):
    m = store.add("note", "Works at Acme", user="an")
    store.forget(m.id)
    r = store.add_result("note", "Works at Acme", user="an")
    assert r.outcome == "revived" and "it had been forgotten" in r.message
    assert store.get(m.id).status == "approved" and store.count() == 1


def test_a_rejected_proposal_said_again_is_queued_again_under_ask(store):
    p = store.propose("Likes karaoke", "preference", user="an").memory
    store.reject(p.id)
    again = store.propose("Likes karaoke", "preference", user="an")
    assert again.outcome == "pending" and again.memory.id != p.id and "it had been rejected" in again.message
    r = store.add_result("preference", "Likes karaoke", user="an")  # the owner's word approves the one waiting
    assert (r.outcome, r.memory.id) == ("approved", again.memory.id)


def test_a_rejected_proposal_the_owner_says_is_revived(store):
    p = store.propose("Likes karaoke", "preference", user="an").memory
    store.reject(p.id)
    r = store.add_result("preference", "Likes karaoke", user="an")
    assert r.outcome == "revived" and r.memory.id == p.id and store.get(p.id).status == "approved"


def test_the_owners_add_of_a_pending_proposal_approves_it(store):
    p = store.propose("Likes hiking", "preference", user="an").memory
    r = store.add_result("preference", "Likes hiking", user="an")
    assert (r.outcome, r.memory.id, r.memory.status) == ("approved", p.id, "approved")
    assert "waiting for review" in r.message and store.count() == 1


def test_restatements_are_per_user(store):
    m = store.add("note", "Works at Acme", user="an")
    store.forget(m.id)
    other = store.add_result("note", "Works at Acme", user="linh")
    assert other.outcome == "approved" and other.memory.id != m.id
    assert store.get(m.id).status == "forgotten"


def test_the_cli_says_which(run):
    assert run("memory", "add", "note", "Works at Acme", "--user", "an").exit_code == 0
    run("memory", "forget", "1")
    out = run("memory", "add", "note", "works at acme", "--user", "an").output
    assert out.startswith("revived #1 (it had been forgotten)")


@pytest.mark.parametrize("first, second", [
    ("Tôi dị ứng bơ.", "Tôi dị ứng bò."),  # allergic to avocado / to beef: the accent is the word
    ("I code in C++.", "I code in C."),
])
def test_a_text_that_only_folds_the_same_is_another_memory(store, first, second):
    """Adding or proposing a text that differs only by an accent or a symbol stores it; it is not
    "already remembered" (which would reinforce the other and drop it)."""
    a = store.add("fact", first, user="linh")
    b = store.add("fact", second, user="linh")
    assert b.id != a.id and store.get(b.id).text == second
    again = store.add("fact", first.lower(), user="linh")  # case and spacing are spelling
    assert again.id == a.id
    proposal = store.propose(second, "fact", user="linh")
    assert proposal.memory.id == b.id  # a restatement of the second, not of the first


def test_the_same_text_typed_without_accents_is_still_the_same_memory(store):
    first = store.add("identity", "I have a dog named Mực.", user="linh")
    again = store.add("identity", "i have a dog named muc", user="linh")  # typed with no diacritics
    assert again.id == first.id
