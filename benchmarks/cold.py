"""Cold processes: each everyday command timed as a user runs it, a fresh ``bestie`` process each
time, beside a cold FTS5 query process over the same rows in the same run.

Usage::

    .venv/bin/python benchmarks/cold.py [--sizes 1000,10000,100000] [--repeat 5] [--json]

For each size N it builds (once, cached under the temp dir keyed by size and data) a database of N
memories — MSC/PersonaChat persona facts of ../shared/data/msc_personas_all.json, one user per
persona, repeated with a counter past the file's 65,245 facts, 1 % pending — and 10·N chat
messages (LoCoMo dialog turns of ../shared/data/locomo_dev.json, repeated with a counter), written
with bulk SQL inserts, then indexes it with ``bestie memory reindex`` (timed once, reported). It
also writes an FTS5 table (porter tokenizer) over the same memory texts in a separate file.

Then, median of ``--repeat`` fresh processes each (wall time from spawn to exit, and the peak RSS
of that process from ``wait4``):

* ``status``: ``bestie memory status``
* ``search``: ``bestie memory search sleep``
* ``context``: ``bestie memory context sleep --user <a persona with a sleep fact>``
* ``pending``: ``bestie memory pending``
* ``analyze``: ``bestie memory analyze --mode duplicates`` (sizes up to ``--analyze-max`` only)
* ``messages``: ``bestie memory messages search sleep``
* ``FTS5``: ``python -c`` that opens the FTS5 file and runs ``MATCH 'sleep' ORDER BY bm25 LIMIT 20``

Targets (issue 13): search, context and messages search within 3× status at each size; analyze
at 10k within 4 s; peak RSS of search at 100k under 250 MiB.

Data: LoCoMo and MSC (Maharana et al., ACL 2024; Xu et al., ACL 2022), CC BY-NC 4.0, read by path.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data"
NOW = datetime(2026, 11, 30)
QUERY = "sleep"
BUILD_VERSION = 1  # bump when the generated databases change
#: The installed ``bestie`` script beside this Python (what a user runs), else ``python -m``.
_SCRIPT = Path(sys.executable).with_name("bestie")
BESTIE = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-c", "from bestie_tui.cli.main import main; main()"]


def persona_facts(path: Path) -> list[tuple[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    out, n = [], 0
    for split in data.values():
        for pair in split:
            for speaker in ("Speaker 1", "Speaker 2"):
                n += 1
                out += [(f"p{n}", " ".join(str(f).split())) for f in pair.get(speaker, [])]
    return out


def locomo_turns(path: Path) -> list[tuple[str, str]]:
    out = []
    for conv in json.loads(path.read_text(encoding="utf-8")):
        c = conv["conversation"]
        for key, turns in c.items():
            if key.startswith("session_") and isinstance(turns, list):
                out += [(t["speaker"], t["text"]) for t in turns]
    return out


def build(path: Path, size: int, messages: int, facts, turns) -> None:
    """Create the schema through ``MemoryStore``, then bulk-insert memories and messages with SQL."""
    from bestie_tui.store.memory_store import MemoryStore
    from bestie_tui.text import words as textmod

    MemoryStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = wal")
    rows = []
    for i in range(size):
        user, fact = facts[i % len(facts)]
        lap = i // len(facts)
        text = fact if lap == 0 else f"{fact} ({lap})"
        at = (NOW - timedelta(minutes=i)).isoformat(" ")
        status = "pending" if i % 100 == 99 else "approved"
        rows.append((text, "note", status, "project", "working", 0, 0, 0, 0.8, user if lap == 0 else f"{user}-{lap}",
                     at, at, textmod.normalize(text), textmod.search_text(text)))
    conn.executemany("INSERT INTO memory (text, kind, status, scope, layer, pinned, stale, access_count, confidence, "
                     "user, created_at, updated_at, norm, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.commit()
    terms = {}
    batch = []
    for i in range(messages):
        speaker, text = turns[i % len(turns)]
        lap = i // len(turns)
        if text not in terms:
            terms[text] = textmod.search_text(text)
        at = (NOW - timedelta(seconds=30 * i)).isoformat(" ")
        batch.append(("user" if i % 2 == 0 else "assistant", f"{speaker}: {text}" if lap == 0 else f"{speaker}: {text} ({lap})",
                      "owner", "chat", f"s{i // 40}", at, terms[text] + (f" {lap}" if lap else "")))
        if len(batch) == 100_000:
            conn.executemany("INSERT INTO message (role, text, user, channel, session, created_at, terms) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
            batch = []
    if batch:
        conn.executemany("INSERT INTO message (role, text, user, channel, session, created_at, terms) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
    conn.commit()
    conn.close()


def build_fts(path: Path, db: Path) -> None:
    fts = sqlite3.connect(path)
    fts.execute("CREATE VIRTUAL TABLE t USING fts5(text, user UNINDEXED, tokenize='porter unicode61')")
    src = sqlite3.connect(db)
    fts.executemany("INSERT INTO t(rowid, text, user) VALUES (?, ?, ?)",
                    src.execute("SELECT id, text, user FROM memory WHERE status = 'approved'"))
    fts.commit()
    fts.close()
    src.close()


def timed(cmd: list[str]) -> tuple[float, float, float, int]:
    """``(wall seconds, CPU seconds (user + system), peak RSS MiB, exit code)`` of one fresh process."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode


