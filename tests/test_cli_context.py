"""``bestie context compress | pack | estimate``: input formats, output, exit codes, persistence."""

from __future__ import annotations

import json
import os

import pytest
from conftest import finishes

from bestie_tui.conversation.compress import SUMMARY_SESSION
from bestie_tui.conversation.pins import is_summary
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.text.tokens import count_tokens


@pytest.fixture(autouse=True)
def _artifacts_root_at_tmp(tmp_path, monkeypatch):
    """Artifacts must be inside the project root (the working directory here): these tests write theirs in tmp_path."""
    monkeypatch.chdir(tmp_path)


def chat(n: int) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"Turn {i}: Linh asked about the trip to Đà Nẵng on 3 June 2025."} for i in range(n)]


def test_compress_json_file_and_jsonl_stdin_agree(run, tmp_path):
    history = chat(50)
    path = tmp_path / "h.json"
    path.write_text(json.dumps(history), encoding="utf-8")
    from_file = run("context", "compress", str(path), "--json")
    assert from_file.exit_code == 0, from_file.output
    jsonl = "\n".join(json.dumps(m, ensure_ascii=False) for m in history)
    from_stdin = run("context", "compress", "--json", input=jsonl)
    out = json.loads(from_stdin.stdout)
    assert json.loads(from_file.stdout) == out
    assert len(out) == 11 and is_summary(out[0]) and out[1:] == history[-10:]
    assert "summarised 40 messages of 50" in from_stdin.stderr


def test_compress_text_output_and_options(run):
    result = run("context", "compress", "--threshold", "5", "--keep", "2", input=json.dumps(chat(8)))
    lines = result.stdout.splitlines()
    assert lines[0].startswith("[system] [CONTEXT_SUMMARY turns=6")
    assert lines[-2:] == [f"[user] {chat(8)[6]['content']}", f"[assistant] {chat(8)[7]['content']}"]


def test_compress_under_threshold_is_unchanged(run):
    result = run("context", "compress", "--json", input=json.dumps({"messages": chat(3)}))
    assert json.loads(result.stdout) == chat(3)
    assert "3 messages, at or under the threshold of 40: unchanged" in result.stderr


@pytest.mark.parametrize("payload, message", [
    ("", "standard input is empty"),
    ("{not json\n", "standard input line 1 is not JSON"),
    ('[{"role": "bot", "content": "x"}]', "message 1 has role 'bot'"),
    ('"just a string"', "must hold a list of messages"),
])
def test_bad_input_is_one_line_and_exit_1(run, payload, message):
    result = run("context", "compress", input=payload)
    assert result.exit_code == 1
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_missing_file_is_exit_1(run, tmp_path):
    result = run("context", "compress", str(tmp_path / "none.json"))
    assert result.exit_code == 1 and "cannot read" in result.stderr


def test_compress_persists_the_summary_when_the_setting_is_on(run, db_path):
    run("memory", "config", "context.persistSummary", "true")
    store = MemoryStore(db_path)
    try:
        assert store.get_setting("context.persistSummary") is True
        assert run("context", "compress", "--json", input=json.dumps(chat(50))).exit_code == 0
        saved = [m for m in store.messages(role="system") if m.session == SUMMARY_SESSION]
        assert len(saved) == 1 and saved[0].text.startswith("[CONTEXT_SUMMARY turns=40")
    finally:
        store.close()


