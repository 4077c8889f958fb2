"""``bestie memory copy --to URL|FILE``: a whole database into an empty one — a SQLite file to a
PostgreSQL server (those tests need ``BESTIE_TEST_PG``) or to another file — keeping every memory
(ids too), message, event and setting: the full exports of source and copy are the same, and the
copy goes on where the source was (undo, the next id, search)."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest
from click.testing import CliRunner
from conftest import pg_schema, raw_connect

from bestie_tui.cli.main import cli
from bestie_tui.store.memory_store import MemoryStore


def _bestie(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _seed(path, clock) -> None:
    store = MemoryStore(path, clock=clock)
    tea = store.add("preference", "Drinks green tea without sugar", user="minh", confidence=0.8)
    store.add("fact", "Lives in Da Nang near the beach", user="minh", pinned=True)
    store.add("note", "Sister Hoa teaches piano", user="minh", about="Hoa")
    store.add("decision", "Ships the beta on Friday", user="lan", ttl="7d")
    store.propose("Learning the guitar this year", "fact", user="lan")
    store.edit(tea.id, "Drinks green tea, no sugar, in the morning")
    store.forget(tea.id)
    store.undo()
    store.log_message("user", "Any trail near Da Lat?\tTab and\nnewline kept", user="minh", session="s1")
    store.log_message("assistant", "Try the Langbiang peak trail.", user="minh", session="s1")
    store.set_setting("memory.undoRetentionDays", 12)
    store.close()


def _full_export(location) -> dict:
    result = _bestie("--db", str(location), "memory", "export", "--full")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    data.pop("exported_at", None)
    return data


def _copy(source, target, *extra: str):
    return _bestie("--db", str(source), "memory", "copy", "--to", str(target), *extra)


def _check_the_copy_goes_on(target) -> None:
    listed = _bestie("--db", str(target), "memory", "search", "beach")
    assert "Da Nang" in listed.output
    added = _bestie("--db", str(target), "memory", "add", "note", "Plays chess on Sundays")
    assert added.exit_code == 0 and "added #6" in added.output  # the next id comes after the copied ones
    undone = _bestie("--db", str(target), "memory", "undo")
    assert undone.exit_code == 0 and "Plays chess" in undone.output
    undone = _bestie("--db", str(target), "memory", "undo")  # the source's own history, one step further
    assert undone.exit_code == 0, undone.output


def test_a_sqlite_file_copied_to_postgresql_keeps_every_row_event_and_message(tmp_path, clock):
    source = tmp_path / "memory.db"
    _seed(source, clock)
    with pg_schema("copy") as url:
        result = _copy(source, url, "--json")
        assert result.exit_code == 0, result.output
        rows = json.loads(result.output)["rows"]
        assert (rows["memory"], rows["message"], rows["setting"]) == (5, 2, 1)
        assert rows["event"] == sqlite3.connect(source).execute("SELECT COUNT(*) FROM event").fetchone()[0]
        assert _full_export(url) == _full_export(source)
        _check_the_copy_goes_on(url)


def test_a_copy_back_from_postgresql_to_a_new_file_is_the_same_database_again(tmp_path, clock):
    source = tmp_path / "memory.db"
    _seed(source, clock)
    back = tmp_path / "back.db"
    with pg_schema("copy") as url:
        assert _copy(source, url).exit_code == 0
        result = _copy(url, back)
        assert result.exit_code == 0, result.output
    assert _full_export(back) == _full_export(source)


def test_a_copy_to_another_sqlite_file_keeps_everything_and_says_what_it_moved(tmp_path, clock):
    source, target = tmp_path / "memory.db", tmp_path / "copy.db"
    _seed(source, clock)
    result = _copy(source, target)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("copied 5 memories, 2 messages, ") and result.output.count("\n") == 1
    assert _full_export(target) == _full_export(source)
    _check_the_copy_goes_on(target)


@pytest.mark.both_engines
def test_a_target_that_holds_anything_is_refused_with_one_line_and_left_as_it_was(tmp_path, clock, db_path):
    source = tmp_path / "source.db"
    _seed(source, clock)
    target = MemoryStore(db_path)
    target.add("note", "Already here", user="an")
    target.close()
    before = _full_export(db_path)
    result = _copy(source, db_path)
    assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
    assert "is not empty (1 memory rows" in result.output and "nothing was copied" in result.output
    assert _full_export(db_path) == before


def test_copy_needs_a_target_other_than_itself(tmp_path, clock):
    source = tmp_path / "memory.db"
    _seed(source, clock)
    assert _bestie("--db", str(source), "memory", "copy").exit_code == 2
    same = _copy(source, source)
    assert same.exit_code == 2 and "names the database being copied" in same.output


@pytest.mark.both_engines
def test_an_older_file_holding_a_nul_character_is_refused_whole_naming_the_record(tmp_path, clock, db_path):
    source = tmp_path / "old.db"
    _seed(source, clock)
    with sqlite3.connect(source) as conn:  # as a bestie from before NUL was refused could have stored it
        conn.execute("UPDATE memory SET text = 'Sister Hoa teaches' || char(0) || 'piano' WHERE id = 3")
    result = _copy(source, db_path)
    assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
    assert "memory #3 holds a NUL character" in result.output and "nothing was copied" in result.output
    MemoryStore(db_path).close()
    conn = raw_connect(db_path)
    try:
        assert [conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("memory", "message", "event")] == [0, 0, 0]
    finally:
        conn.close()


def test_a_nul_character_in_the_search_index_or_a_setting_names_the_record_it_belongs_to(tmp_path, clock):
    source = tmp_path / "old.db"
    _seed(source, clock)
    with sqlite3.connect(source) as conn:  # the index's copy of the text read before the memory itself
        conn.execute("UPDATE ix_doc SET text = 'Lives in Da' || char(0) || 'Nang' WHERE collection = 'memory' AND doc_id = 2")
    result = _copy(source, tmp_path / "a.db")
    assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
    assert result.output.startswith("Error: memory #2 (its text in the search index) holds a NUL character")
    assert "ix_doc" not in result.output and _rows(tmp_path / "a.db") == 0
    with sqlite3.connect(source) as conn:
        conn.execute("UPDATE ix_doc SET text = 'Lives in Da Nang' WHERE doc_id = 2")
        conn.execute("UPDATE setting SET key = 'memory.undo' || char(0) || 'RetentionDays'")
    result = _copy(source, tmp_path / "b.db")
    assert result.exit_code == 1, result.output
    assert result.output.startswith('Error: the setting "memory.undo\\u0000RetentionDays" holds a NUL character')


def _rows(path) -> int:
    with sqlite3.connect(path) as conn:
        return sum(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("memory", "message", "event"))


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_target_that_is_the_sources_own_wal_shm_or_journal_file_is_refused_like_the_source(tmp_path, clock, suffix):
    source = tmp_path / "memory.db"
    _seed(source, clock)
    before = _full_export(source)
    result = _copy(source, f"{source}{suffix}")
    assert result.exit_code == 2, result.output
    assert result.output.rstrip().splitlines()[-1] == ("Error: --to names the database being copied (or its -wal, "
                                                       "-shm or -journal file); give another (an empty one)")
    assert _full_export(source) == before


def test_a_source_that_does_not_exist_is_refused_and_nothing_is_created(tmp_path):
    missing, target = tmp_path / "missing.db", tmp_path / "new.db"
    result = _copy(missing, target)
    assert result.exit_code == 1
    assert result.output == f"Error: {missing} does not exist; nothing was copied (is the --db path right?)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_to_path_that_cannot_be_a_database_file_is_refused_before_it_is_opened(tmp_path, clock):
    source = tmp_path / "memory.db"
    _seed(source, clock)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it would wait for a writer for ever
    cases = {
        str(tmp_path / "nodir" / "x.db"): (1, f"Error: the folder of --to {tmp_path}/nodir/x.db does not exist; "
                                              "nothing was copied (is the --to path right?)"),
        f"{tmp_path}/x.db/": (1, f"Error: --to {tmp_path}/x.db/ ends with a slash, so it names a folder; "
                                 "give the SQLite file to copy into (nothing was copied)"),
        "/dev/null": (1, "Error: --to /dev/null is not a regular file; give a SQLite file to copy into "
                         "(nothing was copied)"),
        str(fifo): (1, f"Error: --to {fifo} is a pipe; give a SQLite file to copy into (nothing was copied)"),
        str(tmp_path): (1, f"Error: --to {tmp_path} is a folder; give a SQLite file to copy into (nothing was copied)"),
        "": (2, "Error: --to is empty; give a postgresql:// URL or a SQLite file to copy into"),
    }
    for to, (code, line) in cases.items():
        result = _copy(source, to)
        assert (result.exit_code, result.output.rstrip().splitlines()[-1]) == (code, line), to
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.db", "pipe"]


def test_the_success_line_shows_a_control_character_in_the_target_path_as_an_escape(tmp_path, clock):
    source, target = tmp_path / "memory.db", tmp_path / "a\x1b[31mb\tc.db"
    _seed(source, clock)
    result = _copy(source, target)
    assert result.exit_code == 0, result.output
    assert result.output.endswith(f"meaning vectors to {tmp_path}/a\\x1b[31mb\\tc.db (every table's rows counted "
                                  "again there)\n")
    assert _full_export(target) == _full_export(source)
