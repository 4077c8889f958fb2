"""Tenancy: many users in one database. A store bound to a user (``MemoryStore(path, user=U)``,
``store.for_user(U)``), the CLI bound with ``bestie --user U …`` and the MCP server (``bestie mcp
--user U``) reach none of another user's memories, messages, history or forget requests; per-user
export and erase leave the other user's rows intact. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from bestie_tui.agent import forget_requests
from bestie_tui.errors import InvalidValueError, NotFoundError
from bestie_tui.hygiene.health import hygiene_status, trend
from bestie_tui.maintenance.digest import digest_log, put_record
from bestie_tui.retrieval.assembly import build_context
from bestie_tui.retrieval.recall import recall as recall_history
from bestie_tui.retrieval.search import search
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.transfer.erase import erase_user
from bestie_tui.transfer.exchange import export_data
from bestie_tui.transfer.full_export import export_full

pytestmark = pytest.mark.both_engines

#: The word only Bob's rows hold: no output bound to Alice may show it.
BOB_WORD = "Quokka"


@pytest.fixture
def tenants(store):
    """Two users with the same words in their rows ("tea", "postcards") and one distinctive word each."""
    ids = {
        "alice": store.add("preference", "Alice drinks Zebrafinch tea with postcards", user="alice").id,
        "alice_note": store.add("note", "Alice keeps Zebrafinch postcards in a tea tin", user="alice").id,
        "bob": store.add("preference", "Bob drinks Quokka tea with postcards", user="bob").id,
        "bob_note": store.add("note", "Bob keeps Quokka postcards in a tea tin", user="bob").id,
    }
    ids["bob_pending"] = store.propose("Bob wants Quokka tea postcards every week", "preference", user="bob").memory.id
    store.log_message("user", "Alice asks about tea and postcards Zebrafinch", user="alice", session="a1")
    store.log_message("user", "Bob asks about tea and postcards Quokka", user="bob", session="b1")
    forget_requests.request_forget(store, ids["bob_note"], "Quokka reason", user="bob")
    # the owner's digest of the whole database, as the maintenance job records it: it quotes Bob
    put_record(store, "digest.log", [{"at": "2026-11-29T08:00:00", "channel": "telegram:1", "outcome": "failed",
                                      "error": "timeout", "parts": 0, "total_parts": 0, "health": 90.0,
                                      "text": "Pending: Bob wants Quokka tea postcards every week"}])
    store.edit(ids["bob"], "Bob drinks Quokka tea with many postcards")  # the newest change is Bob's
    return ids


def test_unbound_owner_sees_both_users(tenants, run):
    """The control: without a binding Bob's rows show, so the checks below can fail."""
    assert BOB_WORD in run("memory", "list").output
    assert BOB_WORD in run("memory", "digest", "--last").output
    assert BOB_WORD in run("context", "pack", "--task", "tea postcards", "--json").output
    assert BOB_WORD in run("memory", "messages").output
    assert BOB_WORD in run("memory", "search", "tea").output


def test_python_api_bound_to_alice_reaches_none_of_bobs_rows(tenants, db_path, store):
    alice = store.for_user("alice")
    try:
        assert alice.user == "alice"
        texts = [m.text for m in alice.list()]
        assert len(texts) == 2 and all("Zebrafinch" in t for t in texts)
        assert all(BOB_WORD not in m.text for m in search(alice, "tea"))
        assert [m.text for m in alice.messages(limit=None)] == ["Alice asks about tea and postcards Zebrafinch"]
        assert alice.message_count() == 1 and alice.count() == 2 and alice.pending() == []
        hits = recall_history(alice, "tea postcards", "alice")
        assert hits and all(BOB_WORD not in h.message.text for h in hits)
        pack = build_context(alice, "tea postcards", "alice")
        assert "Zebrafinch" in pack.text and BOB_WORD not in pack.text
        assert all(BOB_WORD not in x.text for x in pack.left_out)
        assert all(BOB_WORD not in json.dumps([e.before, e.after]) for e in alice.history())
        assert forget_requests.pending_forgets(alice) == [] and digest_log(alice) == []
        bob = store.for_user("bob")
        hygiene_status(bob)  # Bob's doctor run is his
        bob.close()
        assert len(trend(store)) == 1 and trend(alice) == []
        assert BOB_WORD not in json.dumps(export_data(alice))
        for bob_id in (tenants["bob"], tenants["bob_pending"]):
            with pytest.raises(NotFoundError):
                alice.get(bob_id)
            with pytest.raises(NotFoundError):
                alice.forget(bob_id)
            with pytest.raises(NotFoundError):
                alice.edit(bob_id, "Alice took this one over")
        with pytest.raises(InvalidValueError, match="bound to user 'alice'"):
            alice.add("note", "A note for Bob", user="bob")
        with pytest.raises(InvalidValueError, match="bound to user 'alice'"):
            export_data(alice, user="bob")
        with pytest.raises(InvalidValueError, match="bound to user 'alice'"):
            erase_user(alice, "bob")
        with pytest.raises(InvalidValueError, match="whole database"):
            alice.set_setting("memory.writePolicy", "allow")
        with pytest.raises(InvalidValueError, match="whole database"):
            export_full(alice)
        added = alice.add("note", "Alice adds a note with no user named")
        assert added.user == "alice"  # a bound store's new rows are its user's
        alice.undo()  # undoes Alice's add, never Bob's newer edit
        alice.undo()  # and the next: Alice's own older change, not Bob's
        assert store.get(tenants["bob"]).text == "Bob drinks Quokka tea with many postcards"
    finally:
        alice.close()


