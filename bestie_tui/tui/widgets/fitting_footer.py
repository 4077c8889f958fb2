"""``FittingFooter``: Textual's footer, cut to the keys that fit the terminal's width.

The view's keys come in the order the view lists them (most used first), after help and quit; a key
that would not fit is left out whole rather than cut mid-word, and ``?`` (help) lists every key.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: Cells the command-palette key takes at the right edge (``▏^p palette ``).
PALETTE_CELLS = 13


def key_cells(key: FooterKey) -> int:
    """Cells one footer key takes: its key, its description and the padding around them."""
    return len(key.key_display) + len(key.description) + 3


class FittingFooter(Footer):
    """A footer that shows only the keys that fit, and recomposes when the terminal is resized."""

    def compose(self) -> ComposeResult:
        budget = self.size.width or self.app.size.width
        keys = list(super().compose())
        palette = [k for k in keys if isinstance(k, FooterKey) and k.has_class("-command-palette")]
        budget -= PALETTE_CELLS if palette else 0
        used = 0
        for k in keys:
            if not isinstance(k, FooterKey) or k in palette:
                continue
            used += key_cells(k)
            if used > budget:
                break
            yield k
        yield from palette

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.recompose)
