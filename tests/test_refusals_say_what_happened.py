"""Messages say what happened (issue 31, item 6): a refusal over a limit says that nothing was saved,
looked up or imported, never only the limit ("at most 4,000 are kept" was said when nothing was kept)."""

from __future__ import annotations

import hashlib
import json

import pytest

from bestie_tui.agent.turns import recall
from bestie_tui.errors import InvalidValueError
from bestie_tui.store.limits import MEMORY_TEXT_MAX, MESSAGE_TEXT_MAX
from bestie_tui.transfer.exchange import FORMAT


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_error(result) -> str:
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    assert "are kept" not in lines[0] and "are accepted" not in lines[0]
    return lines[0]


@pytest.fixture
def seeded(run, db_path):
    run("memory", "add", "fact", "--", "Keeps the spare key under the blue pot")
    return digest(db_path)


def test_a_memory_over_the_limit_says_nothing_was_saved(run, db_path, seeded):
    line = one_error(run("memory", "add", "fact", "--", "long words " * 500))
    assert f"a memory holds at most {MEMORY_TEXT_MAX:,}, so nothing was saved" in line
    assert digest(db_path) == seeded


def test_a_message_over_the_limit_or_empty_says_nothing_was_saved(run, db_path, seeded):
    text = "chat " * (MESSAGE_TEXT_MAX // 5 + 1)
    line = one_error(run("memory", "log", "user", "--user", "ana", "--", text))
    assert line == (f"Error: message text is {len(text):,} characters; a message holds at most "
                    f"{MESSAGE_TEXT_MAX:,}, so nothing was saved")
    assert one_error(run("memory", "log", "user", "--user", "ana", "--", "   ")) == \
        "Error: message text is empty; nothing was saved"
    assert digest(db_path) == seeded


def test_a_query_over_the_limit_says_nothing_was_looked_up(store):
    with pytest.raises(InvalidValueError, match=f"a query is at most {MESSAGE_TEXT_MAX:,}, so nothing was looked up"):
        recall(store, "where " * (MESSAGE_TEXT_MAX // 6 + 1), user="ana")


@pytest.mark.parametrize("memory, said", [
    ({"text": "long words " * 500}, f"memories[1].text is 5,499 characters; a memory holds at most {MEMORY_TEXT_MAX:,}"),
    ({"text": "Fine text", "user": "a\x1bb"}, "memories[1].user holds a control character"),
])
def test_an_import_refused_by_a_limit_says_nothing_was_imported(run, db_path, seeded, tmp_path, memory, said):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"format": FORMAT, "version": 2, "memories": [{"text": "A fine one"}, memory],
                                "messages": []}))
    line = one_error(run("memory", "import", str(path)))
    assert said in line and line.endswith("; nothing was imported")
    assert "\x1b" not in line
    assert digest(db_path) == seeded
