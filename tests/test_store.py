"""The store facade: write policy, duplicates, lifecycle changes, events and undo."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from bestie_tui.errors import InvalidValueError, NotFoundError, PolicyError, SecretRefusedError
from bestie_tui.retrieval.search import search
from bestie_tui.store.models import Event, Memory

pytestmark = pytest.mark.both_engines


def test_propose_under_ask_queues_pending(store):
    result = store.propose("Prefers concise replies", "communication_preference", user="linh")
    assert result.outcome == "pending"
    row = Memory.get_by_id(result.memory.id)
    assert (row.status, row.user, row.source) == ("pending", "linh", "assistant")


def test_propose_under_allow_stores_approved_and_deny_refuses(store):
    store.set_setting("memory.writePolicy", "allow")
    assert store.propose("Lives in Hà Nội", "identity", user="linh").outcome == "approved"
    store.set_setting("memory.writePolicy", "deny")
    with pytest.raises(PolicyError, match="deny"):
        store.propose("Likes phở", "preference")
    assert store.count() == 1


def test_paused_memory_refuses_assistant_writes_but_owner_can_browse(store):
    store.add("preference", "Likes green tea")
    store.pause()
    with pytest.raises(PolicyError, match="paused"):
        store.propose("Likes black coffee", "preference")
    assert [m.text for m in store.list()] == ["Likes green tea"]
    store.resume()
    assert store.propose("Likes black coffee", "preference").outcome == "pending"


@pytest.mark.parametrize("text", [
    "my password is hunter2",
    "The API key is sk-proj-abcdefghijklmnop1234567890",
    "card 4111 1111 1111 1111 exp 12/29",
    "IBAN DE89 3704 0044 0532 0130 00",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow",
    "your verification code is 482913",
    "mật khẩu wifi là matkhau123",
])
def test_secret_is_refused_and_written_nowhere(store, db_path, engine, text):
    with pytest.raises(SecretRefusedError) as info:
        store.propose(text, "note")
    secret_part = text.split()[-1]
    assert secret_part not in str(info.value)
    assert store.count() == 0 and Event.select().count() == 0
    store.close()
    if engine == "sqlite":  # no byte of it in the file, its WAL or its shared memory
        raw = b"".join(p.read_bytes() for p in db_path.parent.glob("memory.db*"))
        assert secret_part.encode() not in raw


def test_luhn_invalid_number_is_not_a_card(store):
    assert store.propose("Order number 4111 1111 1111 1112 shipped", "note").outcome == "pending"


def test_owner_can_store_a_secret_when_asking_explicitly(store):
    m = store.add("note", "garage PIN: 4821", allow_secret=True)
    assert m.status == "approved"
    with pytest.raises(SecretRefusedError):
        store.add("note", "garage PIN: 4822")


def test_normalised_duplicate_creates_nothing_and_reinforces(store):
    first = store.add("preference", "User prefers Vietnamese.", confidence=0.8)
    result = store.propose("  user PREFERS   vietnamese ", "preference")
    assert result.outcome == "duplicate" and result.memory.id == first.id
    assert store.count() == 1
    assert store.get(first.id).confidence == pytest.approx(0.85)
    again = store.add("preference", "User prefers Vietnamese")
    assert again.id == first.id and store.count() == 1


def test_duplicates_are_per_user(store):
    store.add("preference", "Likes durian", user="a")
    assert store.propose("Likes durian", "preference", user="b").outcome == "pending"


def test_every_change_writes_an_event_with_actor_time_before_after(store, clock):
    m = store.propose("Likes hiking", "preference").memory
    clock.advance(60)
    store.approve(m.id)
    events = store.history(m.id)
    assert [e.action for e in events] == ["approve", "propose"]
    approve = events[0]
    assert approve.actor == "owner" and approve.at == datetime(2026, 11, 30, 12, 1)
    assert approve.before["status"] == "pending" and approve.after["status"] == "approved"


def test_lifecycle_changes_and_undo(store):
    m = store.add("preference", "Likes jazz")
    store.pin(m.id)
    assert store.get(m.id).pinned
    store.move(m.id, "core")
    moved = store.get(m.id)
    assert moved.scope == "core" and moved.layer == "core"  # asked for core: it goes to core, pinned or not
    store.unpin(m.id)
    store.move(m.id, "core")
    assert store.get(m.id).layer == "core"
    store.forget(m.id)
    assert store.get(m.id).status == "forgotten" and store.get(m.id).tier == "archive"
    assert "forget" in store.undo().message
    assert store.get(m.id).status == "approved"
    store.undo()  # the second move
    store.undo()  # the unpin
    store.undo()  # the first move
    assert store.get(m.id).layer == "working"


def test_a_pinned_memory_moved_elsewhere_keeps_its_layer(store):
    m = store.add("preference", "Likes jazz", scope="core")
    store.pin(m.id)
    moved = store.move(m.id, "session")
    assert (moved.scope, moved.layer) == ("session", "core")


def test_edit_then_approve_is_one_undo_step(store):
    m = store.propose("Likes hikng", "preference").memory
    store.approve(m.id, text="Likes hiking")
    assert (store.get(m.id).status, store.get(m.id).text) == ("approved", "Likes hiking")
    store.undo()
    assert (store.get(m.id).status, store.get(m.id).text) == ("pending", "Likes hikng")


def test_undo_of_a_creation_removes_it_and_keeps_the_log(store):
    m = store.add("note", "Temporary")
    store.undo()
    with pytest.raises(NotFoundError):
        store.get(m.id)
    assert [e.action for e in store.history(m.id)] == ["undo", "add"]


def test_undo_with_nothing_to_undo(store):
    with pytest.raises(NotFoundError, match="nothing to undo"):
        store.undo()


def test_reject_all_is_one_undoable_batch(store):
    ids = [store.propose(t, "note").memory.id for t in ("one fact", "two facts", "three facts")]
    assert store.reject_all(ids[:2]) == 2
    assert [store.get(i).status for i in ids] == ["rejected", "rejected", "pending"]
    store.undo()
    assert [store.get(i).status for i in ids] == ["pending"] * 3


def test_supersede_rules(store):
    old = store.add("decision", "Deploys on Fridays")
    new = store.add("decision", "Deploys on Tuesdays")
    with pytest.raises(InvalidValueError):
        store.supersede(old.id, old.id)
    store.supersede(old.id, new.id)
    assert store.get(old.id).superseded_by == new.id and store.get(old.id).tier == "archive"
    with pytest.raises(InvalidValueError, match="superseded by"):
        store.supersede(new.id, old.id)
    store.restore(old.id)
    assert store.get(old.id).superseded_by is None


def test_unknown_ids_and_bad_values(store):
    with pytest.raises(NotFoundError, match="no memory with id 42"):
        store.pin(42)
    with pytest.raises(InvalidValueError, match="scope"):
        store.add("note", "x y", scope="galaxy")
    with pytest.raises(InvalidValueError, match="TTL"):
        store.add("note", "x y", ttl="soonish")
    with pytest.raises(InvalidValueError, match="at least one word"):
        store.add("note", "  ...  ")
    assert store.count() == 0


def test_ttl_sets_expires_at(store):
    m = store.add("note", "On call this week", ttl="7d")
    assert m.expires_at == datetime(2026, 12, 7, 12, 0)
    assert store.set_ttl(m.id, "2 weeks").expires_at == datetime(2026, 12, 14, 12, 0)


def test_search_is_case_accent_and_inflection_tolerant(store):
    store.add("identity", "Lives in Hà Nội")
    store.add("communication_preference", "Prefers concise replies")
    store.add("preference", "Enjoys hiking in Sa Pa")
    assert [m.text for m in search(store, "hanoi")] == ["Lives in Hà Nội"]
    assert [m.text for m in search(store, "HA NOI")] == ["Lives in Hà Nội"]
    assert [m.text for m in search(store, "concise")] == ["Prefers concise replies"]
    assert [m.text for m in search(store, "reply")] == ["Prefers concise replies"]
    assert [m.text for m in search(store, "hikes")] == ["Enjoys hiking in Sa Pa"]
    assert search(store, "durian") == []


def test_list_filters_and_tiers(store):
    core = store.add("identity", "Name is Linh", scope="core")
    work = store.add("note", "Project uses Postgres")
    gone = store.add("note", "Old laptop is a ThinkPad")
    store.forget(gone.id)
    pending = store.propose("Maybe likes tea", "preference").memory
    assert [m.id for m in store.list(tier="core")] == [core.id]
    assert [m.id for m in store.list(tier="working")] == [work.id]
    assert [m.id for m in store.list(tier="archive")] == [gone.id]
    assert [m.id for m in store.list(status="pending")] == [pending.id]
    assert store.tier_counts() == {"core": 1, "working": 1, "archive": 1, "pending": 1}
    assert [m.id for m in store.list(scope="core")] == [core.id]


def test_messages_log_search_and_roles(store):
    store.log_message("user", "Nhắc mình đi Hà Nội thứ Sáu")
    store.log_message("assistant", "Sure, reminder set")
    assert [m.role for m in store.messages(role="assistant")] == ["assistant"]
    assert [m.text for m in store.messages(query="ha noi")] == ["Nhắc mình đi Hà Nội thứ Sáu"]
    with pytest.raises(InvalidValueError):
        store.log_message("robot", "hi")


def test_settings_are_validated_and_undoable(store):
    with pytest.raises(InvalidValueError):
        store.set_setting("memory.writePolicy", "sometimes")
    store.set_setting("memory.writePolicy", "allow")
    store.undo()
    assert store.write_policy == "ask"


def test_event_log_stores_snapshots_as_json(store):
    m = store.add("note", "Text with [bold]markup[/bold]")
    raw = Event.get(Event.memory_id == m.id)
    assert json.loads(raw.after)["text"] == "Text with [bold]markup[/bold]"


def test_edit_then_approve_runs_the_secret_guard(store):
    m = store.propose("Wifi at the office", "note").memory
    with pytest.raises(SecretRefusedError):
        store.approve(m.id, text="Wifi password is Tr0ub4dor&3")
    assert store.get(m.id).status == "pending" and store.get(m.id).text == "Wifi at the office"


def test_an_id_freed_by_undo_is_never_reused(store):
    gone = store.add("note", "Added by mistake")
    store.undo()
    fresh = store.add("note", "Something else")
    assert fresh.id != gone.id
    assert [e.action for e in store.history(fresh.id)] == ["add"]


def test_undo_names_a_batch_by_what_the_owner_did(store):
    ids = [store.propose(t, "note").memory.id for t in ("one fact", "two facts")]
    store.reject_all(ids)
    assert store.undo().message.startswith("undid reject-all (2 changes)")


def test_restore_by_state_rejected_to_pending_archived_to_its_layer_active_refused(store, run):
    from bestie_tui.errors import InvalidValueError
    from bestie_tui.store.models import Memory

    proposal = store.propose("Prefers window seats on trains.", "preference")
    store.reject(proposal.memory.id)
    shown = run("memory", "restore", str(proposal.memory.id))
    assert shown.exit_code == 0 and "pending again" in shown.output
    assert store.get(proposal.memory.id).status == "pending"
    archived = store.add("preference", "Used a paper planner in 2024.")
    Memory.update(layer="archive").where(Memory.id == archived.id).execute()
    back = store.restore(archived.id)
    assert (back.status, back.layer) == ("approved", "working")
    assert store.restore_message(store.get(archived.id), back).startswith(f"Restored #{archived.id}")
    with pytest.raises(InvalidValueError, match="already active \\(in working\\)"):
        store.restore(archived.id)
    forgotten = store.add("preference", "Likes grey notebooks.")
    store.forget(forgotten.id)
    assert store.restore(forgotten.id).layer == "working"
