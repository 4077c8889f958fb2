"""The README's limits: each is refused in one line and writes nothing, or (a query) is cut."""

from __future__ import annotations

import hashlib
import json

import pytest

from bestie_tui.store.limits import IMPORT_FILE_MAX, MEMORY_ID_MAX, MEMORY_TEXT_MAX
from bestie_tui.text.words import QUERY_MAX_WORDS, query_words

LONG = "green tea " * (MEMORY_TEXT_MAX // 10 + 1)  # just over the limit


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line_error(result, *words):
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    for word in words:
        assert word in lines[0]


@pytest.mark.parametrize("command", [("add", "fact"), ("propose", "fact")])
def test_a_memory_text_over_the_limit_is_refused_on_add_and_propose(run, db_path, command):
    run("memory", "add", "fact", "--", "I drink green tea")
    before = digest(db_path)
    one_line_error(run("memory", *command, "--", LONG), "4,000")
    assert digest(db_path) == before
    assert run("memory", *command, "--", "x " + "y" * (MEMORY_TEXT_MAX - 2)).exit_code == 0


def test_an_edit_over_the_limit_keeps_the_old_text(run, store):
    r = store.add("fact", "I drink green tea")
    one_line_error(run("memory", "edit", str(r.id), "--", LONG), "4,000")
    assert store.get(r.id).text == "I drink green tea"


def test_an_import_over_the_text_or_id_limit_writes_nothing(run, db_path, tmp_path):
    run("memory", "add", "fact", "--", "I drink green tea")
    before = digest(db_path)
    for memories, words in (([{"text": LONG}], ("memories[0].text", "4,000")),
                            ([{"text": "a fine day", "id": MEMORY_ID_MAX + 1}], ("memories[0].id", str(MEMORY_ID_MAX)))):
        path = tmp_path / "in.json"
        path.write_text(json.dumps({"format": "bestie-memory-export", "version": 1, "memories": memories}))
        one_line_error(run("memory", "import", str(path)), *words)
        assert digest(db_path) == before


def test_an_import_with_a_huge_integer_or_over_the_size_limit_is_refused(run, db_path, tmp_path):
    run("memory", "add", "fact", "--", "I drink green tea")
    before = digest(db_path)
    path = tmp_path / "digits.json"
    path.write_text('{"format": "bestie-memory-export", "version": 1, "memories": '
                    '[{"text": "a fine day", "access_count": %s}]}' % ("7" * 5000))
    one_line_error(run("memory", "import", str(path)), "too many digits")
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(IMPORT_FILE_MAX + 1)  # sparse: no disk used
    one_line_error(run("memory", "import", str(big)), "at most 100 MiB")
    assert digest(db_path) == before


@pytest.mark.parametrize("value", ["9" * 5000, "9" * 40, "1" + "0" * 18])
def test_an_integer_setting_with_too_many_digits_is_refused(run, store, value):
    one_line_error(run("memory", "config", "memory.coreTokenCap", value), "at most 18 digits")
    assert store.get_setting("memory.coreTokenCap") == 200


def test_next_id_past_the_id_limit_is_refused(store):
    from bestie_tui.errors import InvalidValueError
    from bestie_tui.store.models import Memory

    with store.bound():
        Memory.update(id=MEMORY_ID_MAX).where(Memory.id == store.add("fact", "I drink green tea").id).execute()
    with pytest.raises(InvalidValueError, match="ids are exhausted"):
        store.add("fact", "I ride a red bike")


LONG_QUERIES = {
    "100 words": " ".join(f"word{i}" for i in range(100)),
    "one 50 KB word": "t" * 50_000,
    "2000 short words": " ".join(chr(97 + i % 26) * (1 + i // 26) for i in range(2000)),
}


@pytest.mark.parametrize("name", LONG_QUERIES)
@pytest.mark.parametrize("command", [("search",), ("pending", "search"), ("messages", "search")])
def test_long_queries_are_cut_not_fatal(run, store, name, command):
    store.add("fact", "I drink green tea")
    store.propose("I drink green tea at night", "fact")
    store.log_message("user", "green tea again")
    query = "green tea " + LONG_QUERIES[name]
    result = run("memory", *command, query)
    assert result.exit_code == 0, result.output
    assert len(result.output) < 400  # the "no match" line quotes the query shortened


def test_a_long_query_still_finds_by_its_first_words(run, store):
    store.add("fact", "I drink green tea")
    result = run("memory", "search", "green tea " + " ".join("tea" for _ in range(500)))
    assert "I drink green tea" in result.output


def test_query_words_are_distinct_cut_and_bounded():
    words = query_words("Tea tea " + "x" * 500 + " " + " ".join(f"w{i}" for i in range(200)))
    assert words[0] == "tea" and words[1] == "x" * 64
    assert len(words) == QUERY_MAX_WORDS


def test_long_filters_in_the_store_lists_do_not_raise(store):
    store.add("fact", "I drink green tea")
    store.log_message("user", "green tea again")
    query = "green tea " + LONG_QUERIES["100 words"]
    assert store.list(query=query, tier="working") == []
    assert store.messages(query=query) == []
    assert store.pending_ids(query="t" * 50_000) == []


def test_a_huge_id_from_an_old_import_costs_nothing_and_new_ids_step_over_it(run, store):
    from bestie_tui.store import doc_index
    from bestie_tui.store.models import Memory

    huge = 2**62
    first = store.add("fact", "I drink green tea every morning", user="owner")
    with store.bound():
        Memory.update(id=huge).where(Memory.id == first.id).execute()  # as an import before the id limit made it
        with store.db.atomic():
            doc_index.rebuild(store.db)
    second = store.add("fact", "I like green apples", user="owner")
    assert second.id <= MEMORY_ID_MAX
    for args in (("memory", "search", "green tea"), ("memory", "context", "green tea", "--user", "owner")):
        result = run(*args)
        assert result.exit_code == 0 and str(huge) in result.output, result.output
