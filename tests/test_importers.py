"""``bestie memory import --format mem0|openclaw|chatgpt`` into the triage queue, and ``export --format openclaw``.

The sample files under ``tests/data/importers`` are written for these tests after each format's
public description (Mem0's ``get_all`` answer, OpenClaw's workspace memory files, ChatGPT's data export).
"""

from __future__ import annotations

import json
from pathlib import Path

from bestie_tui.store.memory_store import MemoryStore

SAMPLES = Path(__file__).parent / "data" / "importers"


def _store(db_path) -> MemoryStore:
    return MemoryStore(db_path)


def test_mem0_memories_arrive_pending_with_their_user_kind_and_time_and_a_secret_is_refused(run, db_path):
    result = run("memory", "import", str(SAMPLES / "mem0_get_all.json"), "--json")
    assert result.exit_code == 0, result.output
    counts = json.loads(result.output)
    assert (counts["memories_added"], counts["secrets_refused"]) == (2, 1)
    store = _store(db_path)
    rows = [(m.text, m.status, m.user, m.kind, m.source, m.created_at.isoformat()) for m in reversed(store.list())]
    assert rows == [
        # a category outside bestie's kinds is a note, the category kept in the source (as on every path)
        ("Prefers window seats on long flights", "pending", "minh", "note", "import:mem0 (kind: travel)",
         "2026-03-14T16:30:00"),
        ("Is allergic to peanuts", "pending", "minh", "note", "import:mem0 (kind: health)", "2026-04-02T18:05:12"),
    ]
    store.set_setting("memory.writePolicy", "allow")  # imported memories are queued whatever the policy
    store.close()
    again = json.loads(run("memory", "import", str(SAMPLES / "mem0_get_all.json"), "--json").output)
    assert again["memories_added"] == 0
    assert "Lotus" not in db_path.read_bytes().decode("latin-1")


def test_openclaw_bullets_become_pending_proposals_with_their_headings_read_as_kinds(run, db_path):
    result = run("memory", "import", str(SAMPLES / "workspace"), "--user", "minh")
    assert result.exit_code == 0, result.output
    store = _store(db_path)
    rows = [(m.kind, m.text, m.status, m.scope, m.user) for m in reversed(store.list())]
    assert rows == [
        ("preference", "Replies in English, short and direct.", "pending", "core", "minh"),
        ("preference", "Dark mode everywhere; never suggest light themes.", "pending", "core", "minh"),
        ("note", "Sister Hoa lives in Hue.", "pending", "project", "minh"),  # about someone else: never core
        ("decision", "We decided to ship the beta on Friday.", "pending", "project", "minh"),
        ("decision", "Called the plumber about the kitchen sink.", "pending", "project", "minh"),
    ]
    assert store.list()[0].created_at.isoformat() == "2026-11-28T00:00:00"
    store.close()


def test_chatgpt_conversations_fill_the_history_of_the_visible_thread_and_propose_nothing(run, db_path):
    result = run("memory", "import", str(SAMPLES / "conversations.json"), "--user", "minh")
    assert result.exit_code == 0, result.output
    store = _store(db_path)
    assert store.list() == []
    msgs = [(m.role, m.text, m.user, m.channel, m.session, m.created_at.isoformat()) for m in reversed(store.messages())]
    assert msgs == [
        ("user", "I love hiking. Any trail near Da Lat?", "minh", "chatgpt", "conv-weekend-1", "2025-11-28T03:20:00"),
        ("assistant", "Try the Langbiang peak trail.", "minh", "chatgpt", "conv-weekend-1", "2025-11-28T03:20:10"),
    ]
    store.close()


def test_a_format_named_that_the_file_is_not_in_or_an_unknown_shape_is_one_line_and_writes_nothing(run, db_path, tmp_path):
    wrong = run("memory", "import", str(SAMPLES / "conversations.json"), "--format", "mem0")
    assert wrong.exit_code == 1
    assert wrong.output.strip().endswith("is not a Mem0 get_all answer (a \"results\" list of memories)")
    odd = tmp_path / "odd.json"
    odd.write_text('{"memories": "nope"}', encoding="utf-8")
    unknown = run("memory", "import", str(odd))
    assert unknown.exit_code == 1 and len(unknown.output.strip().splitlines()) == 1
    assert "pass --format bestie|mem0|openclaw|chatgpt" in unknown.output
    store = _store(db_path)
    assert store.list() == [] and store.messages() == []
    store.close()


def test_export_openclaw_writes_memory_md_that_imports_back_as_the_same_memories(run, db_path, tmp_path):
    store = _store(db_path)
    store.add("communication_preference", "Answer in Vietnamese, briefly.", user="minh")
    store.add("fact", "Works at a bakery in Hoi An.", user="minh")
    store.add("fact", "Bob's memory stays out.", user="bob")
    store.close()
    out = tmp_path / "ws" / "MEMORY.md"
    out.parent.mkdir()
    result = run("memory", "export", "--format", "openclaw", "--user", "minh", "--output", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == (
        "# MEMORY\n\n## Communication preference\n\n- Answer in Vietnamese, briefly. <!-- bestie: scope=project -->\n\n"
        "## Fact\n\n- Works at a bakery in Hoi An. <!-- bestie: scope=project -->\n")
    other = tmp_path / "other.db"
    back = run("--db", str(other), "memory", "import", str(out), "--user", "minh")
    assert back.exit_code == 0, back.output
    store = MemoryStore(other)
    assert [(m.kind, m.text, m.status) for m in reversed(store.list())] == [
        ("communication_preference", "Answer in Vietnamese, briefly.", "pending"),
        ("fact", "Works at a bakery in Hoi An.", "pending")]
    store.close()


def test_a_mem0_numeric_user_id_names_its_user_and_a_list_as_user_id_is_refused_whole(run, db_path, tmp_path):
    numbered = tmp_path / "numbered.json"
    numbered.write_text(json.dumps({"results": [{"id": "a", "memory": "Walks the dog at six", "user_id": 5},
                                                {"id": "b", "memory": "Drinks green tea", "user_id": None}]}))
    result = run("memory", "import", str(numbered), "--format", "mem0", "--user", "lan")
    assert result.exit_code == 0, result.output
    store = _store(db_path)
    assert sorted((m.text, m.user) for m in store.list()) == [("Drinks green tea", "lan"), ("Walks the dog at six", "5")]
    store.close()
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"results": [{"id": "c", "memory": "Sleeps late", "user_id": ["x"]}]}))
    refused = run("memory", "import", str(broken), "--format", "mem0")
    assert refused.exit_code == 1
    assert refused.output.strip().count("\n") == 0 and "results[0].user_id" in refused.output
    assert "Sleeps late" not in [m.text for m in MemoryStore(db_path).list()]
