"""Fitting a prompt pack into a token budget (used by ``pack.build_pack``).

The pack is given up in one fixed order, each step exact (token counts are recomputed, never
estimated): verbatim history turns (they move into the summary; ``fit_history``), then the summary
body line by line — its oldest ``- `` lines first, then its other lines (``Dates:``, then ``Names:``)
from the bottom — down to the bare ``[CONTEXT_SUMMARY …]`` header (``trim_summary``), then artifact
text down to the cut marker alone (``shrink_artifacts``). ``smallest_history``/``smallest_excerpt``
are the end points of those same steps, so the floor that ``build_pack`` checks is exactly what the
steps reach: a pack that fits one budget fits every larger one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bestie_tui.conversation.artifacts import Excerpt, recut
from bestie_tui.conversation.compress import CompressionResult, message_tokens
from bestie_tui.conversation.pins import ARTIFACT, is_pinned, is_summary, make_pin


def artifact_message(ex: Excerpt) -> dict[str, str]:
    """The ``[ARTIFACT]`` pin of an excerpt: ``path: …`` then the text."""
    return make_pin(ARTIFACT, f"path: {ex.path}\n{ex.text}")


def _summary_index(comp: CompressionResult) -> int | None:
    return next((i for i, m in enumerate(comp.messages) if comp.summary and m.get("content") == comp.summary), None)


def _with_summary_lines(comp: CompressionResult, lines: list[str]) -> CompressionResult:
    """A copy of ``comp`` whose summary body is ``lines`` (the header and closing marker stay)."""
    idx = _summary_index(comp)
    if idx is None:
        return comp
    parts = comp.summary.split("\n")
    content = "\n".join([parts[0], *lines, parts[-1]])
    messages = list(comp.messages)
    messages[idx] = {"role": "system", "content": content}
    return replace(comp, messages=messages, summary=content)


def _drop_order(lines: list[str]) -> list[int]:
    """Body line indices in the order they are given up: ``- `` lines oldest first, then the others
    from the bottom (``Dates:`` before ``Names:``)."""
    bullets = [i for i, line in enumerate(lines) if line.startswith("- ")]
    others = [i for i in range(len(lines) - 1, -1, -1) if not lines[i].startswith("- ")]
    return bullets + others


def smallest_history(comp: CompressionResult) -> CompressionResult:
    """``comp`` (a keep-0 compression) with its summary trimmed to the header: the history's floor."""
    return _with_summary_lines(comp, [])


def trim_summary(comp: CompressionResult, fits: Callable[[CompressionResult], bool]) -> tuple[CompressionResult, bool]:
    """Drop summary body lines in ``_drop_order`` until ``fits``; ``(result, whether any was dropped)``."""
    if _summary_index(comp) is None:
        return comp, False
    body = comp.summary.split("\n")[1:-1]
    keep = [True] * len(body)
    current = comp
    for i in _drop_order(body):
        if fits(current):
            break
        keep[i] = False
        current = _with_summary_lines(comp, [line for line, k in zip(body, keep) if k])
    return current, not all(keep)


def fit_history(compress_at: Callable[[int], CompressionResult], keep_recent: int, n_messages: int,
                fits: Callable[[CompressionResult], bool]) -> CompressionResult:
    """The forced compression with the largest ``keep`` ≤ ``keep_recent`` that ``fits`` (bisection:
    fewer verbatim turns is smaller, up to the summary's cap), else the one with ``keep`` 0."""
    lo, hi, best = 0, min(keep_recent, n_messages), None
    while lo <= hi:
        mid = (lo + hi) // 2
        trial = compress_at(mid)
        if fits(trial):
            best, lo = trial, mid + 1
        else:
            hi = mid - 1
    return best or compress_at(0)


def smallest_excerpt(ex: Excerpt, mode: str) -> Excerpt:
    """The smaller (in tokens) of ``ex`` and its marker alone: the artifact's floor."""
    bare = recut(ex, 0)
    return bare if message_tokens(artifact_message(bare), mode) < message_tokens(artifact_message(ex), mode) else ex


def shrink_artifacts(excerpts: list[Excerpt], mode: str, fits: Callable[[list[Excerpt]], bool]) -> list[Excerpt]:
    """Show fewer characters of the artifacts, largest first, each down to its marker alone, until
    ``fits``; per artifact the largest count that fits is found by bisection."""
    out = list(excerpts)
    for i in sorted(range(len(out)), key=lambda i: -len(out[i].text)):
        if fits(out):
            break
        ex = out[i]
        floor = smallest_excerpt(ex, mode)
        if floor is ex:
            continue
        out[i] = floor
        if not fits(out):
            continue
        lo, hi, best = 1, ex.shown - 1, floor
        while lo <= hi:
            mid = (lo + hi) // 2
            out[i] = recut(ex, mid)
            if fits(out):
                best, lo = out[i], mid + 1
            else:
                hi = mid - 1
        out[i] = best
    return out


def floor_parts(fixed: list[tuple[str, list[dict[str, Any]]]], history: CompressionResult,
                excerpts: list[Excerpt], mode: str, reply_tokens: int) -> list[tuple[str, int]]:
    """``[(part name, tokens)]`` of the smallest pack: the fixed parts given, then the history's
    system prompt, pins, summary header and newest turn(s), the artifacts' floors, the reply priming."""
    head, pins, summary, newest = [], [], [], []
    for m in history.messages:
        if is_pinned(m):
            pins.append(m)
        elif is_summary(m):
            summary.append(m)
        elif m.get("role") == "system" and not (summary or newest):
            head.append(m)
        else:
            newest.append(m)
    groups = fixed + [("system prompt", head), ("history pins", pins), ("summary header", summary),
                      ("newest turn", newest),
                      ("artifacts at their smallest", [artifact_message(smallest_excerpt(e, mode)) for e in excerpts])]
    parts = [(name, sum(message_tokens(m, mode) for m in msgs)) for name, msgs in groups]
    return [(name, n) for name, n in parts if n] + [("reply priming", reply_tokens)]
