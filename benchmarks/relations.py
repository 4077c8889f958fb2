"""Benchmark: how the memory doctor relates two memories, on labelled pairs.

Reads ``../shared/data/memory_pairs_dev.jsonl`` by path (180 pairs: older ``a``, newer ``b``,
``label`` in duplicate | correction | contradiction | compatible | event_vs_state; see the README
section of ``../shared/data/README.md``). Every pair is stored in one real SQLite database under its
own user (``a`` a day before ``b``), and one doctor run (``hygiene.doctor.run_doctor``) over the
whole database labels each pair by what the report says about its two ids:

* both in one duplicate group → ``duplicate``;
* in the corrections section → ``correction``;
* in the contradictions section → ``event_vs_state`` for that kind, else ``contradiction``;
* none of these → ``compatible``.

Printed: the confusion matrix (rows gold, columns predicted), per-label precision and recall, the
issue's targets, and the same for a baseline checkout run in the same invocation (``--baseline
PATH``; by default the worktree of branch ``main`` that ``git worktree list`` names, when there is
one; a baseline without a corrections section never predicts ``correction``). ``--pairs FILE``
reads another file of the same layout (e.g. ``tests/data/relation_pairs.jsonl``, the project's own
pairs). ``--json`` prints one JSON object instead of tables; ``--show`` lists the wrong pairs.

Usage: ``python benchmarks/relations.py [--json] [--show] [--pairs FILE] [--baseline PATH|--no-baseline]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "memory_pairs_dev.jsonl"
LABELS = ("duplicate", "correction", "contradiction", "event_vs_state", "compatible")
TARGETS = {
    "correction recall": (">=", 0.80), "contradiction recall": (">=", 0.85),
    "compatible grouped as duplicate or correction": ("<=", 0.03), "duplicate precision": (">=", 0.95),
    "exact": (">=", 0.70),
}


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def predict(pairs: list[dict]) -> dict:
    """Store the pairs (one user each), run the doctor once, and read each pair's label off the report."""
    from bestie_tui.hygiene.doctor import run_doctor
    from bestie_tui.store.memory_store import MemoryStore

    base = datetime(2026, 11, 1, 9, 0, 0)
    now = {"t": base}
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(Path(tmp) / "pairs.db", clock=lambda: now["t"])
        ids = {}
        for n, p in enumerate(pairs):
            now["t"] = base + timedelta(minutes=n)
            a = store.add("note", p["a"], user=p["id"]).id
            now["t"] = base + timedelta(days=1, minutes=n)
            b = store.add("note", p["b"], user=p["id"]).id
            ids[p["id"]] = (a, b)
        now["t"] = base + timedelta(days=2)
        started = time.perf_counter()
        report = run_doctor(store)
        seconds = time.perf_counter() - started
        store.close()
    grouped = {frozenset(g.ids) for g in report.duplicates}
    corrections = {frozenset(c.ids) for c in getattr(report, "corrections", [])}
    contradictions = {frozenset(c.ids): c.kind for c in report.contradictions}
    got = {}
    for p in pairs:
        pair = frozenset(ids[p["id"]])
        if len(pair) == 1 or any(pair <= g for g in grouped):  # one id: the store reinforced instead of adding
            got[p["id"]] = "duplicate"
        elif pair in corrections:
            got[p["id"]] = "correction"
        elif pair in contradictions:
            got[p["id"]] = "event_vs_state" if contradictions[pair] == "event_vs_state" else "contradiction"
        else:
            got[p["id"]] = "compatible"
    return {"predicted": got, "doctor_s": round(seconds, 3)}


def score(pairs: list[dict], got: dict[str, str]) -> dict:
    confusion = Counter((p["label"], got[p["id"]]) for p in pairs)
    per_label = {}
    for label in LABELS:
        tp = confusion[(label, label)]
        predicted = sum(confusion[(g, label)] for g in LABELS)
        gold = sum(confusion[(label, x)] for x in LABELS)
        per_label[label] = {"precision": round(tp / predicted, 4) if predicted else None,
                            "recall": round(tp / gold, 4) if gold else None, "gold": gold, "predicted": predicted}
    compatible = sum(confusion[("compatible", x)] for x in LABELS)
    wrongly = confusion[("compatible", "duplicate")] + confusion[("compatible", "correction")]
    exact = sum(confusion[(label, label)] for label in LABELS)
    figures = {
        "correction recall": per_label["correction"]["recall"],
        "contradiction recall": per_label["contradiction"]["recall"],
        "compatible grouped as duplicate or correction": round(wrongly / compatible, 4) if compatible else None,
        "duplicate precision": per_label["duplicate"]["precision"],
        "exact": round(exact / len(pairs), 4) if pairs else None,
    }
    return {"pairs": len(pairs), "confusion": {g: {x: confusion[(g, x)] for x in LABELS} for g in LABELS},
            "per_label": per_label, "targets": figures,
            "met": {k: _met(figures[k], *TARGETS[k]) for k in TARGETS}}


