"""Forgetting leaves no words behind (issue 30, cdeust/Cortex #366): a forgotten memory's sentence is
never quoted by recall; ``forget --messages`` (and ``deletePolicy allow``) redacts it from the
messages that state it and ``--purge`` does it for good; ``messages forget ID…`` removes single
messages, undoable until ``memory.undoRetentionDays`` has passed, then gone from the index and the
file; the assistant never revives what the owner forgot."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from bestie_tui.agent.forget_requests import confirm_forget, request_forget
from bestie_tui.conversation.proposals import propose_from_turn
from bestie_tui.errors import InvalidValueError, NotFoundError
from bestie_tui.retrieval.assembly import RECALL_TITLE
from bestie_tui.retrieval.recall import recall
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.store.message_forget import REDACTED, redact_text, stated_spans, states
from bestie_tui.transfer.erase import purge_history
from tests.conftest import stored_bytes

pytestmark = pytest.mark.both_engines

SAID = "My therapist is Dr. Lan at the Hoan Kiem clinic, I see her on Mondays."
FACT = "My therapist is Dr. Lan at the Hoan Kiem clinic"
QUERY = "who is my therapist"


def _seed(store) -> int:
    store.log_message("user", "Planning the week ahead with you.", user="ana", session="s1")
    store.log_message("user", SAID, user="ana", session="s1")
    store.log_message("assistant", "Noted, Mondays are busy then.", user="ana", session="s1")
    return store.add("fact", FACT, user="ana").id


def _recall_block(run) -> str:
    result = run("memory", "recall", QUERY, "--user", "ana")
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_issues_steps_recall_no_longer_quotes_the_forgotten_sentence(run, db_path):
    store = MemoryStore(db_path)
    memory_id = _seed(store)
    store.close()
    assert "Hoan Kiem" in _recall_block(run)  # before the forget the turn is recalled, as it should be

    forgot = run("memory", "forget", str(memory_id))
    assert forgot.exit_code == 0, forgot.output
    assert f"1 message (#2) states it: bestie memory forget {memory_id} --messages redacts it" in forgot.stdout
    block = _recall_block(run)
    assert "Hoan Kiem" not in block and "therapist" not in block
    out = json.loads(run("memory", "recall", QUERY, "--user", "ana", "--json").stdout)
    assert all("Hoan Kiem" not in h["line"] for h in out["history"])
    store = MemoryStore(db_path)
    assert store.messages(query="Kiem")[0].text == SAID  # offered, not done: the message is as written
    store.close()

    redacted = run("memory", "forget", str(memory_id), "--messages")
    assert redacted.exit_code == 0, redacted.output
    assert redacted.stdout.splitlines() == [f"#{memory_id} was already forgotten",
                                            "  redacted it from 1 message (#2); undo gives the text back"]
    store = MemoryStore(db_path)
    assert store.messages(user="ana", limit=3)[1].text == f"{REDACTED}, I see her on Mondays."
    assert recall(store, "Hoan Kiem clinic", "ana") == []  # the index forgot the words too
    store.close()


def test_forget_with_messages_is_one_undo_step_that_gives_the_text_back(store):
    memory_id = _seed(store)
    result = store.forget_result(memory_id, messages=True)
    assert (result.memory.status, result.redacted, result.stating) == ("forgotten", (2,), ())
    assert [m.text for m in store.messages(limit=None)][1] == f"{REDACTED}, I see her on Mondays."
    undone = store.undo()
    assert "gave back the text of message #2" in undone.message
    assert store.get(memory_id).status == "approved"
    assert [m.text for m in store.messages(limit=None)][1] == SAID
    assert 2 in [h.message.id for h in recall(store, "Hoan Kiem clinic", "ana")]


def test_recall_in_the_pack_and_the_agent_call_never_quotes_a_forgotten_memory(store):
    from bestie_tui.agent.turns import recall as agent_recall
    from bestie_tui.conversation.pack import memory_block

    memory_id = _seed(store)
    store.log_message("user", "My therapist also runs a group on Thursdays in Tay Ho.", user="ana", session="s2")
    store.forget(memory_id)
    block = agent_recall(store, QUERY, user="ana").block
    assert RECALL_TITLE in block and "Hoan Kiem" not in block and "Tay Ho" in block
    _pack, text = memory_block(store, QUERY, "ana", None, None, 600, "chars4")
    assert "Hoan Kiem" not in text and "Tay Ho" in text


def test_a_direct_build_context_with_history_never_quotes_a_forgotten_memory(store):
    from bestie_tui.retrieval.assembly import build_context

    memory_id = _seed(store)
    store.log_message("user", "My therapist also runs a group on Thursdays in Tay Ho.", user="ana", session="s2")
    store.forget(memory_id)
    text = build_context(store, QUERY, "ana", history=True, session="s3").render()
    assert RECALL_TITLE in text and "Hoan Kiem" not in text and "Tay Ho" in text


def test_purge_redacts_the_messages_for_good_and_no_byte_of_the_text_stays(run, db_path):
    store = MemoryStore(db_path)
    memory_id = _seed(store)
    store.forget(memory_id, messages=True)
    store.undo()  # the undo event holds the message's text as it came back: the purge takes it too
    store.close()
    done = run("memory", "forget", str(memory_id), "--purge", "--yes")
    assert done.exit_code == 0, done.output
    # add, forget, its redaction and the undo of both: every event that held the sentence
    assert done.stdout.strip() == (f"purged #{memory_id} and the text of 5 history events and redacted it from "
                                   "1 message that stated it (not undoable)")
    store = MemoryStore(db_path)
    assert [m.text for m in store.messages(limit=None)][1] == f"{REDACTED}, I see her on Mondays."
    with pytest.raises(NotFoundError, match="purged"):
        store.undo()
    store.close()
    assert b"Hoan Kiem" not in stored_bytes(db_path)
    assert b"see her on Mondays" in stored_bytes(db_path)  # the rest of the message stays


def test_delete_policy_allow_redacts_on_every_forget_and_no_messages_opts_out(store):
    memory_id = _seed(store)
    store.set_setting("memory.deletePolicy", "allow")
    request_forget(store, memory_id, "she said so", user="ana")
    confirm_forget(store, memory_id)  # the owner confirms the assistant's request: the policy applies
    assert store.get(memory_id).status == "forgotten"
    assert REDACTED in store.messages(limit=None)[1].text
    other = store.add("fact", "Ana swims at the Ba Dinh pool on Fridays", user="ana")
    store.log_message("user", "Ana swims at the Ba Dinh pool on Fridays, usually.", user="ana")
    kept = store.forget_result(other.id, messages=False)
    assert kept.redacted == () and len(kept.stating) == 1
    assert "Ba Dinh" in store.messages(limit=1)[0].text


def test_messages_forget_removes_single_messages_undoably_then_for_good(store, clock, db_path):
    store.log_message("user", "Let me tell you about Quillmarsh, my secret novel.", user="ana", session="s1")
    store.log_message("assistant", "I'd love to hear more about it.", user="ana", session="s1")
    store.log_message("user", "Thanks for the help today.", user="ana", session="s1")
    assert [h.message.id for h in recall(store, "Quillmarsh novel", "ana")][:1] == [1]
    assert store.forget_messages([1]) == [1]
    assert [m.id for m in store.messages(limit=None)] == [3, 2]
    assert all(h.message.id != 1 and "Quillmarsh" not in h.message.text for h in recall(store, "Quillmarsh", "ana"))
    # the turn beside it was indexed with its text; that text is gone from the index as well
    assert recall(store, "Quillmarsh", "ana") == []

    undone = store.undo()
    assert undone.message.startswith("undid message-forget by owner on message #1")
    assert [m.id for m in store.messages(limit=None)] == [3, 2, 1] and store.messages(limit=None)[2].session == "s1"
    assert [h.message.id for h in recall(store, "Quillmarsh novel", "ana")][:1] == [1]

    store.forget_messages([1])
    clock.advance(timedelta(days=29).total_seconds())
    assert purge_history(store) == 0  # still inside the 30-day window: undo could bring it back
    clock.advance(timedelta(days=2).total_seconds())
    assert purge_history(store) == 3  # both forgets and the undo between them: each held the text
    with pytest.raises(NotFoundError, match="purged"):
        store.undo()
    store.close()
    assert b"Quillmarsh" not in stored_bytes(db_path)


def test_messages_forget_cli_says_what_it_did_and_refuses_an_unknown_id_whole(run, db_path):
    store = MemoryStore(db_path)
    for text in ("first turn here", "second turn here", "third turn here"):
        store.log_message("user", text, user="ana")
    store.close()
    gone = run("memory", "messages", "forget", "1", "3")
    assert gone.exit_code == 0 and gone.stdout.strip() == "forgot messages #1, #3 (undo brings them back for 30 days)"
    refused = run("memory", "messages", "forget", "2", "9")
    assert refused.exit_code == 1 and refused.stderr.strip() == "Error: no message with id 9; nothing was forgotten"
    assert run("memory", "messages", "forget").exit_code == 2
    assert run("memory", "messages", "forget", "--", "9223372036854775808").exit_code == 2  # past any id
    store = MemoryStore(db_path)
    with pytest.raises(NotFoundError, match="no message with id 9223372036854775808"):
        store.forget_messages([2, 2**63])
    assert [m.text for m in store.messages()] == ["second turn here"]
    store.close()
    assert "message #1" in run("memory", "history").stdout


@pytest.mark.parametrize("policy", ["allow", "ask"])
def test_the_assistant_never_revives_what_the_owner_forgot(store, policy):
    said = "I always want replies in Vietnamese."
    memory_id = store.add("communication_preference", said, user="ana").id
    store.forget(memory_id)
    store.set_setting("memory.writePolicy", policy)
    [again] = propose_from_turn(store, said, user="ana")  # the user says it again; the assistant proposes it
    assert again.outcome == "pending" and again.memory.id != memory_id
    assert again.message == f"queued #{again.memory.id} for the owner's review; it restates #{memory_id}, which the owner forgot"
    twice = store.propose(said, "note", user="ana")
    assert twice.outcome == "duplicate" and twice.memory.id == again.memory.id  # the queued twin, reinforced
    assert store.get(memory_id).status == "forgotten"
    assert store.add_result("note", said, user="ana").outcome == "approved"  # the owner still may


def test_what_states_a_memory():
    text = "Well, MY therapist is Dr Lan at the Hoàn Kiếm clinic!"
    [(start, end)] = stated_spans(text, "my therapist is Dr. Lan at the Hoan Kiem clinic")
    assert text[start:end] == "MY therapist is Dr Lan at the Hoàn Kiếm clinic"
    assert not states("Tôi dị ứng bò", "dị ứng bơ") and states("Tôi dị ứng bơ lắm", "di ung bo")
    assert not states("I like tea a lot", "tea")  # a one-word memory states nothing
    assert not states("my therapistis Dr. Lan", "my therapist is Dr. Lan")
    assert redact_text("I don't eat pork. Really, I don't eat pork!", "I don't eat pork") == (
        f"{REDACTED}. Really, {REDACTED}!", 2)


def test_forgetting_twice_without_messages_is_refused_and_changes_nothing(store):
    memory_id = _seed(store)
    store.forget(memory_id)
    with pytest.raises(InvalidValueError, match="already forgotten"):
        store.forget(memory_id)
    store.forget(memory_id, messages=True)
    with pytest.raises(InvalidValueError, match="no message states it"):
        store.forget(memory_id, messages=True)
