"""Memory of the console's Doctor and Cleanup views, quitting, and ``pending`` beside ``status``, at
100,000 memories, for this code beside a baseline checkout in the same run (issue 31, item 3).

Usage::

    .venv/bin/python benchmarks/console_memory.py [--size 100000] [--baseline DIR] [--repeat 3] [--json]

``--baseline DIR`` is another checkout of the package (for instance ``git worktree add /tmp/base
<commit>``); its figures are measured by the same children, run with ``PYTHONPATH=DIR``.

The databases (built once, cached in the temp dir by size), both of the MSC/PersonaChat persona
facts of ../shared/data/msc_personas_all.json repeated with a counter past the file's 65,245 facts:

* ``--layout persona`` (default, and always for ``pending``): ``cold.py``'s, one user per persona
  (a new user per lap), 1 % pending, indexed with ``bestie memory reindex``;
* ``--layout owner``: ``first_paint.bulk_database``, every memory of one owner (the doctor compares
  all of them with each other: minutes at 100,000), 5 % core, 80 % working, 10 % forgotten, 5 %
  pending.

Measures, each in a fresh process (the real ``BestieApp`` headless under Textual's Pilot, 120×40):

* Doctor: key 4, until the report is drawn; Cleanup: key 5, until the plan is drawn. The console
  process's resident memory (``VmRSS`` of /proc/self/status) before the key, its peak (``VmHWM``)
  and its resident memory once the view is drawn and the workers are done (what the console keeps
  while the owner reads the report); and the peak of the second process the analysis ran in, if
  any (``RUSAGE_CHILDREN``);
* quit: in the same process, from pressing ``q`` until the process has exited (interpreter
  teardown included: the terminal is the owner's again), measured by the parent with ``wait4``;
* ``pending`` and ``status``: CPU seconds (user + system, ``wait4``) of a fresh
  ``bestie memory pending`` / ``bestie memory status`` process, median of ``--repeat``.

Targets (issue 31): Doctor and Cleanup peak ≤ 400 MiB and released after; quit ≤ 0.5 s; pending
≤ 3× status. Prints a Markdown table (or ``--json``) with the load average.

Data: MSC personas via the LoCoMo repository (Xu et al., ACL 2022), CC BY-NC 4.0, read by path.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[1] / "shared" / "data" / "msc_personas_all.json"
BUILD_VERSION = 1  # bump when the generated database changes
#: Seconds a view may take to draw its analysis before the run is given up.
VIEW_LIMIT = 900.0


def status_mib() -> dict[str, float]:
    """``VmRSS`` and ``VmHWM`` (peak resident) of this process, MiB (Linux /proc)."""
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(value.split()[0]) / 1024
    return out


def _cached(name: str, what: str, build) -> Path:
    """The database ``name`` under the temp dir's ``bestie-console-memory/``, made by ``build(path)``
    the first time (into a ``.building`` file, checkpointed, then renamed) and reused after."""
    import sqlite3

    path = Path(tempfile.gettempdir()) / "bestie-console-memory" / name
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".building")
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        p.unlink(missing_ok=True)
    print(f"  building {what} …", file=sys.stderr, flush=True)
    build(tmp)
    conn = sqlite3.connect(tmp)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    tmp.rename(path)
    return path


def database(size: int, data: Path) -> Path:
    """The cached benchmark database of ``size`` memories (see the module docstring)."""
    sys.path.insert(0, str(HERE))
    from first_paint import bulk_database, persona_facts

    return _cached(f"v{BUILD_VERSION}-{size}.db", f"{size:,} memories",
                   lambda tmp: bulk_database(tmp, persona_facts(data), size, random.Random(7)))


def review_database(size: int, data: Path) -> Path:
    """The cached database ``cold.py`` measures ``pending`` on: ``size`` persona facts, one user per
    persona (repeated with a counter, a new user per lap), 1 % pending (one proposal in a hundred),
    no messages; indexed with ``bestie memory reindex``."""
    sys.path.insert(0, str(HERE))
    from cold import BESTIE, build, persona_facts

    def make(tmp: Path) -> None:
        build(tmp, size, 0, persona_facts(data), [])
        subprocess.run([*BESTIE, "--db", str(tmp), "memory", "reindex"], check=True, stdout=subprocess.DEVNULL)

    return _cached(f"review-v{BUILD_VERSION}-{size}.db", f"{size:,} memories (one user per persona)", make)


# ---------------------------------------------------------------------------------------- child
async def view_run(db: Path, key: str) -> dict:
    """In this (child) process: open the console on ``db``, press ``key``, wait until its analysis
    is drawn; memory figures, then press ``q`` (its wall-clock time is returned for the parent)."""
    from bestie_tui.store.memory_store import MemoryStore
    from bestie_tui.tui.app import BestieApp

    store = MemoryStore(db)
    app = BestieApp(store, poll_interval=0)
    out: dict = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        out["rss_before_mib"] = status_mib()["VmRSS"]
        started = time.perf_counter()
        await pilot.press(key)
        deadline = started + VIEW_LIMIT
        while not _drawn(app.screen):
            if time.perf_counter() > deadline:
                raise TimeoutError(f"view {key} not drawn within {VIEW_LIMIT:.0f} s")
            await pilot.pause(0.05)
        await app.workers.wait_for_complete()
        await pilot.pause()
        out["seconds"] = time.perf_counter() - started
        mem = status_mib()
        out["peak_mib"], out["rss_after_mib"] = mem["VmHWM"], mem["VmRSS"]
        out["analysis_peak_mib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        out["shown"] = _shown(app.screen)
        out["quit_pressed_at"] = time.time()
        await pilot.press("q")
        while app.is_running:
            await pilot.pause(0.002)
    out["app_quit_s"] = time.time() - out["quit_pressed_at"]
    store.close()
    return out


def _drawn(screen) -> bool:
    if getattr(screen, "busy", True):
        return False
    return getattr(screen, "status", None) is not None or getattr(screen, "plan", None) is not None


def _shown(screen) -> dict:
    """What the view shows, to check that both trees drew the same result."""
    status = getattr(screen, "status", None)
    if status is not None:
        return {"health": status.health.score, **status.report.counts()}
    plan = screen.plan
    return {"operations": len(plan.operations), **plan.counts()}


def child(args) -> None:
    out = asyncio.run(view_run(Path(args.db), args.child))
    print(json.dumps(out), flush=True)
    from bestie_tui.tui import app

    leave = getattr(app, "leave", None)
    if leave is not None:
        leave(force=True)  # what ``bestie tui`` does once the console has closed its store


# ---------------------------------------------------------------------------------------- parent
def env_for(tree: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return env


def waited(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, int, str]:
    """``(wall s, CPU s, peak RSS MiB, exit code, stdout)`` of one process; the end time is when
    ``wait4`` returned (``time.time()``), for the quit measure."""
    # run from the temp dir: ``python -c`` puts the working directory first on sys.path, which
    # would let this checkout shadow the baseline's PYTHONPATH
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tempfile.gettempdir())
    started = time.perf_counter()
    stdout = proc.stdout.read() if proc.stdout is not None else b""
    _, status, usage = os.wait4(proc.pid, 0)
    ended = time.time()
    seconds = time.perf_counter() - started
    if proc.stderr is not None:
        err = proc.stderr.read()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.stderr.write(err.decode(errors="replace")[-2000:])
    return seconds, usage.ru_utime + usage.ru_stime, ended, os.waitstatus_to_exitcode(status), stdout.decode()


def measure_view(tree: Path | None, db: Path, key: str) -> dict:
    _, cpu, ended, code, stdout = waited([sys.executable, str(Path(__file__).resolve()), "--child", key, "--db", str(db)], env_for(tree))
    if code != 0:
        return {"exit": code}
    out = json.loads(stdout.strip().splitlines()[-1])
    out["quit_s"] = ended - out["quit_pressed_at"]
    out["cpu_s"] = cpu
    return out


def cli_cpu(tree: Path | None, db: Path, args: list[str], repeat: int) -> dict:
    cmd = [sys.executable, "-c", "from bestie_tui.cli.main import main; main()", "--db", str(db), *args]
    runs = [waited(cmd, env_for(tree)) for _ in range(repeat)]
    return {"seconds": statistics.median(r[0] for r in runs), "cpu_s": statistics.median(r[1] for r in runs),
            "exit": next((r[3] for r in runs if r[3] != 0), 0), "lines": runs[0][4].count("\n")}


def measure_tree(name: str, tree: Path | None, db: Path, review: Path, repeat: int, views: bool = True) -> dict:
    out: dict = {"tree": name}
    for key, view in (("4", "doctor"), ("5", "cleanup")) if views else ():
        print(f"  {name}: {view} …", file=sys.stderr, flush=True)
        out[view] = measure_view(tree, db, key)
    cli_cpu(tree, review, ["memory", "status"], 1)  # page cache warm
    for command in ("status", "pending"):
        out[command] = cli_cpu(tree, review, ["memory", command], repeat)
    return out


def table(title: str, header: list[str], rows: list[list[str]]) -> str:
    lines = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--baseline", help="another checkout of the package, measured beside this one")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--layout", choices=("persona", "owner"), default="persona",
                        help="the views' database: one user per persona (default) or one owner of every memory")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--only", choices=("cli",), help="measure only pending beside status")
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    review = review_database(args.size, Path(args.data))
    db = review if args.layout == "persona" else database(args.size, Path(args.data))
    trees: list[tuple[str, Path | None]] = []
    if args.baseline:
        trees.append(("baseline", Path(args.baseline).resolve()))
    trees.append(("this code", HERE.parent))
    results = [measure_tree(name, tree, db, review, args.repeat, views=args.only != "cli") for name, tree in trees]
    load = os.getloadavg()
    if args.json:
        print(json.dumps({"size": args.size, "load_average": load[0], "cores": os.cpu_count(), "results": results},
                         indent=2))
        return
    rows = []
    for r in results:
        for view in ("doctor", "cleanup") if "doctor" in r else ():
            v = r[view]
            if "peak_mib" not in v:
                rows.append([r["tree"], view, f"exit {v.get('exit')}", "", "", "", "", "", ""])
                continue
            rows.append([r["tree"], view, f"{v['rss_before_mib']:.0f}", f"{v['peak_mib']:.0f}", f"{v['rss_after_mib']:.0f}",
                         f"{v['analysis_peak_mib']:.0f}" if v["analysis_peak_mib"] else "—",
                         f"{v['seconds']:.1f}", f"{v['quit_s']:.2f}", f"{v['app_quit_s']:.2f}"])
    layout = "one user per persona" if args.layout == "persona" else "one owner"
    print(table(f"Console at {args.size:,} memories ({layout}); load average {load[0]:.1f} on {os.cpu_count()} cores",
                ["code", "view", "RSS before (MiB)", "peak (MiB)", "RSS after (MiB)", "analysis process peak (MiB)",
                 "view drawn (s)",
                 "q → process gone (s)", "q → app exited (s)"], rows))
    print()
    cli_rows = [[r["tree"], f"{r['status']['cpu_s']:.2f}", f"{r['pending']['cpu_s']:.2f}",
                 f"{r['pending']['cpu_s'] / r['status']['cpu_s']:.1f}×", f"{r['pending']['lines']:,}"] for r in results]
    print(table(f"`bestie memory pending` beside `status`, CPU seconds, median of {args.repeat} fresh processes",
                ["code", "status", "pending", "pending/status", "pending lines"], cli_rows))


if __name__ == "__main__":
    main()
