"""Every language is heard (issue 30, item 8): a word inside a run of Chinese, Japanese or Korean
characters is found wherever words are matched — memory search, the context block, history recall
and the message search — because CJK runs are indexed as overlapping character pairs. An index
built before that (``doc_index.FORMAT`` 1) is rebuilt by the first reader, never served stale."""

from __future__ import annotations

import json
import sqlite3

import pytest

from bestie_tui.store import doc_index
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.text.words import index_tokens, query_words, split_cjk

TEA = "我喜欢喝绿茶，不喜欢咖啡。"
BACKUP = "GitHub备份脚本上传失败"
KANA = "私は毎朝緑茶を飲みます。"
HANGUL = "저는 서울에 살고 있어요."


def test_runs_are_cut_into_character_pairs_and_other_words_stay_whole():
    assert split_cjk("github备份脚本") == ["github", "备份", "份脚", "脚本"]
    assert split_cjk("茶") == ["茶"] and split_cjk("coffee") == ["coffee"]
    assert index_tokens(TEA) == ["我喜", "喜欢", "欢喝", "喝绿", "绿茶", "不喜", "喜欢", "欢咖", "咖啡"]
    assert index_tokens("Hà Nội, 2026") == ["ha", "noi", "2026"]
    assert "서울" in index_tokens(HANGUL)  # syllables, not the jamo NFKD folds them into
    assert query_words("备份脚本") == ["备份", "份脚", "脚本"]


@pytest.fixture
def cjk_db(db_path, clock):
    store = MemoryStore(db_path, clock=clock)
    # words only: with the semantic extra on, 绿茶 and 緑茶 (green tea) also meet by meaning, which is right
    # but not what these tests check (tests/test_semantic.py does)
    store.set_setting("semantic.model", "off")
    for text in (TEA, BACKUP, KANA, HANGUL, "Went hiking near the lake in October"):
        store.add("note", text, user="alice")
    store.log_message("user", "昨天服务器的" + BACKUP + "了，明天再试。", user="alice", session="s1")
    store.log_message("assistant", "好的，我记下了。", user="alice", session="s1")
    store.log_message("user", "We talked about hiking trails last weekend.", user="alice", session="s2")
    store.close()
    return db_path


@pytest.mark.parametrize("query, expected", [
    ("绿茶", TEA), ("咖啡", TEA), ("备份脚本", BACKUP), ("上传", BACKUP), ("github", BACKUP),
    ("緑茶", KANA), ("서울", HANGUL),
])
def test_memory_search_finds_a_word_inside_a_cjk_run(cjk_db, run, query, expected):
    result = run("memory", "search", query, "--json")
    assert result.exit_code == 0, result.output
    assert [m["text"] for m in json.loads(result.stdout)] == [expected]


@pytest.mark.parametrize("query, expected", [("咖啡", TEA), ("备份脚本", BACKUP), ("서울", HANGUL)])
def test_the_context_block_holds_the_memory_a_cjk_word_asks_for(cjk_db, run, query, expected):
    result = run("memory", "context", query, "--user", "alice", "--json")
    assert result.exit_code == 0, result.output
    block = json.loads(result.stdout)["text"]
    assert "- " + expected in block.splitlines()
    assert "hiking" not in block


def test_recall_and_message_search_find_a_word_inside_a_logged_cjk_run(cjk_db, run):
    block = run("memory", "recall", "服务器", "--user", "alice").stdout
    assert "服务器的GitHub备份脚本上传失败了" in block and "hiking" not in block
    found = run("memory", "messages", "search", "上传", "--user", "alice", "--json")
    assert found.exit_code == 0, found.output
    texts = [h["text"] for h in json.loads(found.stdout)]
    assert "昨天服务器的" + BACKUP + "了，明天再试。" in texts and not any("hiking" in t for t in texts)


def test_an_index_built_before_cjk_pairs_is_rebuilt_by_the_first_reader(cjk_db, run):
    with sqlite3.connect(cjk_db) as con:  # what an older version left: format 1, no pair features
        con.execute("UPDATE ix_meta SET format = 1")
        con.execute("DELETE FROM ix_posting WHERE term_id IN (SELECT id FROM ix_term WHERE term GLOB '*[一-龥]*')")
        con.execute("DELETE FROM ix_term WHERE term GLOB '*[一-龥]*'")
    assert {f for (f,) in sqlite3.connect(cjk_db).execute("SELECT format FROM ix_meta")} == {1}
    block = json.loads(run("memory", "context", "咖啡", "--user", "alice", "--json").stdout)["text"]
    assert "- " + TEA in block.splitlines()
    assert "服务器" in run("memory", "recall", "服务器", "--user", "alice").stdout
    formats = dict(sqlite3.connect(cjk_db).execute("SELECT collection, format FROM ix_meta").fetchall())
    assert formats == {doc_index.MEMORY: doc_index.FORMAT, doc_index.MESSAGE: doc_index.MESSAGE_FORMAT}
