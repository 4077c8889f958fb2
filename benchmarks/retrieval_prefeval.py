"""Retrieval quality on PrefEval: does the scorer surface the stated preference behind a request?

Usage::

    .venv/bin/python benchmarks/retrieval_prefeval.py [../shared/data/prefeval_dev.json]

Every item's ``preference`` is an approved memory of one user in one real store; every item's
``question`` is a query; the target is that item's own preference. Prints recall@1 and @5 per topic
and overall for the scorer (``build_context``, default weights), TF-IDF alone, and FTS5 bm25 (plain,
and porter + stop words). Few words are shared between a request and the preference behind it, so a
lexical scorer is expected to do poorly here; the figures are reported as they come.

Data: PrefEval explicit preferences (Zhao et al., ICLR 2025), CC BY-NC 4.0, read by path.
"""

from __future__ import annotations

import json
import sys
import tempfile
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_common import RANKERS, Doc, fts5_ranker, relevance_only, scorer_ranker, seed_store, table  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "prefeval_dev.json"
NOW = datetime(2025, 1, 1)


def main(path: str | None = None) -> None:
    data = json.loads(Path(path or DEFAULT_DATA).read_text(encoding="utf-8"))
    items = [(topic, it["preference"], it["question"]) for topic, lst in data.items() for it in lst]
    docs = [Doc(pref, NOW) for _, pref, _ in items]
    hits = {r: {} for r in RANKERS}
    with tempfile.TemporaryDirectory() as tmp:
        rankers = {}
        for variant in ("scorer", "relevance only"):
            store, ids = seed_store(Path(tmp) / f"{variant.replace(' ', '-')}.db", docs, NOW)
            if variant == "relevance only":
                relevance_only(store)
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
    topics = sorted({t for t, _, _ in items})
    header = ["ranker", "overall @1", "overall @5"] + [f"{t} @5" for t in topics]
    rows = []
    for r in RANKERS:
        total = [sum(v[i] for v in hits[r].values()) for i in range(3)]
        rows.append([r, f"{100 * total[0] / total[2]:.1f}", f"{100 * total[1] / total[2]:.1f}"]
                    + [f"{100 * hits[r][t][1] / hits[r][t][2]:.0f}" for t in topics])
    print(table(f"PrefEval: recall (%) of the item's own preference among {len(items)} preferences "
                f"({len(topics)} topics)", header, rows))


def cli() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("path", nargs="?", help="PrefEval file (default: ../shared/data/prefeval_dev.json)")
    main(parser.parse_args().path)


if __name__ == "__main__":
    cli()
