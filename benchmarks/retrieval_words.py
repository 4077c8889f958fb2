"""Fitting the word relevance's BM25 constants (``retrieval.bm25``: ``WORD_SHARE``, ``K1``, ``B``) on
shared data, with each figure reported on the half it was not fitted on.

Usage::

    .venv/bin/python benchmarks/retrieval_words.py [--json] [--prefeval FILE] [--locomo FILE]

Words alone (no meaning). The halves are those of ``retrieval_fusion.py``: PrefEval topics in
alphabetical order, alternately (recall@5 of the item's own preference among all preferences), and
LoCoMo conversations, alternately (observations; share@10 of the evidence turns). Per request the
word part and the character part of relevance (``index.MemoryIndex.lookup`` with ``WORD_SHARE`` 1,
then 0, both in [0, 1]) are read once per (``K1``, ``B``), then ranked by
``s · word + (1 − s) · char`` for each share ``s`` of the grid: relevance alone, without the other
score parts, the evidence rule or the pack's conflicts, so the fit is fast; a pick is checked by
the full benchmarks (``retrieval_prefeval.py``, ``retrieval_locomo.py``). For each half the setting
with the best mean of the two figures on that half is picked and reported on the other half
(two-fold cross-validation); the character constants are left as they are.

Data: PrefEval (Zhao et al., ICLR 2025) and LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0, read by
path and never copied.
"""

from __future__ import annotations

import itertools
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_common import Doc, seed_store, table  # noqa: E402
from retrieval_fusion import locomo_share, locomo_stores, prefeval_recall, two_fold_cli  # noqa: E402
from retrieval_prefeval import NOW  # noqa: E402

SHARES = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
K1S = (0.6, 0.9, 1.2)
BS = (0.2, 0.4, 0.75)


def _parts_of(store, query: str, ids) -> tuple:
    """``({(k1, b): word part}, char part)`` of every memory ``ids`` for ``query`` (aligned arrays)."""
    from dataclasses import replace

    from bestie_tui.retrieval.index import get_index

    index = get_index(store)
    index.ensure_fresh()
    word, char = index._parts  # the store's own counts; only the constants change
    out = {}
    for k1, b in itertools.product(K1S, BS):
        index._parts = (replace(word, k1=k1, b=b, share=1.0), replace(char, share=0.0))
        out[(k1, b)] = index.lookup(query, ids, k=0)[0]
    index._parts = (replace(word, share=0.0), replace(char, share=1.0))
    chars = index.lookup(query, ids, k=0)[0]
    index._parts = (word, char)
    return out, chars


def gather_prefeval(path: Path, workdir: Path) -> list:
    """``(half, target position, words by (k1, b), chars)`` per PrefEval request."""
    import numpy as np

    data = json.loads(path.read_text(encoding="utf-8"))
    topics = sorted(data)
    items = [(topics.index(t) % 2, it["preference"], it["question"]) for t in topics for it in data[t]]
    store, ids = seed_store(workdir / "prefeval.db", [Doc(p, NOW) for _, p, _ in items], NOW)
    store.set_setting("semantic.model", "off")
    ids = np.asarray(ids, dtype=np.int64)
    out = [(half, n, *_parts_of(store, question, ids)) for n, (half, _, question) in enumerate(items)]
    store.close()
    return out


def gather_locomo(path: Path, workdir: Path) -> list:
    """``(half, evidence, targets of each memory, words by (k1, b), chars)`` per LoCoMo question."""
    out = []
    for half, store, ids, targets, questions in locomo_stores(path, workdir):
        store.set_setting("semantic.model", "off")
        out += [(half, evidence, targets, *_parts_of(store, question, ids)) for evidence, question in questions]
    return out


def _as_fusion(rows, k1: float, b: float, share: float) -> list:
    """The rows in ``retrieval_fusion``'s shape, with the relevance as its "words" and share 0."""
    return [(*r[:-2], share * r[-2][(k1, b)] + (1 - share) * r[-1], None) for r in rows]


def measure(prefeval: Path, locomo_path: Path) -> dict:
    """Every (share, k1, b) on each half, and each fold's pick with its held-out figures."""
    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        pref = gather_prefeval(prefeval, Path(tmp))
        loc = gather_locomo(locomo_path, Path(tmp))
    zero = np.zeros(1)
    grid = {}
    for share, k1, b in itertools.product(SHARES, K1S, BS):
        p = [(h, n, rel, zero) for h, n, rel, _ in _as_fusion(pref, k1, b, share)]
        lc = [(h, e, t, rel, zero) for h, e, t, rel, _ in _as_fusion(loc, k1, b, share)]
        grid[(share, k1, b)] = {"prefeval": [round(prefeval_recall(p, 0.0, h), 1) for h in (0, 1, None)],
                                "locomo": [round(locomo_share(lc, 0.0, h), 1) for h in (0, 1, None)]}
    folds = []
    for fit in (0, 1):
        best = max(grid, key=lambda key: (grid[key]["prefeval"][fit] + grid[key]["locomo"][fit],
                                          key == (0.5, 0.6, 0.2)))  # a tie keeps today's constants
        held = 1 - fit
        folds.append({"fitted on half": fit, "share": best[0], "k1": best[1], "b": best[2],
                      "prefeval@5 held out": grid[best]["prefeval"][held], "locomo@10 held out": grid[best]["locomo"][held],
                      "today prefeval@5 held out": grid[(0.5, 0.6, 0.2)]["prefeval"][held],
                      "today locomo@10 held out": grid[(0.5, 0.6, 0.2)]["locomo"][held]})
    return {"grid": {"/".join(map(str, k)): v for k, v in grid.items()}, "folds": folds,
            "requests": {"prefeval": len(pref), "locomo": len(loc)}}


def report(got: dict) -> str:
    rows = [[k, *map(str, v["prefeval"]), *map(str, v["locomo"])] for k, v in got["grid"].items()]
    out = [table(f"Relevance alone by words, s · word + (1 − s) · char: PrefEval recall@5 ({got['requests']['prefeval']} "
                 f"requests) and LoCoMo observations share@10 ({got['requests']['locomo']} questions), per half",
                 ["s / k1 / b", "PrefEval half 0", "PrefEval half 1", "PrefEval all", "LoCoMo half 0",
                  "LoCoMo half 1", "LoCoMo all"], rows)]
    out.append(table("Two-fold: the setting picked on one half (best mean of the two figures there), reported on the "
                     "other beside today's (0.5 / 0.6 / 0.2) on that half",
                     ["fitted on", "s", "k1", "b", "PrefEval @5 held out", "today", "LoCoMo @10 held out", "today"],
                     [[f"half {f['fitted on half']}", str(f["share"]), str(f["k1"]), str(f["b"]),
                       str(f["prefeval@5 held out"]), str(f["today prefeval@5 held out"]),
                       str(f["locomo@10 held out"]), str(f["today locomo@10 held out"])] for f in got["folds"]]))
    return "\n".join(out)


if __name__ == "__main__":
    two_fold_cli(__doc__, measure, report)
