"""A held-out owner's memory bank: does the prompt block bring the memory a request needs, and only then?

Usage::

    .venv/bin/python benchmarks/owner_bank.py [--json] [--baseline TREE] [--words | --meaning] [--data PATH]

``benchmarks/data/owner_bank.json`` holds one fictional owner, written by hand for this benchmark
before anything was tuned on it (no data set, no sentence of the project's lexicons, tests or demo):

* ``memories``: about 80 approved memories, English and Vietnamese (a few typed without
  diacritics): facts about her life, topic preferences, and a handful of communication preferences
  (kind ``communication_preference``: reply language, length, format, tone, form of address).
* ``related``: requests that each need one of the memories (``needs``: any one is enough), written
  to share few or no content words with it ("Is Bà Nà Hills a good day out for me?" needs the
  fear of heights).
* ``unrelated``: requests about nothing in the bank (general knowledge, arithmetic, translation,
  trivia, code), English and Vietnamese, some without diacritics.

A fresh temp-file ``MemoryStore`` (frozen clock) gets the memories through the owner's own write
(``MemoryStore.add``: the write gate, the kinds, the standing-instruction classification and the
index run as for a real owner), each dated a day apart over the last three months. Then each request
is answered with ``build_context(store, request, user, governance="full", record_access=False)``:

* related: the share of requests whose block holds a needed memory among the topic memories
  (``pack.working``, "Relevant to this request:") and anywhere in the block (working, the standing
  instructions and core);
* unrelated: how many requests got any topic memory (each one is a stray match);
* standing instructions: in how many requests (of both lists) every communication preference of
  the bank is in ``pack.instructions`` ("How to answer:"), and in the block at all (instructions or core).

Two probes explain the figures: with meaning, the embedder's cosines alone (``cosine_ranks``: the
rank of the needed memory among the whole bank and whether its cosine reaches the embedder's
``related`` cosine, from which meaning alone counts as evidence of the topic); and the
standing-instruction classification alone (``classify``: every memory written as kind ``note``, how
many communication preferences the write gate makes instructions and how many other memories).

Each is measured by words alone (``semantic.model`` off) and with meaning (the default, ``auto``,
when the ``semantic`` extra is installed), side by side; ``--words`` or ``--meaning`` runs one.
The failures follow the table: the request, what it got, and for a missed memory why the pack left
it out (its ``left_out`` reason and score) when the pack says. ``--json`` prints figures and failures
as one object; ``--baseline TREE`` also runs against the ``bestie_tui`` package of another source
tree (a ``git worktree`` of an older commit). ``--data PATH`` runs another bank of the same layout
(``benchmarks/data/owner_bank_fit.json``: a second owner, written to fit thresholds on, so that the
held-out bank stays held out).
"""

from __future__ import annotations

import json
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_common import run_baseline, table  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "owner_bank.json"
NOW = datetime(2026, 12, 1, 9, 0, 0)
INSTRUCTION_KIND = "communication_preference"


def load(path: Path = DATA) -> dict:
    """The bank: ``{"user", "memories": [{"id", "kind", "text"}], "related": [{"request", "needs"}],
    "unrelated": [str]}``.

    Raises:
        FileNotFoundError: no file at ``path``.
        ValueError: a related request needs an id the bank does not have.
    """
    bank = json.loads(path.read_text(encoding="utf-8"))
    ids = {m["id"] for m in bank["memories"]}
    for r in bank["related"]:
        if not set(r["needs"]) <= ids:
            raise ValueError(f"{r['request']!r} needs unknown ids {sorted(set(r['needs']) - ids)}")
    return bank