def test_every_cli_command_family_bound_to_alice_shows_none_of_bobs_rows(tenants, run, store):
    bob, pending, alice_id = tenants["bob"], tenants["bob_pending"], tenants["alice"]
    reads = [
        ["list"], ["list", "--json"], ["search", "tea"], ["search", "Quokka", "--json"], ["history"],
        ["history", "--json"], ["recall", "tea postcards"], ["recall", "tea postcards", "--json"],
        ["context", "tea postcards"], ["governance", "status"], ["analyze"], ["digest"], ["summary"],
        ["tiers"], ["status", "--json"], ["pending"], ["pending", "search", "tea"], ["forget-requests"],
        ["forget-requests", "--json"], ["export"], ["export", "--format", "openclaw"], ["messages"],
        ["messages", "--json"], ["messages", "search", "tea postcards"], ["cleanup", "--dry-run"],
        ["hygiene", "--dry-run"], ["rebalance", "--dry-run"], ["inspect", str(alice_id)],
        ["compare", str(alice_id), "Someone drinks tea with postcards"], ["config"],
        ["config", "--json"], ["hygiene", "status"], ["hygiene", "trend"], ["hygiene", "doctor"],
    ]
    for args in reads:
        out = run("--user", "alice", "memory", *args)
        assert out.exit_code == 0, (args, out.output)
        assert BOB_WORD not in out.output and "'bob'" not in out.output and '"bob"' not in out.output, args
    for args in (["--user", "alice", "context", "pack", "--task", "tea postcards", "--json"],
                 ["context", "--user", "alice", "pack", "--task", "tea postcards", "--json"]):
        packed = run(*args)
        assert packed.exit_code == 0 and "Zebrafinch" in packed.output and BOB_WORD not in packed.output, packed.output
    last = run("--user", "alice", "memory", "digest", "--last")  # the owner's digest is not Alice's
    assert last.exit_code == 1 and "no digest has been recorded yet" in last.output
    also_group = run("memory", "--user", "alice", "list")  # the option on the memory group too
    assert also_group.exit_code == 0 and BOB_WORD not in also_group.output and "Zebrafinch" in also_group.output

    bobs = [["inspect", str(bob)], ["edit", str(bob), "Alice took it"], ["forget", str(bob)], ["pin", str(bob)],
            ["unpin", str(bob)], ["approve", str(pending)], ["reject", str(pending)], ["restore", str(bob)],
            ["supersede", str(bob), str(alice_id)], ["move", str(bob), "--scope", "core"],
            ["expire", str(bob), "7d"], ["compare", str(bob), str(alice_id)], ["pending", "inspect", str(pending)],
            ["forget-requests", "confirm", str(tenants["bob_note"])]]
    for args in bobs:
        out = run("--user", "alice", "memory", *args)
        assert out.exit_code == 1, (args, out.output)
        assert BOB_WORD not in out.output, args
    for args in (["memory", "export", "--user", "bob"], ["memory", "erase", "--user", "bob", "--yes"],
                 ["memory", "search", "tea", "--user", "bob"],
                 ["context", "pack", "--task", "tea", "--user", "bob"]):
        out = run("--user", "alice", *args)
        assert out.exit_code == 2 and "bound to user 'alice'" in out.output, (args, out.output)
        assert "it cannot reach user 'bob'" in out.output  # both names whole, none cut as one value
    full = run("--user", "alice", "memory", "export", "--full")
    assert full.exit_code == 2 and "whole database" in full.output
    assert run("--user", "alice", "memory", "config", "memory.writePolicy", "allow").exit_code == 1
    assert run("--user", "alice", "memory", "clear", "--yes").exit_code == 1
    assert run("--user", "alice", "memory", "reject-all", "--yes").exit_code == 0
    assert run("--user", "alice", "memory", "add", "note", "Alice adds a Zebrafinch fact").exit_code == 0
    assert run("--user", "alice", "memory", "undo").exit_code == 0
    assert run("--user", "alice", "memory", "undo").exit_code == 0
    # Bob's rows are as they were: his pending proposal, his newest edit, his forget request
    assert store.get(pending).status == "pending"
    assert store.get(bob).text == "Bob drinks Quokka tea with many postcards" and store.get(bob).status == "approved"
    assert [i["memory_id"] for i in forget_requests.pending_forgets(store)] == [tenants["bob_note"]]
    # the two undos took back Alice's add and then her own newest change left (her note), not Bob's edit
    assert [m.id for m in store.list(user="alice")] == [alice_id]


