"""One store, one file: any number of ``MemoryStore``s in one process, each reading and writing only
its own database — from two threads at once, from one thread alternating, from nested calls and from
asyncio tasks — through the facade and through the domain entry points that query the models."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import weakref

import pytest

from bestie_tui.errors import BestieError
from bestie_tui.hygiene.doctor import run_doctor
from bestie_tui.retrieval.assembly import build_context
from bestie_tui.retrieval.search import search
from bestie_tui.store import binding
from bestie_tui.store.binding import StoreBindingError
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.store.models import Memory
from bestie_tui.transfer import exchange as transfer


def _texts_on_disk(path) -> set[str]:
    """What the file itself holds, read with plain sqlite3 (no Peewee, no binding)."""
    conn = sqlite3.connect(path)
    try:
        return {text for (text,) in conn.execute("SELECT text FROM memory")}
    finally:
        conn.close()


@pytest.fixture
def two_stores(tmp_path, clock, monkeypatch):
    # Stores other tests of this worker left open would count among "the open stores": start empty.
    monkeypatch.setattr(binding, "_open", weakref.WeakSet())
    a = MemoryStore(tmp_path / "alice.db", clock=clock)
    b = MemoryStore(tmp_path / "bob.db", clock=clock)
    yield a, b
    a.close()
    b.close()


def test_two_threads_interleave_reads_and_writes_on_two_stores(two_stores, tmp_path):
    a, b = two_stores
    rounds = 40
    # Both threads pass the barrier before every step, so their writes and reads truly interleave.
    barrier = threading.Barrier(2, timeout=30)
    seen: dict[str, list[set[str]]] = {"alice": [], "bob": []}
    errors: list[BaseException] = []

    def worker(store: MemoryStore, name: str) -> None:
        try:
            for i in range(rounds):
                barrier.wait()
                store.add("note", f"{name} remembers thing number {i}", user=name)
                barrier.wait()
                seen[name].append({m.text for m in store.list()})
                store.propose(f"{name} maybe likes item {i}", "preference", user=name)
                hits = search(store, "remembers")
                assert all(m.text.startswith(name) for m in hits), hits
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test thread
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(a, "alice")),
               threading.Thread(target=worker, args=(b, "bob"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors[0]
    for name, store in (("alice", a), ("bob", b)):
        # every read in the thread saw only its own store's rows, and all of them so far
        for i, texts in enumerate(seen[name]):
            assert all(t.startswith(name) for t in texts)
            assert f"{name} remembers thing number {i}" in texts
        on_disk = _texts_on_disk(tmp_path / f"{name}.db")
        assert len(on_disk) == 2 * rounds and all(t.startswith(name) for t in on_disk)
        assert store.count() == 2 * rounds


def test_one_thread_alternates_between_two_stores(two_stores, tmp_path):
    a, b = two_stores
    for i in range(5):
        a.add("preference", f"Alice prefers tea, note {i}", user="alice")
        b.add("preference", f"Bob prefers coffee, note {i}", user="bob")
        assert {m.user for m in a.list()} == {"alice"}
        assert {m.user for m in b.list()} == {"bob"}
    # the domain entry points that query the models directly follow the store they are given
    assert [m.user for m in search(a, "prefers")] == ["alice"] * 5
    assert [m.user for m in search(b, "prefers")] == ["bob"] * 5
    pack_a = build_context(a, "do they prefer tea or coffee", "alice", record_access=False)
    pack_b = build_context(b, "do they prefer tea or coffee", "bob", record_access=False)
    assert pack_a.items and all("Alice" in item.record.text for item in pack_a.items)
    assert pack_b.items and all("Bob" in item.record.text for item in pack_b.items)
    assert run_doctor(a).total == 5 and run_doctor(b).total == 5
    exported = transfer.export_data(b)
    assert {m["user"] for m in exported["memories"]} == {"bob"}
    # undo on one store reverts that store's last change only
    a.forget(1)
    b.undo()
    assert a.get(1).status == "forgotten"
    assert b.count() == 4 and a.count() == 5
    assert _texts_on_disk(tmp_path / "alice.db") == {f"Alice prefers tea, note {i}" for i in range(5)}


def test_nested_bindings_restore_the_outer_store(two_stores):
    a, b = two_stores
    a.add("note", "only in alice's file")
    b.add("note", "only in bob's file")
    with a.bound():
        assert [r.text for r in Memory.select()] == ["only in alice's file"]
        assert [m.text for m in b.list()] == ["only in bob's file"]  # b binds itself for its call
        with b.bound():
            assert [r.text for r in Memory.select()] == ["only in bob's file"]
        assert [r.text for r in Memory.select()] == ["only in alice's file"]


def test_model_code_outside_a_binding_never_guesses_between_two_stores(two_stores, tmp_path):
    a, b = two_stores
    with pytest.raises(StoreBindingError, match="2 memory stores are open"):
        Memory.select().count()
    assert issubclass(StoreBindingError, BestieError)
    b.close()
    assert Memory.select().count() == 0  # one open store left: plain scripts keep working
    a.add("note", "after the other store closed")
    assert [r.text for r in Memory.select()] == ["after the other store closed"]


def test_asyncio_tasks_each_keep_their_own_store(two_stores):
    a, b = two_stores

    async def use(store: MemoryStore, name: str) -> list[str]:
        with store.bound():
            for i in range(10):
                Memory.insert(text=f"{name} {i}", norm=f"{name} {i}", terms=f" {name} {i} ", created_at=store.clock(),
                              updated_at=store.clock()).execute()
                await asyncio.sleep(0)  # hand over to the other task while bound
            return [r.text for r in Memory.select()]

    async def main():
        return await asyncio.gather(use(a, "alice"), use(b, "bob"))

    got_a, got_b = asyncio.run(main())
    assert got_a == [f"alice {i}" for i in range(10)]
    assert got_b == [f"bob {i}" for i in range(10)]


async def test_console_on_one_store_while_another_is_open_and_written(two_stores):
    from bestie_tui.tui.app import BestieApp

    a, b = two_stores
    a.add("note", "Alice's memory in the console")
    b.add("note", "Bob's memory, never in Alice's console")
    app = BestieApp(a, poll_interval=0)
    async with app.run_test(size=(120, 36)) as pilot:
        b.add("note", "Bob writes while Alice's console is open")
        app.store_written()
        await pilot.pause()
        svg = app.export_screenshot()
        assert "Alice&#x27;s&#160;memory" in svg or "Alice's" in svg.replace("&#x27;", "'")
        assert "Bob" not in svg
        await pilot.press("2")
        await pilot.pause()
        assert "Bob" not in app.export_screenshot()
    assert b.count() == 2 and a.count() == 1


def test_cli_closes_its_store_so_a_script_store_stays_unambiguous(db_path, clock, run):
    script = MemoryStore(db_path, clock=clock)  # not the bound ``store`` fixture: a plain script's store
    script.add("note", "held by the script's own store")
    assert run("memory", "list").exit_code == 0
    assert Memory.select().count() == 1  # unbound, yet unambiguous: the CLI closed its store on exit
    script.close()