def test_pack_manifest_json_and_text(run, db_path, tmp_path):
    run("memory", "add", "preference", "Linh prefers trains over planes", "--user", "linh", "--scope", "core")
    plan = tmp_path / "PLAN.md"
    plan.write_text("x" * 5000, encoding="utf-8")
    hist = tmp_path / "h.json"
    hist.write_text(json.dumps(chat(50)), encoding="utf-8")
    args = ["context", "pack", "--history", str(hist), "--task", "Book the trip", "--user", "linh",
            "--artifact", f"{plan}:500", "--artifact", str(tmp_path / "GONE.md"),
            "--pin", "user_info=Linh, lives in Hà Nội", "--budget", "700", "--token-mode", "tiktoken_cl100k"]
    data = json.loads(run(*args, "--json").stdout)
    manifest = data["manifest"]
    assert manifest["missing"] == [str(tmp_path / "GONE.md")]
    assert manifest["total_tokens"] <= 700
    assert manifest["total_tokens"] == sum(count_tokens(m["content"], "tiktoken_cl100k") + 3
                                           for m in data["messages"]) + 3
    assert "Linh prefers trains over planes" in data["messages"][1]["content"]
    assert data["messages"][-1] == {"role": "user", "content": "Book the trip"}
    text = run(*args).stdout
    assert text.startswith(f"pack: {len(data['messages'])} messages")
    assert "missing: " + str(tmp_path / "GONE.md") in text
    assert "CUT cut to 500 of 5,000 characters" in text


def test_pack_from_database_history_and_errors(run, db_path):
    store = MemoryStore(db_path)
    try:
        store.log_message("user", "I need a gift idea for my sister", user="linh")
        store.log_message("assistant", "How about a book?", user="linh")
        store.log_message("user", "She reads sci-fi, suggest one", user="linh")
    finally:
        store.close()
    result = run("context", "pack", "--no-memory", "--json")
    msgs = json.loads(result.stdout)["messages"]
    assert [m["content"] for m in msgs] == ["I need a gift idea for my sister", "How about a book?",
                                            "She reads sci-fi, suggest one"]
    too_small = run("context", "pack", "--task", "x " * 50, "--budget", "5")
    assert too_small.exit_code == 1 and "a budget of 5 tokens cannot hold" in too_small.stderr
    bad_pin = run("context", "pack", "--task", "x", "--pin", "memory_block=sneaky")
    assert bad_pin.exit_code == 1 and "unknown pin 'memory_block'" in bad_pin.stderr
    assert run("context", "pack", "--task", "x", "--pin", "no-equals").exit_code == 2


def test_estimate_text_and_messages(run, tmp_path):
    out = json.loads(run("context", "estimate", "Xin chào, tôi là An", "--json").stdout)
    assert out == {"characters": 19, "chars4": 6,
                   "tiktoken_cl100k": count_tokens("Xin chào, tôi là An", "tiktoken_cl100k")}
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in chat(4)), encoding="utf-8")
    data = json.loads(run("context", "estimate", "--messages", "--file", str(path), "--json").stdout)
    assert data["messages"] == 4
    assert data["chars4"] == sum(count_tokens(m["content"], "chars4") + 3 for m in chat(4)) + 3
    text = run("context", "estimate", "--token-mode", "chars4", input="abcdefgh").stdout
    assert text.splitlines() == ["characters       8", "chars4           3 tokens"]


@pytest.mark.parametrize("spec, message", [
    ("", "artifact path is empty"),
    ("PLAN.md:99999999999999999999", "between 1 and 1,000,000"),
])
def test_bad_artifact_spec_is_a_usage_error(run, spec, message):
    result = run("context", "pack", "--no-memory", "--task", "x", "--artifact", spec)
    assert result.exit_code == 2 and message in result.stderr


def test_binary_artifact_is_listed_as_skipped(run, tmp_path):
    blob = tmp_path / "bin.dat"
    blob.write_bytes(b"\x00\x01\x02garbage")
    result = run("context", "pack", "--no-memory", "--task", "x", "--artifact", f"{blob}:300")
    assert result.exit_code == 0
    assert f"skipped: {blob} (binary file (NUL bytes))" in result.stdout and "garbage" not in result.stdout


@pytest.mark.parametrize("args", [("context", "compress", "{f}"),
                                  ("context", "pack", "--no-memory", "--history", "{f}"),
                                  ("context", "estimate", "--file", "{f}")], ids=["compress", "pack", "estimate"])
