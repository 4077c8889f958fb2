"""Fitting the topic share of word relevance (``retrieval.bm25.TOPIC_SHARE``, the lexicon of
``text.topics``) on shared data, with each figure reported on the half it was not fitted on.

Usage::

    .venv/bin/python benchmarks/retrieval_topics.py [--json] [--prefeval FILE] [--locomo FILE]

Words alone (no meaning). The halves are those of ``retrieval_fusion.py``: PrefEval topics in
alphabetical order, alternately (recall@5 of the item's own preference among all preferences), and
LoCoMo conversations, alternately (observations; share@10 of the evidence turns). For each share of
the grid the store's own index ranks every memory (``index.MemoryIndex.relevance`` with
``bm25.TOPIC_SHARE`` set to it): relevance alone, without the other score parts, the evidence rule or
the pack's conflicts; a pick is checked by the full benchmarks (``retrieval_prefeval.py``,
``retrieval_locomo.py``). For each half the share with the best mean of the two figures on that half
is picked and reported on the other half (two-fold cross-validation); the default it prints is the
smaller of the two picks (a share that the other half did not choose adds nothing to trust).

The lexicon itself was written from general knowledge of each part of life, not from these files.

Data: PrefEval (Zhao et al., ICLR 2025) and LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0, read by
path and never copied.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_common import Doc, seed_store  # noqa: E402
from retrieval_fusion import locomo_stores, pick_folds, two_fold_cli, two_fold_report  # noqa: E402
from retrieval_prefeval import NOW  # noqa: E402

GRID = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2)


def _ranked(store, ids, query: str, share: float):
    """Positions of ``ids`` by word relevance to ``query`` with the topic share ``share``, best first."""
    import numpy as np

    from bestie_tui.retrieval import bm25
    from bestie_tui.retrieval.index import get_index

    kept = bm25.TOPIC_SHARE
    bm25.TOPIC_SHARE = share
    try:
        rel = get_index(store).relevance(query, ids)
    finally:
        bm25.TOPIC_SHARE = kept
    return rel, np.argsort(-rel, kind="stable")


def prefeval(path: Path, workdir: Path) -> dict[float, list[list[bool]]]:
    """``{share: [hits of half 0, hits of half 1]}``: whether each request's own preference is in the top 5."""
    import numpy as np

    data = json.loads(path.read_text(encoding="utf-8"))
    topics = sorted(data)
    items = [(topics.index(t) % 2, it["preference"], it["question"]) for t in topics for it in data[t]]
    store, ids = seed_store(workdir / "prefeval.db", [Doc(p, NOW) for _, p, _ in items], NOW)
    ids = np.asarray(ids, dtype=np.int64)
    out: dict[float, list[list[bool]]] = {s: [[], []] for s in GRID}
    try:
        for n, (half, _, question) in enumerate(items):
            for s in GRID:
                rel, _ = _ranked(store, ids, question, s)
                out[s][half].append(bool((rel > rel[n]).sum() < 5))
    finally:
        store.close()
    return out


def locomo_observations(path: Path, workdir: Path) -> dict[float, list[list[float]]]:
    """``{share: [shares of half 0, shares of half 1]}``: per question, the share of its evidence turns
    that the top 10 observations cover."""
    out: dict[float, list[list[float]]] = {s: [[], []] for s in GRID}
    for half, store, ids, targets, questions in locomo_stores(path, workdir):
        for evidence, question in questions:
            for s in GRID:
                _, order = _ranked(store, ids, question, s)
                covered = set().union(*(targets[i] for i in order[:10]))
                out[s][half].append(len(evidence & covered) / len(evidence))
    return out


def measure(prefeval_path: Path, locomo_path: Path) -> dict:
    """Every share of ``GRID`` on each half, and each fold's pick with its held-out figures."""
    with tempfile.TemporaryDirectory() as tmp:
        pref = prefeval(prefeval_path, Path(tmp))
        loc = locomo_observations(locomo_path, Path(tmp))

    def pct(values: list) -> float:
        return round(100 * sum(values) / max(len(values), 1), 1)

    grid = {s: {"prefeval": [pct(pref[s][0]), pct(pref[s][1]), pct(pref[s][0] + pref[s][1])],
                "locomo": [pct(loc[s][0]), pct(loc[s][1]), pct(loc[s][0] + loc[s][1])]} for s in GRID}
    folds = pick_folds(grid)
    return {"grid": {str(s): v for s, v in grid.items()}, "folds": folds,
            "default": min(f["share"] for f in folds),
            "requests": {"prefeval": len(pref[GRID[0]][0]) + len(pref[GRID[0]][1]),
                         "locomo": len(loc[GRID[0]][0]) + len(loc[GRID[0]][1])}}


def report(got: dict) -> str:
    return two_fold_report(got, "Word relevance with the topic share t", "t",
                           f"Default: the smaller of the two folds' picks, {got['default']} (bm25.TOPIC_SHARE)")


if __name__ == "__main__":
    two_fold_cli(__doc__, measure, report)
