"""MCP ``recall`` carries the standing instructions (issue 29, item 1): a real ``bestie mcp`` server
process driven over stdio by the ``mcp`` SDK's own client, on a real SQLite file."""

from __future__ import annotations

import json
import os
import sys

import pytest

from bestie_tui.store.markers import INSTRUCTIONS_TITLE
from bestie_tui.store.memory_store import MemoryStore

mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402


def _payload(result) -> dict:
    error = getattr(result, "is_error", None)
    assert not (error if error is not None else result.isError), result.content
    data = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    if data is not None:
        return data.get("result", data) if set(data) == {"result"} else data
    return json.loads(result.content[0].text)


@pytest.mark.slow  # spawns the server process
async def test_mcp_recall_carries_how_to_answer_for_any_request_and_follows_the_toggle(tmp_path):
    db = tmp_path / "memory.db"
    store = MemoryStore(db)
    short = store.add("preference", "Prefers short replies in Vietnamese", user="ana")
    store.add("preference", "Prefers long replies in English", user="bob")  # another user's
    store.close()
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "bestie_tui", "--db", str(db), "mcp", "--user", "ana"],
                                   env=dict(os.environ))
    errlog = (tmp_path / "server-stderr.txt").open("w+")
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for query in ("what is 17 times 23", "Thủ đô của Úc là gì?"):
            recalled = _payload(await session.call_tool("recall", {"query": query}))
            assert recalled["memory_ids"] == [short.id], query
            assert INSTRUCTIONS_TITLE in recalled["block"] and "Prefers short replies" in recalled["block"]
            assert "English" not in recalled["block"]
        owner = MemoryStore(db)
        owner.uninstruct(short.id)
        owner.close()
        recalled = _payload(await session.call_tool("recall", {"query": "what is 17 times 23"}))
        assert recalled["memory_ids"] == [] and INSTRUCTIONS_TITLE not in recalled["block"]
