"""Retrieval quality on LoCoMo: this project's scorer beside SQLite FTS5 bm25.

Usage::

    .venv/bin/python benchmarks/retrieval_locomo.py [../shared/data/locomo_dev.json]

Per conversation, a fresh real store holds either every dialog turn (``"Speaker: text"``, with a
shared photo's caption, dated by its session) or every per-session observation, as approved memories
of one user. Each QA item of categories 1–4 with evidence is a query; its evidence turns are the
targets (an observation hits the evidence turns it cites). For k = 5, 10, 25 it prints recall as the
share of evidence turns found and as "any evidence turn found", by category and overall, for:

* ``scorer`` — ``build_context`` with the default weights (what a prompt gets);
* ``relevance only`` — the same with every weight but relevance set to 0;
* ``fts5 plain`` — FTS5 (unicode61) bm25, query words joined by OR;
* ``fts5 porter+stop`` — FTS5 with the porter tokenizer, English stop words dropped from the query.

Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0, read by path and never copied.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo  # noqa: E402  (benchmarks/locomo.py: the shared LoCoMo parsing)
from retrieval_common import (  # noqa: E402
    RANKERS,
    Doc,
    fts5_ranker,
    relevance_only,
    scorer_ranker,
    seed_store,
    table,
)

KS = (5, 10, 25)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"


def corpora(conv, kind: str) -> list[tuple[Doc, set[str]]]:
    dated = locomo.sessions(conv)
    if kind == "turns":
        return [(Doc(f"{t.speaker}: {t.text}", t.at), {t.dia_id}) for s in dated for t in s.turns]
    return [(Doc(o.text, o.session.at), set(o.dia_ids)) for o in locomo.observations(conv, dated)]


def evaluate(conversations, kind: str, workdir: Path) -> dict:
    """``{ranker: {category: {k: [share sum, any sum, n]}}}`` over every conversation."""
    sums = {r: defaultdict(lambda: {k: [0.0, 0.0, 0] for k in KS}) for r in RANKERS}
    for conv in conversations:
        docs = corpora(conv, kind)
        now = max(d.at for d, _ in docs) + timedelta(days=1)
        for variant in ("scorer", "relevance only"):
            store, ids = seed_store(workdir / f"{conv['sample_id']}-{kind}-{variant}.db", [d for d, _ in docs], now)
            if variant == "relevance only":
                relevance_only(store)
            _score(sums[variant], scorer_ranker(store), conv, docs, ids)
            store.close()
        ids = list(range(1, len(docs) + 1))
        for name, porter in (("fts5 plain", False), ("fts5 porter+stop", True)):
            _score(sums[name], fts5_ranker([d.text for d, _ in docs], ids, porter), conv, docs, ids)
    return sums


def _score(sums, rank, conv, docs, ids) -> None:
    targets = dict(zip(ids, (t for _, t in docs)))
    for qa in locomo.qa_items(conv):
        if qa.category not in CATEGORIES or not qa.evidence:
            continue
        evidence = set(qa.evidence)
        top = rank(qa.question, max(KS))
        for k in KS:
            covered = set().union(*(targets[i] for i in top[:k])) if top else set()
            found = len(evidence & covered)
            for cat in (qa.category, 0):
                cell = sums[cat][k]
                cell[0] += found / len(evidence)
                cell[1] += 1.0 if found else 0.0
                cell[2] += 1


def report(kind: str, sums: dict, seconds: float) -> str:
    lines = []
    for metric, idx in (("share of evidence turns found", 0), ("any evidence turn found", 1)):
        header = ["ranker"] + [f"{CATEGORIES.get(c, 'overall')} @{k}" for c in (1, 2, 3, 4) for k in (10,)] + \
                 [f"overall @{k}" for k in KS]
        rows = []
        for r in RANKERS:
            cats = sums[r]
            row = [r] + [f"{100 * cats[c][10][idx] / max(cats[c][10][2], 1):.1f}" for c in (1, 2, 3, 4)]
            row += [f"{100 * cats[0][k][idx] / max(cats[0][k][2], 1):.1f}" for k in KS]
            rows.append(row)
        n = sums[RANKERS[0]][0][KS[0]][2]
        lines.append(table(f"LoCoMo {kind}: recall (%), {metric}; {n} questions (categories 1–4)", header, rows))
    lines.append(f"\n({kind}: {seconds:.0f} s wall clock, shared 2-core machine)")
    return "\n".join(lines)


def main(path: str | None = None) -> None:
    conversations = locomo.load_conversations(path or DEFAULT_DATA)
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("turns", "observations"):
            started = time.perf_counter()
            sums = evaluate(conversations, kind, Path(tmp))
            print(report(kind, sums, time.perf_counter() - started), flush=True)


def cli() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("path", nargs="?", help="LoCoMo file (default: ../shared/data/locomo_dev.json)")
    main(parser.parse_args().path)


if __name__ == "__main__":
    cli()
