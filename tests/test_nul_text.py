"""A NUL character (U+0000) is refused with one line on SQLite and PostgreSQL alike — on add, propose,
log and every import format — and nothing is written; other control characters are stored and read
back exactly on both (PostgreSQL's text type refuses NUL, SQLite would keep it, so bestie keeps
neither and a database can always move from one engine to the other)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import raw_connect

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.transfer.exchange import FORMAT

pytestmark = pytest.mark.both_engines

SAMPLES = Path(__file__).parent / "data" / "importers"
NUL = "\x00"


def _counts(db_path) -> tuple[int, int, int]:
    """Rows of memory, message and event, read behind the store's back."""
    MemoryStore(db_path).close()  # the schema exists
    conn = raw_connect(db_path)
    try:
        return tuple(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]  # type: ignore[return-value]
                     for t in ("memory", "message", "event"))
    finally:
        conn.close()


def _one_line_refusal(result, *names: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: "), result.output
    assert "NUL character" in result.output and "Traceback" not in result.output
    for name in names:
        assert name in result.output


def test_add_propose_and_log_refuse_nul_with_one_line_and_write_nothing(run, db_path, engine):
    run("memory", "add", "note", "Drinks green tea")
    before = _counts(db_path)
    _one_line_refusal(run("memory", "add", "note", f"Likes {NUL}jazz"), "memory text")
    _one_line_refusal(run("memory", "propose", "note", f"Likes {NUL}jazz"), "memory text")
    _one_line_refusal(run("--user", "minh", "memory", "log", "user", f"hello{NUL}"), "message text")
    assert _counts(db_path) == before


def test_the_api_refuses_nul_in_every_text_field_the_same_on_both_engines(store):
    for call in (lambda: store.propose("Plays chess", "note", user="minh", session=f"s{NUL}"),
                 lambda: store.propose(f"Plays{NUL} chess", "note", user="minh"),
                 lambda: store.log_message("user", "hi", user="minh", session=f"s{NUL}1")):
        with pytest.raises(InvalidValueError, match="NUL character"):
            call()
    assert store.list() == [] and store.messages() == []


def test_other_control_characters_are_stored_and_read_back_exactly_on_both_engines(store):
    text = "Tab\there, bell \x07, escape \x1b[31m and a line\nbreak"
    kept = store.add("note", text, user="minh")
    logged = store.log_message("user", "ok \x01 then \x7f", user="minh")
    assert store.get(kept.id).text == text
    assert store.messages(user="minh")[0].text == logged.text == "ok \x01 then \x7f"


def _bestie_export(text: str, message: str) -> dict:
    return {"format": FORMAT, "version": 1,
            "memories": [{"id": 1, "text": "Keeps a journal", "kind": "note"}, {"id": 2, "text": text, "kind": "note"}],
            "messages": [{"role": "user", "text": message, "created_at": "2026-01-02T03:04:05"}]}


@pytest.mark.parametrize("where", ["memory", "message", "source"])
def test_a_bestie_export_holding_nul_is_refused_whole_with_one_line(run, db_path, tmp_path, where):
    data = _bestie_export(f"Runs{NUL} daily" if where == "memory" else "Runs daily",
                          f"hi{NUL}" if where == "message" else "hi")
    if where == "source":
        data["memories"][1]["source"] = f"import{NUL}"
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))  # json writes NUL as the escape \u0000, which reads back as NUL
    assert "\\u0000" in path.read_text()
    _one_line_refusal(run("memory", "import", str(path)),
                      {"memory": "memories[1].text", "message": "messages[0].text", "source": "memories[1].source"}[where])
    assert _counts(db_path)[:2] == (0, 0)


def test_mem0_chatgpt_and_openclaw_files_holding_nul_are_refused_with_one_line(run, db_path, tmp_path):
    mem0 = json.loads((SAMPLES / "mem0_get_all.json").read_text())
    mem0["results"][0]["memory"] = f"Prefers{NUL} aisle seats"
    (tmp_path / "mem0.json").write_text(json.dumps(mem0))
    _one_line_refusal(run("memory", "import", str(tmp_path / "mem0.json"), "--format", "mem0"))

    chat = (SAMPLES / "conversations.json").read_text().replace("Try the Langbiang", "Try\\u0000 the Langbiang")
    assert "\\u0000" in chat
    (tmp_path / "conversations.json").write_text(chat)
    _one_line_refusal(run("memory", "import", str(tmp_path / "conversations.json"), "--user", "minh"))

    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_bytes(b"# MEMORY\n\n## Preferences\n\n- Short replies.\n- Likes\x00 tea.\n")
    _one_line_refusal(run("memory", "import", str(workspace), "--user", "minh"))
    assert _counts(db_path)[:2] == (0, 0)