def test_non_utf8_input_is_a_one_line_error(run, tmp_path, args):
    blob = tmp_path / "bin.dat"
    blob.write_bytes(b'[{"role": "user", "content": "caf\xe9"}]')
    result = run(*[a.format(f=blob) for a in args])
    assert result.exit_code == 1
    assert result.stderr.strip() == f"Error: {blob} is not UTF-8 text (byte 0xe9 at offset 33)"


def test_non_utf8_stdin_is_a_one_line_error(run):
    result = run("context", "compress", input=b"\xff\xfe\x00junk")
    assert result.exit_code == 1 and "standard input is not UTF-8 text" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_json_with_a_byte_order_mark_is_read(run, tmp_path):
    path = tmp_path / "h.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(chat(3)).encode("utf-8"))
    assert json.loads(run("context", "compress", "--json", str(path)).stdout) == chat(3)
    jsonl = "\ufeff" + "\n".join(json.dumps(m) for m in chat(3))
    assert json.loads(run("context", "compress", "--json", input=jsonl.encode("utf-8")).stdout) == chat(3)


def test_keep_over_threshold_is_refused_by_the_cli(run):
    result = run("context", "compress", "--threshold", "3", "--keep", "5", input=json.dumps(chat(8)))
    assert result.exit_code == 1
    assert "keep_recent (5) must not be more than threshold (3)" in result.stderr


def test_unchanged_wording_is_truthful_and_singular(run):
    once = run("context", "compress", "--json", "--threshold", "3", "--keep", "3", input=json.dumps(chat(6))).stdout
    again = run("context", "compress", "--threshold", "3", "--keep", "3", input=once)
    assert "over the threshold of 3, but nothing to summarise" in again.stderr
    single = run("context", "compress", input=json.dumps(chat(1)))
    assert single.stderr.startswith("1 message, at or under the threshold of 40: unchanged")


def test_counts_are_singular_when_one(run):
    result = run("context", "compress", "--threshold", "1", "--keep", "1",
                 input=json.dumps([{"role": "assistant", "content": "Hello there, how was the trip to Huế?"},
                                   {"role": "user", "content": "Great, thanks!"}]))
    assert "summarised 1 message of 2" in result.stderr
    pack = run("context", "pack", "--no-memory", "--task", "x")
    assert pack.stdout.startswith("pack: 1 message, ")


def test_compress_says_when_it_stored_the_summary(run, db_path):
    run("memory", "config", "context.persistSummary", "true")
    first = run("context", "compress", input=json.dumps(chat(50)))
    assert "summary stored in the database (session context-summary)" in first.stderr
    again = run("context", "compress", input=json.dumps(chat(50)))
    assert "summary already stored" in again.stderr




def test_fifo_artifact_is_listed_as_skipped(run, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    how, result = finishes(lambda: run("context", "pack", "--user", "linh", "--task", "hi", "--artifact", str(fifo)))
    assert how == "returned", result
    assert result.exit_code == 0
    assert f"skipped: {fifo} (not a regular file (FIFO))" in result.stdout


@pytest.mark.parametrize("args", [("context", "compress", "{f}"),
                                  ("context", "pack", "--no-memory", "--history", "{f}"),
                                  ("context", "estimate", "--messages", "--file", "{f}")],
                         ids=["compress", "pack", "estimate"])
def test_fifo_or_directory_as_input_is_a_one_line_error(run, tmp_path, args):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "FIFO"), (tmp_path, "directory")):
        how, result = finishes(lambda path=path: run(*[a.format(f=path) for a in args]))
        assert how == "returned", result
        assert result.exit_code == 1
        assert result.stderr.strip() == (f"Error: cannot read {path}: not a regular file ({kind}); "
                                         "pipe it to standard input with - instead")


