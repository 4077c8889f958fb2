"""``bestie memory log|propose-turn|recall|forget-requests``: the per-turn calls for any language."""

from __future__ import annotations

import json

from bestie_tui.store.memory_store import MemoryStore


def _json(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_log_stores_the_turn_with_its_binding_and_redacts_a_secret(run, db_path):
    out = _json(run("memory", "log", "user", "my PIN is 4821, remind me of lunch", "--user", "ana",
                    "--channel", "telegram:7", "--session", "s1", "--json"))
    assert out["message"]["text"] == "my PIN is [redacted: PIN], remind me of lunch"
    store = MemoryStore(db_path)
    [m] = store.messages()
    assert (m.role, m.user, m.channel, m.session) == ("user", "ana", "telegram:7", "s1")
    assert "4821" not in m.text
    store.close()


def test_log_refuses_an_unknown_role_as_usage(run):
    result = run("memory", "log", "robot", "hello there", "--user", "ana")
    assert result.exit_code == 2
    assert "robot" in result.output


def test_propose_turn_queues_lasting_statements_and_skips_questions_and_secrets(run, db_path):
    out = _json(run("memory", "propose-turn", "I always want replies in Vietnamese. What time is it? "
                    "My password is hunter22-rose", "--user", "ana", "--json"))
    assert [(p["outcome"], p["memory"]["text"]) for p in out["proposals"]] == [
        ("pending", "I always want replies in Vietnamese.")]
    store = MemoryStore(db_path)
    assert [(m.status, m.user) for m in store.list()] == [("pending", "ana")]
    assert "hunter22" not in json.dumps([m.to_dict() for m in store.list()])
    store.close()
    text = run("memory", "propose-turn", "How are you today?", "--user", "ana")
    assert text.output.strip() == "nothing to remember in this turn"


def test_recall_prints_the_block_of_this_users_approved_memories_and_records_access(run, db_path):
    store = MemoryStore(db_path)
    mine = store.add("preference", "Ana prefers replies in Vietnamese.", user="ana")
    store.add("preference", "Bob prefers replies in English.", user="bob")
    store.propose("Ana wants replies in French.", "preference", user="ana")  # pending: never recalled
    store.close()
    result = run("memory", "recall", "which language for replies", "--user", "ana")
    assert result.exit_code == 0, result.output
    assert "- Ana prefers replies in Vietnamese." in result.output.splitlines()
    assert "Bob" not in result.output and "French" not in result.output
    out = _json(run("memory", "recall", "which language for replies", "--user", "ana", "--json"))
    assert [m["id"] for m in out["memories"]] == [mine.id]
    assert out["block"].endswith("- Ana prefers replies in Vietnamese.")
    assert out["history"] == []
    store = MemoryStore(db_path)
    assert store.get(mine.id).access_count == 2
    store.close()


def test_forget_requests_wait_for_the_owner_who_confirms_or_dismisses(run, db_path):
    from bestie_tui.agent.forget_requests import request_forget

    store = MemoryStore(db_path)
    a = store.add("note", "Ana's gym is on Tran Phu street.", user="ana")
    b = store.add("note", "Ana likes the blue mug.", user="ana")
    request_forget(store, a.id, "she moved gyms", user="ana")
    request_forget(store, b.id, user="ana")
    assert store.get(a.id).status == "approved"  # asking forgets nothing
    store.close()
    listing = run("memory", "forget-requests")
    assert listing.output.splitlines() == [f"#{a.id}  Ana's gym is on Tran Phu street. — she moved gyms",
                                           f"#{b.id}  Ana likes the blue mug."]
    assert run("memory", "forget-requests", "confirm", str(a.id)).exit_code == 0
    assert run("memory", "forget-requests", "dismiss", str(b.id)).exit_code == 0
    store = MemoryStore(db_path)
    assert (store.get(a.id).status, store.get(b.id).status) == ("forgotten", "approved")
    store.close()
    assert run("memory", "forget-requests").output.strip() == "no forget requests"
    missing = run("memory", "forget-requests", "confirm", str(b.id))
    assert missing.exit_code == 1 and f"no forget request for memory #{b.id}" in missing.output
    assert run("memory", "undo").exit_code == 0
    store = MemoryStore(db_path)
    assert store.get(a.id).status == "approved"
    store.close()


def test_the_per_turn_commands_on_an_empty_store_and_odd_text(run):
    assert run("memory", "forget-requests", "confirm", "99").exit_code == 1
    assert run("memory", "forget-requests", "dismiss", "abc").exit_code == 2
    empty = run("memory", "recall", "", "--user", "u")
    assert empty.exit_code == 1 and "query is empty" in empty.output
    odd = run("memory", "recall", "--user", "u", "--", "\x1b]52;c;aGk=\x07 tea")
    assert odd.exit_code == 0 and "\x1b" not in odd.output
    blank = run("memory", "propose-turn", "--user", "u", "--", "   ")
    assert blank.exit_code == 1 and "text is empty" in blank.output


def test_recall_says_which_channel_holds_the_turns_governance_kept_out(run, db_path):
    store = MemoryStore(db_path)
    store.log_message("user", "I went kayaking at Ha Long bay with my cousin Minh", user="ana",
                      channel="chatgpt", session="c1")
    store.close()
    plain = run("memory", "recall", "kayaking at Ha Long bay", "--user", "ana")
    assert plain.exit_code == 0
    assert "From past conversations" not in plain.stdout
    assert "1 past turn(s) matching this are in channel 'chatgpt'" in plain.stderr
    assert "add --channel 'chatgpt'" in plain.stderr
    out = _json(run("memory", "recall", "kayaking at Ha Long bay", "--user", "ana", "--json"))
    assert out["history"] == [] and out["outside_scope"] == [{"channel": "chatgpt", "turns": 1}]
    seen = _json(run("memory", "recall", "kayaking at Ha Long bay", "--user", "ana", "--channel", "chatgpt", "--json"))
    assert "I went kayaking at Ha Long bay with my cousin Minh" in seen["history"][0]["line"]
    assert seen["outside_scope"] == []
