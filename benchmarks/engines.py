"""SQLite beside PostgreSQL in one run: ``build_context`` latency at scale and concurrent proposals.

Usage::

    .venv/bin/python benchmarks/engines.py --pg postgresql://user@host/db [--sizes 100000,1000000]
        [--users 10000] [--queries 200] [--writers 1,4,8] [--proposals 200] [--semantic] [--json]

``benchmarks/latency.py --db postgresql://…`` runs this. For each size N, each engine holds N approved
memories spread over ``--users`` users (the MSC/PersonaChat persona facts of
../shared/data/msc_personas_all.json, repeated with a counter past the file's 65,245), bulk-inserted;
the first query builds the persisted index. Then:

* ``build_context`` p50/p95 (ms) over ``--queries`` requests: a random memory's user, its text as the
  query, preview mode (nothing recorded), beside an FTS5 ``bm25`` top-10 over the same rows with the
  same user filter (the baseline), and PostgreSQL's p50/p95 over SQLite's of the same size; search
  by meaning off (``semantic.model off``: this compares the engines; ``latency.py --semantic`` prices
  the meaning model) unless ``--semantic``;
* proposals per second (search by meaning off unless ``--semantic``, as above): W processes
  (``--writers``) each proposing ``--proposals`` memories through
  ``MemoryStore.propose`` (write gate, event, index upkeep, the write lock) into one fresh database,
  all started together; wall time from the first start to the last exit (process start included).

PostgreSQL runs in a schema of its own on the given server (created and dropped by the run); SQLite
in a temp file. Data: MSC personas via the LoCoMo repository, CC BY-NC 4.0, read by path.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from latency import DEFAULT_DATA, NOW, pack_times, pct, persona_facts  # noqa: E402
from retrieval_common import Doc, seed_store, stop_words, table  # noqa: E402

WRITER = textwrap.dedent("""
    import sys
    from bestie_tui.store.memory_store import MemoryStore
    location, worker, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    store = MemoryStore(location)
    for i in range(n):
        store.propose(f"Worker {worker} remembers fact {i} about topic {worker * 1000003 + i}", "note",
                      user=f"u{i % 97}")
    store.close()