def test_per_user_export_and_erase_leave_the_other_user_intact(tenants, run, store):
    exported = json.loads(run("--user", "alice", "memory", "export").output)
    assert {m["user"] for m in exported["memories"]} == {"alice"} and len(exported["memories"]) == 2
    assert [m["text"] for m in exported["messages"]] == ["Alice asks about tea and postcards Zebrafinch"]
    assert BOB_WORD not in json.dumps(exported)
    erased = run("--user", "alice", "memory", "erase", "--user", "alice", "--yes")
    assert erased.exit_code == 0, erased.output
    assert "erased user 'alice': 2 memories, 1 messages" in erased.output
    backup = Path(erased.output.split("backup of the database before the erase:")[1].split()[0])
    assert b"Zebrafinch" in backup.read_bytes() and BOB_WORD.encode() in backup.read_bytes()  # the whole database
    assert store.list(user="alice") == [] and store.messages(user="alice") == []
    assert sorted(m.text for m in store.list(user="bob")) == [
        "Bob drinks Quokka tea with many postcards", "Bob keeps Quokka postcards in a tea tin",
        "Bob wants Quokka tea postcards every week"]
    assert [m.text for m in store.messages(user="bob")] == ["Bob asks about tea and postcards Quokka"]
    assert [i["user"] for i in forget_requests.pending_forgets(store)] == ["bob"]
    bob_export = json.loads(run("--user", "bob", "memory", "export").output)
    assert len(bob_export["memories"]) == 3 and "Zebrafinch" not in json.dumps(bob_export)


def test_a_bound_import_writes_only_its_users_rows(tenants, run, store, tmp_path):
    bobs = tmp_path / "bob.json"
    bobs.write_text(run("memory", "export", "--user", "bob").output)
    before = len(store.list())
    refused = run("--user", "alice", "memory", "import", str(bobs))
    assert refused.exit_code == 1 and "bound to user 'alice'" in refused.output and BOB_WORD not in refused.output
    assert len(store.list()) == before  # nothing written
    data = json.loads(run("memory", "export", "--user", "alice").output)
    data["memories"] = [{**data["memories"][0], "text": "Alice sings to the Zebrafinch", "user": None}]
    data["messages"] = []
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps(data))  # a record that names no user: the bound import makes it Alice's
    assert run("--user", "alice", "memory", "import", str(mine)).exit_code == 0
    assert "Alice sings to the Zebrafinch" in [m.text for m in store.list(user="alice")]


def test_the_owner_user_reaches_unbound_records_and_no_other_user(tenants, store):
    store.add("note", "The owner's general Zebrafinch rule about tea")  # bound to no user
    assert store.for_user("alice").count() == 2  # not the owner: the unbound record is not hers
    store.set_setting("owner.user", "alice")
    owner = store.for_user("alice")
    try:
        assert owner.tenant is not None and owner.tenant.owner
        assert sorted(m.user or "" for m in owner.list()) == ["", "alice", "alice"]
        assert all(BOB_WORD not in m.text for m in owner.list())
    finally:
        owner.close()


