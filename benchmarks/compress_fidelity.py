"""What history compression keeps: LoCoMo answers that survive the summary, and lists of N items.

Usage::

    python benchmarks/compress_fidelity.py [../shared/data/locomo_dev.json] [--json]

**Table 1 — LoCoMo.** Each conversation (speaker A as ``user``, B as ``assistant``, each turn dated
by its session) is compressed with threshold 40, keep 10 and a 2,000-character summary, exactly as
``compress`` does by default. For every QA item of categories 1–4 whose evidence turns (normalised
as ``locomo.split_dia_ids`` does) all lie in the evicted part, the item *survives* when every key
word of its answer is in the summary. Key words: the answer's folded word tokens
(``bestie_tui.text.words.tokens``: lower case, accents off) minus English stop words
(scikit-learn's list), Snowball-stemmed; the summary's words are read the same way. Items whose
answer has no key word are not scored. Beside the summarizer, in the same run, on the same evicted
turns and within the same 2,000 characters, two baselines, each line ``- [8 May 2023] Name: text``:

* ``newest lines`` — the newest evicted turns, as many as fit;
* ``first sentences`` — the first sentence of each session, oldest first, every one that fits.

The target is a share at least 1.5 × the better baseline's. The summarizer's settings were tuned on
the *dev* conversations only (the first three of the file); the *held-out* rows are the other four.

**Table 2 — lists.** A chat of 60 messages (real LoCoMo turns around it) with one message holding a
list of N items (N = 10, 40, 200) is compressed the same way; then the summary is merged once more
with 40 newer turns. Each item must be shown (its text in an item line) or counted (``… and K more
items``): never lost silently. Both are read from the summary text with this script's own patterns.

LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0) is read by path, never copied into the repo.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import click

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo  # noqa: E402  (benchmarks/locomo.py: the shared LoCoMo parsing)

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"
THRESHOLD, KEEP, CHARS = 40, 10, 2000
TARGET = 1.5
DEV = 3  # the first three conversations were used for tuning
MONTHS = "January February March April May June July August September October November December".split()


def key_words(text: str) -> set[str]:
    """Stemmed, folded content words (see the module docstring)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from bestie_tui.text.words import stem, tokens

    return {stem(t) for t in tokens(text) if t not in ENGLISH_STOP_WORDS}


def conversation(conv) -> tuple[list[dict], list[str], list[locomo.Session]]:
    """Chat messages of a LoCoMo conversation, the ``dia_id`` and the session of each."""
    speaker_a = conv["conversation"]["speaker_a"]
    messages, ids, sessions = [], [], []
    for s in locomo.sessions(conv):
        for t in s.turns:
            if t.text:
                messages.append({"role": "user" if t.speaker == speaker_a else "assistant", "name": t.speaker,
                                 "content": t.text, "created_at": t.at.isoformat()})
                ids.append(t.dia_id)
                sessions.append(s)
    return messages, ids, sessions


def _day(s: locomo.Session) -> str:
    return f"{s.at.day} {MONTHS[s.at.month - 1]} {s.at.year}"


def _fit(lines: list[str], chars: int, newest_first: bool = False) -> str:
    out, used = [], 0
    for line in lines:
        if used + len(line) + 1 > chars:
            if newest_first:
                break
            continue
        out.append(line)
        used += len(line) + 1
    return "\n".join(reversed(out) if newest_first else out)


def newest_lines(messages, sessions, evicted: list[int], chars: int) -> str:
    lines = [f"- [{_day(sessions[i])}] {messages[i]['name']}: {messages[i]['content']}" for i in reversed(evicted)]
    return _fit(lines, chars, newest_first=True)


def first_sentences(messages, sessions, evicted: list[int], chars: int) -> str:
    first: dict[int, int] = {}
    for i in evicted:
        first.setdefault(id(sessions[i]), i)
    lines = []
    for i in sorted(first.values()):
        sentence = re.split(r"(?<=[.!?])\s+", messages[i]["content"].strip())[0]
        lines.append(f"- [{_day(sessions[i])}] {messages[i]['name']}: {sentence}")
    return _fit(lines, chars)


