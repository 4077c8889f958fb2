"""Retrieval quality on PrefEval: does the scorer surface the stated preference behind a request?

Usage::

    .venv/bin/python benchmarks/retrieval_prefeval.py [--json] [--semantic] [--baseline TREE] [../shared/data/prefeval_dev.json]

Every item's ``preference`` is an approved memory of one user in one real store; every item's
``question`` is a query; the target is that item's own preference. Prints recall@1 and @5 per topic
and overall for the scorer (``build_context``, default weights), TF-IDF alone, and FTS5 bm25 (plain,
and porter + stop words). Few words are shared between a request and the preference behind it, so a
lexical scorer is expected to do poorly here; the figures are reported as they come.

``--floor`` keeps the store's default relevance floor and evidence rule, so a ranking holds only
what a prompt would get (by default every record may be ranked). With ``--semantic`` the ranking
mode lets meaning rank every record as well: the model's ``related`` cosine, from which a memory
that shares no word with a request may enter a prompt (``retrieval.evidence``), is part of that
rule and is kept by ``--floor`` only. (Until issue 29's third round the rule held in both modes, so
the meaning rows of the ranking mode then were the ``--floor`` rows.) ``--json`` prints
``{ranker: {"overall@1", "overall@5", "topics": {topic: recall@5}}}`` in percent (a table shows
topics rounded to whole points).
``--baseline TREE`` first runs the same benchmark against the ``bestie_tui`` package of another
source tree (a ``git worktree`` of an older commit) and prints its scorer rows beside this tree's, so
a change is measured before and after in one run on one machine. Any PrefEval file of the same
layout can be given (the topics outside the shared data too: ``{topic: [items]}``).
``--semantic`` (needs the ``semantic`` extra) adds this tree's scorer rows searching by meaning as
well (``retrieval.meaning``) beside those by words alone; the vectors are cached under
``/tmp/bestie-semantic-cache``, so a rerun embeds nothing again.

Data: PrefEval explicit preferences (Zhao et al., ICLR 2025), CC BY-NC 4.0, read by path.
"""

from __future__ import annotations

import json
import sys
import tempfile
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_common import (  # noqa: E402
    RANKERS,
    CachedEmbedder,
    Doc,
    fts5_ranker,
    relevance_only,
    run_baseline,
    scorer_ranker,
    seed_store,
    table,
    use_meaning,
)

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "prefeval_dev.json"
NOW = datetime(2025, 1, 1)


def measure(path: str | None = None, floor: bool = False, semantic: bool = False) -> dict:
    """Recall of every ranker on the PrefEval file at ``path``: ``{ranker: {"overall@1": %, "overall@5": %,
    "topics": {topic: recall@5 %}}}``, and ``"items"``, the number of preferences. ``semantic``: the
    scorers search by meaning too (``retrieval.meaning``); otherwise by words alone."""
    data = json.loads(Path(path or DEFAULT_DATA).read_text(encoding="utf-8"))
    embedder = CachedEmbedder("prefeval-" + Path(path or DEFAULT_DATA).stem, gate=floor) if semantic else None
    items = [(topic, it["preference"], it["question"]) for topic, lst in data.items() for it in lst]
    docs = [Doc(pref, NOW) for _, pref, _ in items]
    hits: dict[str, dict[str, list[int]]] = {r: {} for r in RANKERS}
    with tempfile.TemporaryDirectory() as tmp:
        rankers = {}
        for variant in ("scorer", "relevance only"):
            store, ids = seed_store(Path(tmp) / f"{variant.replace(' ', '-')}.db", docs, NOW, floor)
            if variant == "relevance only":
                relevance_only(store)
            use_meaning(store, embedder)
            rankers[variant] = (scorer_ranker(store), ids, store)
        seq = list(range(1, len(docs) + 1))
        rankers["fts5 plain"] = (fts5_ranker([d.text for d in docs], seq, False), seq, None)
        rankers["fts5 porter+stop"] = (fts5_ranker([d.text for d in docs], seq, True), seq, None)
        for name, (rank, ids, _) in rankers.items():
            for (topic, _, question), target in zip(items, ids):
                top = rank(question, 5)
                row = hits[name].setdefault(topic, [0, 0, 0])
                row[0] += target in top[:1]
                row[1] += target in top[:5]
                row[2] += 1
        for _, _, store in rankers.values():
            if store is not None:
                store.close()
    if embedder is not None:
        embedder.save()
    out: dict = {"items": len(items), "semantic": semantic}
    for r in RANKERS:
        total = [sum(v[i] for v in hits[r].values()) for i in range(3)]
        out[r] = {"overall@1": round(100 * total[0] / total[2], 1), "overall@5": round(100 * total[1] / total[2], 1),
                  "topics": {t: round(100 * v[1] / v[2], 2) for t, v in sorted(hits[r].items())}}
    return out


def report(runs: dict[str, dict]) -> str:
    """One table: each run's scorer rows (labelled by run), then the FTS5 rows of the last run."""
    last = runs[list(runs)[-1]]
    topics = list(last["scorer"]["topics"])
    header = ["ranker", "overall @1", "overall @5"] + [f"{t} @5" for t in topics]
    rows = []
    for label, got in runs.items():
        for r in RANKERS[:2]:
            name = r if len(runs) == 1 else f"{r} ({label})"
            rows.append([name, f"{got[r]['overall@1']:.1f}", f"{got[r]['overall@5']:.1f}"]
                        + [f"{got[r]['topics'].get(t, 0):.0f}" for t in topics])
    for r in RANKERS[2:]:
        rows.append([r, f"{last[r]['overall@1']:.1f}", f"{last[r]['overall@5']:.1f}"]
                    + [f"{last[r]['topics'][t]:.0f}" for t in topics])
    return table(f"PrefEval: recall (%) of the item's own preference among {last['items']} preferences "
                 f"({len(topics)} topics)", header, rows)


def main(path: str | None = None, as_json: bool = False, baseline: str | None = None, floor: bool = False,
         semantic: bool = False) -> None:
    runs = {}
    if baseline:
        runs["baseline"] = run_baseline(Path(__file__), baseline,
                                        ["--json"] + (["--floor"] if floor else []) + ([path] if path else []))
    if semantic:
        runs["this tree, words"] = measure(path, floor)
    runs["this tree" + (", meaning" if semantic else "")] = measure(path, floor, semantic)
    if as_json:
        print(json.dumps(runs if baseline or semantic else runs["this tree"]))
    else:
        print(report(runs))


def cli() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("path", nargs="?", help="PrefEval file (default: ../shared/data/prefeval_dev.json)")
    parser.add_argument("--json", action="store_true", help="every ranker's recall as JSON")
    parser.add_argument("--baseline", metavar="TREE",
                        help="also run against the bestie_tui package of this source tree (e.g. a git worktree)")
    parser.add_argument("--floor", action="store_true",
                        help="keep the store's relevance floor (what a prompt gets) instead of ranking every record")
    parser.add_argument("--semantic", action="store_true",
                        help="also search by meaning (the semantic extra), beside this tree by words alone")
    args = parser.parse_args()
    main(args.path, args.json, args.baseline, args.floor, args.semantic)


if __name__ == "__main__":
    cli()
