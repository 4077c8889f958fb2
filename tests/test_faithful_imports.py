"""Imports come back as they left (issue 30, item 6): every export format round-trips text, kind,
layer, TTL and pin or says what it left out; ChatGPT's hidden and system messages stay out of the
history and a re-import adds nothing; unknown kinds are one rule on every path; an over-cap core
record is demoted with the limit and its size stated. Real files, a real SQLite file, the real CLI."""

from __future__ import annotations

import json

import pytest

from bestie_tui.store.memory_store import MemoryStore


def _node(key: str, role: str, text: str, parent: str | None, at: float | None, hidden: bool = False) -> dict:
    metadata = {"is_visually_hidden_from_conversation": True} if hidden else {}
    return {"id": key, "parent": parent, "children": [],
            "message": {"id": key, "author": {"role": role}, "create_time": at, "metadata": metadata,
                        "content": {"content_type": "text", "parts": [text]}}}


def _chatgpt_file(tmp_path):
    """A conversations.json whose thread opens with ChatGPT's hidden system prompt and a hidden
    context message the owner never saw, then four visible turns with fractional times."""
    nodes = [
        _node("s0", "system", "You are a helpful assistant. The user collects antique barometers.", None, None, True),
        _node("h1", "user", "Context the owner never typed: owns a sailboat named Marlin.", "s0", 1764300000.4, True),
        _node("u1", "user", "Which knot holds best for a mooring line?", "h1", 1764300001.7),
        _node("a1", "assistant", "A bowline is the usual choice.", "u1", 1764300009.2),
        _node("u2", "user", "And for joining two ropes of different thickness?", "a1", 1764300030.9),
        _node("a2", "assistant", "Use a sheet bend.", "u2", 1764300041.05),
    ]
    data = [{"title": "Knots", "conversation_id": "conv-knots", "create_time": 1764299990.0,
             "current_node": "a2", "mapping": {n["id"]: n for n in nodes}}]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_chatgpt_import_leaves_out_hidden_and_system_messages_and_a_reimport_with_user_adds_nothing(run, db_path, tmp_path):
    path = _chatgpt_file(tmp_path)
    first = run("memory", "import", str(path), "--user", "lan", "--json")
    assert first.exit_code == 0, first.output
    assert json.loads(first.output)["messages_added"] == 4
    again = run("memory", "import", str(path), "--user", "lan", "--json")
    assert (json.loads(again.output)["messages_added"], json.loads(again.output)["messages_skipped"]) == (0, 4)
    store = MemoryStore(db_path)
    said = [(m.role, m.text) for m in reversed(store.messages(limit=None))]
    store.close()
    assert said == [("user", "Which knot holds best for a mooring line?"), ("assistant", "A bowline is the usual choice."),
                    ("user", "And for joining two ropes of different thickness?"), ("assistant", "Use a sheet bend.")]
    recalled = run("memory", "recall", "barometers sailboat Marlin", "--user", "lan", "--json")
    assert "barometer" not in recalled.output and "Marlin" not in recalled.output


def _varied_store(db_path) -> dict[str, int]:
    """Memories that differ in every field an export must carry: kind, layer, TTL, pin, superseded."""
    store = MemoryStore(db_path)
    ids = {
        "ttl": store.add("preference", "Prefers oat milk in coffee", user="lan", ttl="30d").id,
        "pin": store.add("fact", "Keeps the spare house key at the neighbour's", user="lan", pinned=True).id,
        "core": store.add("communication_preference", "Answer in short paragraphs", user="lan", scope="core").id,
        "session": store.add("note", "The printer on floor two jams often", user="lan", scope="session").id,
        "old": store.add("fact", "Commutes by bus", user="lan").id,
        "new": store.add("fact", "Commutes by bicycle", user="lan").id,
    }
    store.supersede(ids["old"], ids["new"])
    store.close()
    return ids


def _fields(db_path) -> dict[str, tuple]:
    store = MemoryStore(db_path)
    out = {m.text: (m.kind, m.layer, m.scope, m.pinned, m.expires_at.replace(microsecond=0) if m.expires_at else None,
                    m.superseded_by is not None) for m in store.list()}
    store.close()
    return out


@pytest.mark.parametrize("fmt", ["bestie", "bestie-full", "openclaw"])
def test_a_round_trip_through_every_export_format_keeps_kind_layer_ttl_and_pin_or_says_what_it_dropped(run, db_path, tmp_path, fmt):
    _varied_store(db_path)
    before = _fields(db_path)
    out = tmp_path / ("MEMORY.md" if fmt == "openclaw" else "export.json")
    args = ["--format", "openclaw"] if fmt == "openclaw" else ["--full"] if fmt == "bestie-full" else []
    exported = run("memory", "export", *args, "-o", str(out))
    assert exported.exit_code == 0, exported.output
    other = tmp_path / "other.db"
    back = run("--db", str(other), "memory", "import", str(out))
    assert back.exit_code == 0, back.output
    after = _fields(other)
    if fmt == "openclaw":  # a MEMORY.md holds current memories only, and the export says what it left out
        assert "left out of MEMORY.md: 1 superseded" in exported.output
        dropped = {text for text, f in before.items() if f[5]}
        assert dropped == {"Commutes by bus"}
        before = {text: f for text, f in before.items() if text not in dropped}
    assert after == before


