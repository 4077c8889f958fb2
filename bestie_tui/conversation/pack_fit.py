"""Fitting a prompt pack into a token budget (used by ``pack.build_pack``).

When the pack must shrink it gives things up in one fixed order, each step exact (token counts are
recomputed, never estimated), each stopping as soon as the pack fits:

1. **chatter in the summary** — greetings and remarks (``extract.classify``), oldest first;
2. **older artifact excerpts** — every artifact but the newest (by modification time), oldest first,
   each down to its cut marker (``shrink_artifacts``);
3. **older summary detail** — day-group lines oldest first (a list gives up its last items first and
   its ``… and N more items`` line grows), then the other lines (``Names:``…) from the bottom;
4. **recent turns** — fewer verbatim turns; they move into the summary (``fit_history``), whose
   chatter and detail go as above;
5. the newest artifact, down to its marker;
6. decisions, open tasks and open questions of the summary, oldest first, down to the bare header.

So the task, the newest user message, a decision or an open task are never given up while chatter
remains. ``smallest_history``/``smallest_excerpt`` are the end points of those same steps: the floor
``build_pack`` checks is exactly what the steps reach, so a pack that fits one budget fits every
larger one. ``SummaryTrim.dropped`` counts what each step removed, for the manifest.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from bestie_tui.conversation.artifacts import Excerpt, recut
from bestie_tui.conversation.compress import CompressionResult, message_tokens
from bestie_tui.conversation.extract import classify
from bestie_tui.conversation.pins import is_pinned, is_summary, make_pin
from bestie_tui.conversation.summary_format import ITEM_INDENT, SECTIONS, turns_text

#: The drop classes of summary lines, in the order the budget gives them up.
CHATTER, DETAIL, PRIORITY = "chatter", "detail", "priority"

_LIST_HEAD = re.compile(r"^- (?:\[[^\]]*\] )?.+?, a list of (?P<n>[\d,]+) items? \((?P<turns>turns? (?P<a>\d+)(?:–(?P<b>\d+))?)\):")
_ITEM = re.compile(r"^\s+\d+\. ")
_MORE = re.compile(r"^\s+… and [\d,]+ more items? \(")


def artifact_message(ex: Excerpt) -> dict[str, str]:
    """The pin of an excerpt (``[ARTIFACT]`` or its segment's prefix): ``path: …`` then the text."""
    return make_pin(ex.prefix, f"path: {ex.path}\n{ex.text}")


def _summary_index(comp: CompressionResult) -> int | None:
    return next((i for i, m in enumerate(comp.messages) if comp.summary and m.get("content") == comp.summary), None)


def _with_body(comp: CompressionResult, lines: list[str]) -> CompressionResult:
    """A copy of ``comp`` whose summary body is ``lines`` (the header and closing marker stay)."""
    idx = _summary_index(comp)
    if idx is None:
        return comp
    parts = comp.summary.split("\n")
    content = "\n".join([parts[0], *lines, parts[-1]])
    messages = list(comp.messages)
    messages[idx] = {"role": "system", "content": content}
    return replace(comp, messages=messages, summary=content)


@dataclass
class _Atom:
    line: str
    cls: str | None      # chatter / detail / priority; None for headers and list count lines
    group: int           # the header it sits under (-1: none)
    list_of: int = -1    # for items and count lines: the index of their list's header atom
    kept: bool = True


class SummaryTrim:
    """The summary of one compression, line by line, with what the budget has dropped so far."""

    def __init__(self, comp: CompressionResult):
        self.comp = comp
        self.dropped: dict[str, int] = {CHATTER: 0, DETAIL: 0, PRIORITY: 0}
        self.atoms: list[_Atom] = []
        idx = _summary_index(comp)
        if idx is None:
            return
        body = comp.summary.split("\n")[1:-1]
        group, section, head = -1, False, -1
        for line in body:
            if line in SECTIONS.values() or line.startswith("## "):
                group, section = len(self.atoms), line in SECTIONS.values()
                self.atoms.append(_Atom(line, None, -1))
                continue
            if head >= 0 and (_ITEM.match(line) or _MORE.match(line)):
                self.atoms.append(_Atom(line, None if _MORE.match(line) else (PRIORITY if section else DETAIL),
                                        group, list_of=head))
                continue
            head = len(self.atoms) if _LIST_HEAD.match(line) else -1
            if section:
                cls = PRIORITY
            elif line.startswith("- ") and head < 0:
                text = line[2:].split(": ", 1)[-1] if ": " in line[:60] else line[2:]
                cls = CHATTER if classify(text) == "chatter" else DETAIL
            else:
                cls = DETAIL
            self.atoms.append(_Atom(line, cls, group))

    @property
    def has_summary(self) -> bool:
        return _summary_index(self.comp) is not None

    def _order(self, cls: str) -> list[int]:
        """Atoms of ``cls`` in the order they are given up: ``- `` lines and lists oldest first (a
        list's items from its last, then its header), then other lines from the bottom."""
        lines, others = [], []
        for i, a in enumerate(self.atoms):
            if a.cls != cls or a.list_of >= 0:
                continue
            if _LIST_HEAD.match(a.line):
                items = [j for j, b in enumerate(self.atoms) if b.list_of == i and b.cls is not None]
                lines += list(reversed(items)) + [i]
            elif a.line.startswith("- "):
                lines.append(i)
            else:
                others.append(i)
        return lines + list(reversed(others))

    def result(self) -> CompressionResult:
        """The compression with the kept lines (headers of empty groups dropped, list counts updated)."""
        if not self.has_summary or all(a.kept for a in self.atoms):
            return self.comp
        out: list[str] = []
        for i, a in enumerate(self.atoms):
            if a.cls is None and a.list_of < 0:  # a header: kept while something under it is
                if any(b.kept and b.cls is not None for b in self.atoms if b.group == i):
                    out.append(a.line)
                continue
            if not a.kept:
                continue
            if a.list_of >= 0 and a.cls is None:
                continue  # the count line is rewritten below, from what is still shown
            out.append(a.line)
            if _LIST_HEAD.match(a.line):
                out += self._list_tail(i)
        return _with_body(self.comp, out)

    def _list_tail(self, head: int) -> list[str]:
        m = _LIST_HEAD.match(self.atoms[head].line)
        assert m is not None
        items = [a for a in self.atoms if a.list_of == head and a.cls is not None]
        shown = [a.line for a in items if a.kept]
        hidden = int(m.group("n").replace(",", "")) - len(shown)
        first = int(m.group("a"))
        tail = [f"{ITEM_INDENT}… and {hidden:,} more item{'s' if hidden != 1 else ''} "
                f"({turns_text(first, int(m.group('b') or first))})"] if hidden > 0 else []
        return shown + tail

    def drop(self, cls: str, fits: Callable[[CompressionResult], bool]) -> CompressionResult:
        """Drop lines of ``cls`` (in ``_order``) until ``fits``; returns the compression as it stands."""
        current = self.result()
        for i in self._order(cls):
            if fits(current):
                break
            self.atoms[i].kept = False
            self.dropped[cls] += 1
            current = self.result()
        return current

    def drop_all(self, *classes: str) -> CompressionResult:
        for cls in classes:
            for i in self._order(cls):
                if self.atoms[i].kept:
                    self.atoms[i].kept = False
                    self.dropped[cls] += 1
        return self.result()


def smallest_history(comp: CompressionResult) -> CompressionResult:
    """``comp`` (a keep-0 compression) with its summary trimmed to the header: the history's floor."""
    return _with_body(comp, [])


def fit_history(compress_at: Callable[[int], CompressionResult], keep_recent: int, n_messages: int,
                fits: Callable[[CompressionResult], bool]) -> tuple[CompressionResult, SummaryTrim]:
    """Step 4: the forced compression with the largest ``keep`` below ``keep_recent`` that fits once
    its summary's chatter and detail are gone (bisection), else ``keep`` 0; then as much of that
    summary's detail as fits is given back (chatter, then detail, are dropped only as needed)."""
    lo, hi, best = 0, max(0, min(keep_recent, n_messages) - 1), None
    while lo <= hi:
        mid = (lo + hi) // 2
        if fits(SummaryTrim(compress_at(mid)).drop_all(CHATTER, DETAIL)):
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    trim = SummaryTrim(compress_at(best or 0))
    trim.drop(CHATTER, fits)
    trim.drop(DETAIL, fits)
    return trim.result(), trim


def smallest_excerpt(ex: Excerpt, mode: str) -> Excerpt:
    """The smaller (in tokens) of ``ex`` and its marker alone: the artifact's floor."""
    bare = recut(ex, 0)
    return bare if message_tokens(artifact_message(bare), mode) < message_tokens(artifact_message(ex), mode) else ex


def age_order(excerpts: list[Excerpt]) -> list[int]:
    """Indices of ``excerpts`` oldest first (modification time; unknown times count as oldest;
    ties: the larger excerpt first)."""
    return sorted(range(len(excerpts)), key=lambda i: (excerpts[i].mtime or 0.0, -len(excerpts[i].text)))


def shrink_artifacts(excerpts: list[Excerpt], mode: str, fits: Callable[[list[Excerpt]], bool],
                     which: list[int] | None = None) -> list[Excerpt]:
    """Show fewer characters of the artifacts ``which`` (indices, in that order; default all, oldest
    first), each down to its marker alone, until ``fits``; per artifact the largest count that fits
    is found by bisection."""
    out = list(excerpts)
    for i in age_order(out) if which is None else which:
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


@dataclass
class Fitted:
    """What ``fit_pack`` settled on: the compression, the excerpts, and ``dropped``, one line per step
    that gave something up, in order (for the manifest)."""

    comp: CompressionResult
    excerpts: list[Excerpt]
    dropped: list[str]
    trimmed_summary: bool


def _verbatim(comp: CompressionResult) -> int:
    """Turns kept verbatim: neither pins, nor the summary, nor the leading system prompt."""
    n, opening = 0, True
    for m in comp.messages:
        if is_pinned(m) or is_summary(m) or (opening and m.get("role") == "system"):
            continue
        opening = False
        n += 1
    return n


def _lines(n: int, what: str) -> str:
    return f"{n:,} {what} line{'s' if n != 1 else ''}"


def _cuts(before: list[Excerpt], after: list[Excerpt], which: list[int]) -> list[str]:
    return [f"{after[i].path} to {after[i].shown:,} characters" for i in which
            if after[i].shown != before[i].shown or after[i].cut != before[i].cut]


def fit_pack(comp: CompressionResult, excerpts: list[Excerpt], compress_at: Callable[[int], CompressionResult],
             keep_recent: int, n_messages: int, fits: Callable[[CompressionResult, list[Excerpt]], bool],
             mode: str) -> Fitted:
    """Give the pack up in the module's order until ``fits(compression, excerpts)``.

    Args:
        comp: the compression at the caller's threshold and keep.
        excerpts: the artifacts as read.
        compress_at: ``keep`` → a forced compression keeping that many turns (cached by the caller).
        keep_recent / n_messages: the caller's keep and the history's length.
        fits: whether a pack with this history and these excerpts is within the budget.
        mode: token mode (for the artifacts' floors).
    """
    dropped: list[str] = []
    trim = SummaryTrim(comp)

    def summary_fits(c: CompressionResult) -> bool:
        return fits(c, excerpts)

    comp = trim.drop(CHATTER, summary_fits)
    if trim.dropped[CHATTER]:
        dropped.append(f"summary: {_lines(trim.dropped[CHATTER], 'chatter')}")
    ages = age_order(excerpts)
    older, newest = ages[:-1], ages[-1:]
    if not fits(comp, excerpts) and older:
        shrunk = shrink_artifacts(excerpts, mode, lambda exs: fits(comp, exs), older)
        cut = _cuts(excerpts, shrunk, older)
        excerpts = shrunk
        if cut:
            dropped.append("older artifacts cut: " + ", ".join(cut))
    if not fits(comp, excerpts):
        comp = trim.drop(DETAIL, summary_fits)
        if trim.dropped[DETAIL]:
            dropped.append(f"summary: {_lines(trim.dropped[DETAIL], 'older detail')}")
    if not fits(comp, excerpts):
        before = _verbatim(comp)
        comp, trim = fit_history(compress_at, keep_recent, n_messages, summary_fits)
        moved = before - _verbatim(comp)
        gone = trim.dropped[CHATTER] + trim.dropped[DETAIL]
        dropped.append(f"history: {moved:,} recent turn{'s' if moved != 1 else ''} moved into the summary"
                       + (f", {_lines(gone, 'chatter or detail')} of it dropped" if gone else ""))
    if not fits(comp, excerpts) and newest:
        shrunk = shrink_artifacts(excerpts, mode, lambda exs: fits(comp, exs), newest)
        cut = _cuts(excerpts, shrunk, newest)
        excerpts = shrunk
        if cut:
            dropped.append("newest artifact cut: " + ", ".join(cut))
    if not fits(comp, excerpts):
        comp = trim.drop(PRIORITY, summary_fits)
        if trim.dropped[PRIORITY]:
            dropped.append(f"summary: {_lines(trim.dropped[PRIORITY], 'decision, task or question')}")
    return Fitted(comp, excerpts, dropped, any(trim.dropped.values()))


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
