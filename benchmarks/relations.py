"""Benchmark: how the memory doctor relates two memories, on labelled pairs (issue 28's figures).

Reads the labelled pairs by path from ``../shared/data/`` (see its README): ``memory_pairs_train.jsonl``
(400 pairs, the model is fitted on it: figures by 5-fold cross-validation, each fold's model fitted
by ``fit_relations.fit`` on the other four folds only) and ``memory_pairs_dev.jsonl`` (180 pairs,
validation only: the shipped model, fitted on train). ``--pairs FILE`` adds any other file of the same
layout (measured with the shipped model). Every pair is stored in one real SQLite database under its
own user (``a`` a day before ``b``), and one doctor run (``hygiene.doctor.run_doctor``) labels each
pair by what the report says about its two ids:

* both in one duplicate group → ``duplicate``; in the corrections → ``correction``; in the
  contradictions → ``event_vs_state`` for that kind, else ``contradiction``; in the related list →
  ``related``; none of these → ``compatible``.
* a duplicate group or a correction is a *destructive default* when the cleanup plan would select it
  (``strong``): a merge or a supersede that takes a record out of the prompt.

Figures (targets in ``TARGETS``): surfaced — share of related pairs (every label but compatible)
given a verdict or ``related``; exact — share of pairs given their label; harm — share of compatible
and event_vs_state pairs given a destructive default; unstable — pairs whose verdict differs between
two ``PYTHONHASHSEED`` values (each run in its own process); the pairs with a marked Vietnamese
text whose verdict stays the same when both are typed without marks; the doctor's time. Beside them, the
same figures for a baseline checkout run in the same invocation (``--baseline PATH``; by default the
worktree of branch ``main`` that ``git worktree list`` names, when there is one; a baseline without a
related list or strong flags is read as having neither).

Usage: ``python benchmarks/relations.py [--json] [--show] [--pairs FILE] [--baseline PATH|--no-baseline]
[--no-seeds]``.
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
SHARED = ROOT.parent / "shared" / "data"
DEV = SHARED / "memory_pairs_dev.jsonl"
TRAIN = SHARED / "memory_pairs_train.jsonl"
LABELS = ("duplicate", "correction", "contradiction", "event_vs_state", "compatible")
PREDICTED = LABELS + ("related",)
TARGETS = {"surfaced": (">=", 0.80), "exact": (">=", 0.60), "harm": ("<=", 0.03)}


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def predict(pairs: list[dict]) -> dict:
    """Store the pairs (one user each), run the doctor once, and read each pair's label off the report;
    ``strong`` lists the pairs given a destructive default."""
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
    grouped = {frozenset(g.ids): getattr(g, "strong", True) for g in report.duplicates}
    corrections = {frozenset(c.ids): getattr(c, "strong", True) for c in getattr(report, "corrections", [])}
    contradictions = {frozenset(c.ids): c.kind for c in report.contradictions}
    related = {frozenset(r.ids) for r in getattr(report, "related", [])}
    got, strong = {}, []
    for p in pairs:
        pair = frozenset(ids[p["id"]])
        group = next((g for g in grouped if pair <= g), None)
        if len(pair) == 1 or group is not None:  # one id: the store reinforced instead of adding
            got[p["id"]] = "duplicate"
            if len(pair) == 1 or grouped[group]:
                strong.append(p["id"])
        elif pair in corrections:
            got[p["id"]] = "correction"
            if corrections[pair]:
                strong.append(p["id"])
        elif pair in contradictions:
            got[p["id"]] = "event_vs_state" if contradictions[pair] == "event_vs_state" else "contradiction"
        elif pair in related:
            got[p["id"]] = "related"
        else:
            got[p["id"]] = "compatible"
    return {"predicted": got, "strong": strong, "doctor_s": round(seconds, 3)}


def score(pairs: list[dict], got: dict[str, str], strong: list[str]) -> dict:
    confusion = Counter((p["label"], got[p["id"]]) for p in pairs)
    per_label = {}
    for label in LABELS:
        tp = confusion[(label, label)]
        predicted = sum(confusion[(g, label)] for g in LABELS)
        gold = sum(confusion[(label, x)] for x in PREDICTED)
        per_label[label] = {"precision": round(tp / predicted, 4) if predicted else None,
                            "recall": round(tp / gold, 4) if gold else None, "gold": gold, "predicted": predicted}
    related = [p for p in pairs if p["label"] != "compatible"]
    innocent = [p for p in pairs if p["label"] in ("compatible", "event_vs_state")]
    shown = sum(1 for p in related if got[p["id"]] != "compatible")
    harmed = sum(1 for p in innocent if p["id"] in set(strong))
    exact = sum(confusion[(label, label)] for label in LABELS)
    figures = {"surfaced": round(shown / len(related), 4) if related else None,
               "exact": round(exact / len(pairs), 4) if pairs else None,
               "harm": round(harmed / len(innocent), 4) if innocent else None}
    return {"pairs": len(pairs), "confusion": {g: {x: confusion[(g, x)] for x in PREDICTED} for g in LABELS},
            "per_label": per_label, "targets": figures, "harmed": harmed,
            "met": {k: _met(figures[k], *TARGETS[k]) for k in TARGETS}}


def _met(value, op: str, bound: float) -> bool | None:
    if value is None:
        return None
    return value >= bound if op == ">=" else value <= bound


def _unmarked(text: str) -> str:
    """``text`` typed without Vietnamese marks ("Đà Nẵng" → "Da Nang")."""
    import unicodedata

    text = text.replace("đ", "d").replace("Đ", "D")
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


def same_unmarked(pairs: list[dict]) -> tuple[int, int]:
    """``(same, total)``: of the pairs with a marked Vietnamese text, those whose verdict
    (``facts.relate``) is the same when both texts are typed without marks (issue 28, item 6)."""
    from bestie_tui.facts.relations import relate

    marked = [p for p in pairs if _unmarked(p["a"]) != p["a"] or _unmarked(p["b"]) != p["b"]]
    same = sum(relate(p["a"], p["b"]).kind == relate(_unmarked(p["a"]), _unmarked(p["b"])).kind for p in marked)
    return same, len(marked)


def run_here(path: Path) -> dict:
    """The figures on ``path`` with this process's model (the shipped one unless ``model.use`` set another)."""
    pairs = load(path)
    result = predict(pairs)
    out = score(pairs, result["predicted"], result["strong"])
    out["doctor_s"] = result["doctor_s"]
    out["unmarked"] = same_unmarked(pairs)
    out["predicted"] = result["predicted"]
    out["wrong"] = [{"id": p["id"], "gold": p["label"], "got": result["predicted"][p["id"]]}
                    for p in pairs if result["predicted"][p["id"]] != p["label"]]
    return out


