"""The message index beside SQLite FTS5 over the same rows: bytes per message and build CPU.

Usage::

    .venv/bin/python benchmarks/message_index.py [--sizes 10000,100000] [--baseline TREE] [--json]

Per size M, one temp-file store holds M chat messages of one user, bulk-loaded (one insert, no
index), as an import or a migration leaves them: every LoCoMo dialog turn (``"Speaker: text"``, by
session), repeated with a ``(lap)`` suffix in new sessions when M outruns them (``--corpus locomo``,
149 bytes of text a turn); ``--corpus mixed`` puts MSC persona facts as turns of 20-turn sessions
after the LoCoMo turns (short texts, a wider vocabulary). Then ``doc_index.reindex(db, "message")`` builds the message index, and for the
same rows an FTS5 table (``porter unicode61``, external content: it indexes the rows of ``message``
and stores no second copy of the text) is filled by ``INSERT … SELECT``, in the same process.

Columns: bytes per message (``dbstat`` pages) of our postings (``ix_posting``) and of the whole
message index (postings, vocabulary ``ix_term`` and its key, per-turn lengths and links
``ix_block``, indexed text ``ix_doc``), of the FTS5 index (``_data`` + ``_idx``) and of all its
tables (with ``_docsize``); build CPU seconds (``time.process_time``) of each.

``--baseline TREE`` measures the same sizes with the ``bestie_tui`` of another source tree (a
``git worktree`` of an older commit), in a subprocess, and prints it beside this tree's row.

Recall quality with this index is ``benchmarks/retrieval_locomo.py --kind turns`` (the ``recall``
ranker). Data: LoCoMo (Maharana et al., ACL 2024, CC BY-NC 4.0) and MSC personas, read by path
from ``../shared/data`` and never copied.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data"
INDEX_TABLES = ("ix_posting", "ix_term", "ix_term_key", "ix_block", "ix_doc")
SESSION_TURNS = 20
START = datetime(2024, 1, 1)


def turns(size: int, corpus: str = "locomo") -> list[tuple[str, datetime, str]]:
    """``(text, at, session)`` of ``size`` turns (module docstring)."""
    sys.path.insert(0, str(HERE))
    import locomo
    from latency import persona_facts

    base: list[tuple[str, datetime, str]] = []
    for conv in locomo.load_conversations(DATA / "locomo_dev.json"):
        for session in locomo.sessions(conv):
            base += [(f"{t.speaker}: {t.text}", t.at, session.key) for t in session.turns]
    facts = persona_facts(DATA / "msc_personas_all.json") if corpus == "mixed" else []
    base += [(f"{user}: {fact}", START + timedelta(minutes=i), f"msc-{i // SESSION_TURNS}")
             for i, (user, fact) in enumerate(facts)]
    out = []
    for i in range(size):
        text, at, session = base[i % len(base)]
        lap = i // len(base)
        out.append((f"{text} ({lap})" if lap else text, at + timedelta(days=800 * lap), f"{session}#{lap}"))
    return out


def table_bytes(path: Path, names: tuple[str, ...]) -> int:
    conn = sqlite3.connect(path)
    try:
        marks = ",".join("?" * len(names))
        return int(conn.execute(f"SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN ({marks})",
                                names).fetchone()[0])
    finally:
        conn.close()


def measure(size: int, workdir: Path, corpus: str = "locomo") -> dict:
    """One size in this interpreter's ``bestie_tui``: bytes and CPU of our index and of FTS5."""
    from bestie_tui.store import doc_index
    from bestie_tui.store.memory_store import MemoryStore
    from bestie_tui.store.models import Message

    path = workdir / f"messages-{size}.db"
    store = MemoryStore(path)
    rows = [dict(role="user", text=text, user="owner", channel="bench", session=session, created_at=at, terms="")
            for text, at, session in turns(size, corpus)]
    with store.bound(), store.db.atomic():
        for start in range(0, len(rows), 500):
            Message.insert_many(rows[start:start + 500]).execute()
    cpu, wall = time.process_time(), time.perf_counter()
    docs = doc_index.reindex(store.db, doc_index.MESSAGE)
    ours_cpu, ours_wall = time.process_time() - cpu, time.perf_counter() - wall
    text_bytes = store.db.execute_sql("SELECT SUM(LENGTH(CAST(text AS BLOB))) FROM message").fetchone()[0]
    store.close()
    postings = table_bytes(path, ("ix_posting",))
    whole = table_bytes(path, INDEX_TABLES)
    conn = sqlite3.connect(path)
    conn.execute("CREATE VIRTUAL TABLE fts USING fts5(text, content='message', content_rowid='id', "
                 "tokenize='porter unicode61')")
    cpu = time.process_time()
    conn.execute("INSERT INTO fts(rowid, text) SELECT id, text FROM message")
    conn.commit()
    fts_cpu = time.process_time() - cpu
    conn.close()
    fts_index = table_bytes(path, ("fts_data", "fts_idx"))
    fts_all = table_bytes(path, ("fts_data", "fts_idx", "fts_docsize", "fts_config"))
    return {"messages": docs, "text_bytes_per_message": round(text_bytes / size, 1),
            "postings_bytes_per_message": round(postings / size, 1), "index_bytes_per_message": round(whole / size, 1),
            "fts5_index_bytes_per_message": round(fts_index / size, 1),
            "fts5_all_bytes_per_message": round(fts_all / size, 1),
            "build_cpu_s": round(ours_cpu, 2), "build_wall_s": round(ours_wall, 2), "fts5_build_cpu_s": round(fts_cpu, 2),
            "postings_over_fts5_index": round(postings / max(fts_index, 1), 2),
            "index_over_fts5_all": round(whole / max(fts_all, 1), 2)}


