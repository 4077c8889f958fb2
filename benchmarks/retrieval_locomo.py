"""Retrieval quality on LoCoMo: this project's scorer beside SQLite FTS5 bm25.

Usage::

    .venv/bin/python benchmarks/retrieval_locomo.py [--semantic] [../shared/data/locomo_dev.json]

Per conversation, a fresh real store holds either every dialog turn (``"Speaker: text"``, with a
shared photo's caption, dated by its session) or every per-session observation, as approved memories
of one user; and a third store holds the turns as *chat messages* of that user (session
``conv-26:session_1``, channel ``locomo:conv-26``, dated as ``benchmarks/locomo.py`` converts them),
ranked by history recall (``retrieval.recall``). Each QA item of categories 1–4 with evidence is a query; its evidence turns are the
targets (an observation hits the evidence turns it cites). For k = 5, 10, 25 it prints recall as the
share of evidence turns found and as "any evidence turn found", by category and overall, for:

* ``recall`` (turns only) — ``recall(store, question, user)`` over the messages, ``recall.*`` settings;
* ``scorer`` — ``build_context`` with the default weights (what a prompt gets);
* ``relevance only`` — the same with every weight but relevance set to 0;
* ``fts5 plain`` — FTS5 (unicode61) bm25, query words joined by OR;
* ``fts5 porter+stop`` — FTS5 with the porter tokenizer, English stop words dropped from the query.

``--json`` prints ``{"turns": {"share@5", "share@10", "share@25"}, "observations": {…}}`` for this
project's ranker (``recall`` for turns, ``scorer`` for observations), in percent, and ``"rankers":
{kind: {ranker: {…}}}`` with every ranker's shares.

``--baseline TREE`` first runs the same benchmark against the ``bestie_tui`` package of another source
tree (a ``git worktree`` of an older commit) and prints the share of evidence turns found by the
scorer, relevance alone and recall of both runs side by side (FTS5 does not change between them).
``--floor`` keeps the stores' default relevance floor and evidence rule (what a prompt gets) instead
of letting every memory be ranked.

``--semantic`` (needs the ``semantic`` extra) lets the scorer search by meaning too
(``retrieval.meaning``); without it the stores search by words alone. Without ``--floor`` meaning
ranks every memory (the model's ``related`` cosine, which lets a memory without a shared word into a
prompt, belongs to the evidence rule that ``--floor`` keeps). The vectors are cached under
``/tmp/bestie-semantic-cache``, so a rerun embeds nothing again. History recall (``recall``) reads
words only either way.

``--kind turns|observations`` and ``--conversations N`` narrow a run while iterating;
``--tune-memories`` searches the memory signals (``score.neighbour``, ``score.person``,
``score.timeQuestion``: ``retrieval.signals``) the same way, for the scorer.

``--tune`` searches the ``recall.*`` weights on the given file (the 7 shared conversations only:
never tune on held-out data) over a small grid, one knob at a time around the defaults, and prints
turns share@10 (and @5) of each setting tried.

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
    CachedEmbedder,
    Doc,
    fts5_ranker,
    recall_ranker,
    relevance_only,
    run_baseline,
    scorer_ranker,
    seed_messages,
    seed_store,
    table,
    use_meaning,
)

KS = (5, 10, 25)
KINDS = ("turns", "observations")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"


def corpora(conv, kind: str) -> list[tuple[Doc, set[str]]]:
    """The conversation's memories with the turn ids each rests on. Each carries what a memory
    proposed from a conversation carries: its source session and, in session order, its creation time
    (an observation: its session's time plus its position, in seconds); an observation is about the
    speaker LoCoMo files it under (``about``, as ``bestie memory add --about`` binds one)."""
    dated = locomo.sessions(conv)
    if kind == "turns":
        return [(Doc(f"{t.speaker}: {t.text}", t.at, session=s.key), {t.dia_id}) for s in dated for t in s.turns]
    seen: dict[str, int] = defaultdict(int)
    out = []
    for o in locomo.observations(conv, dated):
        at = o.session.at + timedelta(seconds=seen[o.session.key])
        seen[o.session.key] += 1
        out.append((Doc(o.text, at, session=o.session.key, about=o.speaker), set(o.dia_ids)))
    return out


def rankers(kind: str) -> tuple[str, ...]:
    return (("recall",) if kind == "turns" else ()) + RANKERS


def message_store(conv, workdir: Path):
    """The conversation's turns as chat messages of ``owner``: ``(store, ids, targets)``."""
    turns = [(f"{t.speaker}: {t.text}", t.at, s.key, f"locomo:{conv['sample_id']}", t.dia_id)
             for s in locomo.sessions(conv) for t in s.turns]
    now = max(t[1] for t in turns) + timedelta(days=1)
    store, ids = seed_messages(workdir / f"{conv['sample_id']}-messages.db", [t[:4] for t in turns], now)
    return store, ids, [(None, {t[4]}) for t in turns]


def evaluate(conversations, kind: str, workdir: Path, floor: bool = False, embedder=None) -> dict:
    """``{ranker: {category: {k: [share sum, any sum, n]}}}`` over every conversation; ``embedder``
    (a ``CachedEmbedder``): the scorers search by meaning too."""
    sums = {r: defaultdict(lambda: {k: [0.0, 0.0, 0] for k in KS}) for r in rankers(kind)}
    for conv in conversations:
        docs = corpora(conv, kind)
        if kind == "turns":
            store, ids, targets = message_store(conv, workdir)
            _score(sums["recall"], recall_ranker(store, channel=f"locomo:{conv['sample_id']}"), conv, targets, ids)
            store.close()
        now = max(d.at for d, _ in docs) + timedelta(days=1)
        for variant in ("scorer", "relevance only"):
            store, ids = seed_store(workdir / f"{conv['sample_id']}-{kind}-{variant}.db", [d for d, _ in docs], now,
                                    floor)
            if variant == "relevance only":
                relevance_only(store)
            use_meaning(store, embedder)
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
        for r in sums:
            cats = sums[r]
            row = [r] + [f"{100 * cats[c][10][idx] / max(cats[c][10][2], 1):.1f}" for c in (1, 2, 3, 4)]
            row += [f"{100 * cats[0][k][idx] / max(cats[0][k][2], 1):.1f}" for k in KS]
            rows.append(row)
        n = sums["scorer"][0][KS[0]][2]
        lines.append(table(f"LoCoMo {kind}: recall (%), {metric}; {n} questions (categories 1–4)", header, rows))
    lines.append(f"\n({kind}: {seconds:.0f} s wall clock, shared 2-core machine)")
    return "\n".join(lines)


def shares(cells: dict) -> dict[str, float]:
    """``{"share@5": …, …}`` in percent from one ranker's overall cells."""
    return {f"share@{k}": round(100 * cells[0][k][0] / max(cells[0][k][2], 1), 1) for k in KS}


#: The ``recall.*`` grid of ``--tune``, and the finer one around the defaults of ``--tune --fine``.
RECALL_GRID = {"neighbour": (0.5, 0.75, 1.0, 1.5, 2.0), "person": (0.0, 0.5, 1.0, 1.5, 2.5),
               "time": (0.0, 0.25, 0.5, 0.8, 1.2), "recency": (0.0, 0.02)}
RECALL_GRID_FINE = {"neighbour": (0.75, 0.9, 1.0, 1.1, 1.25), "person": (0.75, 1.0, 1.25, 1.5),
                    "time": (0.3, 0.4, 0.5, 0.6, 0.7), "recency": (0.0, 0.01, 0.02)}


def tune(conversations, workdir: Path, fine: bool = False) -> None:
    """A grid over the ``recall.*`` weights on the given conversations only: each question's candidates
    are gathered once (``recall.candidates``) and re-ranked per setting (``retrieval.recall.rank``)."""
    import itertools
    from dataclasses import replace

    from bestie_tui.retrieval.recall import Knobs, candidates, rank

    questions = []  # (category, evidence, candidates, targets by message id)
    for conv in conversations:
        store, ids, targets = message_store(conv, workdir)
        base = Knobs.of(store)
        by_id = dict(zip(ids, (t for _, t in targets)))
        for qa in locomo.qa_items(conv):
            if qa.category in CATEGORIES and qa.evidence:
                found = candidates(store, qa.question, "owner", channel=f"locomo:{conv['sample_id']}", session=None,
                                   role=None, limit=max(KS), exclude=(), governance="governed", knobs=base, dense=None)
                questions.append((qa.category, set(qa.evidence), found, by_id, qa.question))
        store.close()
    grid = RECALL_GRID_FINE if fine else RECALL_GRID
    rows = []
    for values in itertools.product(*grid.values()):
        knobs = replace(base, **dict(zip(grid, values)))
        sums = defaultdict(lambda: {k: [0.0, 0.0, 0] for k in KS})
        for category, evidence, found, by_id, question in questions:
            top = [c.id for _, _, c in rank(found, knobs, max(KS), question)]
            for k in KS:
                got = len(evidence & set().union(*(by_id[i] for i in top[:k]))) if top else 0
                for cat in (category, 0):
                    sums[cat][k][0] += got / len(evidence)
                    sums[cat][k][2] += 1
        got = shares(sums)
        rows.append([*map(str, values), f"{got['share@5']:.1f}", f"{got['share@10']:.1f}", f"{got['share@25']:.1f}"])
    rows.sort(key=lambda r: (-float(r[-2]), -float(r[-3])))
    print(table(f"recall weights on {len(questions)} questions, best share@10 first (top 15)",
                [*grid, "@5", "@10", "@25"], rows[:15]))


#: The memory signals' grid (``retrieval.signals``): ``score.neighbour``, ``score.person``, ``score.timeQuestion``.
MEMORY_GRID = {"neighbour": (0.0, 0.25, 0.375, 0.5, 0.75, 1.0), "person": (0.0, 0.5, 1.0, 1.5, 2.0, 3.0),
               "timeQuestion": (0.0, 0.25, 0.5, 1.0)}


def tune_memories(conversations, workdir: Path, kinds: tuple[str, ...]) -> None:
    """A grid over the memory signals on the given conversations only. Each question's pack is built
    once with every signal on (the candidates are then the same for any positive ``score.neighbour``:
    the best by relevance and their session neighbours) and re-ranked per setting from its score parts:
    ``total = (relevance + ν · neighbour) · gate · (1 + π · person) · (1 + τ · time)``. Near-duplicate
    removal is not redone per setting, so a chosen setting is checked by a full run."""
    import itertools

    from bestie_tui.retrieval.assembly import build_context

    for kind in kinds:
        questions = []  # (evidence, [(id, relevance, neighbour, gate, person, time)], targets by memory id)
        for conv in conversations:
            docs = corpora(conv, kind)
            now = max(d.at for d, _ in docs) + timedelta(days=1)
            store, ids = seed_store(workdir / f"{conv['sample_id']}-{kind}-tune.db", [d for d, _ in docs], now)
            for key in ("score.neighbour", "score.person", "score.timeQuestion"):
                store.set_setting(key, 1.0)
            by_id = dict(zip(ids, (t for _, t in docs)))
            for qa in locomo.qa_items(conv):
                if qa.category not in CATEGORIES or not qa.evidence:
                    continue
                pack = build_context(store, qa.question, "owner", token_budget=10**9, record_access=False)
                rows = []
                for item in pack.working:
                    p = item.score
                    lifted = p.relevance + p.neighbour
                    gate = p.total / (lifted * (1 + p.person) * (1 + p.time)) if lifted > 0 else 0.0
                    rows.append((item.record.id, p.relevance, p.neighbour, gate, p.person, p.time))
                questions.append((set(qa.evidence), rows, by_id))
            store.close()
        out = []
        for values in itertools.product(*MEMORY_GRID.values()):
            nu, pi, tau = values
            sums = {k: 0.0 for k in KS}
            for evidence, rows, by_id in questions:
                ranked = sorted(rows, key=lambda r: (-round((r[1] + nu * r[2]) * r[3] * (1 + pi * r[4])
                                                             * (1 + tau * r[5]), 9), r[0]))
                top = [r[0] for r in ranked]
                for k in KS:
                    sums[k] += len(evidence & set().union(*(by_id[i] for i in top[:k]))) / len(evidence) if top else 0
            out.append([*map(str, values)] + [f"{100 * sums[k] / len(questions):.1f}" for k in KS])
        out.sort(key=lambda r: (-float(r[-2]), -float(r[-3])))
        print(table(f"memory signals on LoCoMo {kind}, {len(questions)} questions, best share@10 first (top 15)",
                    [*MEMORY_GRID, "@5", "@10", "@25"], out[:15]))
        print(table("one knob at a time (the others 0)", [*MEMORY_GRID, "@5", "@10", "@25"],
                    [r for r in out if sum(float(v) > 0 for v in r[:3]) <= 1]), flush=True)


def main(path: str | None = None, as_json: bool = False, tuning: bool = False, kinds: tuple[str, ...] = KINDS,
         conversations_wanted: int | None = None, tuning_memories: bool = False, fine: bool = False,
         baseline: str | None = None, floor: bool = False, semantic: bool = False) -> None:
    import json

    conversations = locomo.load_conversations(path or DEFAULT_DATA)[:conversations_wanted]
    out: dict = {"rankers": {}}
    before = None
    if baseline:
        args = ["--json", "--kind", kinds[0] if len(kinds) == 1 else "both"] + (["--floor"] if floor else []) + (
            ["--conversations", str(conversations_wanted)] if conversations_wanted else []) + ([path] if path else [])
        before = run_baseline(Path(__file__), baseline, args)
    embedder = CachedEmbedder("locomo-" + Path(path or DEFAULT_DATA).stem, gate=floor) if semantic else None
    with tempfile.TemporaryDirectory() as tmp:
        if tuning:
            tune(conversations, Path(tmp), fine)
            return
        if tuning_memories:
            tune_memories(conversations, Path(tmp), kinds)
            return
        for kind in kinds:
            started = time.perf_counter()
            sums = evaluate(conversations, kind, Path(tmp), floor, embedder)
            if embedder is not None:
                embedder.save()
            out[kind] = shares(sums["recall" if kind == "turns" else "scorer"])
            out["rankers"][kind] = {r: shares(sums[r]) for r in sums}
            if not as_json and before is None:
                print(report(kind, sums, time.perf_counter() - started), flush=True)
    if as_json:
        print(json.dumps(out if before is None else {"baseline": before, "this tree": out}))
    elif before is not None:
        print(compare(before, out, kinds))


def compare(before: dict, after: dict, kinds: tuple[str, ...]) -> str:
    """The share of evidence turns found at each k by this project's rankers, before and after."""
    rows = []
    for kind in kinds:
        for ranker in before["rankers"][kind]:
            if ranker.startswith("fts5"):
                continue
            for label, got in (("baseline", before), ("this tree", after)):
                cells = got["rankers"][kind][ranker]
                rows.append([kind, f"{ranker} ({label})"] + [f"{cells[f'share@{k}']:.1f}" for k in KS])
        for ranker in ("fts5 plain", "fts5 porter+stop"):
            cells = after["rankers"][kind][ranker]
            rows.append([kind, ranker] + [f"{cells[f'share@{k}']:.1f}" for k in KS])
    return table("LoCoMo: share of evidence turns found (%), categories 1–4, before and after",
                 ["memories", "ranker"] + [f"overall @{k}" for k in KS], rows)


def cli() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("path", nargs="?", help="LoCoMo file (default: ../shared/data/locomo_dev.json)")
    parser.add_argument("--json", action="store_true", help="only this project's shares, as JSON")
    parser.add_argument("--tune", action="store_true", help="search the recall.* weights (shared data only)")
    parser.add_argument("--tune-memories", action="store_true",
                        help="search score.neighbour / score.person / score.timeQuestion (shared data only)")
    parser.add_argument("--fine", action="store_true", help="with --tune: the finer grid around the defaults")
    parser.add_argument("--kind", choices=(*KINDS, "both"), default="both",
                        help="only the turns or only the observations (default: both)")
    parser.add_argument("--conversations", type=int, metavar="N", help="only the first N conversations")
    parser.add_argument("--baseline", metavar="TREE",
                        help="also run against the bestie_tui package of this source tree (e.g. a git worktree)")
    parser.add_argument("--floor", action="store_true",
                        help="keep the stores' relevance floor (what a prompt gets) instead of ranking every memory")
    parser.add_argument("--semantic", action="store_true",
                        help="the scorer searches by meaning too (the semantic extra; the baseline by words)")
    args = parser.parse_args()
    main(args.path, args.json, args.tune, KINDS if args.kind == "both" else (args.kind,), args.conversations,
         args.tune_memories, args.fine, args.baseline, args.floor, args.semantic)


if __name__ == "__main__":
    cli()