def seed(store, bank: dict) -> tuple[dict[int, str], list[list[str]]]:
    """Write every memory of ``bank`` as the owner would (``store.add``), one day apart, ending a
    week before ``NOW``. Returns ``(bank id of each store id, notes)``: a note per memory the gate
    refused or gave another kind or layer than the bank says (``[bank id, what happened]``)."""
    from bestie_tui.errors import BestieError

    user = bank["user"]
    store.set_setting("owner.user", user)
    real_clock = store.clock
    of_id: dict[int, str] = {}
    notes: list[list[str]] = []
    memories = bank["memories"]
    try:
        for i, m in enumerate(memories):
            when = NOW - timedelta(days=7 + len(memories) - i)
            store.clock = lambda when=when: when
            try:
                record = store.add(m["kind"], m["text"], user=user, actor="owner")
            except BestieError as exc:
                notes.append([m["id"], f"refused: {type(exc).__name__}: {exc}"])
                continue
            of_id[record.id] = m["id"]
            if record.kind != m["kind"]:
                notes.append([m["id"], f"stored as kind {record.kind}, not {m['kind']}"])
            if record.layer != "working" and m["kind"] != INSTRUCTION_KIND:
                notes.append([m["id"], f"stored in layer {record.layer}"])
    finally:
        store.clock = real_clock
    return of_id, notes


def measure(words: bool = False, path: Path = DATA) -> dict:
    """Seed a temp-file store with the bank at ``path`` and answer both lists. ``words``: search by
    words alone (``semantic.model`` off). Returns ``{"related": {"requests", "in_working",
    "in_block", "failures": [{"request", "needs", "got", "why"}]}, "unrelated": {"requests",
    "with_memory", "failures": [{"request", "got"}]}, "instructions": {"requests", "bank",
    "all_in_instructions", "all_in_block", "failures": [{"request", "missing"}]}, "seeding": [[id, note]]}``."""
    from bestie_tui.retrieval.assembly import build_context
    from bestie_tui.store.memory_store import MemoryStore

    bank = load(path)
    cosines = None if words else cosine_ranks(bank)
    classified = classify(bank)
    user = bank["user"]
    text_of = {m["id"]: m["text"] for m in bank["memories"]}
    standing = {m["id"] for m in bank["memories"] if m["kind"] == INSTRUCTION_KIND}
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(Path(tmp) / "owner.db", clock=lambda: NOW)
        try:
            if words:
                store.set_setting("semantic.model", "off")
            of_id, notes = seed(store, bank)

            def answer(query: str) -> tuple[list[str], set[str], set[str], dict[str, str]]:
                pack = build_context(store, query, user, governance="full", record_access=False)
                working = [of_id.get(it.record.id, "?") for it in pack.working]
                told = {of_id.get(it.record.id, "?") for it in getattr(pack, "instructions", [])}
                core = {of_id.get(it.record.id, "?") for it in pack.core}
                why = {}
                for x in pack.left_out:
                    parts = x.score.to_dict() if x.score else {}
                    extra = ", ".join(f"{k} {parts[k]}" for k in ("words", "meaning") if parts.get(k) is not None)
                    why[of_id.get(x.id, "?")] = f"{x.reason}: {x.detail}" + (f" ({extra})" if extra else "")
                return working, told, core, why

            related_failures, in_working, in_block = [], 0, 0
            instr_failures, all_told, all_in_block = [], 0, 0
            stray = []

            def check_instructions(query: str, told: set[str], core: set[str]) -> None:
                nonlocal all_told, all_in_block
                all_told += standing <= told
                all_in_block += standing <= told | core
                if not standing <= told:
                    instr_failures.append({"request": query, "missing": sorted(standing - told),
                                           "in_core": sorted((standing - told) & core)})

            for r in bank["related"]:
                working, told, core, why = answer(r["request"])
                needs = set(r["needs"])
                found_working = bool(needs & set(working))
                in_working += found_working
                in_block += bool(needs & (set(working) | told | core))
                if not found_working:
                    related_failures.append({
                        "request": r["request"], "needs": r["needs"], "got": working,
                        "why": {n: why.get(n, "not listed in left_out") for n in r["needs"]}})
                check_instructions(r["request"], told, core)
            for q in bank["unrelated"]:
                working, told, core, _ = answer(q)
                if working:
                    stray.append({"request": q, "got": working})
                check_instructions(q, told, core)
        finally:
            store.close()
    asked = len(bank["related"]) + len(bank["unrelated"])
    return {"related": {"requests": len(bank["related"]), "in_working": in_working, "in_block": in_block,
                        "failures": related_failures},
            "unrelated": {"requests": len(bank["unrelated"]), "with_memory": len(stray), "failures": stray},
            "instructions": {"requests": asked, "bank": len(standing), "all_in_instructions": all_told,
                             "all_in_block": all_in_block, "failures": instr_failures},
            "seeding": notes, "texts": text_of, "cosines": cosines, "classification": classified}


