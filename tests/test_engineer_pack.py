"""The second design note's contract by its names: the Engineer's pack and the FREETEXT_* variables."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from bestie_tui.conversation.config import context_settings, setting_sources
from bestie_tui.conversation.engineer import (
    build_engineer_pack,
    build_nextjs_context_pack,
    build_pm_pinned_machine_messages,
    read_chat_context,
)
from bestie_tui.conversation.pack import build_pack
from bestie_tui.conversation.pins import (
    BUILD_STATE,
    CROSS_STACK,
    FE_SPEC,
    KYB,
    MASTER,
    PIN_PREFIXES,
    PRODUCT_PLAN,
    PROJECT_CONTEXT,
    RESOURCE_DIGEST,
    USER_INFO,
)
from bestie_tui.errors import InvalidValueError
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.store.settings import ENV_OVERRIDES

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.fixture
def design(tmp_path, monkeypatch):
    """A project folder with the note's design-system files; the working directory is the project."""
    folder = tmp_path / "design-system"
    folder.mkdir()
    (folder / "PRODUCT_PLAN.md").write_text("# Plan\n" + "".join(f"- feature {i}\n" for i in range(300)), encoding="utf-8")
    (folder / "MASTER.md").write_text("Colours: primary #0A84FF\nType: Inter 16/24\n", encoding="utf-8")
    (folder / "BUILD_STATE.md").write_text("".join(f"- page {i}: done\n" for i in range(200)), encoding="utf-8")
    (folder / "CROSS_STACK.md").write_text("API: GET /api/plans returns {id, name}\n" * 50, encoding="utf-8")
    (folder / "beguru_chat_context.json").write_text(json.dumps({
        "fe_spec": {"pages": ["/", "/pricing"], "framework": "Next.js 14"},
        "resource_digest": ["logo.svg: the brand mark", "brief.pdf: 3 pages"],
        "USER_INFO": "Owner: An, Hà Nội", "KYB": {"legal_name": "An Bakery Co."},
        "project context": "A bakery's ordering site"}, ensure_ascii=False), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return folder


def test_segments_come_in_the_notes_order_from_the_files_it_names(design):
    pack = build_nextjs_context_pack("Build the pricing page")
    prefixes = [m["content"].split("\n", 1)[0] for m in pack.messages[:-1]]
    assert prefixes == [FE_SPEC, PRODUCT_PLAN, MASTER, BUILD_STATE, CROSS_STACK, RESOURCE_DIGEST]
    assert pack.messages[-1] == {"role": "user", "content": "Build the pricing page"}
    texts = [m["content"] for m in pack.messages]
    assert "framework: Next.js 14" in texts[0] and "path: design-system/MASTER.md" in texts[2]
    assert "- logo.svg: the brand mark" in texts[5]
    names = [s.name for s in pack.manifest.segments]
    assert names[0] == "pin:FE_SPEC" and names[1] == "PRODUCT_PLAN:design-system/PRODUCT_PLAN.md"
    assert pack.manifest.segments[0].note == "from beguru_chat_context.json"
    assert build_engineer_pack is build_nextjs_context_pack


def test_given_spec_and_digest_win_and_missing_files_are_listed_not_fatal(design, tmp_path):
    (design / "CROSS_STACK.md").unlink()
    (design / "MASTER.md").unlink()
    pack = build_nextjs_context_pack("Go", spec="Only the home page", digest="none yet")
    assert pack.messages[0]["content"] == f"{FE_SPEC}\nOnly the home page\n[/FE_SPEC]"
    assert pack.manifest.missing == ["design-system/MASTER.md"]  # CROSS_STACK is optional
    notes = {s.name: s.note for s in pack.manifest.segments}
    assert notes["CROSS_STACK:design-system/CROSS_STACK.md"] == "optional, not there"
    assert notes["pin:FE_SPEC"] == "given"
    elsewhere = build_nextjs_context_pack("Go", tmp_path / "nowhere")
    assert [m["content"] for m in elsewhere.messages] == ["Go"]
    assert "nowhere/beguru_chat_context.json" in " ".join(elsewhere.manifest.missing)
    assert any(s.name == "pin:FE_SPEC" and s.note.startswith("no spec:") for s in elsewhere.manifest.segments)


@pytest.mark.parametrize("payload, reason", [("{not json", "not JSON (line 1, column 2)"), ("[1, 2]", "not a JSON object"),
                                             (b"\xff\xfe", "not UTF-8")])
def test_a_broken_chat_context_file_is_skipped_with_its_reason(design, payload, reason):
    path = design / "beguru_chat_context.json"
    path.write_bytes(payload if isinstance(payload, bytes) else payload.encode())
    assert read_chat_context(path).error == reason
    pack = build_nextjs_context_pack("Go")
    assert pack.manifest.skipped[str(Path("design-system/beguru_chat_context.json"))] == reason
    assert pack.messages[0]["content"].startswith(PRODUCT_PLAN)


def test_the_pm_pinned_layer_comes_from_the_same_file(design):
    pins = build_pm_pinned_machine_messages(design / "beguru_chat_context.json")
    assert [p["content"].split("\n", 1)[0] for p in pins] == [USER_INFO, KYB, PROJECT_CONTEXT, RESOURCE_DIGEST]
    assert pins[1]["content"] == f"{KYB}\nlegal_name: An Bakery Co.\n[/KYB]"
    assert [p["content"].split("\n")[0] for p in build_pm_pinned_machine_messages({"kyb": "x"})] == [KYB]


def test_every_prefix_has_a_row_in_the_readme_table():
    text = README.read_text(encoding="utf-8")
    for prefix in PIN_PREFIXES + ("[CONTEXT_SUMMARY",):
        assert re.search(rf"^\| `pins\.\w+` \| `{re.escape(prefix)}` \|", text, re.M), prefix


# ------------------------------------------------------------------------------ environment
def chat(n: int) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"Turn {i}: Linh asked about the trip to Đà Nẵng on 3 June 2025."} for i in range(n)]


