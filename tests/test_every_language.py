"""Every language is heard (issue 30, item 8): ``propose-turn`` keeps a lasting first-person
statement (preference, identity, residence, work) in each language the README names — read by
closed classes (first-person pronouns, possessives, verb forms), not phrases — and leaves out the
same languages' small talk, questions and statements about someone else; MCP ``remember`` of any
language goes through the same gate as every write, over a real stdio session."""

from __future__ import annotations

import json
import os
import sys

import pytest

from bestie_tui.conversation.proposals import LANGUAGES
from bestie_tui.store.memory_store import MemoryStore

LASTING = [  # (language, turn, kind the proposal gets)
    ("Chinese", "我特别喜欢喝乌龙茶，不太喜欢可乐。", "preference"),
    ("Chinese", "我现在住在杭州。", "note"),
    ("Chinese", "我叫林一。", "identity"),
    ("Japanese", "私は大阪に住んでいます。", "note"),
    ("Japanese", "ほうじ茶が大好きです。", "preference"),
    ("Korean", "저는 부산에 살고 있어요.", "note"),
    ("Korean", "보리차를 정말 좋아해요.", "preference"),
    ("German", "Ich wohne seit Jahren in Leipzig.", "note"),
    ("German", "Ich trinke lieber Kräutertee als Kaffee.", "preference"),
    ("French", "J'habite à Nantes depuis 2019.", "note"),
    ("French", "Je m'appelle Léa Martin.", "identity"),
    ("Spanish", "Vivo en Valencia con mi familia.", "note"),
    ("Spanish", "No me gusta nada el picante.", "preference"),
]

PASSING = [  # small talk, questions and someone else's facts in the same languages
    "今天天气真不错。", "你住在哪里？", "他住在南京。",
    "母は紅茶が好きです。", "明日は雨ですね。",
    "친구는 녹차를 좋아해요.", "오늘 날씨가 좋네요.",
    "Das Wetter ist heute schön.", "Er wohnt in Hamburg.",
    "Il fait beau aujourd'hui.", "Elle habite à Lille.",
    "¿Dónde vives ahora?", "Mi hermano vive en Sevilla.",
]


def test_every_language_of_the_examples_is_named():
    assert {lang for lang, _, _ in LASTING} <= set(LANGUAGES)


@pytest.mark.parametrize("language, turn, kind", LASTING, ids=[f"{lang}-{i}" for i, (lang, _, _) in enumerate(LASTING)])
def test_propose_turn_keeps_a_lasting_statement(db_path, run, language, turn, kind):
    result = run("memory", "propose-turn", turn, "--user", "lin", "--json")
    assert result.exit_code == 0, result.output
    [proposal] = json.loads(result.stdout)["proposals"]
    assert proposal["outcome"] == "pending"
    store = MemoryStore(db_path)
    try:
        [pending] = store.list(status="pending")
        assert (pending.text, pending.kind, pending.user) == (turn.rstrip("。"), kind, "lin") or (
            pending.text, pending.kind, pending.user) == (turn, kind, "lin")
    finally:
        store.close()


@pytest.mark.parametrize("turn", PASSING)
def test_propose_turn_leaves_out_small_talk_questions_and_other_people(db_path, run, turn):
    result = run("memory", "propose-turn", turn, "--user", "lin")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "nothing to remember in this turn"


def test_a_turn_of_several_cjk_sentences_gives_each_lasting_one(db_path, run):
    result = run("memory", "propose-turn", "今天好累。我住在杭州。我喜欢喝乌龙茶。", "--user", "lin", "--json")
    texts = [p["memory"]["text"] for p in json.loads(result.stdout)["proposals"]]
    assert texts == ["我住在杭州。", "我喜欢喝乌龙茶。"]


mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402


@pytest.mark.slow  # spawns the server process
async def test_mcp_remember_of_any_language_goes_through_the_gate(tmp_path):
    from tests.test_mcp_server import _field, _payload

    db = tmp_path / "memory.db"
    store = MemoryStore(db)
    store.add("preference", "我特别喜欢喝乌龙茶，不太喜欢可乐。", user="lin")
    store.close()
    params = StdioServerParameters(command=sys.executable, args=["-m", "bestie_tui", "--db", str(db), "mcp", "--user", "lin"],
                                   env=dict(os.environ))
    errlog = (tmp_path / "stderr.txt").open("w+")
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        queued = [_payload(await session.call_tool("remember", {"text": text, "kind": "fact"}))
                  for text in ("住在杭州", "大阪に住んでいます", "Wohnt in Leipzig")]
        secret = await session.call_tool("remember", {"text": "服务器的密钥是 AKIAIOSFODNN7EXAMPLE", "kind": "fact"})
        found = _payload(await session.call_tool("search", {"query": "乌龙茶"}))
    errlog.close()
    assert [q["outcome"] for q in queued] == ["pending"] * 3
    assert _field(secret, "is_error", "isError") and "AKIAIOSFODNN7EXAMPLE" not in str(secret.content)
    assert [f["text"] for f in found] == ["我特别喜欢喝乌龙茶，不太喜欢可乐。"]
    store = MemoryStore(db)
    try:
        assert sorted(m.text for m in store.list(status="pending")) == sorted(
            ["住在杭州", "大阪に住んでいます", "Wohnt in Leipzig"])
        assert all("AKIA" not in m.text for m in store.list(status="all"))
    finally:
        store.close()
