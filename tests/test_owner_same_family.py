"""Issue 30 item 11, as a user would expect: with owner.user set, propose binds to the owner; the
owner's list and search (CLI and MCP) reach the general memories bound to no user that recall
injects; inspect of an expired memory says "expired"; moving an expired memory into core says so."""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta

import pytest

from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.store.models import Memory


def _owner_store(db_path) -> dict[str, int]:
    store = MemoryStore(db_path)
    store.set_setting("owner.user", "ana")
    ids = {"general": store.add("fact", "The garden hose hangs in the shed").id,
           "hers": store.add("fact", "Swims at the shed-side pool on Tuesdays", user="ana").id,
           "bob": store.add("fact", "Bob keeps his bike in the shed", user="bob").id}
    store.close()
    return ids


def test_the_owners_list_and_search_reach_unbound_memories_and_propose_binds_to_the_owner(run, db_path):
    ids = _owner_store(db_path)
    listed = {m["id"] for m in json.loads(run("memory", "list", "--user", "ana", "--json").output)}
    assert listed == {ids["general"], ids["hers"]}
    found = {m["id"] for m in json.loads(run("memory", "search", "shed", "--user", "ana", "--json").output)}
    assert found == {ids["general"], ids["hers"]}
    assert {m["id"] for m in json.loads(run("memory", "list", "--user", "bob", "--json").output)} == {ids["bob"]}
    proposed = json.loads(run("memory", "propose", "fact", "--json", "--", "Reads crime novels before bed").output)
    assert proposed["memory"]["user"] == "ana"


def test_inspect_says_expired_and_moving_an_expired_memory_into_core_says_so(run, db_path):
    store = MemoryStore(db_path)
    m = store.add("fact", "Parks on level three this week", ttl="7d")
    with store.bound():
        Memory.update(expires_at=store.clock() - timedelta(days=1)).where(Memory.id == m.id).execute()
    store.close()
    inspected = run("memory", "inspect", str(m.id))
    assert "expired" in inspected.output
    moved = run("memory", "move", str(m.id), "--scope", "core")
    assert moved.exit_code == 0
    assert f"#{m.id} expired" in moved.output and "stays out of every prompt" in moved.output


@pytest.mark.slow  # spawns the server process
async def test_the_owners_mcp_search_reaches_the_general_memories_recall_injects(db_path, tmp_path):
    pytest.importorskip("mcp")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    ids = _owner_store(db_path)
    params = StdioServerParameters(command=sys.executable, args=["-m", "bestie_tui", "--db", str(db_path), "mcp", "--user", "ana"],
                                   env=dict(os.environ))
    async with stdio_client(params, errlog=(tmp_path / "stderr.txt").open("w")) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        recalled = json.loads((await session.call_tool("recall", {"query": "where is the garden hose"})).content[0].text)
        found = await session.call_tool("search", {"query": "garden hose"})
        hits = [json.loads(c.text) for c in found.content]
    assert ids["general"] in recalled["memory_ids"]
    flat = [h for hit in hits for h in (hit if isinstance(hit, list) else [hit])]
    assert ids["general"] in {h["id"] for h in flat}