def run_cv(path: Path) -> dict:
    """5-fold cross-validation on ``path`` (the training file): each fold's pairs judged by a model
    fitted (``fit_relations.fit``: C and thresholds chosen inside the four other folds) without them."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import numpy as np
    from fit_relations import fit, folds

    from bestie_tui.facts import model

    pairs = load(path)
    y = np.array([LABELS.index(p["label"]) for p in pairs])
    got: dict[str, str] = {}
    strong: list[str] = []
    seconds = 0.0
    unmarked = [0, 0]
    for train, test in folds(y):
        model.use(model.Model.from_params(fit([pairs[i] for i in train])))
        part = predict([pairs[i] for i in test])
        same, total = same_unmarked([pairs[i] for i in test])
        unmarked = [unmarked[0] + same, unmarked[1] + total]
        got.update(part["predicted"])
        strong += part["strong"]
        seconds += part["doctor_s"]
    model.use(None)
    out = score(pairs, got, strong)
    out["doctor_s"] = round(seconds, 3)
    out["unmarked"] = tuple(unmarked)
    out["predicted"] = got
    out["wrong"] = [{"id": p["id"], "gold": p["label"], "got": got[p["id"]]} for p in pairs if got[p["id"]] != p["label"]]
    return out


def unstable(path: Path, seeds: tuple[str, str] = ("1", "2")) -> int:
    """Pairs of ``path`` whose verdict differs between two ``PYTHONHASHSEED`` values (two processes)."""
    runs = []
    for seed in seeds:
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        done = subprocess.run([sys.executable, __file__, "--child", str(path)], env=env, capture_output=True,
                              text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1])["predicted"])
    return sum(1 for k in runs[0] if runs[0][k] != runs[1].get(k))


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
    print(f"\n{name}: {r['pairs']} pairs, doctor {r['doctor_s']} s")
    print("| gold \\ predicted | " + " | ".join(PREDICTED) + " |")
    print("|---|" + "---:|" * len(PREDICTED))
    for g in LABELS:
        print(f"| {g} | " + " | ".join(str(r["confusion"][g][x]) for x in PREDICTED) + " |")
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
    files = [("train (5-fold CV)", TRAIN, True), ("dev (fitted on train)", DEV, False)]
    if "--pairs" in args:
        extra = Path(args[args.index("--pairs") + 1]).resolve()
        files.append((f"{extra.name} (fitted on train)", extra, False))
    for _, path, _cv in files:
        if not path.exists():
            sys.exit(f"{path} is absent: the benchmark reads the labelled pairs by path")
    baseline_path = Path(args[args.index("--baseline") + 1]) if "--baseline" in args else main_worktree()
    use_base = "--no-baseline" not in args and baseline_path is not None and baseline_path.exists() \
        and baseline_path.resolve() != ROOT.resolve()
    sys.path.insert(0, str(ROOT))
    results = []
    for name, path, cv in files:
        ours = run_cv(path) if cv else run_here(path)
        ours["unstable"] = None if "--no-seeds" in args else unstable(path)
        base = run_baseline(baseline_path, path) if use_base and baseline_path is not None else None
        results.append({"name": name, "file": path.name, "this": ours, "baseline": base})
    if "--json" in args:
        for r in results:
            for side in ("this", "baseline"):
                if r[side]:
                    r[side].pop("predicted", None)
        print(json.dumps({"results": results, "baseline_checkout": str(baseline_path) if use_base else None},
                         indent=2))
        return
    print(f"relations · {os.cpu_count()} CPUs · load average {os.getloadavg()[0]:.2f}")
    print("\n| file | figure | goal | this branch | baseline |\n|---|---|---|---:|---:|")
    for r in results:
        ours, base = r["this"], r["baseline"]
        for key, (op, bound) in TARGETS.items():
            mark = "ok" if ours["met"][key] else "MISSED"
            theirs = _pct(base["targets"][key]) if base else "-"
            print(f"| {r['name']} | {key} | {op} {bound:.0%} | {_pct(ours['targets'][key])} ({mark}) | {theirs} |")
        print(f"| {r['name']} | unstable (2 hash seeds) | 0 | {ours['unstable']} | - |")
        same, total = ours.get("unmarked", (0, 0))
        theirs = base.get("unmarked") if base else None
        print(f"| {r['name']} | same verdict typed without marks | - | {same}/{total} = {_pct(same / max(1, total))} | "
              f"{f'{theirs[0]}/{theirs[1]}' if theirs else '-'} |")
    for r in results:
        print_tables(f"this branch · {r['name']}", r["this"], "--show" in args, load(TRAIN if "train" in r["name"]
                                                                                    else DEV if "dev" in r["name"]
                                                                                    else Path(r["file"]).resolve()))
        if r["baseline"]:
            print_tables(f"baseline · {r['name']}", r["baseline"], False)


if __name__ == "__main__":
    main()