def test_threshold_and_keep_recent_come_from_the_environment(run, monkeypatch):
    plain = run("context", "compress", "--json", input=json.dumps(chat(8)))
    assert json.loads(plain.stdout) == chat(8)  # 8 ≤ 40: unchanged
    monkeypatch.setenv("FREETEXT_COMPRESS_THRESHOLD", "5")
    monkeypatch.setenv("FREETEXT_COMPRESS_KEEP_RECENT", "2")
    out = json.loads(run("context", "compress", "--json", input=json.dumps(chat(8))).stdout)
    assert len(out) == 3 and out[1:] == chat(8)[-2:]
    monkeypatch.delenv("FREETEXT_COMPRESS_KEEP_RECENT")
    monkeypatch.setenv("FREETEXT_COMPRESS_KEEP_RECENT_TURNS", "3")
    assert len(json.loads(run("context", "compress", "--json", input=json.dumps(chat(8))).stdout)) == 4
    assert build_pack("next?", chat(8)).compression.compressed  # the Python API reads them too


def test_the_environment_wins_over_the_database(run, db_path, monkeypatch):
    run("memory", "config", "context.keepRecent", "4")
    run("memory", "config", "context.compressThreshold", "6")
    assert len(json.loads(run("context", "compress", "--json", input=json.dumps(chat(8))).stdout)) == 5
    monkeypatch.setenv("FREETEXT_COMPRESS_KEEP_RECENT", "2")
    assert len(json.loads(run("context", "compress", "--json", input=json.dumps(chat(8))).stdout)) == 3
    shown = run("context", "settings").stdout
    assert re.search(r"context\.keepRecent\s+2\s+env FREETEXT_COMPRESS_KEEP_RECENT", shown)
    assert re.search(r"context\.compressThreshold\s+6\s+database", shown)


def test_token_estimate_mode_comes_from_the_environment(run, monkeypatch):
    monkeypatch.setenv("FREETEXT_TOKEN_ESTIMATE_MODE", "tiktoken_cl100k")
    assert "tokens (tiktoken_cl100k)" in run("context", "compress", input=json.dumps(chat(50))).stderr
    assert build_pack("x", chat(3)).manifest.token_mode == "tiktoken_cl100k"