def locomo_table(conversations) -> list[dict]:
    from bestie_tui.conversation.compress import compress
    from bestie_tui.conversation.summarize import ExtractiveSummarizer

    rows = []
    for n, conv in enumerate(conversations):
        messages, ids, sessions = conversation(conv)
        result = compress(messages, THRESHOLD, KEEP, ExtractiveSummarizer(CHARS))
        evicted = sorted(i for i in result.evicted if i < len(messages))
        gone = {ids[i] for i in evicted}
        summaries = {"summarizer": result.summary.split("\n", 1)[1].rsplit("\n", 1)[0],
                     "newest lines": newest_lines(messages, sessions, evicted, CHARS),
                     "first sentences": first_sentences(messages, sessions, evicted, CHARS)}
        words = {k: key_words(v) for k, v in summaries.items()}
        scored = unscored = 0
        hits = dict.fromkeys(summaries, 0)
        for item in locomo.qa_items(conv):
            if item.category not in (1, 2, 3, 4) or not item.evidence or not set(item.evidence) <= gone:
                continue
            answer = key_words(item.answer)
            if not answer:
                unscored += 1
                continue
            scored += 1
            for k in summaries:
                hits[k] += answer <= words[k]
        rows.append({"conversation": conv["sample_id"], "split": "dev" if n < DEV else "held-out",
                     "turns": len(messages), "evicted": len(evicted), "items": scored, "unscored": unscored,
                     "chars": {k: len(v) for k, v in summaries.items()}, "survived": hits})
    return rows


# ------------------------------------------------------------------------------------ lists
_COMPONENTS = ("login page", "checkout", "search box", "upload dialog", "settings screen", "invoice PDF",
               "profile photo", "dark theme", "export button", "calendar view", "push notification", "sidebar")
_PROBLEMS = ("is misaligned on Safari", "times out after {n} seconds", "shows the wrong currency",
             "crashes when the field is empty", "loses the draft on reload", "ignores the time zone",
             "renders {n} pixels too wide", "double-charges on retry", "is untranslated in Vietnamese",
             "loads {n} requests instead of one")


