"""Unrelated requests on the demo database: does a working memory enter a request it has nothing to do with?

Usage::

    .venv/bin/python benchmarks/unrelated_requests.py [--json] [--baseline TREE] [--words | --both]

A fresh demo database (``bestie_tui.cli.demo.populate``, frozen clock) answers two lists of requests
of its owner with ``build_context`` under ``full`` governance (every working memory of the owner is
eligible, whatever its channel or project):

* ``UNRELATED``: general knowledge, arithmetic, translation and trivia, in English and Vietnamese
  (with and without diacritics). None is about the owner: every working memory one gets is a stray
  match. Target: at most 1 in 30 requests gets any (issue 29).
* ``RELATED``: requests about something a demo memory says, each with the memories it must get
  (any one of them is enough).

Only topic memories count: the block's "Relevant to this request:" section (``pack.working``). The
standing instructions ("How to answer:", ``pack.instructions``: reply language, length, tone…) enter
every request by design and are not topic memories; ``--json`` says in how many unrelated requests
they were (``with_instructions``), and they count for no request either way.

It prints, per list, how many requests got a working memory (unrelated) or their memory (related),
and the requests that went wrong with what they got. ``--json`` prints the figures and the failures
as one object. ``--baseline TREE`` also runs the same lists against the ``bestie_tui`` package of
another source tree (a ``git worktree`` of an older commit) and prints both, side by side.
With the ``semantic`` extra installed the store searches by meaning as well (``semantic.model``
auto); ``--words`` turns it off (``semantic.model off``), as without the extra, and ``--both`` prints
the two side by side.

The requests were written for this benchmark (no data set): the lists are this file's own.
"""

from __future__ import annotations

import json
import sys
import tempfile
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_common import run_baseline, table  # noqa: E402

NOW = datetime(2026, 12, 1, 9, 0, 0)
USER = "linh"

#: Requests about nothing the owner told the assistant.
UNRELATED: tuple[str, ...] = (
    # the examples of issue 29
    "what is 17 times 23",
    "what does the word 'ubiquitous' mean",
    "translate 'good morning' into French",
    "what's the capital of Australia",
    # English: general knowledge, arithmetic, translation, trivia
    "how many years are there in a century?",
    "who wrote Pride and Prejudice?",
    "what is the boiling point of water in Fahrenheit?",
    "how do you say 'thank you' in Japanese?",
    "what is the square root of 144?",
    "explain the difference between weather and climate",
    "how far is the Moon from the Earth?",
    "who painted the Mona Lisa?",
    "what's 15% of 80?",
    "convert 5 miles to kilometres",
    "how many legs does a spider have?",
    "in which year did the Berlin Wall fall?",
    "spell 'necessary' backwards",
    "give me a synonym for 'happy'",
    "who was the first person to walk on the Moon?",
    "why is the sky blue?",
    "say it again, slower this time",
    # Vietnamese, with diacritics
    "Quang hợp là gì?",
    "12 nhân 8 bằng bao nhiêu?",
    "Thủ đô của Úc là gì?",
    "Dịch câu 'chúc ngủ ngon' sang tiếng Anh",
    "Ai là tác giả Truyện Kiều?",
    "Một năm có bao nhiêu tuần?",
    "Nước sôi ở bao nhiêu độ?",
    "Sông nào dài nhất thế giới?",
    "Từ 'hạnh phúc' nghĩa là gì?",
    "Trái Đất quay quanh Mặt Trời mất bao lâu?",
    "Ai phát minh ra bóng đèn?",
    "Hổ và sư tử, con nào mạnh hơn?",
    # Vietnamese typed without diacritics
    "thu do cua nhat ban la gi",
    "mot ngay co bao nhieu gio",
)

