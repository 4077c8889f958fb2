"""Benchmark: the full memory doctor over the 65,245 MSC persona facts.

Two stores are built from ``../shared/data/msc_personas_all.json`` (CC BY-NC 4.0, read by path,
never copied): one user per persona (each speaker slot of each pair, 12,030 users) and every fact
under one user. Each scenario runs in its own process so its peak RSS is its own.

Printed per scenario: build time of the store (not part of the doctor), doctor time (wall clock,
seconds) with its stages, peak memory (``resource.getrusage`` max RSS of the process, MiB, and the
Python heap peak of the doctor call alone from ``tracemalloc`` when ``--tracemalloc`` is given,
which slows the run), duplicate group count and size distribution, the ladder level of the groups,
the negated twins kept out of duplicate groups, and contradiction candidates by kind.

Also printed: corrections (the newer fact replaces the older), and the precision of the hand labels
in ``benchmarks/doctor_msc_labels.json``: 50 duplicate groups and 50 contradiction candidates drawn at
random (seeded) from one run of the per-persona scenario and labelled by hand — by fact index (the
position of a fact in the file's order: splits, pairs, speaker 1 then 2), never by text, since the
data may not be copied. Precision counts the labelled items the doctor still reports.

Each scenario's store is built by each checkout from the same facts (a newer schema is not one the
baseline can open), and the doctor of this checkout and of the baseline (the worktree of branch
``main``, when there is one; ``--no-baseline`` skips it) runs on its own copy,
side by side, each in its own process. The reading worker's CPU time is shown beside the doctor's.

Also printed: the related pairs for review (per 100 memories), and every pair item the owner is
shown (duplicate groups, corrections, contradictions, related) per 100 memories.

Usage: ``python benchmarks/doctor_msc.py [--tracemalloc] [--no-baseline | --baseline PATH]``. Target on a 2-core machine: ≤ 20 s and
≤ 2 GB per scenario. ``--sample`` prints a fresh random sample (fact indices with their text, on the
terminal only) for labelling.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "msc_personas_all.json"
LABELS = Path(__file__).resolve().parent / "doctor_msc_labels.json"
SCENARIOS = ("per-persona", "one-user")
SAMPLE = 50
#: Seed of the hand-labelled sample (a fresh one was drawn after the last change to the reader).
SEED = 2029


def load_facts(scenario: str) -> list[tuple[str, str]]:
    """``(user, fact)`` for every fact in file order."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    out = []
    for split, pairs in data.items():
        for n, pair in enumerate(pairs):
            for speaker in ("Speaker 1", "Speaker 2"):
                user = "owner" if scenario == "one-user" else f"{split}-{n}-{speaker[-1]}"
                out.extend((user, fact) for fact in pair[speaker])
    return out


def build_store(path: Path, facts: list[tuple[str, str]]):
    """A real store with every fact approved; bulk-inserted (setup, not measured as doctor time)."""
    from bestie_tui.store.memory_store import MemoryStore
    from bestie_tui.store.models import Memory
    from bestie_tui.text import words as textmod

    base = datetime(2026, 11, 30, 12, 0, 0)
    store = MemoryStore(path, clock=lambda: base)
    rows = []
    for i, (user, fact) in enumerate(facts):
        created = base - timedelta(days=i % 365, seconds=i)
        rows.append(dict(text=fact, kind="persona", status="approved", scope="project", layer="working",
                         user=user, source="msc", confidence=0.8, created_at=created, updated_at=created,
                         norm=textmod.normalize(fact), terms=textmod.search_text(fact)))
    with store.bound(), store.db.atomic():
        for start in range(0, len(rows), 500):
            Memory.insert_many(rows[start:start + 500]).execute()
    return store