@pytest.mark.slow  # spawns the MCP server
async def test_the_mcp_server_answers_nul_with_one_line_and_writes_nothing_to_stderr(db_path, tmp_path):
    mcp = pytest.importorskip("mcp")
    from mcp.client.stdio import stdio_client

    MemoryStore(db_path).close()
    params = mcp.StdioServerParameters(command=sys.executable,
                                       args=["-m", "bestie_tui", "--db", str(db_path), "mcp", "--user", "ana"],
                                       env=dict(os.environ))
    errlog = (tmp_path / "server-stderr.txt").open("w+")
    async with stdio_client(params, errlog=errlog) as (read, write), mcp.ClientSession(read, write) as session:
        await session.initialize()
        for tool, args in (("remember", {"text": f"Ana likes{NUL} tea", "kind": "fact"}),
                           ("log_message", {"role": "user", "text": f"hello{NUL}"})):
            result = await session.call_tool(tool, args)
            assert result.isError if hasattr(result, "isError") else result.is_error
            said = " ".join(c.text for c in result.content if getattr(c, "text", None))
            assert "NUL character" in said and "\n" not in said.strip() and "Traceback" not in said
    errlog.seek(0)
    assert errlog.read().strip() == ""
    assert _counts(db_path)[:2] == (0, 0)


def _tampered_full_export(run, db_path, tmp_path, change) -> Path:
    """A full export of one edited memory and one setting, with ``change(data)`` applied to it."""
    store = MemoryStore(db_path)
    row = store.add("fact", "Keeps bees on the roof.", user="lan")
    store.edit(row.id, "Keeps two hives on the roof.")
    store.set_setting("memory.writePolicy", "allow")
    store.close()
    out = tmp_path / "full.json"
    assert run("memory", "export", "--full", "--output", str(out)).exit_code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    change(data)
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def _set_snapshot_text(data) -> None:
    edit = next(e for e in data["events"] if e["action"] == "edit")
    before = json.loads(edit["before"])
    before["text"] = f"Keeps bees{NUL} on the roof."
    edit["before"] = json.dumps(before)  # the JSON text holds the escape \u0000, not a raw NUL


@pytest.mark.parametrize(("change", "names"), [
    (_set_snapshot_text, ("events[1] (event #2).before.text",)),
    (lambda d: d["events"][0].update(after=json.dumps({**json.loads(d["events"][0]["after"]), f"x{NUL}": 1})),
     ("events[0] (event #1).after.x\\u0000",)),
    *[(lambda d, f=f: d["events"][0].update({f: f"owner{NUL}"}), (f"events[0] (event #1).{f}",))
      for f in ("actor", "note", "batch", "origin", "action")],
    (lambda d: d["settings"].update({"memory.writePolicy": f"al{NUL}low"}), ("settings.memory.writePolicy",)),
    (lambda d: d["settings"].update({f"memory.x{NUL}": 1}), ("the setting key memory.x\\u0000",)),
])
def test_a_full_import_refuses_nul_anywhere_in_an_event_or_setting_and_imports_nothing(
        run, db_path, tmp_path, change, names):
    path = _tampered_full_export(run, db_path, tmp_path, change)
    new_db = tmp_path / "new.db"
    result = run("--db", str(new_db), "memory", "import", str(path))
    _one_line_refusal(result, *names)
    assert _counts(new_db) == (0, 0, 0)


def test_a_full_import_refuses_an_action_bestie_never_records_and_imports_nothing(run, db_path, tmp_path):
    path = _tampered_full_export(run, db_path, tmp_path, lambda d: d["events"][1].update(action="teleport\n"))
    new_db = tmp_path / "new.db"
    result = run("--db", str(new_db), "memory", "import", str(path))
    assert result.exit_code == 1, result.output
    assert result.output == ('Error: events[1] (event #2).action is "teleport\\n", not a change bestie records; '
                             "nothing was imported\n")
    assert _counts(new_db) == (0, 0, 0)