def test_build_state_and_cross_stack_caps_come_from_the_environment(design, monkeypatch):
    def shown(pack, name):
        return next(s for s in pack.manifest.segments if s.name.startswith(name)).note

    default = build_nextjs_context_pack("Go")
    assert shown(default, "BUILD_STATE:").endswith("characters, whole file")  # under the default 6,000
    monkeypatch.setenv("FREETEXT_BUILD_STATE_MAX_CHARS", "120")
    monkeypatch.setenv("FREETEXT_CROSS_STACK_MAX_CHARS", "80")
    pack = build_nextjs_context_pack("Go")
    assert shown(pack, "BUILD_STATE:").startswith("cut to 120 of ")
    assert shown(pack, "CROSS_STACK:").startswith("cut to 80 of ")
    state = next(m["content"] for m in pack.messages if m["content"].startswith(BUILD_STATE))
    assert "[… cut: first 120 of" in state


def test_persisting_the_summary_comes_from_the_environment(run, db_path, monkeypatch):
    run("context", "compress", "--json", input=json.dumps(chat(50)))
    store = MemoryStore(db_path)
    try:
        assert store.messages(role="system") == []
        monkeypatch.setenv("FREETEXT_PERSIST_COMPRESSOR_SUMMARY", "true")
        result = run("context", "compress", "--json", input=json.dumps(chat(50)))
        assert "summary stored in the database" in result.stderr
        saved = store.messages(role="system")
        assert len(saved) == 1 and saved[0].text.startswith("[CONTEXT_SUMMARY turns=40")
    finally:
        store.close()


def test_prompt_resolution_is_logged_only_when_asked(design, monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="bestie_tui.conversation.pack")
    build_nextjs_context_pack("Build the pricing page")
    assert not caplog.records
    monkeypatch.setenv("FREETEXT_LOG_PROMPT_RESOLUTION", "true")
    pack = build_nextjs_context_pack("Build the pricing page")
    (record,) = caplog.records
    meta = json.loads(record.getMessage().split(": ", 1)[1])
    assert meta["segments_applied"] == [s.name for s in pack.manifest.segments if s.messages]
    assert meta["spec_chars"] == pack.manifest.segments[0].chars > 0
    design_parts = [s.chars for s in pack.manifest.segments if s.name.split(":")[0] in
                    ("PRODUCT_PLAN", "MASTER", "BUILD_STATE", "CROSS_STACK")]
    assert meta["design_chars"] == sum(design_parts) and len(design_parts) == 4
    assert "Next.js" not in record.getMessage()  # sizes and names, never the text
    monkeypatch.setenv("FREETEXT_LOG_PROMPT_RESOLUTION", "0")
    caplog.clear()
    build_pack("x", chat(3))
    assert not caplog.records


@pytest.mark.parametrize("var, value, message", [
    ("FREETEXT_COMPRESS_THRESHOLD", "forty", "FREETEXT_COMPRESS_THRESHOLD='forty'"),
    ("FREETEXT_TOKEN_ESTIMATE_MODE", "words", "must be one of chars4, tiktoken_cl100k"),
    ("FREETEXT_LOG_PROMPT_RESOLUTION", "maybe", "must be true or false"),
    ("FREETEXT_BUILD_STATE_MAX_CHARS", "0", "from 1 to 1000000"),
])
def test_a_bad_environment_value_is_one_clear_line_and_exit_1(run, monkeypatch, var, value, message):
    monkeypatch.setenv(var, value)
    result = run("context", "compress", input=json.dumps(chat(3)))
    assert result.exit_code == 1 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    with pytest.raises(InvalidValueError, match=var):
        context_settings()


def test_two_spellings_of_keep_recent_must_agree(monkeypatch):
    monkeypatch.setenv("FREETEXT_COMPRESS_KEEP_RECENT", "3")
    monkeypatch.setenv("FREETEXT_COMPRESS_KEEP_RECENT_TURNS", "3")
    assert setting_sources()["context.keepRecent"] == (3, "env FREETEXT_COMPRESS_KEEP_RECENT")
    monkeypatch.setenv("FREETEXT_COMPRESS_KEEP_RECENT_TURNS", "4")
    with pytest.raises(InvalidValueError, match="disagree about context.keepRecent"):
        context_settings()
    assert set(ENV_OVERRIDES) >= {"FREETEXT_TOKEN_ESTIMATE_MODE", "FREETEXT_BUILD_STATE_MAX_CHARS",
                                  "FREETEXT_CROSS_STACK_MAX_CHARS", "FREETEXT_PERSIST_COMPRESSOR_SUMMARY",
                                  "FREETEXT_LOG_PROMPT_RESOLUTION"}
