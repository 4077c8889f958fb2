"""A paste arrives whole and in order, whatever bytes it holds.

A terminal in bracketed-paste mode sends ``ESC [200~``, the pasted text, then ``ESC [201~``.
Textual 8's ``XTermParser`` keeps the paste in a buffer but reads an ESC inside it as the start of a
key sequence: the characters after that ESC come out as key presses *before* the ``Paste`` event
holding the characters before it (pasting ``a ESC [31m red`` typed ``^[31mred`` and then ``a``),
and a pasted ``q`` or ``2`` after an ESC could quit or switch the view. ``PasteKeepingParser``
takes the whole bracketed paste out of the stream before Textual's parser sees it and sends one
``Paste`` with the text as pasted (NUL dropped, as Textual does), between the events that came
before and after it. What the text boxes then show of an ESC is a visible ``\\x1b`` (``display``).

``keep_paste_order()`` makes the Linux/macOS driver use it; the other drivers are left as they are.
"""

from __future__ import annotations

from collections.abc import Iterable
from time import monotonic

from textual import constants, events
from textual._xterm_parser import XTermParser
from textual.message import Message

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"


class PasteKeepingParser(XTermParser):
    """``XTermParser`` with bracketed pastes taken whole: everything between ``ESC [200~`` and
    ``ESC [201~`` becomes one ``events.Paste``, in order with the keys around it. A start or end
    marker split across two reads is joined; a lone ESC at the end of a read is held for at most
    ``constants.ESCAPE_DELAY`` seconds (Textual waits as long to tell the escape key from a
    sequence), then handed on."""

    def __init__(self, debug: bool = False) -> None:
        self._pasting: list[str] | None = None  # the paste read so far, while inside one
        self._held = ""  # the end of a read that may be the start of a paste marker
        self._held_since = 0.0
        super().__init__(debug)

    def feed(self, data: str) -> Iterable[Message]:
        if not data:  # end of input: whatever is held goes to Textual's parser as it came
            rest, self._held = self._held + ("" if self._pasting is None else PASTE_START + "".join(self._pasting)), ""
            self._pasting = None
            if rest:
                yield from super().feed(rest)
            yield from super().feed("")
            return
        data, self._held = self._held + data, ""
        while data:
            if self._pasting is not None:
                end = data.find(PASTE_END)
                if end < 0:
                    keep = _marker_prefix(data, PASTE_END)
                    self._pasting.append(data[: len(data) - keep])
                    self._held = data[len(data) - keep:]
                    return
                text = "".join(self._pasting) + data[:end]
                self._pasting = None
                data = data[end + len(PASTE_END):]
                yield events.Paste(text.replace("\x00", ""))
                continue
            start = data.find(PASTE_START)
            if start < 0:
                keep = _marker_prefix(data, PASTE_START)
                if keep:
                    self._held, self._held_since = data[len(data) - keep:], monotonic()
                    data = data[: len(data) - keep]
                if data:
                    yield from super().feed(data)
                return
            if start:
                yield from super().feed(data[:start])
            self._pasting = []
            data = data[start + len(PASTE_START):]

    def tick(self) -> Iterable[Message]:
        if self._held and self._pasting is None and monotonic() - self._held_since >= constants.ESCAPE_DELAY:
            held, self._held = self._held, ""  # no paste followed: the escape key, or a sequence cut short
            if held == "\x1b":
                yield events.Key("escape", "\x1b")  # as Textual's parser says a lone ESC once its wait is over
            else:
                yield from super().feed(held)
        yield from super().tick()


def _marker_prefix(data: str, marker: str) -> int:
    """How many characters at the end of ``data`` are a proper beginning of ``marker`` (0 if none)."""
    for size in range(min(len(marker) - 1, len(data)), 0, -1):
        if data.endswith(marker[:size]):
            return size
    return 0


def keep_paste_order() -> bool:
    """Make Textual's Linux/macOS driver read input with ``PasteKeepingParser``. Returns whether it
    did (``False`` when that driver is not importable here, e.g. on Windows)."""
    try:
        from textual.drivers import linux_driver
    except ImportError:  # pragma: no cover - Windows
        return False
    linux_driver.XTermParser = PasteKeepingParser  # type: ignore[misc]  # the name its input thread builds
    return True