def _met(value, op: str, bound: float) -> bool | None:
    if value is None:
        return None
    return value >= bound if op == ">=" else value <= bound


def run_here(path: Path) -> dict:
    pairs = load(path)
    result = predict(pairs)
    out = score(pairs, result["predicted"])
    out["doctor_s"] = result["doctor_s"]
    out["wrong"] = [{"id": p["id"], "gold": p["label"], "got": result["predicted"][p["id"]]}
                    for p in pairs if result["predicted"][p["id"]] != p["label"]]
    return out


def main_worktree() -> Path | None:
    """The checkout of branch ``main`` among this repository's worktrees, if any."""
    try:
        listing = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=ROOT, capture_output=True,
                                 text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = None
    for line in listing.splitlines():
        if line.startswith("worktree "):
            path = Path(line.split(" ", 1)[1])
        elif line == "branch refs/heads/main" and path is not None:
            return path
    return None


def run_baseline(checkout: Path, path: Path) -> dict | None:
    """The same measurement with the ``bestie_tui`` of another checkout, in a subprocess."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    cmd = [sys.executable, __file__, "--child", str(path)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=str(checkout))
    if done.returncode != 0:
        print(f"baseline at {checkout} failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def _pct(value) -> str:
    return "-" if value is None else f"{value:.1%}"


def print_tables(name: str, r: dict, show: bool, pairs: list[dict] | None = None) -> None:
    print(f"\n{name}: {r['pairs']} pairs, one doctor run {r['doctor_s']} s")
    print("| gold \\ predicted | " + " | ".join(LABELS) + " |")
    print("|---|" + "---:|" * len(LABELS))
    for g in LABELS:
        print(f"| {g} | " + " | ".join(str(r["confusion"][g][x]) for x in LABELS) + " |")
    print("\n| label | precision | recall | gold | predicted |\n|---|---:|---:|---:|---:|")
    for label in LABELS:
        pl = r["per_label"][label]
        print(f"| {label} | {_pct(pl['precision'])} | {_pct(pl['recall'])} | {pl['gold']} | {pl['predicted']} |")
    if show and pairs is not None:
        by_id = {p["id"]: p for p in pairs}
        for w in r["wrong"]:
            p = by_id[w["id"]]
            print(f"  {w['id']} {w['gold']} → {w['got']}: {p['a']} || {p['b']}")


def main() -> None:
    args = sys.argv[1:]
    if "--child" in args:
        print(json.dumps(run_here(Path(args[args.index("--child") + 1]))))
        return
    if {"-h", "--help"} & set(args):
        print((__doc__ or "").strip())
        return
    path = (Path(args[args.index("--pairs") + 1]) if "--pairs" in args else DATA).resolve()
    if not path.exists():
        sys.exit(f"{path} is absent: the benchmark reads the shared data by path")
    baseline_path = Path(args[args.index("--baseline") + 1]) if "--baseline" in args else main_worktree()
    sys.path.insert(0, str(ROOT))
    ours = run_here(path)
    base = None
    if "--no-baseline" not in args and baseline_path is not None and baseline_path.exists() \
            and baseline_path.resolve() != ROOT.resolve():
        base = run_baseline(baseline_path, path)
    if "--json" in args:
        print(json.dumps({"pairs_file": path.name, "this": ours, "baseline": base,
                          "baseline_checkout": str(baseline_path) if base else None}, indent=2))
        return
    pairs = load(path)
    print(f"relations on {path.name} · {os.cpu_count()} CPUs · load average {os.getloadavg()[0]:.2f}")
    print("\n| target | goal | this branch | baseline |\n|---|---|---:|---:|")
    for key, (op, bound) in TARGETS.items():
        mine = ours["targets"][key]
        theirs = base["targets"][key] if base else None
        mark = "ok" if ours["met"][key] else "MISSED"
        print(f"| {key} | {op} {bound:.0%} | {_pct(mine)} ({mark}) | {_pct(theirs)} |")
    print_tables("this branch", ours, "--show" in args, pairs)
    if base:
        print_tables(f"baseline ({baseline_path})", base, False)


if __name__ == "__main__":
    main()