def median_run(cmd: list[str], repeat: int) -> dict:
    runs = [timed(cmd) for _ in range(repeat)]
    failed = [code for *_, code in runs if code != 0]
    return {"seconds": statistics.median(r[0] for r in runs), "cpu_seconds": statistics.median(r[1] for r in runs),
            "rss_mib": max(r[2] for r in runs), "exit": failed[0] if failed else 0}


def sleepy_user(db: Path) -> str:
    conn = sqlite3.connect(db)
    row = conn.execute("SELECT user FROM memory WHERE status = 'approved' AND text LIKE '%sleep%' ORDER BY id LIMIT 1").fetchone()
    conn.close()
    return row[0] if row else "p1"


def measure(size: int, args, facts, turns, cache: Path) -> dict:
    messages = args.messages_per_memory * size
    db = cache / f"cold-v{BUILD_VERSION}-{size}-{messages}.db"
    fts = cache / f"cold-v{BUILD_VERSION}-{size}-{messages}-fts.db"
    bestie = [*BESTIE, "--db", str(db)]
    reindex_s = None
    if not db.exists():
        tmp = db.with_suffix(".building")
        for p in (tmp, Path(str(tmp) + "-wal"), Path(str(tmp) + "-shm")):
            p.unlink(missing_ok=True)
        print(f"  building {size:,} memories, {messages:,} messages …", file=sys.stderr, flush=True)
        build(tmp, size, messages, facts, turns)
        started = time.perf_counter()
        subprocess.run([*BESTIE, "--db", str(tmp), "memory", "reindex"],
                       check=True, stdout=subprocess.DEVNULL)
        reindex_s = time.perf_counter() - started
        conn = sqlite3.connect(tmp)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        tmp.rename(db)
        fts.unlink(missing_ok=True)
    if not fts.exists():
        build_fts(fts, db)
    user = sleepy_user(db)
    commands = {
        "status": bestie + ["memory", "status"],
        "search": bestie + ["memory", "search", QUERY],
        "context": bestie + ["memory", "context", QUERY, "--user", user],
        "pending": bestie + ["memory", "pending"],
        "messages search": bestie + ["memory", "messages", "search", QUERY],
        "FTS5": [sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                 "c.execute(\"SELECT rowid, text FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 20\", (sys.argv[2],)).fetchall()",
                 str(fts), QUERY],
    }
    if size <= args.analyze_max:
        commands["analyze"] = bestie + ["memory", "analyze", "--mode", "duplicates"]
    timed(bestie + ["memory", "status"])  # page cache warm, as a user's second command would find it
    out = {"memories": size, "messages": messages, "reindex_s": reindex_s, "db_mib": db.stat().st_size / 2**20}
    for name, cmd in commands.items():
        out[name] = median_run(cmd, args.repeat)
        print(f"  {size:,} {name}: {out[name]['seconds']:.2f} s", file=sys.stderr, flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--messages-per-memory", type=int, default=10, help="messages = this × memories (default 10)")
    parser.add_argument("--analyze-max", type=int, default=10000, help="time analyze only up to this many memories")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "bestie-cold-bench"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    facts = persona_facts(DATA / "msc_personas_all.json")
    turns = locomo_turns(DATA / "locomo_dev.json")
    results = [measure(int(s), args, facts, turns, cache) for s in args.sizes.split(",")]
    load = os.getloadavg()
    if args.json:
        print(json.dumps({"load_average": load[0], "cores": os.cpu_count(), "results": results}, indent=2))
        return
    header = ["memories", "messages", "status", "search", "context", "pending", "analyze dup", "messages search",
              "FTS5 cold", "search/status", "context/status", "messages/status", "search RSS (MiB)", "reindex (s)"]
    rows = []
    for r in results:
        s = r["status"]["seconds"]

        def cell(name: str, r: dict = r) -> str:
            if name not in r:
                return "—"
            mark = "" if r[name]["exit"] == 0 else f" (exit {r[name]['exit']})"
            return f"{r[name]['seconds']:.2f}{mark}"
        rows.append([f"{r['memories']:,}", f"{r['messages']:,}", cell("status"), cell("search"), cell("context"),
                     cell("pending"), cell("analyze"), cell("messages search"), cell("FTS5"),
                     f"{r['search']['seconds'] / s:.1f}×", f"{r['context']['seconds'] / s:.1f}×",
                     f"{r['messages search']['seconds'] / s:.1f}×", f"{r['search']['rss_mib']:.0f}",
                     "cached" if r["reindex_s"] is None else f"{r['reindex_s']:.1f}"])
    sys.path.insert(0, str(HERE))
    from retrieval_common import table

    print(table(f"Cold processes (wall s, median of {args.repeat}); load average {load[0]:.1f} on {os.cpu_count()} cores "
                "(shared machine)", header, rows))
    cpu_rows = [[f"{r['memories']:,}", *(f"{r[n]['cpu_seconds']:.2f}" if n in r else "—" for n in
                                         ("status", "search", "context", "pending", "analyze", "messages search", "FTS5"))]
                for r in results]
    print()
    print(table("The same processes, CPU seconds (user + system; what the load of other users does not inflate)",
                ["memories", "status", "search", "context", "pending", "analyze dup", "messages search", "FTS5 cold"],
                cpu_rows))


if __name__ == "__main__":
    main()