def cosine_ranks(bank: dict, setting: str = "auto") -> dict | None:
    """The embedder's view, without the store's rules: for each related request the cosine of its
    best needed memory and that memory's rank among the whole bank (1 = closest), and for each
    unrelated request its highest cosine to any memory; each against the embedder's ``related``
    cosine (meaning alone counts as evidence of the topic from there). ``None`` when ``setting``
    loads no embedder."""
    import numpy as np

    from bestie_tui.semantic.loader import resolve

    embedder = resolve(setting).embedder
    if embedder is None:
        return None

    def unit(vectors) -> np.ndarray:
        v = np.asarray(vectors, dtype=np.float64)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    memories = bank["memories"]
    at = {m["id"]: i for i, m in enumerate(memories)}
    matrix = unit(embedder([m["text"] for m in memories], query=False))
    related, threshold = [], float(embedder.related)
    for r in bank["related"]:
        cos = matrix @ unit(embedder([r["request"]], query=True))[0]
        rank = {int(j): k + 1 for k, j in enumerate(np.argsort(-cos, kind="stable"))}
        best = min(r["needs"], key=lambda n: rank[at[n]])
        related.append({"request": r["request"], "memory": best, "rank": rank[at[best]],
                        "cosine": round(float(cos[at[best]]), 4), "top": memories[int(np.argmax(cos))]["id"],
                        "top_cosine": round(float(cos.max()), 4)})
    unrelated = []
    for q in bank["unrelated"]:
        cos = matrix @ unit(embedder([q], query=True))[0]
        unrelated.append({"request": q, "top": memories[int(np.argmax(cos))]["id"],
                          "top_cosine": round(float(cos.max()), 4)})
    return {"model": embedder.name, "related_cosine": threshold, "floor": float(embedder.floor),
            "rank_1": sum(x["rank"] == 1 for x in related), "top_3": sum(x["rank"] <= 3 for x in related),
            "reach_related": sum(x["cosine"] >= threshold for x in related),
            "unrelated_reach_related": sum(x["top_cosine"] >= threshold for x in unrelated),
            "per_request": related, "per_unrelated": unrelated}


def classify(bank: dict) -> dict:
    """The standing-instruction classification on its own: every memory of ``bank`` written by the
    owner as kind ``note`` (no kind chosen) into a fresh store. Returns ``{"instructions", "found",
    "others", "taken": [ids of other memories made instructions], "missed": [ids]}``: how many
    communication preferences came out as ``communication_preference`` and how many other
    memories did."""
    from bestie_tui.errors import BestieError
    from bestie_tui.store.memory_store import MemoryStore

    standing = {m["id"] for m in bank["memories"] if m["kind"] == INSTRUCTION_KIND}
    made = set()
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(Path(tmp) / "kinds.db", clock=lambda: NOW)
        try:
            store.set_setting("semantic.model", "off")
            for m in bank["memories"]:
                try:
                    record = store.add("note", m["text"], user=bank["user"], actor="owner")
                except BestieError:
                    continue
                if record.kind == INSTRUCTION_KIND:
                    made.add(m["id"])
        finally:
            store.close()
    return {"instructions": len(standing), "found": len(made & standing),
            "others": len(bank["memories"]) - len(standing), "taken": sorted(made - standing),
            "missed": sorted(standing - made)}


def _share(n: int, total: int) -> str:
    return f"{n} / {total} ({100 * n / total:.0f}%)" if total else "0 / 0"