def run(scenario: str, use_tracemalloc: bool, sample: bool = False, db: Path | None = None) -> dict:
    """Run the doctor once over a store of ``scenario`` (built here, or the one at ``db``)."""
    from bestie_tui.hygiene.doctor import run_doctor
    from bestie_tui.store.memory_store import MemoryStore

    facts = load_facts(scenario)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        if db is None:
            store = build_store(Path(tmp) / "msc.db", facts)
        else:
            store = MemoryStore(db, clock=lambda: datetime(2026, 11, 30, 12, 0, 0))
        build_s = time.perf_counter() - t
        heap_peak = None
        if use_tracemalloc:
            import tracemalloc

            tracemalloc.start()
        t, cpu = time.perf_counter(), time.process_time()
        report = run_doctor(store)
        doctor_s, doctor_cpu = time.perf_counter() - t, time.process_time() - cpu
        if use_tracemalloc:
            heap_peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        store.close()
    if sample:
        print_sample(report, facts)
        return {}
    labelled = precision(report, scenario)
    sizes = [len(g.members) for g in report.duplicates]
    buckets = Counter("2" if s == 2 else "3-5" if s <= 5 else "6-10" if s <= 10 else "11-50" if s <= 50
                      else ">50" for s in sizes)
    return {
        "scenario": scenario, "facts": len(facts), "users": len({u for u, _ in facts}),
        "build_s": round(build_s, 2), "doctor_s": round(doctor_s, 2), "doctor_cpu_s": round(doctor_cpu, 2),
        "worker_cpu_s": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime, 2),
        "stages": {k: round(v, 2) for k, v in report.timings.items()},
        "max_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "heap_peak_mib": round(heap_peak, 1) if heap_peak is not None else None,
        "groups": len(sizes), "grouped_records": sum(sizes), "largest": max(sizes, default=0),
        "sizes": {k: buckets.get(k, 0) for k in ("2", "3-5", "6-10", "11-50", ">50")},
        "levels": dict(Counter(g.level for g in report.duplicates)),
        "negation_pairs_kept_out": report.negation_pairs,
        "contradictions": dict(Counter(c.kind for c in report.contradictions)),
        "corrections": len(getattr(report, "corrections", [])),
        "related": len(getattr(report, "related", [])),
        "strong_groups": sum(1 for g in report.duplicates if getattr(g, "strong", True)),
        "strong_corrections": sum(1 for c in getattr(report, "corrections", []) if getattr(c, "strong", True)),
        "related_per_100": round(100 * len(getattr(report, "related", [])) / max(1, len(facts)), 2),
        "shown_per_100": round(100 * (len(sizes) + len(report.contradictions) + len(getattr(report, "corrections", []))
                                      + len(getattr(report, "related", []))) / max(1, len(facts)), 2),
        "stale": len(report.stale), "noisy": len(report.noisy),
        "labelled": labelled,
    }


def _fact(record) -> int:
    """The fact index of a record: ``build_store`` inserts the facts in file order from id 1."""
    return record.id - 1


def print_sample(report, facts) -> None:
    """A seeded random sample of groups and contradiction candidates, with text, for hand labelling."""
    import random

    rng = random.Random(SEED)
    groups = rng.sample(report.duplicates, min(SAMPLE, len(report.duplicates)))
    pairs = rng.sample(report.contradictions, min(SAMPLE, len(report.contradictions)))
    fixes = rng.sample(report.corrections, min(SAMPLE, len(report.corrections)))
    for g in groups:
        print("G", [_fact(m) for m in g.members], g.level, " || ".join(m.text for m in g.members))
    for c in pairs:
        print("C", _fact(c.older), _fact(c.newer), c.kind, c.older.text, "||", c.newer.text, "|", c.reason)
    for f in fixes:
        print("R", _fact(f.older), _fact(f.newer), f.attribute, f.older.text, "||", f.newer.text, "|", f.reason)


