"""The offline summarizer: evicted turns (and the previous summary) → one structured summary body.

``ExtractiveSummarizer(max_chars)(previous, messages)`` returns a body in the shape of
``summary_format`` — decisions, open tasks and open questions first, then one group per day with its
date, each line saying who said it, then ``Names:`` — at most ``max_chars`` characters. Compression
calls it with the previous summary's body, so the first compression and every merge give the same
shape: the previous body is read back (``summary_format.parse_body``) and its entries compete again
with the new ones.

What is kept, in this order, while room is left:

1. decisions, open tasks, open questions, newest first, up to ``PRIORITY_SHARE`` of the cap (the
   others wait for step 4, and those that never fit are counted: ``… and 3 more open tasks (turns 4–9)``);
2. lists: each keeps its first items, round robin across lists, up to ``LIST_SHARE`` of the cap, and
   says how many more there were (``… and 31 more items (turns 12–14)``): an item is shown or
   counted, never lost silently;
3. facts, chosen greedily by budgeted coverage (Lin & Bilmes, *Multi-document summarization via
   budgeted maximization of submodular functions*, NAACL 2010): the entry whose not-yet-covered
   content words weigh most per character comes next, a word weighing ``log(1 + occurrences) ×
   max(idf − 1, IDF_FLOOR)`` over the candidates (topics that recur count, words said everywhere do not), times
   a bonus for names, dates and numbers (a number counts with its neighbours: "12 km" is not
   "turn 12"). Covering each word once is what keeps near-repeats out and
   brings distinct facts in;
4. the priority entries that waited, more list items, then chatter (greetings, short remarks, each
   said once) only in the room that is left;
5. ``Names:`` (up to ``NAME_SHARE``): names said at least twice that no kept line mentions.

scikit-learn is imported lazily (only to count words).
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable
from typing import Any

from bestie_tui.conversation.extract import (  # noqa: F401 (API: message helpers live beside the reader)
    DATE,
    MAX_SENTENCE_CHARS,
    MIN_WORDS,
    extract,
    find_names,
    has_fact,
    message_day,
    message_text,
    shorten,
    speaker,
)
from bestie_tui.conversation.summary_format import (
    PRIORITY_KINDS,
    SECTIONS,
    Entry,
    day_header,
    entry_lines,
    parse_body,
    render_body,
)

DEFAULT_MAX_CHARS = 2000
#: Shares of the cap: decisions/tasks/questions, the first pass over lists, the ``Names:`` line.
PRIORITY_SHARE = 0.6
LIST_SHARE = 0.5
NAME_SHARE = 0.12
#: Items every list shows before any list shows more (when they fit).
MIN_LIST_ITEMS = 3
NAME_BONUS, DATE_BONUS, NUMBER_BONUS = 0.3, 0.3, 0.15
#: Least weight of a word found in every candidate (idf − 1 = 0), so a single fact still counts.
IDF_FLOOR = 0.05
#: Gain is divided by cost ** COST_EXPONENT (Lin & Bilmes' scaling factor r; 1 = per character).
COST_EXPONENT = 1.0
#: Room kept for a ``… and N more open tasks (turns a–b)`` line.
COUNT_LINE_CHARS = 48


class _Layout:
    """Exact character cost of adding entries to a body as ``render_body`` writes it."""

    def __init__(self) -> None:
        self.groups: set[tuple[str, str | None]] = set()
        self.used = 0
        self.shown: dict[int, int] = {}
        self.chosen: list[Entry] = []

    @staticmethod
    def _group(e: Entry) -> tuple[str, str | None]:
        return (e.kind, None) if e.kind in SECTIONS else ("day", e.day)

    def _header_cost(self, e: Entry) -> int:
        group = self._group(e)
        if group in self.groups:
            return 0
        kind, day = group
        if kind != "day":
            own = len(SECTIONS[kind]) + 1
        else:  # an undated group of plain lines has no header while nothing else is in the body
            own = len(day_header(day)) + 1 if day is not None or self.groups else 0
        # ...and gets its "## Undated" header once another group appears.
        retro = len(day_header(None)) + 1 if self.groups == {("day", None)} else 0
        return own + retro

    def cost(self, e: Entry, items: int | None = None) -> int:
        dated = e.kind in SECTIONS
        lines = entry_lines(e, items, dated=dated)
        return sum(len(line) + 1 for line in lines) + self._header_cost(e)

    def add(self, e: Entry, items: int | None = None) -> None:
        self.used += self.cost(e, items)
        self.groups.add(self._group(e))
        self.chosen.append(e)
        if e.is_list:
            self.shown[id(e)] = len(e.items) if items is None else items

    def grow(self, e: Entry) -> int:
        """Cost of showing one more item of list ``e`` (already added)."""
        n = self.shown[id(e)]
        dated = e.kind in SECTIONS
        now = sum(len(x) + 1 for x in entry_lines(e, n, dated))
        return sum(len(x) + 1 for x in entry_lines(e, n + 1, dated)) - now


class ExtractiveSummarizer:
    """Callable ``(previous_summary_body | None, evicted_messages) -> summary body`` (plain text).

    Args:
        max_chars: cap on the returned body, in characters (default 2000; at least 80).

    ``first_turn`` (keyword) numbers the first evicted message in the conversation, so lists say
    which turns they came from; ``compress`` passes it. When no entry, name or list is found, the
    body is one line ``- N short turns without a sentence to keep (samples)``; ``""`` only for no
    messages.

    Raises:
        InvalidValueError: ``max_chars`` under 80.
    """

    def __init__(self, max_chars: int = DEFAULT_MAX_CHARS):
        if int(max_chars) < 80:
            from bestie_tui.errors import InvalidValueError

            raise InvalidValueError(f"summary cap must be at least 80 characters, not {max_chars}")
        self.max_chars = int(max_chars)

    def __call__(self, previous: str | None, messages: list[dict[str, Any]], *, first_turn: int = 1) -> str:
        from bestie_tui.text.analysis import stop_words

        stop = stop_words() | {"i", "im", "ive", "id", "ill"}
        old, old_names, hidden = parse_body(previous or "")
        new, found, short = extract(messages, first_turn, stop)
        speakers = {speaker(m) for m in messages} | {e.who for e in old if e.who}
        names = _real_names(new, found, messages, old_names, speakers)
        entries = old + new
        body = self._select(entries, names, hidden, speakers)
        if not body and messages:
            # Never an empty summary: the evicted turns are at least counted and sampled.
            sample = shorten(", ".join(dict.fromkeys(short)), 80)
            turns = f"{len(messages)} short turn{'s' if len(messages) != 1 else ''}"
            body = f"- {turns} without a sentence to keep" + (f" ({sample})" if sample else "")
        return body[: self.max_chars]

    # --------------------------------------------------------------- selection
    def _select(self, entries: list[Entry], names: Counter, hidden: dict[str, tuple[int, int, int]],
                speakers: set[str]) -> str:
        cap = self.max_chars
        layout = _Layout()
        hidden = dict(hidden)
        name_room = min(int(cap * NAME_SHARE), len(", ".join(names)) + 8) if names else 0
        room = cap - name_room
        # 1. decisions, open tasks, open questions: newest first, up to PRIORITY_SHARE; the rest wait.
        waiting: dict[str, list[Entry]] = {}
        for kind in PRIORITY_KINDS:
            members = sorted((e for e in entries if e.kind == kind), key=lambda e: e.order, reverse=True)
            for e in members:
                items = min(len(e.items), MIN_LIST_ITEMS) if e.is_list else None
                if not waiting.get(kind) and layout.used + layout.cost(e, items) + COUNT_LINE_CHARS <= room * PRIORITY_SHARE:
                    layout.add(e, items)
                else:
                    waiting.setdefault(kind, []).append(e)
            if waiting.get(kind) or hidden.get(kind):  # room for the "… and N more" line
                layout.used += COUNT_LINE_CHARS + (0 if (kind, None) in layout.groups else len(SECTIONS[kind]) + 1)
                layout.groups.add((kind, None))
        # 2. lists, round robin, up to LIST_SHARE of the cap.
        lists = sorted((e for e in entries if e.is_list and e.kind not in PRIORITY_KINDS), key=lambda e: e.order)
        self._lists(layout, lists, room * LIST_SHARE, first_pass=True)
        # 3. facts by budgeted coverage.
        facts = [e for e in entries if e.kind == "fact" and not e.is_list]
        self._coverage(layout, facts, room, speakers, set(names))
        # 4. the priority entries that waited, newest first, in any room left; then more list items.
        for kind, members in waiting.items():
            for e in list(members):
                items = min(len(e.items), MIN_LIST_ITEMS) if e.is_list else None
                if layout.used + layout.cost(e, items) <= room:
                    layout.add(e, items)
                    members.remove(e)
                else:
                    break  # newest first: an older one never jumps a newer one that did not fit
            if not members and not hidden.get(kind):
                layout.used -= COUNT_LINE_CHARS  # no "… and N more" line after all
        for kind, members in waiting.items():
            if members:
                n, first, last = hidden.get(kind, (0, 0, 0))
                turns = [t for t in [first] + [e.turn for e in members] if t]
                hidden[kind] = (n + len(members), min(turns) if turns else 0, max([last] + [e.last for e in members]))
        self._lists(layout, [e for e in layout.chosen if e.is_list], room, first_pass=False)
        # 5. chatter, each remark once, in the room that is left.
        said: set[str] = set()
        for e in sorted((e for e in entries if e.kind == "chatter" and not e.is_list), key=lambda e: e.order):
            key = " ".join(e.text.lower().split())
            if key not in said and layout.used + layout.cost(e) <= room:
                layout.add(e)
                said.add(key)
        # 6. names no kept line mentions.
        shown_text = " ".join(" ".join(entry_lines(e, layout.shown.get(id(e)))) for e in layout.chosen)
        spare = cap - layout.used - len("Names: ") - 1
        name_list = _fit_names([n for n, _ in _ranked(names) if n not in shown_text], spare)
        hidden = {k: v for k, v in hidden.items() if v[0]}
        body = render_body(layout.chosen, layout.shown, name_list, hidden)
        while len(body) > cap and layout.chosen:  # the cost model is exact; this is a guard
            layout.chosen.pop()
            body = render_body(layout.chosen, layout.shown, name_list, hidden)
        return body

    def _lists(self, layout: _Layout, lists: list[Entry], limit: float, first_pass: bool) -> None:
        added = {id(e) for e in layout.chosen}
        for e in lists:
            if id(e) in added:
                continue
            if layout.used + layout.cost(e, 0) <= limit:
                layout.add(e, 0)
                added.add(id(e))
        live = [e for e in lists if id(e) in added]
        step = 0
        while live:
            step += 1
            if first_pass and step > MIN_LIST_ITEMS:
                first_pass = False  # every list has its first items: the rest in turn, while room lasts
            progressed = []
            for e in live:
                if layout.shown[id(e)] >= len(e.items):
                    continue
                cost = layout.grow(e)
                if layout.used + cost <= limit:
                    layout.used += cost
                    layout.shown[id(e)] += 1
                    progressed.append(e)
            live = progressed

    def _coverage(self, layout: _Layout, facts: list[Entry], room: float, speakers: set[str],
                  names: set[str]) -> None:
        if not facts:
            return
        concepts, weight = _concepts(facts, speakers)
        covered: set[int] = set()
        # the name bonus is for names said about someone, not vocatives
        bonus = [1.0 + NAME_BONUS * bool(names & set(e.text.replace(",", " ").split()))
                 + DATE_BONUS * bool(DATE.search(e.text))
                 + NUMBER_BONUS * any(ch.isdigit() for ch in e.text) for e in facts]

        def gain(i: int) -> float:
            return bonus[i] * sum(weight[c] for c in concepts[i] - covered)

        def ratio(i: int, cost: int) -> float:
            return gain(i) / max(1, cost) ** COST_EXPONENT

        heap = [(-ratio(i, layout.cost(e)), i) for i, e in enumerate(facts)]
        heapq.heapify(heap)
        while heap:
            neg, i = heapq.heappop(heap)
            cost = layout.cost(facts[i])
            if layout.used + cost > room:
                continue
            current = ratio(i, cost)
            if heap and current < -heap[0][0] - 1e-12:  # stale (lazy greedy: gains only shrink)
                heapq.heappush(heap, (-current, i))
                continue
            if current <= 0:
                break
            layout.add(facts[i])
            covered |= concepts[i]


def _concepts(facts: list[Entry], speakers: set[str]) -> tuple[list[set[int]], list[float]]:
    """Per fact, the indices of its content words; per word its weight (see the module docstring)."""
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    from bestie_tui.text.analysis import analyze_words

    def features(text: str) -> list[str]:
        # A number means something with its neighbours: "12 km" and "turn 12" are different facts.
        words = analyze_words(text)
        digits = [w[:1].isdigit() or w[-1:].isdigit() for w in words]
        return words + [f"{a} {b}" for a, b, da, db in zip(words, words[1:], digits, digits[1:]) if da or db]

    vectorizer = CountVectorizer(analyzer=features, binary=True)
    try:
        counts = vectorizer.fit_transform([e.text for e in facts])
    except ValueError:  # no content words at all
        return [set() for _ in facts], []
    idf = TfidfTransformer(smooth_idf=True).fit(counts).idf_
    # idf − 1 is 0 for a word in every candidate; the floor keeps a lone fact (or a few alike) worth keeping.
    weight = np.log1p(np.asarray(counts.sum(axis=0)).ravel()) * np.maximum(idf - 1.0, IDF_FLOOR)
    for name in speakers:  # speakers' names are mostly vocatives ("Thanks, Jon!")
        for feature in analyze_words(name):
            if feature in vectorizer.vocabulary_:
                weight[vectorizer.vocabulary_[feature]] = 0.0
    rows = counts.tocsr()
    concepts = [set(rows.indices[rows.indptr[i]:rows.indptr[i + 1]].tolist()) for i in range(len(facts))]
    return concepts, weight.tolist()


def _real_names(new: list[Entry], found: list[list[str]], messages: list[dict[str, Any]],
                previous: list[str], speakers: set[str]) -> Counter:
    """Names said at least twice, capitalised mid-sentence and not mostly in lowercase (without a
    dictionary one capitalised "Perfect" cannot be told from a name), speakers' names left out;
    names of the previous summary stay names."""
    import re

    counts: Counter[str] = Counter(n for names in found for n in names)
    lower: Counter[str] = Counter(w for m in messages for w in re.findall(r"[^\W\d_][\w'’-]*", message_text(m))
                                  if w.islower())
    real = Counter({n: c for n, c in counts.items() if c >= 2 and lower[n.lower()] < 5 * c})
    real.update({n: 2 for n in previous})
    return Counter({n: c for n, c in real.items() if not _is_speaker(n, speakers)})


def _ranked(names: Counter) -> list[tuple[str, int]]:
    return sorted(names.items(), key=lambda kv: (-kv[1], kv[0].lower()))


def _fit_names(names: list[str], room: int) -> list[str]:
    out: list[str] = []
    used = 0
    for n in names:  # most frequent first; a long name that does not fit leaves room for shorter ones
        cost = len(n) + (2 if out else 0)
        if used + cost > room:
            continue
        out.append(n)
        used += cost
    return out


def _is_speaker(name: str, speakers: set[str]) -> bool:
    """``name`` is a speaker's name, a part of it, or a short form of it ("Mel" for Melanie)."""
    for who in speakers:
        for part in who.split():
            if name == part or (len(name) >= 3 and part.startswith(name)):
                return True
    return False


def summarize(previous: str | None, messages: Iterable[dict[str, Any]], max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """Functional form of ``ExtractiveSummarizer(max_chars)(previous, list(messages))``."""
    return ExtractiveSummarizer(max_chars)(previous, list(messages))
