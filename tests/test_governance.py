"""Governance: never another user's memory; governed keeps to the channel/project, full spans them."""

from __future__ import annotations

import pytest

from bestie_tui.errors import InvalidValueError
from bestie_tui.retrieval.assembly import build_context
from bestie_tui.retrieval.governance import bindings, governance_status, set_policy

pytestmark = pytest.mark.both_engines

CHANNELS = ("telegram:1", "zalo:2", None)
PROJECTS = ("bestie", "thesis", None)


@pytest.fixture
def two_users(store):
    """Users A and B, each with a pizza memory in every channel × project combination."""
    for user in ("A", "B"):
        for n, (channel, project) in enumerate((c, p) for c in CHANNELS for p in PROJECTS):
            # same words, a different number: equal relevance, and no duplicate reinforcement
            store.add("preference", f"{user} likes pizza with olives, note {n}",
                      user=user, channel=channel, project=project)
    general = store.add("preference", "Everyone here likes pizza night on Friday")
    return general


@pytest.mark.parametrize("mode", ["governed", "full"])
@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("project", PROJECTS)
def test_no_mode_puts_one_users_memory_into_anothers_pack(store, two_users, mode, channel, project):
    for me, other in (("A", "B"), ("B", "A")):
        pack = build_context(store, "pizza olives", me, channel, project, token_budget=5000,
                             governance=mode, record_access=False)
        users = {i.record.user for i in pack.items}
        assert pack.items and users <= {me, None}
        assert other not in {store.get(x.id).user for x in pack.left_out}
        assert f"{other} likes" not in pack.render()


def test_governed_keeps_to_the_channel_and_project_full_brings_the_rest(store, two_users):
    governed = build_context(store, "pizza olives", "A", "telegram:1", "bestie", token_budget=5000)
    got = {(i.record.channel, i.record.project) for i in governed.items if i.record.user == "A"}
    assert got == {("telegram:1", "bestie"), ("telegram:1", None), (None, "bestie"), (None, None)}
    scoped_out = {x.id for x in governed.left_out if x.reason == "scope"}
    assert len(scoped_out) == 5  # the other five combinations of A's, listed with the reason

    store.set_setting("memory.governance", "full")
    # by words only: the records differ by a note number, which meaning (when the extra is on)
    # weighs more than the small lift of the request's own channel and project
    store.set_setting("semantic.model", "off")
    full = build_context(store, "pizza olives", "A", "telegram:1", "bestie", token_budget=5000)
    got = {(i.record.channel, i.record.project) for i in full.items if i.record.user == "A"}
    assert got == {(c, p) for c in CHANNELS for p in PROJECTS}
    assert full.governance == "full"
    # in full mode, an exact match still outranks a record from elsewhere
    first = full.working[0].record
    assert (first.channel, first.project) == ("telegram:1", "bestie")


def test_unbound_records_reach_every_user(store, two_users):
    for user in ("A", "B"):
        pack = build_context(store, "pizza night friday", user, token_budget=5000)
        assert two_users.id in {i.record.id for i in pack.items}


def test_a_request_without_a_user_sees_only_unbound_records(store, two_users):
    pack = build_context(store, "pizza", None, token_budget=5000)
    assert {i.record.id for i in pack.items} == {two_users.id}


def test_status_and_policy(store, two_users):
    st = governance_status(store)
    assert st.mode == "governed"
    assert st.users == {"A": 9, "B": 9, "(unbound)": 1}
    assert st.channel_bound == 12 and st.project_bound == 12 and st.unbound == 1
    assert set_policy(store, "full").mode == "full"
    assert store.get_setting("memory.governance") == "full"
    store.undo()
    assert store.get_setting("memory.governance") == "governed"
    with pytest.raises(InvalidValueError, match="governed or full"):
        set_policy(store, "everything")


def test_bindings_list_distinct_values(store, two_users):
    b = bindings(store)
    assert b.users == ["A", "B"]
    assert b.channels == ["telegram:1", "zalo:2"] and b.projects == ["bestie", "thesis"]