#: Requests about what demo memories say, and the texts of the memories each must get (one is enough).
RELATED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("which database does Sông Hồng use?", ("Sông Hồng uses PostgreSQL 16 with PgBouncer in transaction mode.",)),
    ("is the dispatch service migration to FastAPI finished?",
     ("Project Sông Hồng: migrating the dispatch service from Flask to FastAPI.",)),
    ("can I write raw SQL in a handler?", ("Sông Hồng: keep SQLAlchemy 2.0 style queries; no raw SQL in handlers.",)),
    ("how many nodes does the staging cluster have?",
     ("The staging cluster is called 'bamboo' and runs on three nodes.",)),
    ("should these tests use pytest or unittest?", ("Prefers pytest with plain asserts over unittest classes.",
                                                    "Prefers pytest with plain assert statements over unittest classes.")),
    ("turn on mypy strict mode for the repo", ("Likes type hints everywhere and runs mypy in strict mode.",)),
    ("which theme should my Neovim config use?",
     ("Uses Neovim with a dark theme; share terminal commands, not IDE clicks.",)),
    ("book me a train or a flight to Huế", ("Prefers trains to flights for trips under 600 km.",
                                            "Prefers the train to flights for trips under 600 km!",
                                            "Travelling to Huế next weekend for her cousin's wedding.")),
    ("what does the Telegram grocery bot do?",
     ("Side project: a Telegram bot that tracks her family's shared groceries.",)),
    ("where does cho-bot store its data?", ("cho-bot stores data in SQLite and deploys to a Raspberry Pi at home.",)),
    ("should cho-bot show ads?", ("cho-bot will stay free and private: no ads, no analytics.",)),
    ("the printer is haunted again, what should I look at?",
     ("'The printer is haunted again' means the CI runner is flaky.",)),
    ("help me write Kubernetes YAML for the worker", (
        "Calls Kubernetes YAML 'phở broth': it takes hours and nobody knows the recipe.",)),
    ("how should I group my code review comments?",
     ("Wants code review comments grouped by severity: blocking, suggestion, nit.",)),
    ("a running route around Hồ Tây for Saturday", ("Runs on Saturday mornings around Hồ Tây; no calls before 9 on weekends.",)),
    ("summarise the chapter on transactions in Designing Data-Intensive Applications",
     ("Reading 'Designing Data-Intensive Applications', chapter 7 on transactions.",)),
    ("why Redis Streams and not Kafka for the event bus?",
     ("Chose Redis Streams over Kafka for the dispatch event bus (team of four).",)),
    ("should I suggest durian at the fruit market?", ("Linh loves durian and wants it suggested at fruit markets.",
                                                     "Linh hates durian; never suggest it.")),
    ("Gợi ý quán cà phê sữa đá gần Hồ Gươm", ("Drinks cà phê sữa đá every morning; suggest cafés that serve it.",)),
    ("quan ca phe sua da nao ngon?", ("Drinks cà phê sữa đá every morning; suggest cafés that serve it.",)),
    ("Chạy bộ quanh Hồ Tây sáng thứ bảy thì đi đường nào?",
     ("Runs on Saturday mornings around Hồ Tây; no calls before 9 on weekends.",)),
    ("chay bo quanh ho tay vao thu bay", ("Runs on Saturday mornings around Hồ Tây; no calls before 9 on weekends.",)),
    ("Dự án Sông Hồng dùng cơ sở dữ liệu PostgreSQL bản nào?",
     ("Sông Hồng uses PostgreSQL 16 with PgBouncer in transaction mode.",)),
)


def measure(words: bool = False) -> dict:
    """Build the demo database in a temp directory and answer both lists. Returns ``{"unrelated":
    {"requests", "with_memory", "failures": [[request, [texts]]]}, "related": {"requests", "found",
    "failures": [[request, [texts it got]]]}}``. ``words``: search by words alone."""
    from bestie_tui.cli.demo import populate
    from bestie_tui.retrieval.assembly import build_context
    from bestie_tui.store.memory_store import MemoryStore

    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(Path(tmp) / "demo.db", clock=lambda: NOW)
        try:
            if words:
                store.set_setting("semantic.model", "off")
            populate(store, NOW)

            told: list[str] = []

            def working(query: str) -> list[str]:
                pack = build_context(store, query, USER, governance="full", record_access=False)
                if getattr(pack, "instructions", None):  # an older tree has no such section
                    told.append(query)
                return [item.record.text for item in pack.working]

            stray = [[q, got] for q in UNRELATED if (got := working(q))]
            with_instructions = len(told)
            missed = [[q, got] for q, wanted in RELATED if not set(wanted) & set(got := working(q))]
        finally:
            store.close()
    return {"unrelated": {"requests": len(UNRELATED), "with_memory": len(stray), "failures": stray,
                          "with_instructions": with_instructions},
            "related": {"requests": len(RELATED), "found": len(RELATED) - len(missed), "failures": missed}}


def report(results: dict[str, dict]) -> str:
    """The figures of each run (``{label: measure()}``) as a table, then each run's failures."""
    rows = []
    for label, got in results.items():
        u, r = got["unrelated"], got["related"]
        rows.append([label, f"{u['with_memory']} / {u['requests']}", f"{r['found']} / {r['requests']}"])
    out = [table("Demo database, full governance: unrelated requests that got a working memory (target: at most "
                 "1 in 30), related requests that got theirs", ["code", "unrelated with a memory", "related found"],
                 rows)]
    for label, got in results.items():
        for what, key in (("unrelated, got a memory", "unrelated"), ("related, missed", "related")):
            for query, texts in got[key]["failures"]:
                shown = "; ".join(t[:60] for t in texts) or "nothing"
                out.append(f"  [{label}] {what}: {query!r} → {shown}")
    return "\n".join(out)


def cli() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures and failures as JSON")
    parser.add_argument("--baseline", metavar="TREE",
                        help="also run against the bestie_tui package of this source tree (e.g. a git worktree)")
    parser.add_argument("--words", action="store_true", help="search by words alone (semantic.model off)")
    parser.add_argument("--both", action="store_true", help="by words alone and with meaning, side by side")
    args = parser.parse_args()
    results = {}
    if args.baseline:
        results["baseline"] = run_baseline(Path(__file__), args.baseline,
                                           ["--json"] + (["--words"] if args.words else []))["this tree"]
    if args.both:
        results["this tree, words"] = measure(words=True)
    results["this tree" + (", meaning" if args.both else "")] = measure(words=args.words)
    if args.json:
        print(json.dumps(results, ensure_ascii=False))
    else:
        print(report(results))


if __name__ == "__main__":
    cli()
