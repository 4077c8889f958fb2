"""``bestie memory context`` and ``governance``: output, --json, exit codes, no access bump on preview."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def seeded(run):
    run("memory", "add", "communication_preference", "Always answer in Vietnamese", "--user", "linh",
        "--scope", "core", "--pin")
    run("memory", "add", "preference", "Drinks egg coffee in Hà Nội", "--user", "linh", "--channel", "telegram:1")
    run("memory", "add", "preference", "Drinks coffee only on weekends at work", "--user", "linh",
        "--channel", "zalo:2")
    run("memory", "add", "preference", "Bao hates coffee", "--user", "bao")
    return run


def test_context_prints_the_pack_with_score_parts(seeded):
    out = seeded("memory", "context", "coffee in hanoi", "--user", "linh", "--channel", "telegram:1")
    assert out.exit_code == 0
    lines = out.output.splitlines()
    assert lines[0].startswith("context for user linh, channel telegram:1 · governance governed")
    assert any(line.startswith("core    #1") for line in lines)
    assert any(line.startswith("working #2") and "egg coffee" in line for line in lines)
    assert any("total" in line and "rel " in line and "scope " in line for line in lines)
    assert any("#3" in line and "scope" in line and "channel zalo:2" in line for line in lines)
    assert "Bao" not in out.output
    assert "--- block ---" in out.output


def test_context_json_and_preview_does_not_bump(seeded):
    data = json.loads(seeded("memory", "context", "coffee", "--user", "linh", "--channel", "telegram:1",
                             "--json").output)
    assert [r["id"] for r in data["working"]] == [2]
    assert data["working"][0]["score"]["relevance"] > 0.1
    assert data["tokens"] <= data["token_budget"] == 600
    shown = json.loads(seeded("memory", "list", "--json").output)
    assert all(m["access_count"] == 0 for m in shown)
    seeded("memory", "context", "coffee", "--user", "linh", "--channel", "telegram:1", "--record-access")
    shown = {m["id"]: m["access_count"] for m in json.loads(seeded("memory", "list", "--json").output)}
    assert shown == {1: 1, 2: 1, 3: 0, 4: 0}


def test_context_when_paused_and_bad_input(seeded):
    seeded("memory", "pause")
    out = seeded("memory", "context", "coffee", "--user", "linh")
    assert out.exit_code == 0 and "memory is paused" in out.output
    assert seeded("memory", "context", "coffee").exit_code == 2  # --user is required
    assert seeded("memory", "context", "coffee", "--user", "linh", "--budget", "-5").exit_code == 2


def test_governance_status_and_policy(seeded):
    out = seeded("memory", "governance", "status")
    assert out.exit_code == 0 and "governance       governed" in out.output
    assert "linh 3" in out.output and "bao 1" in out.output
    out = seeded("memory", "governance", "policy", "full")
    assert out.exit_code == 0 and out.output.startswith("governance is now full")
    assert json.loads(seeded("memory", "governance", "status", "--json").output)["mode"] == "full"
    data = json.loads(seeded("memory", "context", "coffee", "--user", "linh", "--channel", "telegram:1",
                             "--json").output)
    assert {r["id"] for r in data["working"]} == {2, 3}
    assert seeded("memory", "governance", "policy", "open").exit_code == 2


def test_bad_score_setting_exits_1(seeded, db_path):
    refused = seeded("memory", "config", "score.relevance", "lots")
    assert refused.exit_code == 1 and "score.relevance must be a number" in refused.output
    import sqlite3

    conn = sqlite3.connect(db_path)  # a bad value stored by an older or foreign writer
    conn.execute("INSERT OR REPLACE INTO setting (key, value) VALUES ('score.relevance', '\"lots\"')")
    conn.commit()
    conn.close()
    out = seeded("memory", "context", "coffee", "--user", "linh")
    assert out.exit_code == 1 and "score.relevance must be a number" in out.output


def test_search_ranks_with_the_scorer(run):
    run("memory", "config", "semantic.model", "off")  # the word part of the ranking (meaning: tests/test_semantic.py)
    run("memory", "add", "note", "Coffee with oat milk, coffee beans from Đà Lạt, coffee daily")
    run("memory", "add", "note", "Bought coffee once")
    out = run("memory", "search", "coffee")
    lines = out.output.splitlines()
    assert lines[0].startswith("#1") and lines[1].startswith("#2")


def test_context_shows_the_when_part_only_for_a_dated_query(run):
    run("memory", "add", "note", "Went hiking at Fansipan", "--user", "linh")
    plain = run("memory", "context", "hiking", "--user", "linh").output
    assert "when —" in plain
    dated = run("memory", "context", "hiking in June 2023", "--user", "linh").output
    assert "when —" not in dated and "when 0." in dated


def test_memory_context_uses_owner_user_when_user_is_left_out(run, store):
    store.add("preference", "Drinks egg coffee every morning.", user="linh")
    store.add("preference", "Drinks green tea every morning.", user="bao")
    missing = run("memory", "context", "morning drink")
    assert missing.exit_code == 2 and "owner.user" in missing.output
    assert run("memory", "config", "owner.user", "linh").exit_code == 0
    shown = run("memory", "context", "morning drink")
    assert shown.exit_code == 0, shown.output
    assert "egg coffee" in shown.output and "green tea" not in shown.output