def report(results: dict[str, dict], path: Path = DATA) -> str:
    """The figures of each run (``{label: measure()}``) on the bank at ``path`` as a table, then each
    run's failures."""
    rows = []
    for label, got in results.items():
        r, u, s = got["related"], got["unrelated"], got["instructions"]
        rows.append([label, _share(r["in_working"], r["requests"]), _share(r["in_block"], r["requests"]),
                     _share(u["with_memory"], u["requests"]), _share(s["all_in_instructions"], s["requests"]),
                     _share(s["all_in_block"], s["requests"])])
    name = f"benchmarks/data/{path.name}" if path.resolve().parent == DATA.parent else str(path)
    held_out = path.resolve() == DATA
    out = [table(f"{'Held-out owner' if held_out else 'Owner'}'s bank ({name}), full governance",
                 ["run", "related: needed memory in working", "related: anywhere in block",
                  "unrelated: got a topic memory", "all instructions in How to answer", "all instructions in block"],
                 rows)]
    for label, got in results.items():
        c, k = got.get("cosines"), got.get("classification")
        if k:
            out.append(f"  [{label}] written as kind note: {k['found']} / {k['instructions']} communication "
                       f"preferences became standing instructions (missed: {', '.join(k['missed']) or 'none'}); "
                       f"{len(k['taken'])} / {k['others']} other memories did ({', '.join(k['taken']) or 'none'})")
        if c:
            n, u = len(c["per_request"]), len(c["per_unrelated"])
            out.append(f"  [{label}] {c['model']} cosines alone: needed memory closest in {c['rank_1']} / {n}, "
                       f"in the closest 3 in {c['top_3']} / {n}, at or over the related cosine "
                       f"{c['related_cosine']} in {c['reach_related']} / {n}; unrelated requests with a memory "
                       f"at or over it: {c['unrelated_reach_related']} / {u}")
    for label, got in results.items():
        texts = got.get("texts", {})

        def short(ids: list[str], texts: dict[str, str] = texts) -> str:
            return "; ".join(f"{i} {texts.get(i, '')[:50]!r}" for i in ids) or "nothing"

        for mid, note in got["seeding"]:
            out.append(f"  [{label}] seeding: {mid} {texts.get(mid, '')[:50]!r}: {note}")
        for f in got["related"]["failures"]:
            out.append(f"  [{label}] related, missed: {f['request']!r} needs {short(f['needs'])}")
            out.append(f"      got: {short(f['got'])}")
            for mid, why in f["why"].items():
                out.append(f"      {mid}: {why}")
            for x in (got.get("cosines") or {}).get("per_request", []):
                if x["request"] == f["request"]:
                    out.append(f"      cosine {x['cosine']} (rank {x['rank']} of {len(texts)}); closest "
                               f"{x['top']} at {x['top_cosine']}")
        tops = {x["request"]: x for x in (got.get("cosines") or {}).get("per_unrelated", [])}
        for f in got["unrelated"]["failures"]:
            top = tops.get(f["request"])
            out.append(f"  [{label}] unrelated, got: {f['request']!r} → {short(f['got'])}"
                       + (f" (closest {top['top']} at cosine {top['top_cosine']})" if top else ""))
        for f in got["instructions"]["failures"]:
            out.append(f"  [{label}] instructions missing: {f['request']!r} → {short(f['missing'])}"
                       + (f" (in core: {', '.join(f['in_core'])})" if f["in_core"] else ""))
    return "\n".join(out)


def cli() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures and failures as JSON")
    parser.add_argument("--baseline", metavar="TREE",
                        help="also run against the bestie_tui package of this source tree (e.g. a git worktree)")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--words", action="store_true", help="only by words alone (semantic.model off)")
    only.add_argument("--meaning", action="store_true", help="only with meaning (semantic.model as configured)")
    parser.add_argument("--data", metavar="PATH", type=Path, default=DATA,
                        help="the bank to run (default: the held-out benchmarks/data/owner_bank.json)")
    args = parser.parse_args()
    runs = [("words", True)] if args.words else [("meaning", False)] if args.meaning else [
        ("words", True), ("meaning", False)]
    results = {}
    if args.baseline:
        flags = ["--json", "--data", str(args.data)] + (["--words"] if args.words else ["--meaning"] if args.meaning else [])
        for label, got in run_baseline(Path(__file__), args.baseline, flags).items():
            results["baseline, " + label.split(", ")[-1]] = got
    for label, words in runs:
        results[f"this tree, {label}"] = measure(words=words, path=args.data)
    if args.json:
        print(json.dumps(results, ensure_ascii=False))
    else:
        print(report(results, args.data))


if __name__ == "__main__":
    cli()