def baseline(tree: Path, sizes: list[int], corpus: str) -> list[dict]:
    """The same sizes measured with the package of ``tree``, in a subprocess."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, __file__, "--sizes", ",".join(map(str, sizes)), "--corpus", corpus,
                          "--json", "--only-this"],
                         env=env, capture_output=True, text=True, check=True, cwd=tree)
    return json.loads(out.stdout)["this"]


def table(rows: list[tuple[str, dict]]) -> str:
    cols = [("messages", "messages"), ("postings B/msg", "postings_bytes_per_message"),
            ("index B/msg", "index_bytes_per_message"), ("FTS5 index B/msg", "fts5_index_bytes_per_message"),
            ("FTS5 all B/msg", "fts5_all_bytes_per_message"), ("postings / FTS5", "postings_over_fts5_index"),
            ("build CPU s", "build_cpu_s"), ("FTS5 build CPU s", "fts5_build_cpu_s"),
            ("text B/msg", "text_bytes_per_message")]
    head = ["tree"] + [c for c, _ in cols]
    body = [[label] + [f"{r[k]:,}" for _, k in cols] for label, r in rows]
    widths = [max(len(str(x)) for x in column) for column in zip(head, *body)]
    line = lambda cells: "  ".join(str(c).rjust(w) for c, w in zip(cells, widths))  # noqa: E731
    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in body])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000", help="message counts, comma-separated (default 10000)")
    parser.add_argument("--baseline", type=Path, help="another source tree measured beside this one")
    parser.add_argument("--corpus", choices=("locomo", "mixed"), default="locomo")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only-this", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if not args.only_this:
        sys.path.insert(0, str(HERE.parent))
    with tempfile.TemporaryDirectory() as tmp:
        this = [measure(size, Path(tmp), args.corpus) for size in sizes]
    before = baseline(args.baseline, sizes, args.corpus) if args.baseline else []
    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"corpus": args.corpus, "this": this, "baseline": before, "load": round(load, 2)}, indent=2))
        return
    rows = [(label, r) for i in range(len(sizes))
            for label, r in ((str(args.baseline), before[i]) if before else (None, None), ("this tree", this[i]))
            if r is not None]
    print(f"message index beside FTS5 (porter unicode61, external content) over the same rows; corpus {args.corpus}; "
          f"load {load:.1f}")
    print(table(rows))


if __name__ == "__main__":
    main()