""")


@contextmanager
def pg_schema(server: str):
    """A fresh schema on ``server``; yields a URL whose search path is that schema; drops it after."""
    import psycopg2

    name = f"bench_{uuid.uuid4().hex[:10]}"
    conn = psycopg2.connect(server)
    conn.autocommit = True
    conn.cursor().execute(f'CREATE SCHEMA "{name}"')
    sep = "&" if "?" in server else "?"
    try:
        yield f"{server}{sep}options=-csearch_path%3D{name}"
    finally:
        conn.cursor().execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        conn.close()


@contextmanager
def location(engine: str, server: str | None, workdir: Path, name: str):
    if engine == "sqlite":
        yield str(workdir / f"{name}-{uuid.uuid4().hex[:6]}.db")
    else:
        with pg_schema(server or "") as url:
            yield url


def spread(size: int, users: int, facts: list[tuple[str, str]]) -> list[Doc]:
    docs = []
    for i in range(size):
        fact = facts[i % len(facts)][1]
        lap = i // len(facts)
        docs.append(Doc(fact if lap == 0 else f"{fact} ({lap})", NOW - timedelta(minutes=i), f"u{i % users}"))
    return docs


def latency(where: str, docs: list[Doc], requests: list[tuple[str, str]], semantic: bool = False) -> dict[str, float]:
    from bestie_tui.retrieval.index import get_index

    started = time.perf_counter()
    store, _ = seed_store(where, docs, NOW)  # type: ignore[arg-type]
    load_s = time.perf_counter() - started
    store.set_setting("score.minRelevance", 0.1)
    if not semantic:
        store.set_setting("semantic.model", "off")
    started = time.perf_counter()
    get_index(store).ensure_fresh()
    index_s = time.perf_counter() - started
    times = pack_times(store, requests)
    store.close()
    return {"p50": pct(times, .5), "p95": pct(times, .95), "load_s": load_s, "index_s": index_s}


def fts5(docs: list[Doc], requests: list[tuple[str, str]]) -> dict[str, float]:
    fts = sqlite3.connect(":memory:")
    fts.execute("CREATE VIRTUAL TABLE t USING fts5(text, user UNINDEXED, tokenize='porter unicode61')")
    fts.executemany("INSERT INTO t(rowid, text, user) VALUES (?, ?, ?)", ((i + 1, d.text, d.user) for i, d in enumerate(docs)))
    stops = stop_words()
    times = []
    for user, query in requests:
        words = [w for w in re.findall(r"\w+", query.lower()) if w not in stops] or ["i"]
        t = time.perf_counter()
        fts.execute("SELECT rowid FROM t WHERE t MATCH ? AND user = ? ORDER BY bm25(t) LIMIT 10",
                    (" OR ".join(f'"{w}"' for w in words), user)).fetchall()
        times.append((time.perf_counter() - t) * 1000)
    return {"p50": pct(times, .5), "p95": pct(times, .95)}


def proposals_per_s(where: str, writers: int, each: int, semantic: bool = False) -> float:
    from bestie_tui.store.memory_store import MemoryStore

    store = MemoryStore(where)  # the schema exists before the writers start
    if not semantic:
        store.set_setting("semantic.model", "off")  # no meaning vector a write: the engines compared
    store.close()
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, where, str(w), str(each)], stderr=subprocess.PIPE, text=True)
             for w in range(writers)]
    for p in procs:
        _, err = p.communicate(timeout=3600)
        if p.returncode != 0:
            raise SystemExit(f"a writer failed: {err[-500:]}")
    return writers * each / (time.perf_counter() - started)


def ratios(out: dict) -> list[dict]:
    """PostgreSQL's figure over SQLite's for each size (p50, p95) and writer count (proposals/s)."""
    rows = []
    for size in sorted({r["size"] for r in out["latency"]}):
        pair = {r["engine"]: r for r in out["latency"] if r["size"] == size}
        if len(pair) == 2:
            for key in ("p50", "p95"):
                rows.append({"what": f"build_context {key} at {size:,}",
                             "ratio": pair["postgres"][key] / pair["sqlite"][key]})
    for writers in sorted({r["writers"] for r in out["writers"]}):
        pair = {r["engine"]: r for r in out["writers"] if r["writers"] == writers}
        if len(pair) == 2:
            rows.append({"what": f"proposals/s, {writers} writer process{'es' if writers > 1 else ''}",
                         "ratio": pair["postgres"]["proposals_per_s"] / pair["sqlite"]["proposals_per_s"]})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", "--db", dest="pg", help="postgresql://… server (its schemas are created and dropped)")
    parser.add_argument("--sizes", default="100000")
    parser.add_argument("--users", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--writers", default="1,4,8", help="writer process counts ('' to skip)")
    parser.add_argument("--proposals", type=int, default=200, help="proposals per writer process")
    parser.add_argument("--semantic", action="store_true", help="keep search by meaning on (when the extra is installed)")
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    engines = ["sqlite"] + (["postgres"] if args.pg else [])
    facts = persona_facts(Path(args.data))
    out: dict = {"latency": [], "writers": [], "load": os.getloadavg()[0], "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            docs = spread(size, args.users, facts)
            rng = random.Random(size)
            requests = [(docs[i].user, docs[i].text) for i in (rng.randrange(size) for _ in range(args.queries))]
            base = fts5(docs, requests)
            for engine in engines:
                with location(engine, args.pg, Path(tmp), f"lat{size}") as where:
                    row = {"size": size, "engine": engine, **latency(where, docs, requests, args.semantic),
                           "fts5_p50": base["p50"], "fts5_p95": base["p95"]}
                out["latency"].append(row)
                print("  done:", row, file=sys.stderr, flush=True)
        for writers in (int(w) for w in args.writers.split(",") if w.strip()):
            for engine in engines:
                with location(engine, args.pg, Path(tmp), f"w{writers}") as where:
                    rate = proposals_per_s(where, writers, args.proposals, args.semantic)
                out["writers"].append({"writers": writers, "engine": engine, "proposals_per_s": rate})
                print("  done:", out["writers"][-1], file=sys.stderr, flush=True)
    out["load_end"] = os.getloadavg()[0]
    out["ratios"] = ratios(out)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(table(f"build_context latency (ms) over {args.users:,} users, {args.queries} queries per row, beside FTS5 bm25 "
                f"top-10; load average {out['load']:.1f} on {out['cores']} cores (shared machine)",
                ["memories", "engine", "p50", "p95", "FTS5 p50", "FTS5 p95", "bulk load (s)", "index build (s)"],
                [[f"{r['size']:,}", r["engine"], f"{r['p50']:.1f}", f"{r['p95']:.1f}", f"{r['fts5_p50']:.2f}",
                  f"{r['fts5_p95']:.2f}", f"{r['load_s']:.1f}", f"{r['index_s']:.1f}"] for r in out["latency"]]))
    if out["ratios"]:
        print()
        print(table(f"PostgreSQL over SQLite, same run (load average {out['load']:.1f} at the start, "
                    f"{out['load_end']:.1f} at the end)", ["what", "PostgreSQL / SQLite"],
                    [[r["what"], f"{r['ratio']:.2f}x"] for r in out["ratios"]]))
    print()
    print(table(f"concurrent proposals per second ({args.proposals} per writer process, one fresh database each)",
                ["writer processes", "engine", "proposals/s"],
                [[str(r["writers"]), r["engine"], f"{r['proposals_per_s']:.0f}"] for r in out["writers"]]))


if __name__ == "__main__":
    main()
