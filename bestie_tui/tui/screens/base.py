"""``BestieScreen``: what every view shares — the store, the status line, refresh on change."""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual._context import NoActiveAppError
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header

from ..display import one_line
from ..messages import StoreChanged
from ..widgets.fitting_footer import FittingFooter
from ..widgets.status_line import StatusLine

#: The fewest characters of a user id the header shows (longer ids are cut with "…").
USER_TITLE_CHARS = 40


def console_title(user: str | None) -> str:
    """The header's title: ``bestie memory``, and whose memory it is when the console is bound to a
    user (``bestie --user U tui``): ``bestie memory of U``. The id is data: controls are shown as
    escapes and one longer than ``USER_TITLE_CHARS`` is cut with "…"."""
    if user is None:
        return "bestie memory"
    name = one_line(user)
    if len(name) > USER_TITLE_CHARS:
        name = name[: USER_TITLE_CHARS - 1] + "…"
    return f"bestie memory of {name}"


#: Seconds a worker may take before the widget waiting for it shows a loading indicator.
LOADING_DELAY = 0.2


class BestieScreen(Screen):
    """Base for the console's views. Subclasses implement ``compose_body`` and ``refresh_data``.

    ``palette_commands`` yields ``(title, help, callback)`` for the command palette, computed from
    what is on screen; titles are ``"category: Action"``.
    """

    #: Title shown in the header and the help screen.
    VIEW_TITLE = ""
    #: Base-class bindings come first in the footer, so help and quit stay visible however many
    #: keys a view has (the app's own copies are hidden from the footer).
    BINDINGS = [
        # inside a text box ? and q are typed: the footer then shows the second key (f1, ^q)
        Binding("question_mark,f1", "app.help", "Help", id="app.help.footer"),
        Binding("q", "app.quit", "Quit", id="app.quit.footer"),
        Binding("ctrl+q", "app.quit", "Quit", id="app.quit.footer.anywhere", priority=True),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # A new view is styled as its widgets mount, with the stylesheet as it is now; without this
        # Textual's switch_mode re-parses every stylesheet from scratch (twice) and restyles every
        # node of the app before the first frame, about half of a first switch (issue 17).
        # A CSS change after this (a theme picked) still restyles the view when it is resumed.
        try:
            self._css_update_count = self.app._css_update_count
        except NoActiveAppError:
            pass

    @property
    def store(self):
        return self.app.store

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield from self.compose_body()
        yield StatusLine(id="status-line")
        yield FittingFooter()

    def compose_body(self) -> ComposeResult:  # pragma: no cover - abstract
        return iter(())

    def on_mount(self) -> None:
        self.title = console_title(getattr(self.store, "user", None))
        self.sub_title = self.VIEW_TITLE
        self.update_status()

    #: The database's change mark when this view last loaded, and whether it was left since: Textual
    #: sends a view two ``ScreenResume`` on its first switch (and calls the handlers of every class
    #: in the MRO, so a subclass's ``super()`` call repeats them); each reload costs a view switch.
    _loaded_mark: object = None
    _left: bool = True

    #: Whether the view was ever left (suspended) since it was created.
    _shown: bool = False

    def on_screen_suspend(self) -> None:
        self._left = True
        self._shown = True

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._shown and self._css_update_count == self.app._css_update_count:
            # The first showing: every widget was styled as it mounted, with the stylesheet as it is
            # still. Textual's own handler (run after this one) would restyle the whole view once
            # per ScreenResume, and a first switch sends two: most of a switch to a view of many
            # widgets (Context's three Selects, issue 17). Later showings restyle as Textual does.
            event.refresh_styles = False
        self.load()

    def load(self) -> None:
        """``refresh_data`` and the status line, unless the view has not been left since it last
        loaded and nothing was written to the store since."""
        mark = self._change_mark()
        if not self._left and mark is not None and mark == self._loaded_mark:
            return
        self._left = False
        self.refresh_data()
        self.update_status()
        self._loaded_mark = self._change_mark()

    def loading_later(self, widget) -> None:
        """Show ``widget``'s loading indicator if the work it waits for (a worker) takes longer
        than ``LOADING_DELAY``; most answer sooner, and an indicator that only flashes costs a
        mount and two layouts of the view while it opens. ``loaded`` ends the wait."""
        self.loaded(widget)
        timers = self.__dict__.setdefault("_loading_timers", {})
        timers[widget] = self.set_timer(LOADING_DELAY, lambda: setattr(widget, "loading", True))

    def loaded(self, widget) -> None:
        """The work ``widget`` waited for is done: no loading indicator (now or later)."""
        timer = self.__dict__.get("_loading_timers", {}).pop(widget, None)
        if timer is not None:
            timer.stop()
        widget.loading = False

    #: How old a doctor report one view made may be for another view to show it instead of its own.
    SHARED_REPORT_SECONDS = 600

    def shared_report(self):
        """The full doctor report another view made (``share_report``) if nothing was written to the
        database since and it is recent, else None: opening Cleanup after Doctor (or the other way
        round) does not analyse every memory again, about a minute at 100,000 memories."""
        saved = getattr(self.app, "_doctor_report", None)
        if saved is None or saved[0] is None or saved[0] != self._change_mark():
            return None
        report = saved[1]
        age = (self.store.clock() - report.generated_at).total_seconds()
        return report if 0 <= age <= self.SHARED_REPORT_SECONDS else None

    def share_report(self, report) -> None:
        """Offer ``report`` (a full ``DoctorReport`` of the store as it is now) to the other views."""
        self.app._doctor_report = (self._change_mark(), report)

    def analysis_begins(self) -> None:
        """This view starts a full doctor run of the database as it is now (``wait_for_analysis``)."""
        self.app._doctor_running = self._change_mark()

    def analysis_ends(self, report) -> None:
        """The run this view started ended with ``report`` (None: it failed): offered to the other
        views, and handed to those waiting for it."""
        self.app._doctor_running = None
        if report is not None:
            self.share_report(report)
        for then in self.app.__dict__.pop("_report_waiters", []):
            then(report)

    def with_report(self, reuse: bool, run, waiting, waiting_text: str) -> None:
        """Call ``run(report)`` (it starts the view's worker) with the doctor report to use: with
        ``reuse``, one another view shared (``shared_report``) or, when another view is running the
        doctor now, that run's once it ends (``waiting`` shows ``waiting_text`` meanwhile); else
        None, and the view's own run is announced (``analysis_begins``)."""
        report = self.shared_report() if reuse else None
        if report is None and reuse and self.wait_for_analysis(lambda found: self._run_with(run, found)):
            from rich.text import Text

            waiting.update(Text(waiting_text))
            return
        self._run_with(run, report)

    def _run_with(self, run, report) -> None:
        if report is None:
            self.analysis_begins()
        run(report)

    def wait_for_analysis(self, then) -> bool:
        """When another view is running the doctor over the database as it is now, call
        ``then(report or None)`` once that run ends, and return True; otherwise False (the caller
        runs its own). Two analyses of 100,000 memories at once would each take twice as long."""
        running = getattr(self.app, "_doctor_running", None)
        if running is None or running != self._change_mark():
            return False
        self.app.__dict__.setdefault("_report_waiters", []).append(then)
        return True

    def _change_mark(self):
        from ...store.db import change_mark

        db = getattr(self.store, "db", None)
        return change_mark(db) if db is not None else None

    def on_store_changed(self, message: StoreChanged) -> None:
        self.refresh_data()
        self.update_status()

    def update_status(self) -> None:
        status = getattr(self.app, "store_status", None)
        self.query_one(StatusLine).show(status() if status is not None else self.store.status())

    def refresh_data(self) -> None:
        """Reload what the view shows from the store, keeping the selection where possible."""

    def palette_commands(self) -> Iterable[tuple[str, str, object]]:
        return ()

    def changed(self) -> None:
        """Call after this view wrote to the store: every view refreshes (the app tells them)."""
        self.app.store_written()
