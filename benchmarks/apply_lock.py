"""How long a cleanup apply holds the write lock, and what it skips, on a large store.

Usage::

    .venv/bin/python benchmarks/apply_lock.py [--sizes 2000,20000] [--seed 7] [--json]

For each size N, a real temp-file store holds N approved working memories written for this script
(generated sentences, no shared data): a third in duplicate pairs (the same words, other case and
punctuation), a quarter of them unused for a year (stale), some with a past expiry, so one record can
be in a merge and an archive at once. It builds the cleanup plan (the dry run), then applies it and
reports:

* ``ops``: operations in the plan; ``skipped``: how many the apply right after the dry run skipped
  (target 0 beyond its own overlaps), and ``second``: what a second dry run + apply still finds;
* ``lock s``: wall time of the apply's one write transaction (``BEGIN IMMEDIATE`` … ``COMMIT``:
  the time every other writer waits), and ``apply s`` the whole ``apply_plan`` call.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path

from bestie_tui.hygiene.plan_apply import apply_plan
from bestie_tui.hygiene.plan_build import build_cleanup_plan
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.store.models import Memory
from bestie_tui.text import words as textmod

NOW = datetime(2026, 6, 1, 12, 0, 0)
SUBJECTS = ["my sister", "the owner", "my manager", "our landlord", "my neighbour", "the team", "my cousin"]
VERBS = ["likes", "prefers", "avoids", "collects", "repairs", "paints", "orders", "plans"]
THINGS = ["green tea", "old maps", "red bikes", "jazz records", "sourdough", "chess sets", "paper kites",
          "wool scarves", "clay pots", "brass lamps", "tide tables", "river stones"]


def sentence(rng: random.Random, i: int) -> str:
    return (f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(THINGS)} "
            f"from shop {i} on street {i * 7 % 997}")


def seed(path: Path, n: int, rng: random.Random) -> MemoryStore:
    store = MemoryStore(path, clock=lambda: NOW)
    rows = []
    i = 0
    while len(rows) < n:
        text = sentence(rng, i)
        copies = [text] if rng.random() > 1 / 3 else [text, text.upper().replace(" from", ", from") + "!"]
        for copy in copies:
            old = rng.random() < 0.25
            at = NOW - timedelta(days=400 if old else rng.randint(1, 30))
            expires = NOW - timedelta(days=3) if rng.random() < 0.03 else None
            rows.append(dict(text=copy, kind="note", status="approved", scope="project", layer="working",
                             confidence=0.8, user="owner", created_at=at, updated_at=at, expires_at=expires,
                             norm=textmod.normalize(copy), terms=textmod.search_text(copy)))
        i += 1
    with store.bound(), store.db.atomic():
        for start in range(0, len(rows), 500):
            Memory.insert_many(rows[start:start + 500]).execute()
    store.set_setting("memory.deletePolicy", "allow")
    return store


@contextmanager
def timed_transactions(store: MemoryStore, spans: list[float]):
    """Record the wall time of each ``store.change`` block (the apply's one write transaction)."""
    original = store.change

    @contextmanager
    def change(*args, **kwargs):
        start = time.perf_counter()
        with original(*args, **kwargs) as batch:
            yield batch
        spans.append(time.perf_counter() - start)

    store.change = change  # type: ignore[method-assign]
    try:
        yield
    finally:
        store.change = original  # type: ignore[method-assign]


def run(n: int, seed_value: int) -> dict:
    rng = random.Random(seed_value)
    with tempfile.TemporaryDirectory() as tmp:
        store = seed(Path(tmp) / "bench.db", n, rng)
        t0 = time.perf_counter()
        plan = build_cleanup_plan(store)
        plan_s = time.perf_counter() - t0
        spans: list[float] = []
        with timed_transactions(store, spans):
            t0 = time.perf_counter()
            result = apply_plan(store, plan, yes=True)
            apply_s = time.perf_counter() - t0
        second_plan = build_cleanup_plan(store)
        second = apply_plan(store, second_plan, yes=True)
        ok = store.db.execute_sql("PRAGMA integrity_check").fetchone()[0]
        store.close()
    return {"n": n, "ops": len(plan.selected_operations()), "applied": len(result.applied),
            "skipped": len(result.skipped), "second_ops": len(second_plan.selected_operations()),
            "second_applied": len(second.applied), "plan_s": round(plan_s, 2),
            "lock_s": round(sum(spans), 2), "apply_s": round(apply_s, 2), "integrity": ok,
            "skip_reasons": sorted({r.split(" ", 1)[1] if r.startswith("#") else r for _, r in result.skipped})[:5]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [run(int(n), args.seed) for n in args.sizes.split(",")]
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return
    print(f"{'N':>7} {'ops':>7} {'applied':>8} {'skipped':>8} {'2nd ops':>8} {'2nd applied':>12} "
          f"{'plan s':>7} {'lock s':>7} {'apply s':>8}  integrity")
    for r in rows:
        print(f"{r['n']:>7} {r['ops']:>7} {r['applied']:>8} {r['skipped']:>8} {r['second_ops']:>8} "
              f"{r['second_applied']:>12} {r['plan_s']:>7} {r['lock_s']:>7} {r['apply_s']:>8}  {r['integrity']}")
        for reason in r["skip_reasons"]:
            print(f"        skipped because: {reason}")


if __name__ == "__main__":
    main()