COMMANDS = {"compress": ("context", "compress", "{f}"),
            "estimate": ("context", "estimate", "--messages", "--file", "{f}"),
            "pack": ("context", "pack", "--no-memory", "--task", "x", "--history", "{f}", "--show")}
DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("payload, message", [
    ("[" * 100_000, "is nested too deeply"),
    ('[{"role": "user", "content": ' + DEEP + "}]", "is nested too deeply"),
    ('[{"role": "user", "content": "hi", "meta": ' + DEEP + "}]", "is nested too deeply"),
    ('[{"role": "user", "content": "hi", "n": ' + "9" * 5000 + "}]", "holds a number of 5,000 digits"),
    ('[{"role": "user", "content": "a\\ud800b"}]', "message 1 holds a lone surrogate \\ud800"),
    ('[{"role": "user", "content": [{"type": "text", "text": "ok \\udfff"}]}]', "message 1 holds a lone surrogate"),
], ids=["brackets", "deep-content", "deep-field", "huge-int", "surrogate", "surrogate-in-part"])
def test_hostile_json_is_a_one_line_error(run, tmp_path, command, payload, message):
    path = tmp_path / "h.json"
    path.write_text(payload, encoding="utf-8", errors="surrogatepass")
    result = run(*[a.format(f=path) for a in COMMANDS[command]])
    assert result.exit_code == 1
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_lone_surrogate_in_the_task_or_a_pin_is_printed_escaped(run):
    # Arguments that are not UTF-8 reach Python as lone surrogates (surrogateescape): shown, never a crash.
    result = run("context", "pack", "--no-memory", "--task", "buy \udcff milk", "--pin", "user_info=Linh \udce9",
                 "--show")
    assert result.exit_code == 0
    assert "[user] buy \\udcff milk" in result.stdout and "Linh \\udce9" in result.stdout
    data = json.loads(run("context", "pack", "--no-memory", "--task", "buy \udcff milk", "--json").stdout)
    assert data["messages"][-1]["content"] == "buy \udcff milk"


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("payload, message", [
    ('[{"role": "user", "content": NaN}]', "holds NaN, which is not JSON"),
    ('[{"role": "user", "content": "hi", "score": -Infinity}]', "holds -Infinity, which is not JSON"),
    ('{"messages": 5}', '"messages" must be a list of messages, not int'),
    ('[5, "str", null]', "message 1 is not an object: 5"),
    ('[{"role": "user", "content": "hi"}, null]', "message 2 is not an object: None"),
    ('[{"role": "assistant", "content": null, "tool_calls": 5}]', "message 1 has tool_calls of type int"),
    ('[{"role": "user", "content": [{"type": "text", "text": 5}]}]', "message 1 has a text part of type int"),
], ids=["nan", "infinity", "messages-int", "not-objects", "null", "tool-calls-int", "part-text-int"])
def test_every_command_validates_messages_the_same_way(run, tmp_path, command, payload, message):
    path = tmp_path / "h.json"
    path.write_text(payload, encoding="utf-8")
    result = run(*[a.format(f=path) for a in COMMANDS[command]])
    assert result.exit_code == 1
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_dangling_tool_call_is_named_by_compress_and_the_pack_manifest(run, tmp_path):
    call = {"role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    history = chat(3) + [call, {"role": "user", "content": "never mind"}]
    warning = "warning: message 4 has a tool call without results (call_1)"
    result = run("context", "compress", "--threshold", "3", "--keep", "2", input=json.dumps(history))
    assert result.exit_code == 0 and warning in result.stderr
    path = tmp_path / "h.json"
    path.write_text(json.dumps(history), encoding="utf-8")
    args = ("context", "pack", "--no-memory", "--task", "x", "--history", str(path), "--threshold", "3", "--keep", "2")
    assert warning in run(*args).stdout
    assert json.loads(run(*args, "--json").stdout)["manifest"]["warnings"][0].startswith(warning[len("warning: "):])
