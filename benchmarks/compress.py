"""History compression speed: one whole LoCoMo conversation, and 10,000 turns.

Usage::

    python benchmarks/compress.py [../shared/data/locomo_dev.json] [--repeat 5]

Prints a table: history size, token mode, median and worst wall time of ``compress`` (threshold 40,
keep 10, the offline extractive summarizer), tokens before/after, summary size. The 10,000-turn
history is every LoCoMo turn of the file, cycled (real text, not lorem ipsum). It also times
``build_pack`` on the LoCoMo conversation with a 2,000-token budget (no store).

LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0) is read by path, never copied into the repo.
Figures depend on the machine's load; the first run includes importing scikit-learn.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import time
from itertools import cycle, islice
from pathlib import Path

import click

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "locomo_dev.json"


def _locomo():
    spec = importlib.util.spec_from_file_location("locomo_benchmark", HERE / "locomo.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def conversation_messages(locomo, conv) -> list[dict]:
    """A LoCoMo conversation as chat messages: speaker A is ``user``, B ``assistant``."""
    speaker_a = conv["conversation"]["speaker_a"]
    return [{"role": "user" if t.speaker == speaker_a else "assistant", "name": t.speaker,
             "content": t.text, "created_at": t.at.isoformat()}
            for s in locomo.sessions(conv) for t in s.turns if t.text]


def timed(fn, repeat: int) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return times, result


@click.command()
@click.argument("data", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=DEFAULT_DATA)
@click.option("--repeat", type=click.IntRange(min=1), default=5, show_default=True)
@click.option("--turns", type=click.IntRange(min=100), default=10_000, show_default=True)
def main(data: Path, repeat: int, turns: int) -> None:
    """Print compression timings for one conversation and for --turns turns."""
    from bestie_tui.conversation.compress import compress
    from bestie_tui.conversation.pack import build_pack

    locomo = _locomo()
    convs = locomo.load_conversations(data)
    one = conversation_messages(locomo, convs[0])
    everything = [m for conv in convs for m in conversation_messages(locomo, conv)]
    big = list(islice(cycle(everything), turns))
    compress(one[:60], 40, 10)  # warm-up: imports scikit-learn once, outside the timings

    rows = []
    for label, history in ((f"{convs[0]['sample_id']}", one), (f"{turns:,} turns", big)):
        for mode in ("chars4", "tiktoken_cl100k"):
            times, result = timed(lambda h=history, m=mode: compress(h, 40, 10, token_mode=m), repeat)
            rows.append((f"compress {label}", len(history), mode, times, result.tokens_before,
                         result.tokens_after, len(result.summary or "")))
    for mode in ("chars4", "tiktoken_cl100k"):
        times, pack = timed(lambda mode=mode: build_pack(None, one if one[-1]["role"] == "user" else one + [
            {"role": "user", "content": "What did we talk about?"}], token_mode=mode, budget=2000), repeat)
        rows.append(("pack (budget 2000)", len(one), mode, times, None, pack.manifest.total_tokens, None))

    click.echo(f"{'operation':<26} {'msgs':>6} {'mode':<16} {'median s':>9} {'max s':>7} "
               f"{'tokens in':>10} {'tokens out':>10} {'summary ch':>10}")
    for op, n, mode, times, before, after, chars in rows:
        click.echo(f"{op:<26} {n:>6,} {mode:<16} {statistics.median(times):>9.3f} {max(times):>7.3f} "
                   f"{'' if before is None else f'{before:,}':>10} {after:>10,} "
                   f"{'' if chars is None else f'{chars:,}':>10}")
    click.echo(f"({repeat} runs each; 2-core machine shared with other work, so treat as upper bounds)")


if __name__ == "__main__":
    main()
