"""``SimilarList``: how the current proposal relates to the approved memories — the ones it
replaces, contradicts or repeats (``facts.relate`` via ``store.corrections.find_related``) and the
most similar ones with their scores.

Beside a proposal it answers "do I already know this?" (a duplicate), "does this replace something
I know?" (a correction: approving it supersedes the old record) and "does this say the opposite of
something I know?" (a contradiction) before the owner approves.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from bestie_tui.facts.relations import relate
from bestie_tui.store.records import MemoryRecord

from ..display import append

#: The label shown beside an approved memory for each relation kind (a hint, not a verdict).
HINTS = {"duplicate": "possible duplicate", "correction": "replaces", "contradiction": "possible contradiction",
         "event_vs_state": "one-off event against this", "related": "related — review"}


def _hint(relation) -> str | None:
    if relation.kind == "correction" and not relation.strong:
        return "may replace"
    return HINTS.get(relation.kind)


def relation_hint(proposal: str, memory: str, score: float | None = None) -> str | None:
    """The hint for an approved ``memory`` beside a ``proposal``: ``possible duplicate``,
    ``replaces`` (the proposal corrects it), ``possible contradiction``, ``one-off event against
    this``, or ``None`` for compatible memories. ``score`` is not used (the relation decides)."""
    return _hint(relate(memory, proposal))


class SimilarList(Static):
    """Renders related memories first (with their reason), then ``[(record, score), ...]`` best
    first; ``loading`` shows while the lookup runs."""

    def show(self, proposal_text: str, results: list[tuple[MemoryRecord, float]], related=None) -> None:
        related = list(related or [])
        by_id = {r.memory.id: r for r in related}
        if not results and not related:
            self.update(Text("No approved memory is similar.", style="italic"))
            return
        out = Text()
        shown: set[int] = set()
        entries = [(r.memory, None, r) for r in related if r.memory.id not in {m.id for m, _ in results}]
        entries += [(m, score, by_id.get(m.id)) for m, score in results]
        for n, (record, score, rel) in enumerate(entries):
            if record.id in shown:
                continue
            shown.add(record.id)
            if n:
                out.append("\n\n")
            out.append("rel." if score is None else f"{score:.2f}", style="bold")
            hint = _hint(rel.relation) if rel is not None else None
            if hint:
                out.append("  ")
                out.append(hint + (f" #{record.id}" if rel.relation.kind == "correction" else ""),
                           style="bold reverse")
            append(out, f"\n#{record.id} · {record.kind}")
            if record.user:
                append(out, f" · {record.user}", single_line=True)
            out.append("\n")
            append(out, record.text)
            if rel is not None:
                out.append("\n")
                append(out, rel.relation.reason, "italic", single_line=True)
        self.update(out)

    def show_message(self, message: str) -> None:
        self.update(Text(message, style="italic"))
