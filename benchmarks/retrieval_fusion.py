"""Fitting the share of meaning in the fused relevance (``score.meaningShare``) on shared data, with
each figure reported on the half it was not fitted on.

Usage::

    .venv/bin/python benchmarks/retrieval_fusion.py [--json] [--prefeval FILE] [--locomo FILE]

Needs the ``semantic`` extra. Two corpora, each split in two halves that never mix:

* PrefEval (``retrieval_prefeval.py``): one store of every preference; a request's target is its own
  preference (recall@5). Halves: the topics in alphabetical order, alternately.
* LoCoMo observations (``retrieval_locomo.py``): one store per conversation; a question's targets
  are its evidence turns (share of them found in the top 10). Halves: the conversations, alternately.

Per request, the word relevance and the meaning of every memory (``retrieval.meaning.fuse``: the
store's own index, the model's vectors, cached under ``/tmp/bestie-semantic-cache``) are read once,
then ranked by ``(1 − s) · words + s · meaning`` for each share ``s`` of the grid: relevance alone,
without the other score parts and signals, so the fit is fast; a chosen share is checked by the full
benchmarks. For each half, the share with the best mean of the two figures *on that half* is picked
and its figures are reported *on the other half* (two-fold cross-validation); the default it prints
is the mean of the two picks (rounded to 0.1), never the best of the held-out figures.

Data: PrefEval (Zhao et al., ICLR 2025) and LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0, read by
path and never copied.
"""

from __future__ import annotations

import json
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo  # noqa: E402
from retrieval_common import CachedEmbedder, Doc, seed_store, table, use_meaning  # noqa: E402
from retrieval_locomo import CATEGORIES, corpora  # noqa: E402
from retrieval_locomo import DEFAULT_DATA as LOCOMO_DATA  # noqa: E402
from retrieval_prefeval import DEFAULT_DATA as PREFEVAL_DATA  # noqa: E402
from retrieval_prefeval import NOW  # noqa: E402

GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _parts(store, query: str, ids) -> tuple:
    """``(words, meaning)`` of every memory ``ids`` for ``query`` (aligned numpy arrays)."""
    from bestie_tui.retrieval import meaning
    from bestie_tui.retrieval.index import get_index
    from bestie_tui.retrieval.scoring import settings_snapshot

    index = get_index(store)
    words, _ = index.lookup(query, ids, k=0)
    fused = meaning.fuse(store, query, ids, words, settings_snapshot(store), index.generation())
    if fused is None:
        raise SystemExit("meaning is off: " + "; ".join(meaning.take_notes()))
    return fused.words, fused.meaning


def gather_prefeval(path: Path, workdir: Path) -> list[tuple[int, int, object, object]]:
    """``(half, target position, words, meaning)`` per PrefEval request."""
    import numpy as np

    data = json.loads(path.read_text(encoding="utf-8"))
    topics = sorted(data)
    items = [(topics.index(t) % 2, it["preference"], it["question"]) for t in topics for it in data[t]]
    embedder = CachedEmbedder("prefeval-" + path.stem)
    store, ids = seed_store(workdir / "prefeval.db", [Doc(p, NOW) for _, p, _ in items], NOW)
    use_meaning(store, embedder)
    ids = np.asarray(ids, dtype=np.int64)
    out = [(half, n, *_parts(store, question, ids)) for n, (half, _, question) in enumerate(items)]
    store.close()
    embedder.save()
    return out


def locomo_stores(path: Path, workdir: Path):
    """Per LoCoMo conversation of the file at ``path``: ``(half, store, ids, targets, questions)`` — a real
    store of its observations (``seed_store``, closed when the caller moves on), their ids (int64 numpy
    array), the evidence turns each observation was drawn from, and ``(evidence, question)`` of each
    question of the benchmark's categories. Halves: the conversations, alternately."""
    import numpy as np

    for n, conv in enumerate(locomo.load_conversations(path)):
        docs = corpora(conv, "observations")
        now = max(d.at for d, _ in docs) + timedelta(days=1)
        store, ids = seed_store(workdir / f"{conv['sample_id']}.db", [d for d, _ in docs], now)
        questions = [(set(qa.evidence), qa.question) for qa in locomo.qa_items(conv)
                     if qa.category in CATEGORIES and qa.evidence]
        try:
            yield n % 2, store, np.asarray(ids, dtype=np.int64), [t for _, t in docs], questions
        finally:
            store.close()


def gather_locomo(path: Path, workdir: Path) -> list[tuple[int, set[str], list[set[str]], object, object]]:
    """``(half, evidence, targets of each memory, words, meaning)`` per LoCoMo question (observations)."""
    embedder = CachedEmbedder("locomo-" + path.stem)
    out = []
    for half, store, ids, targets, questions in locomo_stores(path, workdir):
        use_meaning(store, embedder)
        out += [(half, evidence, targets, *_parts(store, question, ids)) for evidence, question in questions]
    embedder.save()
    return out


