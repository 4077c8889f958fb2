"""``FittingFooter``: Textual's footer, cut to the keys that fit the terminal's width.

The view's keys come in the order the view lists them (most used first), after help and quit; a key
that would not fit is left out whole rather than cut mid-word, and ``?`` (help) lists every key.

It recomposes only when what it shows would change (the keys, their state, the width): Textual asks
a footer to recompose on every focus or binding change, several times while a view opens, and each
recompose restyles every key (issue 17).
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

    _shown: tuple | None = None

    def _signature(self) -> tuple | None:
        """What the footer would show: its width and the shown keys with their state."""
        if not self._bindings_ready or not self.is_attached:
            return None
        keys = tuple((binding.key, binding.description, binding.action, enabled, tooltip)
                     for (_, binding, enabled, tooltip) in self.screen.active_bindings.values() if binding.show)
        return (self.size.width or self.app.size.width, self.show_command_palette, keys)

    async def recompose(self) -> None:
        signature = self._signature()
        if signature is not None and signature == self._shown:
            return
        await super().recompose()

    def compose(self) -> ComposeResult:
        self._shown = self._signature()
        budget = self.size.width or self.app.size.width
        keys = list(super().compose())
        for k in keys:
            if isinstance(k, FooterKey) and k._reactive_connect:
                # Footer binds each key's ``compact`` to its own (never changed here); the binding
                # restyles each key twice as it mounts. Set the value once instead.
                k._reactive_connect = None
                k.set_reactive(FooterKey.compact, self.compact)
            elif isinstance(k, FooterKey):
                # An unbound key (the palette's) is compact by default: give it the class now, not
                # by a restyle when it mounts.
                k.set_class(k.compact, "-compact", update=False)
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