def test_an_unknown_kind_is_a_note_with_the_kind_kept_on_the_cli_and_import_paths(run, db_path, tmp_path):
    added = run("memory", "add", "bogus", "--", "Keeps a sourdough starter in the fridge")
    assert added.exit_code == 0, added.output
    assert "kind 'bogus' is not one of" in added.output and "stored as note" in added.output
    proposed = run("memory", "propose", "bogus", "--user", "lan", "--", "Plays chess on Sunday mornings")
    assert proposed.exit_code == 0 and "stored as note" in proposed.output
    (tmp_path / "mem0.json").write_text(json.dumps({"results": [
        {"id": "m1", "memory": "Collects enamel pins from train stations", "user_id": "lan",
         "metadata": {"category": "bogus"}},
        {"id": "m2", "memory": "Prefers aisle seats on trains", "user_id": "lan", "categories": ["user_preferences"]}]}))
    (tmp_path / "ours.json").write_text(json.dumps({"format": "bestie-memory-export", "version": 2, "messages": [],
        "memories": [{"text": "Waters the balcony herbs at dusk", "kind": "bogus", "status": "approved",
                      "source": "owner"}]}))
    (tmp_path / "MEMORY.md").write_text("# MEMORY\n\n## Bogus\n\n- Names every houseplant after a poet\n")
    for name in ("mem0.json", "ours.json", "MEMORY.md"):
        result = run("memory", "import", str(tmp_path / name), "--user", "lan")
        assert result.exit_code == 0, result.output
    store = MemoryStore(db_path)
    kinds = {m.text: (m.kind, m.source) for m in store.list()}
    store.close()
    assert kinds == {
        "Keeps a sourdough starter in the fridge": ("note", "owner (kind: bogus)"),
        "Plays chess on Sunday mornings": ("note", "assistant (kind: bogus)"),
        "Collects enamel pins from train stations": ("note", "import:mem0 (kind: bogus)"),
        "Prefers aisle seats on trains": ("preference", "import:mem0 (kind: user_preferences)"),
        "Waters the balcony herbs at dusk": ("note", "owner (kind: bogus)"),
        "Names every houseplant after a poet": ("note", "import:openclaw:MEMORY.md (kind: bogus)"),
    }


@pytest.mark.slow  # spawns the server process
async def test_mcp_remember_with_an_unknown_kind_stores_a_note_and_says_so_like_every_other_path(tmp_path):
    pytest.importorskip("mcp")
    import os
    import sys

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    db = tmp_path / "memory.db"
    MemoryStore(db).close()
    params = StdioServerParameters(command=sys.executable, args=["-m", "bestie_tui", "--db", str(db), "mcp", "--user", "lan"],
                                   env=dict(os.environ))
    async with stdio_client(params, errlog=(tmp_path / "stderr.txt").open("w")) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("remember", {"text": "Lan restores old fountain pens", "kind": "bogus"})
        payload = json.loads(result.content[0].text)
    assert "kind 'bogus' is not one of" in payload["message"] and "stored as note" in payload["message"]
    store = MemoryStore(db)
    row = store.get(payload["memory_id"])
    store.close()
    assert (row.kind, row.source) == ("note", "assistant (kind: bogus)")


def _long_preference() -> str:
    return "Prefers answers that " + ", ".join(f"name step {n} of the plan with its reason" for n in range(1, 40))


def test_an_over_cap_core_record_is_imported_as_working_with_the_limit_and_its_size_and_the_rest_of_the_file_comes_in(
        run, db_path, tmp_path):
    ours = tmp_path / "ours.json"
    ours.write_text(json.dumps({"format": "bestie-memory-export", "version": 2, "messages": [], "memories": [
        {"text": _long_preference(), "kind": "preference", "status": "approved", "scope": "core", "layer": "core"},
        {"text": "Answer in English", "kind": "communication_preference", "status": "approved", "scope": "core",
         "layer": "core"}]}))
    result = run("memory", "import", str(ours))
    assert result.exit_code == 0, result.output
    assert "1 core memories came in as working" in result.output
    assert "memories[0]: core is capped at 200 tokens" in result.output and "this memory adds" in result.output
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("# MEMORY\n\n## Preference\n\n- " + _long_preference().replace("Prefers", "Likes")
                                         + "\n- Likes tea without sugar\n")
    pending = run("memory", "import", str(workspace), "--json")
    assert pending.exit_code == 0, pending.output
    assert json.loads(pending.output)["moved_why"][0].startswith("memories[0]: core is capped at 200 tokens")
    store = MemoryStore(db_path)
    layers = {m.text[:20]: (m.status, m.layer) for m in store.list()}
    store.close()
    assert layers == {"Prefers answers that": ("approved", "working"), "Answer in English": ("approved", "core"),
                      "Likes answers that n": ("pending", "working"), "Likes tea without su": ("pending", "core")}


def test_the_assistants_core_is_full_message_gives_the_limit_and_the_sizes(run):
    assert run("memory", "config", "memory.writePolicy", "allow").exit_code == 0
    result = run("memory", "propose", "preference", "--scope", "core", "--user", "lan", "--", _long_preference())
    assert result.exit_code == 0, result.output
    assert "core is capped at 200 tokens" in result.output and "this memory adds" in result.output
    assert "queued as working" in result.output