def precision(report, scenario: str = "per-persona") -> dict | None:
    """Precision of the hand labels of ``scenario`` (``LABELS``, its last round) among the items the
    doctor still reports."""
    if not LABELS.exists():
        return None
    rounds = [r for r in json.loads(LABELS.read_text(encoding="utf-8"))["rounds"]
              if r.get("scenario", "per-persona") == scenario]
    if not rounds:
        return None
    groups = {frozenset(_fact(m) for m in g.members) for g in report.duplicates}
    pairs = {(_fact(c.older), _fact(c.newer)) for c in report.contradictions}
    replaced = {(_fact(k.older), _fact(k.newer)) for k in report.corrections}
    out = []
    for labels in rounds:
        found_g = [g for g in labels.get("duplicate_groups", []) if frozenset(g["facts"]) in groups]
        found_c = [c for c in labels["contradictions"] if (c["older"], c["newer"]) in pairs]
        out.append({
            "seed": labels["seed"], "groups_labelled": len(labels.get("duplicate_groups", [])),
            "groups_safe_when_labelled": sum(1 for g in labels.get("duplicate_groups", []) if g["safe"]),
            "groups_still_reported": len(found_g), "groups_safe": sum(1 for g in found_g if g["safe"]),
            "contradictions_labelled": len(labels["contradictions"]),
            "contradictions_real_when_labelled": sum(1 for c in labels["contradictions"] if c["real"]),
            "contradictions_still_reported": len(found_c), "contradictions_real": sum(1 for c in found_c if c["real"]),
        })
        if "corrections" in labels:
            found_k = [k for k in labels["corrections"] if (k["older"], k["newer"]) in replaced]
            out[-1] |= {"corrections_labelled": len(labels["corrections"]),
                        "corrections_right_when_labelled": sum(1 for k in labels["corrections"] if k["right"]),
                        "corrections_still_reported": len(found_k),
                        "corrections_right": sum(1 for k in found_k if k["right"])}
    return out[-1] | {"rounds": out}


