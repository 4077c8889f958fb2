"""``FittingFooter``: Textual's footer, cut to the keys that fit the terminal's width.

What it shows, left to right: the view's own keys in the order the view lists them (most used
first), then ``?`` (help, which lists every key), then the keys every view shares (quit, the view
switches 1–7), and the command palette at the right edge. As the terminal narrows the shared keys go
first (the view switches, then the palette, then quit), then the view's own keys from the last;
``?`` always stays. A key is shown whole or not at all, never cut.

It recomposes only when what it shows would change (the keys, their state, the width): Textual asks
a footer to recompose on every focus or binding change, several times while a view opens, and each
recompose restyles every key (issue 17).
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: Cells the command-palette key takes at the right edge (``▏^p palette ``).
PALETTE_CELLS = 13

#: Actions of the help key (kept whatever the width) and of the keys every view shares.
HELP_ACTIONS = frozenset({"app.help", "help"})
QUIT_ACTIONS = frozenset({"app.quit", "quit"})


def key_cells(key: FooterKey) -> int:
    """Cells one footer key takes: its key, its description and the padding around them."""
    return cell_len(key.key_display) + cell_len(key.description) + 3


def is_view_switch(key: FooterKey) -> bool:
    """Whether ``key`` switches view (``1``–``7``): shared by every view."""
    return key.action.startswith(("switch_mode(", "app.switch_mode("))


def choose_keys(keys: list[FooterKey], width: int) -> list[FooterKey]:
    """The keys to show in ``width`` cells, in the order they are drawn (see the module's doc).

    ``keys`` are Textual's (the palette key has the ``-command-palette`` class). The help key is
    always kept; the others are taken by priority while they fit whole: the view's own keys (a
    long one that does not fit leaves room for a shorter one after it), quit, the palette, then the
    view switches in order (the first that does not fit ends them, so 1 2 3 never skips to 5)."""
    palette = [k for k in keys if k.has_class("-command-palette")]
    rest = [k for k in keys if k not in palette]
    helps = [k for k in rest if k.action in HELP_ACTIONS][:1]
    quits = [k for k in rest if k.action in QUIT_ACTIONS][:1]
    switches = [k for k in rest if is_view_switch(k)]
    own = [k for k in rest if k.action not in HELP_ACTIONS | QUIT_ACTIONS and not is_view_switch(k)]
    room = width - sum(key_cells(k) for k in helps)
    taken: set[int] = set()

    def take(key: FooterKey, cells: int) -> bool:
        nonlocal room
        if cells > room:
            return False
        room -= cells
        taken.add(id(key))
        return True

    for key in own:
        take(key, key_cells(key))
    for key in quits:
        take(key, key_cells(key))
    for key in palette:
        take(key, PALETTE_CELLS)
    for key in switches:
        if not take(key, key_cells(key)):
            break
    return [k for k in (*own, *helps, *quits, *switches, *palette) if id(k) in taken or k in helps]


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
        yield from choose_keys([k for k in keys if isinstance(k, FooterKey)], budget)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.recompose)
