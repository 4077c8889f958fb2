"""Limits first (issue 31, item 5): every input's limit is checked before it is read whole or held,
refused in one line that names the limit, with exit code 1 and nothing written. How long and how
much memory each check costs is measured in ``benchmarks/limits.py``, not timed here."""

from __future__ import annotations

import hashlib
import json

import pytest

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.limits import (
    IMPORT_FILE_MAX,
    MARKDOWN_LINE_MAX,
    MEMORY_TEXT_MAX,
    MESSAGE_TEXT_MAX,
    USER_ID_MAX,
    stripped_length,
)
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.transfer.exchange import FORMAT

ESC = "\x1b"


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused(result, *words: str) -> str:
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    for word in words:
        assert word in lines[0], lines[0]
    assert ESC not in result.output  # a refused id is never echoed
    return lines[0]


def export(memories=(), messages=()) -> str:
    return json.dumps({"format": FORMAT, "version": 2, "memories": list(memories), "messages": list(messages)})


@pytest.fixture
def seeded(run, db_path):
    run("memory", "add", "fact", "--", "I drink green tea")
    return digest(db_path)


def test_a_50_mb_memory_text_is_refused_by_its_length_on_import_and_on_add(run, db_path, seeded, tmp_path):
    huge = "tea " * (50 * 2**20 // 4)
    path = tmp_path / "huge.json"
    path.write_text(export([{"text": huge, "status": "approved"}]))
    refused(run("memory", "import", str(path)), "memories[0].text", f"{len(huge.strip()):,} characters",
            f"at most {MEMORY_TEXT_MAX:,}")
    assert digest(db_path) == seeded
    store = MemoryStore(db_path)
    with pytest.raises(InvalidValueError, match=f"at most {MEMORY_TEXT_MAX:,}"):
        store.add("fact", huge)
    with pytest.raises(InvalidValueError, match=f"at most {MEMORY_TEXT_MAX:,}"):
        store.propose(huge, "fact")
    store.close()
    assert digest(db_path) == seeded


def test_stripped_length_is_the_length_of_the_trimmed_text():
    for text in ("", "  ", " a ", "x" * 70_000, " \n" * 40_000 + "word" + "\t " * 40_000, "b" + " " * 200_000):
        assert stripped_length(text) == len(text.strip())


def test_a_message_over_the_limit_is_refused_on_log_and_import_with_the_same_line(run, db_path, seeded, tmp_path):
    text = "hello " * (MESSAGE_TEXT_MAX // 6 + 1)
    limit = f"at most {MESSAGE_TEXT_MAX:,}"
    refused(run("memory", "log", "user", "--user", "ana", "--", text), f"{len(text):,} characters", limit)
    path = tmp_path / "chat.json"
    path.write_text(export(messages=[{"role": "user", "text": "short", "created_at": "2026-01-01T00:00:00"},
                                     {"role": "user", "text": text, "created_at": "2026-01-01T00:00:01"}]))
    refused(run("memory", "import", str(path)), "messages[1].text", limit, "nothing was imported")
    assert digest(db_path) == seeded
    store = MemoryStore(db_path)
    with pytest.raises(InvalidValueError, match=limit):
        store.log_message("user", text)
    store.close()
    assert run("memory", "log", "user", "--user", "ana", "--", text[:MESSAGE_TEXT_MAX]).exit_code == 0


@pytest.mark.parametrize("user", [ESC + "[31mred", "ana\nbob", "x" * (USER_ID_MAX + 1), "  "])
def test_a_bad_user_id_is_refused_in_one_line_on_every_path(run, db_path, seeded, tmp_path, user):
    rule = f"1 to {USER_ID_MAX} printable characters"
    refused(run("--user", user, "memory", "list"), "--user", rule)
    refused(run("memory", "list", "--user", user), "--user", rule)
    refused(run("memory", "add", "fact", "--user", user, "--", "I like tea"), "--user", rule)
    refused(run("memory", "log", "user", "hello there", "--user", user), "--user", rule)
    refused(run("mcp", "--user", user), rule)  # the server never starts for it
    path = tmp_path / "users.json"
    path.write_text(export([{"text": "I like tea", "user": user}]))
    refused(run("memory", "import", str(path)), "memories[0].user", rule)
    path.write_text(export(messages=[{"role": "user", "text": "hi", "user": user, "created_at": "2026-01-01T00:00:00"}]))
    refused(run("memory", "import", str(path)), "messages[0].user", rule)
    assert digest(db_path) == seeded
    with pytest.raises(InvalidValueError, match=rule):
        MemoryStore(db_path, user=user) if user.strip() else MemoryStore(db_path).log_message("user", "hi", user=user)
    good = "Thảo Nguyễn " + "y" * (USER_ID_MAX - 12)
    assert run("memory", "add", "fact", "--user", good, "--", "I like tea").exit_code == 0


def test_an_openclaw_file_over_the_size_limit_is_refused_before_it_is_read(run, db_path, seeded, tmp_path):
    path = tmp_path / "MEMORY.md"
    with path.open("wb") as handle:  # sparse: the size is there, the bytes are never written
        handle.truncate(IMPORT_FILE_MAX + 1)
    refused(run("memory", "import", str(path)), f"at most {IMPORT_FILE_MAX // 2**20} MiB")
    assert digest(db_path) == seeded


def test_an_openclaw_line_or_bullet_over_the_limit_is_refused_where_it_is(run, db_path, seeded, tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_text("# MEMORY\n\n- I like tea\n- " + "z" * (MARKDOWN_LINE_MAX + 5) + "\n- never read\n")
    refused(run("memory", "import", str(path)), "line 4", f"{MARKDOWN_LINE_MAX:,} characters",
            f"at most {MEMORY_TEXT_MAX:,}")
    continuation = "  and more words that go on\n" * (MEMORY_TEXT_MAX // 20)
    path.write_text("# MEMORY\n\n## Food\n\n- I like tea\n- I like\n" + continuation)
    refused(run("memory", "import", str(path)), "bullet on line 6", f"over {MEMORY_TEXT_MAX:,} characters")
    assert digest(db_path) == seeded


def test_openclaw_continuation_lines_join_into_one_memory(run, db_path, tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_text("# MEMORY\n\n## Food\n\n- I brew\n  oolong leaves\n\tbefore my first call\n- I cook rice\n")
    assert run("memory", "import", str(path)).exit_code == 0
    store = MemoryStore(db_path)
    assert sorted(m.text for m in store.list()) == ["I brew oolong leaves before my first call", "I cook rice"]
    store.close()