def list_items(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(1, n + 1):
        problem = rng.choice(_PROBLEMS).format(n=rng.randint(2, 90))
        out.append(f"Issue {i}: the {rng.choice(_COMPONENTS)} {problem}")
    return out


_ITEM_LINE = re.compile(r"^\s+\d+\. (?P<text>.+)$", re.M)
_MORE = re.compile(r"… and (?P<n>[\d,]+) more items?")


def count_items(summary: str, items: list[str]) -> tuple[int, int]:
    """``(shown, counted)`` of ``items`` in a summary's text."""
    shown_lines = {m.group("text").strip() for m in _ITEM_LINE.finditer(summary)}
    shown = sum(1 for item in items if item in shown_lines)
    counted = sum(int(m.group("n").replace(",", "")) for m in _MORE.finditer(summary))
    return shown, counted


def lists_table(conversations) -> list[dict]:
    from bestie_tui.conversation.compress import compress
    from bestie_tui.conversation.summarize import ExtractiveSummarizer

    chat, _, _ = conversation(conversations[0])
    rows = []
    for n in (10, 40, 200):
        items = list_items(n, seed=n)
        listing = {"role": "user", "name": chat[0]["name"], "created_at": chat[20]["created_at"],
                   "content": "Here is everything from the bug bash:\n" + "\n".join(f"- {x}" for x in items)}
        history = chat[:20] + [listing] + chat[20:59]
        first = compress(history, THRESHOLD, KEEP, ExtractiveSummarizer(CHARS))
        merged = compress(first.messages + chat[59:99], THRESHOLD, KEEP, ExtractiveSummarizer(CHARS))
        for label, result in (("first compression", first), ("after a merge", merged)):
            shown, counted = count_items(result.summary, items)
            rows.append({"items": n, "when": label, "shown": shown, "counted": counted,
                         "lost": max(0, n - shown - counted), "overcounted": max(0, shown + counted - n),
                         "kept_or_counted": (min(n, shown + counted) / n) if not max(0, shown + counted - n) else 0.0})
    return rows


# ------------------------------------------------------------------------------------ report
def _share(hits: int, n: int) -> str:
    return f"{hits / n:6.1%}" if n else "     –"


def print_tables(rows: list[dict], list_rows: list[dict]) -> None:
    names = ("summarizer", "newest lines", "first sentences")
    click.echo(f"Table 1 — LoCoMo answers whose key words survive the summary (threshold {THRESHOLD}, "
               f"keep {KEEP}, {CHARS:,} characters)")
    click.echo(f"{'conversation':<14} {'split':<9} {'turns':>5} {'items':>5}  {'summarizer':>10} "
               f"{'newest lines':>12} {'first sentences':>15}  {'vs better':>9}")
    groups = [("dev", [r for r in rows if r["split"] == "dev"]), ("held-out", [r for r in rows if r["split"] == "held-out"]),
              ("all", rows)]
    for r in rows:
        _row(r["conversation"], r["split"], r["turns"], r["items"], r["survived"], names)
    for label, members in groups:
        hits = {k: sum(r["survived"][k] for r in members) for k in names}
        _row(label, "", sum(r["turns"] for r in members), sum(r["items"] for r in members), hits, names)
    total = {k: sum(r["survived"][k] for r in rows) for k in names}
    n = sum(r["items"] for r in rows)
    better = max(total["newest lines"], total["first sentences"])
    ratio = total["summarizer"] / better if better else float("inf")
    verdict = "met" if ratio >= TARGET else "NOT met"
    click.echo(f"target: summarizer ≥ {TARGET:.1f} × the better baseline over all {n:,} items: "
               f"{ratio:.2f} × ({verdict})")
    click.echo("")
    click.echo("Table 2 — a list of N items in one message: shown or counted, never lost silently")
    click.echo(f"{'N':>4} {'when':<18} {'shown':>6} {'counted':>8} {'lost':>5} {'kept or counted':>16}")
    for r in list_rows:
        click.echo(f"{r['items']:>4} {r['when']:<18} {r['shown']:>6} {r['counted']:>8} {r['lost']:>5} "
                   f"{r['kept_or_counted']:>16.0%}")


def _row(name: str, split: str, turns: int, items: int, hits: dict, names) -> None:
    better = max(hits["newest lines"], hits["first sentences"])
    rel = f"{hits['summarizer'] / better:>8.2f}×" if better else "        –"
    click.echo(f"{name:<14} {split:<9} {turns:>5,} {items:>5,}  {_share(hits['summarizer'], items):>10} "
               f"{_share(hits['newest lines'], items):>12} {_share(hits['first sentences'], items):>15}  {rel}")


@click.command()
@click.argument("data", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=DEFAULT_DATA)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def main(data: Path, as_json: bool) -> None:
    """Print what history compression keeps (two tables; see the module docstring)."""
    conversations = locomo.load_conversations(data)
    rows = locomo_table(conversations)
    list_rows = lists_table(conversations)
    if as_json:
        total = {k: sum(r["survived"][k] for r in rows) for k in ("summarizer", "newest lines", "first sentences")}
        n = sum(r["items"] for r in rows)
        better = max(total["newest lines"], total["first sentences"])
        click.echo(json.dumps({"settings": {"threshold": THRESHOLD, "keep": KEEP, "chars": CHARS},
                               "conversations": rows, "items": n,
                               "share": {k: v / n if n else None for k, v in total.items()},
                               "ratio_to_better_baseline": total["summarizer"] / better if better else None,
                               "target": TARGET, "lists": list_rows}, indent=2))
        return
    print_tables(rows, list_rows)


if __name__ == "__main__":
    main()
