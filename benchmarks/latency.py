"""Latency and scale of ``build_context`` beside an FTS5 query over the same rows.

Usage::

    .venv/bin/python benchmarks/latency.py [--sizes 1000,10000,100000] [--queries 200]
    .venv/bin/python benchmarks/latency.py --db postgresql://… [engines.py's options]  (SQLite beside PostgreSQL)

For each size N, a real temp-file store holds N approved memories: the MSC/PersonaChat persona facts
of ../shared/data/msc_personas_all.json, one user per persona (the file's 65,245 facts repeat, with
a counter, past that size), bulk-inserted. It then measures:

* index build: wall time of the first query, which finds the bulk-loaded rows unindexed and builds
  the persisted index (``bestie_tui.store.doc_index``) once; later processes load it instead, and
  the peak RSS of this benchmark process so far (``getrusage``);
* ``build_context`` p50/p95 over ``--queries`` requests (a random persona's user, a fact of that
  persona as the query, preview mode), in two layouts: memories spread over personas (the
  realistic case), and all N memories owned by the single requesting user (the worst case: every
  row is a candidate);
* FTS5 ``bm25`` top-10 (porter, stop words dropped) over the same rows with the same user filter.

``--messages 1000000`` measures history recall instead (``retrieval.recall``): M chat messages of one
user, the persona facts again as turns ("p17: fact"), 20 turns a session, two speakers taking turns;
the first recall builds the persisted message index (each turn with its neighbours' text); then
``recall(store, fact, "owner", limit=10)`` p50/p95 over ``--queries`` random facts beside FTS5 bm25
top-10 over the same rows (own text, user filter) in the same run, and the index growth: the bytes
of the index tables (``dbstat``) with the neighbour text over the bytes of an own-text-only index of
the same messages (built at ``--growth-size`` messages, since the ratio does not depend on M).

Data: MSC personas via the LoCoMo repository, CC BY-NC 4.0, read by path.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import sqlite3
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_common import Doc, seed_store, stop_words, table  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "msc_personas_all.json"
NOW = datetime(2026, 11, 30)


def persona_facts(path: Path) -> list[tuple[str, str]]:
    """``(persona user id, fact)`` for every fact, persona ids ``p<pair>-<speaker>``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    n = 0
    for split in data.values():
        for pair in split:
            for speaker in ("Speaker 1", "Speaker 2"):
                n += 1
                out += [(f"p{n}", fact) for fact in pair.get(speaker, [])]
    return out


def rows_for(size: int, facts: list[tuple[str, str]], one_user: bool) -> list[Doc]:
    docs = []
    for i in range(size):
        user, fact = facts[i % len(facts)]
        lap = i // len(facts)
        docs.append(Doc(fact if lap == 0 else f"{fact} ({lap})", NOW - timedelta(minutes=i),
                        "owner" if one_user else (user if lap == 0 else f"{user}-{lap}")))
    return docs


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def pack_times(store, requests) -> list[float]:
    """``build_context`` for each ``(user, query)`` of ``requests`` on ``store``; milliseconds each."""
    from bestie_tui.retrieval.assembly import build_context

    times = []
    for user, query in requests:
        started = time.perf_counter()
        build_context(store, query, user, record_access=False)
        times.append((time.perf_counter() - started) * 1000)
    return times


def measure(size: int, facts, queries: int, one_user: bool, workdir: Path) -> list[str]:
    from bestie_tui.retrieval.index import get_index

    docs = rows_for(size, facts, one_user)
    store, ids = seed_store(workdir / f"{size}-{int(one_user)}.db", docs, NOW)
    store.set_setting("score.minRelevance", 0.1)
    rng = random.Random(size)
    picks = [rng.randrange(size) for _ in range(queries)]
    requests = [(docs[i].user, docs[i].text) for i in picks]
    index = get_index(store)
    import numpy  # noqa: F401  (imports warm before the clock starts)

    started = time.perf_counter()
    index.ensure_fresh()  # the bulk load has no index yet: built once, here
    fit_s = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times = pack_times(store, requests)
    store.close()
    fts = sqlite3.connect(":memory:")
    fts.execute("CREATE VIRTUAL TABLE t USING fts5(text, user UNINDEXED, tokenize='porter unicode61')")
    fts.executemany("INSERT INTO t(rowid, text, user) VALUES (?, ?, ?)", zip(ids, (d.text for d in docs), (d.user for d in docs)))
    stops = stop_words()
    fts_times = []
    for user, query in requests:
        words = [w for w in re.findall(r"\w+", query.lower()) if w not in stops] or ["i"]
        match = " OR ".join(f'"{w}"' for w in words)
        t = time.perf_counter()
        fts.execute("SELECT rowid FROM t WHERE t MATCH ? AND user = ? ORDER BY bm25(t) LIMIT 10", (match, user)).fetchall()
        fts_times.append((time.perf_counter() - t) * 1000)
    layout = "one user owns all" if one_user else "one user per persona"
    return [f"{size:,}", layout, f"{pct(times, .5):.1f}", f"{pct(times, .95):.1f}",
            f"{pct(fts_times, .5):.2f}", f"{pct(fts_times, .95):.2f}",
            f"{pct(times, .95) / max(pct(fts_times, .95), 1e-9):.0f}×", f"{fit_s:.2f}", f"{peak:.0f}"]


SESSION_TURNS = 20


