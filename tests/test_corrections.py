"""Corrections on write and in triage: a proposal that corrects an approved memory is queued with
"replaces #N", approving it supersedes the old record in the same undo step, and
``memory.correctionPolicy auto`` stores it directly."""

from __future__ import annotations

import json

import pytest

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.corrections import find_related

pytestmark = pytest.mark.both_engines


@pytest.fixture
def hanoi(store, clock):
    old = store.add("identity", "User lives in Hanoi.", user="an")
    clock.advance(86400)
    return old


def test_a_correction_under_allow_is_queued_and_says_what_it_replaces(store, hanoi):
    store.set_setting("memory.writePolicy", "allow")
    result = store.propose("I moved from Hanoi to Da Nang last month.", "identity", user="an")
    assert result.outcome == "pending" and result.replaces == (hanoi.id,)
    assert f"it replaces #{hanoi.id}" in result.message
    assert store.get(hanoi.id).superseded_by is None  # nothing retired before the owner says so


def test_approving_supersedes_the_old_record_in_one_undo_step(store, hanoi):
    new = store.propose("I moved from Hanoi to Da Nang last month.", "identity", user="an").memory
    store.approve(new.id)
    assert store.get(hanoi.id).superseded_by == new.id and store.get(new.id).status == "approved"
    undone = store.undo()
    assert undone.action == "approve" and sorted(undone.memory_ids) == sorted([hanoi.id, new.id])
    assert store.get(hanoi.id).superseded_by is None and store.get(new.id).status == "pending"


def test_approving_with_nothing_to_replace_keeps_the_old_record(store, hanoi):
    new = store.propose("I moved from Hanoi to Da Nang last month.", "identity", user="an").memory
    store.approve(new.id, replaces=[])
    assert store.get(hanoi.id).superseded_by is None and store.get(new.id).status == "approved"


def test_correction_policy_auto_stores_and_supersedes_in_one_undo_step(store, hanoi):
    store.set_setting("memory.writePolicy", "allow")
    store.set_setting("memory.correctionPolicy", "auto")
    result = store.propose("We moved to Vung Tau in March.", "identity", user="an")
    assert result.outcome == "approved" and f"superseded #{hanoi.id}" in result.message
    assert store.get(hanoi.id).superseded_by == result.memory.id
    store.undo(of=("assistant",))  # the assistant made this change: the owner undoes it by name
    assert store.get(hanoi.id).superseded_by is None
    assert all(m.text != "We moved to Vung Tau in March." for m in store.list())


def test_a_contradiction_is_queued_even_under_allow_and_auto(store, clock):
    store.set_setting("memory.writePolicy", "allow")
    store.set_setting("memory.correctionPolicy", "auto")
    yes = store.add("project_context", "Production deployment is allowed.", user="an")
    clock.advance(60)
    result = store.propose("Production deployment is not allowed.", "project_context", user="an")
    assert result.outcome == "pending" and result.conflicts == (yes.id,)
    assert store.get(yes.id).superseded_by is None


def test_unrelated_and_other_users_memories_change_nothing(store, hanoi):
    store.set_setting("memory.writePolicy", "allow")
    assert store.propose("I have a cat named Mochi.", "note", user="an").outcome == "approved"
    assert store.propose("I moved to Da Nang.", "identity", user="binh").outcome == "approved"
    assert store.get(hanoi.id).superseded_by is None


def test_find_related_orders_corrections_first(store, clock):
    store.add("identity", "I live in Hue.", user="an")
    clock.advance(60)
    store.add("preference", "I love durian.", user="an")
    related = find_related(store, "I moved to Da Lat and I hate durian now.", "an")
    assert [r.relation.kind for r in related][:1] == ["correction"]


def test_correction_policy_is_a_declared_setting(store):
    assert store.get_setting("memory.correctionPolicy") == "ask"
    with pytest.raises(InvalidValueError, match="ask, auto"):
        store.set_setting("memory.correctionPolicy", "always")


def test_cli_pending_inspect_and_approve(run, store, hanoi):
    new = store.propose("I moved from Hanoi to Da Nang last month.", "identity", user="an").memory
    listing = run("memory", "pending")
    assert f"replaces #{hanoi.id}: User lives in Hanoi." in listing.output
    inspect = run("memory", "pending", "inspect", str(new.id))
    assert f"replaces #{hanoi.id}" in inspect.output
    assert "same subject: owner; attribute: residence; Hanoi → Da Nang" in inspect.output
    data = json.loads(run("memory", "pending", "inspect", str(new.id), "--json").output)
    assert data["related"][0]["id"] == hanoi.id and data["related"][0]["kind"] == "correction"
    approved = run("memory", "approve", str(new.id))
    assert approved.exit_code == 0 and f"superseded #{hanoi.id}" in approved.output
    assert store.get(hanoi.id).superseded_by == new.id


def test_cli_approve_keep_old(run, store, hanoi):
    new = store.propose("I moved from Hanoi to Da Nang last month.", "identity", user="an").memory
    assert run("memory", "approve", str(new.id), "--keep-old").exit_code == 0
    assert store.get(hanoi.id).superseded_by is None and store.get(new.id).status == "approved"


def test_cli_compare_ids_and_texts(run, store, hanoi):
    out = run("memory", "compare", str(hanoi.id), "I moved from Hanoi to Da Nang last month.")
    assert out.exit_code == 0
    assert out.output.startswith("correction: same subject: owner; attribute: residence; Hanoi → Da Nang")
    data = json.loads(run("memory", "compare", "Device A is an Asus", "Device A is a Lenovo now", "--json").output)
    assert data["relation"]["kind"] == "correction" and data["older"]["text"] == "Device A is an Asus"
    # two ids: the older record is the older statement whatever the order typed
    newer = store.add("identity", "We moved to Vung Tau in March.", user="an")
    swapped = json.loads(run("memory", "compare", f"#{newer.id}", str(hanoi.id), "--json").output)
    assert swapped["older"]["id"] == hanoi.id and swapped["relation"]["kind"] == "correction"


def test_cli_compare_bad_input(run):
    missing = run("memory", "compare", "404", "anything")
    assert missing.exit_code == 1 and "no memory with id 404" in missing.output
    assert run("memory", "compare", "only one").exit_code == 2
    assert run("memory", "compare", "  ", "text").exit_code == 2


def test_cli_compare_refuses_one_memory_given_twice(run, store, hanoi):
    out = run("memory", "compare", str(hanoi.id), f"#{hanoi.id}")
    assert out.exit_code == 2 and f"#{hanoi.id} given twice" in out.output


def test_cli_compare_refuses_a_text_longer_than_a_memory_and_quotes_text_as_data(run):
    long = run("memory", "compare", "I keep bees. " * 400, "I keep bees.")
    assert long.exit_code == 2 and "at most 4,000" in long.output
    odd = run("memory", "compare", "I like [bold red]tea[/]\x1b[31m now", "I like [bold red]tea[/]\x1b[31m")
    assert odd.exit_code == 0 and "\x1b" not in odd.output and "[bold red]" in odd.output


def test_cli_compare_says_whether_the_evidence_is_strong(run):
    out = run("memory", "compare", "I live in Hue.", "I moved to Can Tho last month.").output
    assert out.startswith("correction:") and "(strong evidence: a default action may follow)" in out