def _top(words, meaning, share: float, k: int):
    import numpy as np

    fused = (1.0 - share) * words + share * meaning
    return np.argsort(-fused, kind="stable")[:k]


def prefeval_recall(rows, share: float, half: int | None) -> float:
    """Recall@5 (%) of the requests of ``half`` (``None``: all)."""
    got = [n in _top(w, m, share, 5) for h, n, w, m in rows if half is None or h == half]
    return 100 * sum(got) / max(len(got), 1)


def locomo_share(rows, share: float, half: int | None) -> float:
    """Share@10 (%) of evidence turns found, over the questions of ``half`` (``None``: all)."""
    found = []
    for h, evidence, targets, w, m in rows:
        if half is None or h == half:
            covered = set().union(*(targets[i] for i in _top(w, m, share, 10)))
            found.append(len(evidence & covered) / len(evidence))
    return 100 * sum(found) / max(len(found), 1)


def measure(prefeval: Path, locomo_path: Path) -> dict:
    """Every share of ``GRID`` on each half, and each fold's pick with its held-out figures."""
    with tempfile.TemporaryDirectory() as tmp:
        pref = gather_prefeval(prefeval, Path(tmp))
        loc = gather_locomo(locomo_path, Path(tmp))
    grid = {s: {"prefeval": [round(prefeval_recall(pref, s, h), 1) for h in (0, 1, None)],
                "locomo": [round(locomo_share(loc, s, h), 1) for h in (0, 1, None)]} for s in GRID}
    folds = pick_folds(grid)
    default = round(sum(f["share"] for f in folds) / len(folds), 1)
    return {"grid": {str(s): v for s, v in grid.items()}, "folds": folds, "default": default,
            "requests": {"prefeval": len(pref), "locomo": len(loc)}}


def pick_folds(grid: dict) -> list[dict]:
    """For each half, the setting of ``grid`` (``{setting: {"prefeval": [half 0, half 1, all], "locomo":
    [...]}}``) with the best sum of the two figures on that half (ties: the smaller setting), and its
    figures on the other half."""
    folds = []
    for fit in (0, 1):
        best = max(grid, key=lambda s: (grid[s]["prefeval"][fit] + grid[s]["locomo"][fit], -s))
        held = 1 - fit
        folds.append({"fitted on half": fit, "share": best, "prefeval@5 held out": grid[best]["prefeval"][held],
                      "locomo@10 held out": grid[best]["locomo"][held]})
    return folds


def two_fold_report(got: dict, title: str, symbol: str, default: str) -> str:
    """The grid per half and the two folds of a two-fold fit (``measure``'s result) as tables, then
    the line ``default``."""
    rows = [[s, *map(str, v["prefeval"]), *map(str, v["locomo"])] for s, v in got["grid"].items()]
    out = [table(f"{title}: PrefEval recall@5 ({got['requests']['prefeval']} requests) and LoCoMo observations "
                 f"share@10 ({got['requests']['locomo']} questions), per half",
                 [symbol, "PrefEval half 0", "PrefEval half 1", "PrefEval all", "LoCoMo half 0", "LoCoMo half 1",
                  "LoCoMo all"], rows)]
    out.append(table("Two-fold: the share picked on one half (best mean of the two figures there), reported on the other",
                     ["fitted on", "share", "PrefEval @5 held out", "LoCoMo @10 held out"],
                     [[f"half {f['fitted on half']}", str(f["share"]), str(f["prefeval@5 held out"]),
                       str(f["locomo@10 held out"])] for f in got["folds"]]))
    out.append("\n" + default)
    return "\n".join(out)


def report(got: dict) -> str:
    return two_fold_report(got, "Fused relevance alone, (1 − s) · words + s · meaning", "s",
                           f"Default: the mean of the two folds' picks, {got['default']} (score.meaningShare)")


def two_fold_cli(doc: str | None, measure, report) -> None:
    """The command line of a two-fold fit on the shared data: ``--json``, ``--prefeval``, ``--locomo``;
    ``measure(prefeval_path, locomo_path) -> dict`` and ``report(dict) -> str`` (also used by
    ``retrieval_words.py``)."""
    import argparse

    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="the grid and the folds as JSON")
    parser.add_argument("--prefeval", type=Path, default=PREFEVAL_DATA, help="PrefEval file")
    parser.add_argument("--locomo", type=Path, default=LOCOMO_DATA, help="LoCoMo file")
    args = parser.parse_args()
    got = measure(args.prefeval, args.locomo)
    print(json.dumps(got) if args.json else report(got))


if __name__ == "__main__":
    two_fold_cli(__doc__, measure, report)