def test_model_code_outside_any_binding_on_a_bound_store_is_filtered_too(db_path, clock):
    """A script that queries the models directly, with only Alice's store open, sees only hers."""
    from bestie_tui.store.models import Event, Memory, Message

    seeding = MemoryStore(db_path, clock=clock)
    seeding.add("note", "Alice keeps Zebrafinch postcards", user="alice")
    seeding.add("note", "Bob keeps Quokka postcards", user="bob")
    seeding.log_message("user", "Bob says Quokka", user="bob")
    seeding.close()
    alice = MemoryStore(db_path, clock=clock, user="alice")
    try:
        assert [m.text for m in Memory.select()] == ["Alice keeps Zebrafinch postcards"]
        assert Message.select().count() == 0 and Event.select().count() == 1
        assert Memory.update(text="overwritten").execute() == 1  # Bob's row is out of reach
        assert Memory.delete().execute() == 1
    finally:
        alice.close()
    whole = MemoryStore(db_path, clock=clock)
    try:
        assert [m.text for m in whole.list()] == ["Bob keeps Quokka postcards"]
    finally:
        whole.close()
    with pytest.raises(InvalidValueError, match="user id"):
        MemoryStore(db_path, user=" ")


def _field(obj, new: str, old: str):
    return getattr(obj, new) if new in type(obj).model_fields else getattr(obj, old)


def _payload(result) -> object:
    assert not _field(result, "is_error", "isError"), result.content
    data = _field(result, "structured_content", "structuredContent")
    if data is not None:
        return data.get("result", data) if set(data) == {"result"} else data
    return json.loads(result.content[0].text)


@pytest.mark.slow  # spawns the server process
async def test_every_mcp_tool_bound_to_alice_reaches_none_of_bobs_rows(tenants, db_path, store, tmp_path):
    mcp = pytest.importorskip("mcp")
    from mcp.client.stdio import stdio_client

    params = mcp.StdioServerParameters(command=sys.executable,
                                       args=["-m", "bestie_tui", "--db", str(db_path), "mcp", "--user", "alice"],
                                       env=dict(os.environ))
    errlog = (tmp_path / "server-stderr.txt").open("w+")
    async with stdio_client(params, errlog=errlog) as (read, write), mcp.ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        assert tools == {"recall", "remember", "log_message", "search", "forget_request"}
        recalled = _payload(await session.call_tool("recall", {"query": "tea postcards"}))
        assert recalled["memory_ids"] and BOB_WORD not in json.dumps(recalled)
        assert tenants["bob"] not in recalled["memory_ids"]
        found = _payload(await session.call_tool("search", {"query": "tea postcards"}))
        assert found and BOB_WORD not in json.dumps(found)
        for bob_id in (tenants["bob"], tenants["bob_note"]):
            refused = await session.call_tool("forget_request", {"memory_id": bob_id})
            assert _field(refused, "is_error", "isError") and BOB_WORD not in str(refused.content)
        remembered = _payload(await session.call_tool("remember", {"text": "Alice likes Zebrafinch songs.",
                                                                   "kind": "fact"}))
        logged = _payload(await session.call_tool("log_message", {"role": "user", "text": "Alice says hi"}))
    assert store.get(remembered["memory_id"]).user == "alice"
    assert [m.user for m in store.messages(limit=1)] == ["alice"] and logged["message_id"]
    assert store.get(tenants["bob"]).text == "Bob drinks Quokka tea with many postcards"
    assert [i["user"] for i in forget_requests.pending_forgets(store)] == ["bob"]


def _screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


@pytest.mark.slow  # drives every view of the console
async def test_every_console_view_bound_to_alice_shows_none_of_bobs_rows(tenants, store):
    from bestie_tui.tui.app import BestieApp

    async def texts(app, pilot) -> dict[str, str]:
        shown = {}
        for key in "1234567":
            await pilot.press(key)
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            shown[key] = _screen_text(app)
        await pilot.press("3", *"tea postcards", "enter")  # the Context view's request box
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown["context query"] = _screen_text(app)
        return shown

    owner_app = BestieApp(store, poll_interval=0)
    async with owner_app.run_test(size=(160, 50)) as pilot:
        assert BOB_WORD in (await texts(owner_app, pilot))["1"]  # the control: unbound, Bob shows
    store.set_setting("owner.user", "someone-else")  # the console's add binds to its user, not the owner
    alice = store.for_user("alice")
    try:
        app = BestieApp(alice, poll_interval=0)
        async with app.run_test(size=(160, 50)) as pilot:
            shown = await texts(app, pilot)
            await pilot.press("escape", "1", "n")
            await pilot.pause()
            await pilot.press(*"Alice adds Zebrafinch seeds", "ctrl+s")
            await pilot.pause()
            await app.workers.wait_for_complete()
        assert "Zebrafinch" in shown["1"]
        assert "Alice adds Zebrafinch seeds" in [m.text for m in store.list(user="alice")]
        for view, text in shown.items():
            assert BOB_WORD not in text, view
    finally:
        alice.close()
