"""What each input limit costs to refuse: wall time and peak memory, this checkout beside ``--baseline``.

Usage::

    .venv/bin/python benchmarks/limits.py [--baseline /path/to/older/checkout]

Each case is one fresh child process per checkout that opens a new SQLite store (one memory in it)
and feeds it one input over its limit; the child reports the wall time and the peak of Python's
allocations (``tracemalloc``) of the call that refuses, its exit (refused or taken), and the first
line of the refusal. Cases:

* a 50 MB memory text: ``add`` (API), and ``import`` of a bestie JSON file holding it (the file's
  read and parse counted: the file is within the 100 MiB import limit, so it is read);
* a 50 MB chat message: ``log_message`` (API, the path of ``bestie memory log`` and MCP);
* a user id of 100,000 characters and one holding ESC: ``MemoryStore(user=…)`` (the CLI's and MCP's
  binding) and ``log_message(user=…)``;
* an OpenClaw ``MEMORY.md`` of 150 MB (sparse: its size is real, its bytes are never written), one of
  a single 20 MB line, and one bullet continued over 40,000 lines (100 characters each);
* a JSON import file of 150 MB (sparse).

The bound of issue 31 is 100 ms and 50 MiB for the check itself. The load on the machine is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time, tracemalloc
sys.path.insert(0, sys.argv[1])
case, work = sys.argv[2], sys.argv[3]
from pathlib import Path
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.errors import BestieError
work = Path(work)
store = MemoryStore(work / f"{case}.db")
store.set_setting("semantic.model", "off")
store.add("fact", "I drink green tea")
BIG = "tea " * (50 * 2**20 // 4)
import bestie_tui.importers, bestie_tui.importers.openclaw, bestie_tui.transfer.full_export  # warm: not timed
import bestie_tui.importers.chatgpt, bestie_tui.importers.mem0, jsonschema  # noqa

def run():
    if case == "memory-add":
        store.add("fact", BIG)
    elif case == "memory-import":
        from bestie_tui.importers import load
        from bestie_tui.transfer.full_export import import_any
        import_any(store, load(work / "big-memory.json"))
    elif case == "message-log":
        store.log_message("user", BIG)
    elif case == "user-long":
        MemoryStore(work / f"{case}.db", user="u" * 100_000)
    elif case == "user-esc":
        store.log_message("user", "hello", user="ana\x1b[2J")
    elif case.startswith("openclaw"):
        from bestie_tui.importers import load
        load(work / case / "MEMORY.md")
    elif case == "json-huge":
        from bestie_tui.importers import load
        load(work / "huge.json")

tracemalloc.start()
t = time.perf_counter()
try:
    run()
    outcome, line = "taken", ""
except BestieError as exc:
    outcome, line = "refused", str(exc).splitlines()[0]
seconds = time.perf_counter() - t
peak = tracemalloc.get_traced_memory()[1]
print(json.dumps({"ms": seconds * 1000, "mib": peak / 2**20, "outcome": outcome, "line": line[:90]}))
"""

CASES = ("memory-add", "memory-import", "message-log", "user-long", "user-esc", "openclaw-huge", "openclaw-line",
         "openclaw-continued", "json-huge")


def prepare(work: Path) -> None:
    big = "tea " * (50 * 2**20 // 4)
    (work / "big-memory.json").write_text(json.dumps({"format": "bestie-memory-export", "version": 2,
                                                      "memories": [{"text": big}], "messages": []}))
    for case, body in (("openclaw-line", "# MEMORY\n\n- " + "z" * (20 * 2**20) + "\n"),
                       ("openclaw-continued", "# MEMORY\n\n- I like\n" + ("  " + "w" * 98 + "\n") * 40_000)):
        (work / case).mkdir()
        (work / case / "MEMORY.md").write_text(body)
    (work / "openclaw-huge").mkdir()
    with (work / "openclaw-huge" / "MEMORY.md").open("wb") as handle:
        handle.truncate(150 * 10**6)
    with (work / "huge.json").open("wb") as handle:
        handle.truncate(150 * 10**6)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, help="an older checkout, measured in the same run")
    ap.add_argument("--timeout", type=float, default=120, help="seconds a case may take before it is stopped")
    args = ap.parse_args()
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    checkouts = [("this", HERE)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    print(f"{'case':<20} {'checkout':<9} {'ms':>9} {'peak MiB':>9}  outcome  first line")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        prepare(work)
        for case in CASES:
            for label, root in checkouts:
                try:
                    done = subprocess.run([sys.executable, "-c", CHILD, str(root), case, str(work)],
                                          capture_output=True, text=True, timeout=args.timeout)
                except subprocess.TimeoutExpired:
                    print(f"{case:<20} {label:<9} {'>' + str(int(args.timeout * 1000)):>9} {'':>9}  stopped")
                    continue
                if done.returncode:
                    print(f"{case:<20} {label:<9} child failed: {done.stderr.strip().splitlines()[-1][:80]}")
                    continue
                r = json.loads(done.stdout.strip().splitlines()[-1])
                print(f"{case:<20} {label:<9} {r['ms']:>9.1f} {r['mib']:>9.1f}  {r['outcome']:<7}  {r['line']}")
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