def main() -> None:
    if {"-h", "--help"} & set(sys.argv[1:]):
        print((__doc__ or "").strip())
        print("\noptions: --tracemalloc (Python heap peak, about 5x slower), --scenario NAME (one scenario, JSON)")
        return
    if not DATA.exists():
        sys.exit(f"{DATA} is absent: the benchmark reads the shared data by path")
    use_tm = "--tracemalloc" in sys.argv
    if "--sample" in sys.argv:
        at = sys.argv.index("--sample")
        scenario = sys.argv[at + 1] if at + 1 < len(sys.argv) and sys.argv[at + 1] in SCENARIOS else "per-persona"
        run(scenario, False, sample=True)
        return
    if "--build" in sys.argv:
        at = sys.argv.index("--build")
        build_store(Path(sys.argv[at + 2]), load_facts(sys.argv[at + 1])).close()
        return
    if "--scenario" in sys.argv:
        db = Path(sys.argv[sys.argv.index("--db") + 1]) if "--db" in sys.argv else None
        print(json.dumps(run(sys.argv[sys.argv.index("--scenario") + 1], use_tm, db=db)))
        return
    baseline = None if "--no-baseline" in sys.argv else (
        Path(sys.argv[sys.argv.index("--baseline") + 1]) if "--baseline" in sys.argv else _main_worktree())
    results = []
    for scenario in SCENARIOS:
        with tempfile.TemporaryDirectory() as tmp:
            for name, checkout in (("this branch", None), ("baseline", baseline)):
                if name == "baseline" and checkout is None:
                    continue
                # each checkout builds its own copy of the same store: a newer schema is not one the
                # baseline can open
                db = Path(tmp) / f"msc-{'baseline' if checkout else 'this'}.db"
                t = time.perf_counter()
                subprocess.run([sys.executable, __file__, "--build", scenario, str(db)], check=True,
                               env=dict(os.environ, PYTHONPATH=str(checkout)) if checkout else None)
                build_s = round(time.perf_counter() - t, 2)
                cmd = [sys.executable, __file__, "--scenario", scenario, "--db", str(db)] + (
                    ["--tracemalloc"] if use_tm else [])
                env = dict(os.environ, PYTHONPATH=str(checkout)) if checkout else None
                done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(checkout or Path.cwd()))
                if done.returncode != 0:
                    print(f"{name} failed on {scenario}: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
                    continue
                result = json.loads(done.stdout.strip().splitlines()[-1])
                result["scenario"] = f"{scenario} ({name})"
                result["build_s"] = build_s
                results.append(result)
    load = os.getloadavg()
    print(f"doctor over MSC persona facts · {os.cpu_count()} CPUs · load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f} (shared machine)")
    rows = [
        ("facts / users", lambda r: f"{r['facts']:,} / {r['users']:,}"),
        ("store build (setup) s", lambda r: r["build_s"]),
        ("doctor wall time s", lambda r: r["doctor_s"]),
        ("doctor CPU s (process / reading worker)", lambda r: f"{r['doctor_cpu_s']} / {r.get('worker_cpu_s', 0)}"),
        ("  load / duplicates / contradictions s",
         lambda r: f"{r['stages'].get('load')} / {r['stages'].get('duplicates')} / {r['stages'].get('contradictions')}"),
        ("peak RSS MiB (process)", lambda r: r["max_rss_mib"]),
        ("peak Python heap MiB (doctor)", lambda r: r["heap_peak_mib"] if r["heap_peak_mib"] is not None else "-"),
        ("duplicate groups", lambda r: f"{r['groups']:,} ({r['grouped_records']:,} records)"),
        ("group sizes 2 | 3-5 | 6-10 | 11-50 | >50", lambda r: " | ".join(str(v) for v in r["sizes"].values())),
        ("largest group", lambda r: r["largest"]),
        ("levels", lambda r: ", ".join(f"{k} {v}" for k, v in sorted(r["levels"].items()))),
        ("negated twins kept out of groups", lambda r: r["negation_pairs_kept_out"]),
        ("contradiction candidates", lambda r: ", ".join(f"{k} {v}" for k, v in sorted(r["contradictions"].items()))),
        ("corrections", lambda r: f"{r['corrections']:,}"),
        ("strong (a default action): groups / corrections",
         lambda r: f"{r.get('strong_groups', '-')} / {r.get('strong_corrections', '-')}"),
        ("related — review (per 100 memories)", lambda r: f"{r.get('related', 0):,} ({r.get('related_per_100', 0)})"),
        ("all pair items shown per 100 memories", lambda r: r.get("shown_per_100", "-")),
        ("hand labels: groups safe / still reported", lambda r: _labelled(r, "groups_safe", "groups_still_reported")),
        ("hand labels: contradictions real / reported",
         lambda r: _labelled(r, "contradictions_real", "contradictions_still_reported")),
        ("hand labels: corrections right / reported",
         lambda r: _labelled(r, "corrections_right", "corrections_still_reported")),
        ("stale / noisy", lambda r: f"{r['stale']:,} / {r['noisy']:,}"),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"| {'':<{width}} | " + " | ".join(f"{r['scenario']:<28}" for r in results) + " |")
    print(f"|{'-' * (width + 2)}|" + "|".join("-" * 30 for _ in results) + "|")
    for name, get in rows:
        print(f"| {name:<{width}} | " + " | ".join(f"{str(get(r)):<28}" for r in results) + " |")


def _main_worktree() -> Path | None:
    """The checkout of branch ``main`` among this repository's worktrees (the baseline), if any."""
    try:
        listing = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=Path(__file__).parent,
                                 capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = None
    for line in listing.splitlines():
        if line.startswith("worktree "):
            path = Path(line.split(" ", 1)[1])
        elif line == "branch refs/heads/main" and path is not None and path.resolve() != Path(__file__).parents[1]:
            return path
    return None


def _labelled(r: dict, good: str, found: str) -> str:
    """The last round's precision among what is still reported, and each round as labelled."""
    lab = r.get("labelled")
    if not lab or found not in lab:
        return "-"
    kind, when = good.split("_", 1)
    if not lab.get(kind + "_labelled"):
        return "-"
    now = f"{lab[good]}/{lab[found]} = {lab[good] / lab[found]:.0%}" if lab[found] else "0 reported"
    history = ", ".join(f"seed {x['seed']}: {x[kind + '_' + when + '_when_labelled']}/{x[kind + '_labelled']}"
                        for x in lab["rounds"] if kind + "_labelled" in x)
    return f"{now} (as labelled: {history})"


if __name__ == "__main__":
    main()