def message_rows(size: int, facts) -> list[tuple[str, datetime, str, str]]:
    """``(text, at, session, channel)`` of ``size`` turns of one user, ``SESSION_TURNS`` a session."""
    out = []
    for i in range(size):
        persona, fact = facts[i % len(facts)]
        lap = i // len(facts)
        out.append((f"{persona}: {fact}" + (f" ({lap})" if lap else ""), NOW - timedelta(minutes=size - i),
                    f"s{i // SESSION_TURNS}", "bench"))
    return out


def index_bytes(path: Path) -> int:
    """Bytes of the index tables and their indexes (``dbstat``), message collection only in this file."""
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name LIKE 'ix_%' "
                                "OR name LIKE 'sqlite_autoindex_ix_%'").fetchone()[0])
    finally:
        conn.close()


def measure_recall(size: int, facts, queries: int, workdir: Path) -> list[str]:
    from retrieval_common import seed_messages

    from bestie_tui.retrieval.index import get_index
    from bestie_tui.retrieval.recall import recall

    turns = message_rows(size, facts)
    store, ids = seed_messages(workdir / f"messages-{size}.db", turns, NOW)
    store.set_setting("recall.minScore", 0.1)
    rng = random.Random(size)
    requests = [turns[rng.randrange(size)][0].split(": ", 1)[1] for _ in range(queries)]
    started = time.perf_counter()
    get_index(store, "message").ensure_fresh()
    build_s = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times = []
    for query in requests:
        t = time.perf_counter()
        recall(store, query, "owner", channel="bench", limit=10)
        times.append((time.perf_counter() - t) * 1000)
    store.close()
    fts = sqlite3.connect(":memory:")
    fts.execute("CREATE VIRTUAL TABLE t USING fts5(text, user UNINDEXED, tokenize='porter unicode61')")
    fts.executemany("INSERT INTO t(rowid, text, user) VALUES (?, ?, 'owner')", zip(ids, (t[0] for t in turns)))
    stops = stop_words()
    fts_times = []
    for query in requests:
        words = [w for w in re.findall(r"\w+", query.lower()) if w not in stops] or ["i"]
        match = " OR ".join(f'"{w}"' for w in words)
        t = time.perf_counter()
        fts.execute("SELECT rowid FROM t WHERE t MATCH ? AND user = 'owner' ORDER BY bm25(t) LIMIT 10", (match,)).fetchall()
        fts_times.append((time.perf_counter() - t) * 1000)
    return [f"{size:,}", f"{pct(times, .5):.1f}", f"{pct(times, .95):.1f}", f"{pct(fts_times, .5):.2f}",
            f"{pct(fts_times, .95):.2f}", f"{pct(times, .95) / max(pct(fts_times, .95), 1e-9):.1f}×",
            f"{build_s:.1f}", f"{peak:.0f}"]


def index_growth(size: int, facts, workdir: Path) -> tuple[int, int]:
    """``(bytes with neighbour text, bytes own text only)`` of the message index of ``size`` turns."""
    from retrieval_common import seed_messages

    from bestie_tui.store import doc_index

    turns = message_rows(size, facts)
    sizes = []
    for own_only in (False, True):
        path = workdir / f"growth-{size}-{int(own_only)}.db"
        store, _ = seed_messages(path, turns, NOW)
        saved = doc_index._MESSAGE_ALL
        if own_only:  # the same collection indexed without neighbours: the baseline of the ratio
            doc_index._MESSAGE_ALL = "SELECT id, text FROM message ORDER BY id"
        try:
            doc_index.reindex(store.db, doc_index.MESSAGE)
        finally:
            doc_index._MESSAGE_ALL = saved
        store.close()
        sizes.append(index_bytes(path))
    return sizes[0], sizes[1]


def main() -> None:
    if "--db" in sys.argv:  # the same tables on PostgreSQL beside SQLite: benchmarks/engines.py
        import engines

        engines.main()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--messages", default="", help="history recall at these message counts (e.g. 1000000)")
    parser.add_argument("--growth-size", type=int, default=100_000)
    args = parser.parse_args()
    facts = persona_facts(Path(args.data))
    if args.messages:
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            for size in (int(s) for s in args.messages.split(",")):
                rows.append(measure_recall(size, facts, args.queries, Path(tmp)))
                print("  done:", " | ".join(rows[-1]), file=sys.stderr, flush=True)
            with_text, own = index_growth(args.growth_size, facts, Path(tmp))
        load = os.getloadavg()
        print(table(f"recall latency (ms) beside FTS5 bm25 top-10 over the same messages; {args.queries} queries; "
                    f"load average {load[0]:.1f} on {os.cpu_count()} cores (shared machine)",
                    ["messages", "p50", "p95", "FTS5 p50", "FTS5 p95", "p95 / FTS5 p95", "index build (s)",
                     "peak RSS so far (MiB)"], rows))
        print(f"\nmessage index at {args.growth_size:,} turns: {with_text / 2**20:.1f} MiB with the neighbour text, "
              f"{own / 2**20:.1f} MiB own text only: {with_text / max(own, 1):.2f}×")
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            for one_user in (False, True):
                rows.append(measure(size, facts, args.queries, one_user, Path(tmp)))
                print("  done:", " | ".join(rows[-1]), file=sys.stderr, flush=True)
    load = os.getloadavg()
    print(table(f"build_context latency (ms) beside FTS5 bm25 top-10; index build; {args.queries} queries per row; "
                f"load average {load[0]:.1f} on {os.cpu_count()} cores (shared machine)",
                ["memories", "layout", "p50", "p95", "FTS5 p50", "FTS5 p95", "p95 / FTS5 p95", "index build (s)",
                 "peak RSS so far (MiB)"], rows))


if __name__ == "__main__":
    main()
