"""``BestieApp``: the memory console. Views are Textual modes, switched by number keys."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from ..paths import styles_dir
from ..store.db import change_mark, external_change_mark
from .display import pasted, shown
from .messages import StoreChanged
from .paste import keep_paste_order
from .screens.cleanup_screen import CleanupScreen
from .screens.context_screen import ContextScreen
from .screens.doctor_screen import DoctorScreen
from .screens.health_screen import HealthScreen
from .screens.help_screen import HelpScreen
from .screens.messages_screen import MessagesScreen
from .screens.pending_screen import PendingScreen
from .screens.tiers_screen import TiersScreen

#: Stylesheets, in load order: shared first, then one per view.
STYLESHEETS = ["app.tcss", "tiers.tcss", "pending.tcss", "context.tcss", "messages.tcss", "health.tcss", "doctor.tcss", "cleanup.tcss"]


def warm_imports() -> None:
    """Import the analysis modules the views load lazily (the first import is the slow part)."""
    import scipy.sparse  # noqa: F401

    from ..hygiene import doctor  # noqa: F401


def leave(force: bool = False) -> None:
    """End the process of a console that has quit, without freeing its heap object by object.

    Call it once the console's store is closed: every write was committed when it was made (the
    views write in their own transactions; a thread still running one is waited for here, as the
    interpreter's own shutdown would), and an analysis still running elsewhere was ended on quit. What is left
    is the report and plan the views held, hundreds of MiB at 100,000 memories, which the system
    takes back at once instead of the interpreter's teardown taking seconds (issue 31).

    Does nothing unless the console ran on a terminal (``sys.stdout`` is a TTY) or ``force``: under
    a test runner the process is not the console's to end.
    """
    import os
    import sys
    import threading

    if not (force or sys.stdout.isatty()):
        return
    for thread in threading.enumerate():  # as the interpreter's own shutdown would: a write ends
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


#: The key Textual 8 reports for ESC followed by each digit 1–7 (``textual._ansi_sequences`` maps
#: ``"\x1b2"`` to ``"™"``, key ``trade_mark_sign``): what alt+digit is in tmux and most terminals,
#: and what option+digit types on macOS. These characters switch views even inside a text box
#: (``BestieApp.on_event``), so typing one there needs a paste.
ESC_DIGIT_KEYS = {"1": "inverted_exclamation_mark", "2": "trade_mark_sign", "3": "pound_sign", "4": "cent_sign",
                  "5": "infinity", "6": "section_sign", "7": "pilcrow_sign"}


class BestieApp(App[None]):
    """Keyboard-driven review of what the assistant remembers.

    Args:
        store: an open ``MemoryStore``; the app never queries Peewee directly.
        poll_interval: seconds between checks for writes by other processes (``PRAGMA data_version``).
        start_mode: the view shown first; by default Tiers, or Pending when only proposals exist
            (e.g. right after importing a conversation).
    """

    TITLE = "bestie memory"
    CSS_PATH = [styles_dir() / name for name in STYLESHEETS]
    MODES = {
        "tiers": TiersScreen,
        "pending": PendingScreen,
        "doctor": DoctorScreen,
        "cleanup": CleanupScreen,
        "context": ContextScreen,
        "messages": MessagesScreen,
        "health": HealthScreen,
    }
    #: number key → mode, in tab order.
    MODE_KEYS = {"1": "tiers", "2": "pending", "3": "context", "4": "doctor", "5": "cleanup", "6": "messages", "7": "health"}
    #: the key Textual reads for ESC+digit (alt+digit in tmux, option+digit on macOS) → mode.
    ESC_DIGIT_MODES = {ESC_DIGIT_KEYS[key]: mode for key, mode in MODE_KEYS.items()}
    BINDINGS = [
        Binding("1", "switch_mode('tiers')", "Tiers", id="view.tiers"),
        Binding("2", "switch_mode('pending')", "Pending", id="view.pending"),
        Binding("3", "switch_mode('context')", "Context", id="view.context"),
        Binding("4", "switch_mode('doctor')", "Doctor", id="view.doctor"),
        Binding("5", "switch_mode('cleanup')", "Cleanup", id="view.cleanup"),
        Binding("6", "switch_mode('messages')", "Messages", id="view.messages"),
        Binding("7", "switch_mode('health')", "Health", id="view.health"),
        Binding("question_mark,f1", "help", "Help (also F1)", key_display="?", id="app.help", show=False),
        Binding("q", "quit", "Quit", id="app.quit", show=False),
        # The same from inside a text box (where digits and q are typed): alt+1…alt+7, ctrl+q. Most
        # terminals (tmux, xterm, macOS "option as meta") send alt+digit as ESC then the digit, which
        # Textual reads as the character macOS types for option+digit (ESC_DIGIT_KEYS); a terminal
        # speaking the kitty keyboard protocol sends alt+1 itself. Both are bound; inside a text box
        # on_event catches the character before the box types it.
        *[Binding(f"alt+{key},{ESC_DIGIT_KEYS[key]}", f"switch_mode('{mode}')",
                  f"{mode.title()} (also from a text box)", key_display=f"alt+{key}",
                  id=f"view.{mode}.alt", show=False, priority=True)
          for key, mode in MODE_KEYS.items()],
        Binding("ctrl+q", "quit", "Quit (also from a text box)", id="app.quit.anywhere", show=False, priority=True),
    ]

    def __init__(self, store, *, poll_interval: float = 2.0, start_mode: str | None = None) -> None:
        super().__init__()
        keep_paste_order()  # a paste holding ESC arrives whole and in order (``paste``)
        self.store = store
        #: This console's session: ``u`` undoes only the changes made under it.
        self.session = store.begin_session()
        self.poll_interval = poll_interval
        self.start_mode = start_mode
        self._data_version: int | None = None
        self._status_cache: tuple[tuple[int, int], Any] | None = None

    async def on_event(self, event: events.Event) -> None:
        # A text box takes every printable key before any binding sees it (Textual drops the keys an
        # Input would type from the binding chain, priority bindings too), and ESC+digit arrives as a
        # printable character: switch here, before the key is forwarded to the focused widget.
        if isinstance(event, events.Key) and not event.is_forwarded:
            mode = self.ESC_DIGIT_MODES.get(event.key)
            if mode is not None:
                event.stop()
                self.app_focus = True
                await self.run_action(f"switch_mode('{mode}')")
                return
        if isinstance(event, events.Paste) and not event.is_forwarded:
            event.text = pasted(event.text)  # an ESC pasted is shown and stored as \x1b, never sent on
        await super().on_event(event)

    def on_mount(self) -> None:
        from .preferences import load

        theme = load().get("theme")
        if isinstance(theme, str) and theme in self.available_themes:
            self.theme = theme  # the one picked last time (console.json in the config dir)
        self._theme_loaded = True
        self._data_version = self._read_data_version()
        self.switch_mode(self.start_mode or self._first_mode())
        if self.poll_interval > 0:
            self.set_interval(self.poll_interval, self.check_external_changes)
        self.call_after_refresh(self._warm_up)

    def _warm_up(self) -> None:
        """Once the first view is drawn, import what the Doctor and Cleanup views need (scipy's
        sparse matrices: about 0.4 s) in a thread, so switching to them later does not wait for it."""
        self.run_worker(warm_imports, thread=True, group="warm-up", exit_on_error=False)

    def watch_theme(self, theme: str) -> None:
        if getattr(self, "_theme_loaded", False):
            from .preferences import save

            save(theme=theme)

    def _first_mode(self) -> str:
        counts = self.store_status().tiers  # counted once: the first view's status line reuses it
        only_pending = counts["pending"] and not any(counts[t] for t in ("core", "working", "archive"))
        return "pending" if only_pending else "tiers"

    def store_status(self):
        """``store.status()`` for the status line, counted again only when the database changed:
        a commit by another connection (``PRAGMA data_version``) or a row written through this one
        (``total_changes()``). Every view shows it when it opens, and at 100,000 memories and a
        million messages the counts take longer than a view switch may (issue 13)."""
        mark = change_mark(self.store.db)
        cached = self._status_cache
        if cached is not None and cached[0] == mark:
            return cached[1]
        status = self.store.status()
        self._status_cache = (mark, status)
        return status

    def _read_data_version(self) -> int:
        # PRAGMA data_version changes when *another* connection commits to the file.
        return external_change_mark(self.store.db)

    def check_external_changes(self) -> None:
        """Refresh the views when another process (the assistant) wrote to the database."""
        version = self._read_data_version()
        if version != self._data_version:
            self._data_version = version
            self.screen.post_message(StoreChanged(external=True))

    def store_written(self) -> None:
        """A view wrote to the store: refresh the current view (others refresh when resumed)."""
        self.screen.post_message(StoreChanged(external=False))

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """A toast. A plain-text toast (``markup=False``, how every toast that quotes stored data is
        sent) has its control characters shown as visible escapes; a markup toast is our own words."""
        if not markup:
            message, title = shown(message), shown(title)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    async def action_quit(self) -> None:
        """Quit at once: an analysis still running in a second process (the Doctor or Cleanup view
        at scale, ``hygiene.isolated``) is ended instead of waited for. It only reads, so nothing
        is lost; every write of the console was committed when it was made."""
        from ..hygiene.isolated import cancel_running

        cancel_running()
        self.exit()

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for key, mode in self.MODE_KEYS.items():
            cls = self.MODES[mode]
            title = getattr(cls, "VIEW_TITLE", mode)
            yield SystemCommand(f"view: {title}", f"Switch to the {title} view (key {key})",
                                lambda mode=mode: self.switch_mode(mode))
        yield SystemCommand("memory: Undo last change", "Revert the last change made in this console", self.action_undo)
        yield SystemCommand("view: Help", "List every key", self.action_help)
        palette = getattr(screen, "palette_commands", None)
        if palette is not None:
            for title, help_text, callback in palette():
                yield SystemCommand(title, help_text, callback)

    def undo_own(self):
        """Undo the last change made in this console session (never the assistant's, nor another
        console's). Returns the ``UndoResult``; raises what ``MemoryStore.undo`` raises."""
        return self.store.undo(session=self.session)

    def action_undo(self) -> None:
        from bestie_tui.errors import BestieError

        try:
            result = self.undo_own()
        except BestieError as exc:
            self.notify(str(exc), severity="warning")
            return
        self.notify(result.message, markup=False)
        self.store_written()
