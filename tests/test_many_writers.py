"""Many writers at once, on both engines: four processes propose 1,000 memories each while a fifth
applies a cleanup plan (merging duplicates the owner had stored); nothing is lost, nothing raised,
every id is distinct and every change has its event."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.store.models import Event, Memory

pytestmark = [pytest.mark.both_engines, pytest.mark.slow]

WRITERS = 4
PROPOSALS = 1000

WRITER = textwrap.dedent("""
    import sys
    from bestie_tui.store.memory_store import MemoryStore
    location, worker, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    store = MemoryStore(location)
    for i in range(n):
        result = store.propose(f"Worker {worker} fact number {i} about topic {worker * 100000 + i}", "note",
                               user=f"user{i % 7}", actor="assistant")
        assert result.outcome == "pending", result
    store.close()
    print("ok")
""")

CLEANER = textwrap.dedent("""
    import json, sys
    from bestie_tui.hygiene.plan_apply import apply_plan
    from bestie_tui.hygiene.plan_build import build_cleanup_plan
    from bestie_tui.store.memory_store import MemoryStore
    store = MemoryStore(sys.argv[1])
    plan = build_cleanup_plan(store)
    result = apply_plan(store, plan, yes=True)
    store.close()
    print(json.dumps({"operations": len(plan.operations), "applied": len(result.applied)}))
""")


def test_four_proposers_and_a_cleanup_lose_nothing(store, db_path):
    # what the cleanup has to do: a duplicate pair to merge, notes whose TTL ran out (the fixture's
    # clock is days behind the writers' real one) to archive
    store.add("preference", "Prefers green tea in the morning", user="owner")
    store.add("preference", "Prefers green tea in the mornings", user="owner")
    for topic in ("parking spot on level two", "dentist appointment on Friday", "flight lands at noon"):
        store.add("note", f"Reminder: {topic}", user="owner", ttl="1d")
    store.set_setting("memory.deletePolicy", "allow")
    before = Memory.select().count()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(db_path), str(w), str(PROPOSALS)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(WRITERS)]
    cleaner = subprocess.Popen([sys.executable, "-c", CLEANER, str(db_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    outs = [p.communicate(timeout=900) for p in procs]
    cleaned = cleaner.communicate(timeout=900)
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0 and out.strip() == "ok", err[-2000:]
    assert cleaner.returncode == 0, cleaned[1][-2000:]
    applied = json.loads(cleaned[0])
    assert applied["applied"] >= 1

    pending = list(Memory.select().where(Memory.status == "pending"))
    assert len(pending) == WRITERS * PROPOSALS  # every proposal is there, once
    texts = {m.text for m in pending}
    assert texts == {f"Worker {w} fact number {i} about topic {w * 100000 + i}"
                     for w in range(WRITERS) for i in range(PROPOSALS)}
    ids = [m.id for m in Memory.select(Memory.id)]
    assert len(ids) == len(set(ids)) and len(ids) == before + WRITERS * PROPOSALS
    proposed = Event.select().where(Event.action == "propose").count()
    assert proposed == WRITERS * PROPOSALS  # one event per proposal
    MemoryStore(db_path).close()  # and the database still opens
