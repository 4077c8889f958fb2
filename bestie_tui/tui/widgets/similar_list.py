"""``SimilarList``: the approved memories most like the current proposal, with their scores.

Beside a proposal it answers "do I already know this?" (a duplicate) and "does this say the
opposite of something I know?" (a contradiction) before the owner approves.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from bestie_tui.store.records import MemoryRecord
from bestie_tui.text.analysis import NEGATIONS
from bestie_tui.text.words import stem, tokens

from ..display import append

#: Scores (IDF cosine, 0..1) from which a pair is flagged, read off the demo database: rephrasings of
#: one fact score 0.5–0.85 there, unrelated records about the same project or person at most ~0.38.
DUPLICATE_AT = 0.45
CONTRADICTION_AT = 0.3

#: Stems that turn a statement negative besides plain negations ("hates durian" vs "loves durian").
NEGATIVE_STEMS = frozenset({"hate", "dislik", "avoid", "refus", "detest", "stop", "quit"})


def is_negative(text: str) -> bool:
    """True when ``text`` holds a negation (``vectors.NEGATIONS``) or a negative verb."""
    words = tokens(text)
    return bool(NEGATIONS.intersection(words)) or any(stem(w) in NEGATIVE_STEMS for w in words)


def relation_hint(proposal: str, memory: str, score: float) -> str | None:
    """``"possible contradiction"`` when the texts are alike but only one is negative, ``"possible
    duplicate"`` when they are very alike, else ``None``. A hint for the owner, not a verdict."""
    if score >= CONTRADICTION_AT and is_negative(proposal) != is_negative(memory):
        return "possible contradiction"
    if score >= DUPLICATE_AT:
        return "possible duplicate"
    return None


class SimilarList(Static):
    """Renders ``[(record, score), ...]`` best first; ``loading`` shows while the lookup runs."""

    def show(self, proposal_text: str, results: list[tuple[MemoryRecord, float]]) -> None:
        if not results:
            self.update(Text("No approved memory is similar.", style="italic"))
            return
        out = Text()
        for n, (record, score) in enumerate(results):
            if n:
                out.append("\n\n")
            out.append(f"{score:.2f}", style="bold")
            hint = relation_hint(proposal_text, record.text, score)
            if hint:
                out.append("  ")
                out.append(hint, style="bold reverse")
            append(out, f"\n#{record.id} · {record.kind}")
            if record.user:
                append(out, f" · {record.user}", single_line=True)
            out.append("\n")
            append(out, record.text)
        self.update(out)

    def show_message(self, message: str) -> None:
        self.update(Text(message, style="italic"))
