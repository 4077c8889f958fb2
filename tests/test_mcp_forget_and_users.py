"""Issue 30 over a real MCP stdio session (the SDK's own client, as ``test_mcp_server``): a user the
database holds nothing of gets a note, not a silent empty block; recall never quotes what the owner
forgot; the assistant restating a forgotten memory is queued for the owner, under writePolicy allow."""

from __future__ import annotations

import os
import sys

import pytest

from bestie_tui.store.memory_store import MemoryStore
from tests.test_mcp_server import _payload

mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

SAID = "My therapist is Dr. Lan at the Hoan Kiem clinic, I see her on Mondays."
FACT = "My therapist is Dr. Lan at the Hoan Kiem clinic"


async def _session(db, user: str, tmp_path, calls):
    params = StdioServerParameters(command=sys.executable, args=["-m", "bestie_tui", "--db", str(db), "mcp", "--user", user],
                                   env=dict(os.environ))
    errlog = (tmp_path / f"stderr-{user}.txt").open("w+")
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        answers = [_payload(await session.call_tool(name, args)) for name, args in calls]
    errlog.seek(0)
    assert errlog.read().strip() == ""
    errlog.close()
    return answers


@pytest.mark.slow  # spawns the server process twice
async def test_unknown_user_note_and_forgotten_memory_over_a_real_stdio_session(tmp_path):
    db = tmp_path / "memory.db"
    store = MemoryStore(db)
    store.log_message("user", SAID, user="ana", session="s1")
    store.log_message("user", "My therapist also runs a group on Thursdays in Tay Ho.", user="ana", session="s2")
    forgotten = store.add("fact", FACT, user="ana")
    store.forget(forgotten.id)
    store.set_setting("memory.writePolicy", "allow")
    store.close()

    [typo] = await _session(db, "alcie", tmp_path, [("recall", {"query": "who is my therapist"})])
    assert typo == {"block": "", "memory_ids": [], "history": [], "note": "no memories or messages for this user yet"}

    recalled, remembered = await _session(db, "ana", tmp_path, [
        ("recall", {"query": "who is my therapist"}),
        ("remember", {"text": FACT, "kind": "fact"}),
    ])
    assert "note" not in recalled and "Tay Ho" in recalled["block"]
    assert "Hoan Kiem" not in recalled["block"] and all("Hoan Kiem" not in h["line"] for h in recalled["history"])
    assert remembered["outcome"] == "pending" and "which the owner forgot" in remembered["message"]

    store = MemoryStore(db)
    try:
        assert store.get(forgotten.id).status == "forgotten"
        assert [m.status for m in store.list(status="pending")] == ["pending"]
    finally:
        store.close()
