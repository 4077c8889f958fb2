"""``PendingScreen``: the triage session over pending proposals.

The queue holds only ids (a store may have thousands of proposals); the current proposal is loaded
alone, and the approved memories most similar to it are looked up in a thread worker. Refreshes
(this view's writes, or another process's) merge the store's pending ids into the queue without
moving the owner: the current proposal stays current while it is still pending.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from bestie_tui.errors import BestieError, NotFoundError
from bestie_tui.store.records import MemoryRecord

from ..display import append, one_line
from ..widgets.proposal_card import ProposalCard, ProposalPane
from ..widgets.similar_list import SimilarList
from .base import BestieScreen
from .confirm_modal import ConfirmModal
from .edit_memory_modal import EditMemoryModal

#: How many similar approved memories to show beside a proposal.
SIMILAR_K = 5
#: Below this IDF cosine a "similar" memory shares only a common word: not worth the owner's attention.
SIMILAR_MIN_SCORE = 0.1
#: Below this many terminal lines the card has less frame (``-short``), so its text keeps some lines.
SHORT = 30


def merge_queue(queue: list[int], fresh: list[int]) -> list[int]:
    """The ids of ``fresh`` (the store's pending ids, triage order), keeping the order of ``queue``
    for ids it already holds (skips stay at the back) and appending new ids after them."""
    alive = set(fresh)
    kept = [i for i in queue if i in alive]
    known = set(kept)
    return kept + [i for i in fresh if i not in known]


class PendingScreen(BestieScreen):
    """Approve, reject, edit-then-approve, skip and filter pending proposals, one at a time."""

    VIEW_TITLE = "Pending"
    #: The heading over the similar list is one line; where it does not fit it ends in "…".
    DEFAULT_CSS = """
    #similar-title {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """
    #: Keys belong to the screen; the filter box takes focus only when the owner presses "/".
    AUTO_FOCUS = ""
    BINDINGS = [
        Binding("a", "approve", "Approve", id="pending.approve"),
        Binding("A", "approve_keep", "Approve, keep old", id="pending.approve_keep"),
        Binding("w", "approve_working", "Approve into working", id="pending.approve_working", show=False),
        Binding("r,x", "reject", "Reject", id="pending.reject"),
        Binding("e", "edit_approve", "Edit+approve", id="pending.edit_approve"),
        Binding("s", "skip", "Skip", id="pending.skip"),
        Binding("j,down,n", "next", "Next", id="pending.next"),
        Binding("k,up,p", "previous", "Previous", id="pending.previous"),
        Binding("g,home", "first", "First", id="pending.first", show=False),
        Binding("G,end", "last", "Last", id="pending.last", show=False),
        Binding("slash", "filter", "Filter", id="pending.filter"),
        Binding("escape", "clear_filter", "Clear filter", id="pending.clear_filter", show=False),
        Binding("R", "reject_all_shown", "Reject all shown", id="pending.reject_all_shown"),
        Binding("u", "undo", "Undo", id="pending.undo"),
    ]

    def __init__(self) -> None:
        super().__init__()
        #: pending ids in this session's order; only ids, never rows.
        self.queue: list[int] = []
        self.index = 0
        self.filter_text = ""
        #: ids decided (approved/rejected) in this session and not undone.
        self.reviewed: set[int] = set()
        self.current: MemoryRecord | None = None
        self._similar_for: tuple[int, str] | None = None
        #: how the current proposal relates to approved memories (``store.corrections.Related``), once loaded
        self.related: list | None = None

    # ------------------------------------------------------------------ layout
    def _set_short(self, update: bool = True) -> None:
        self.set_class(self.app.size.height < SHORT, "-short", update=update)

    def on_resize(self, event) -> None:
        self._set_short()

    def compose_body(self) -> ComposeResult:
        self._set_short(update=False)  # styled as it mounts, not restyled once mounted
        with Vertical(id="pending-body"):
            yield Static("", id="pending-progress")
            yield Input(placeholder="filter the queue by text, enter applies, esc clears", id="pending-filter")
            with Horizontal(id="pending-main"):
                with ProposalPane(id="proposal-pane"):
                    yield ProposalCard(id="proposal-card")
                with Vertical(id="similar-pane"):
                    yield Static(Text("Related and similar approved memories", style="bold"), id="similar-title")
                    yield SimilarList(id="similar-list")

    # ------------------------------------------------------------------ data
    @property
    def current_id(self) -> int | None:
        return self.current.id if self.current else None

    def refresh_data(self) -> None:
        """Merge the store's pending ids into the queue; the current proposal stays current."""
        keep = self.current_id
        try:
            fresh = self.store.pending_ids(self.filter_text or None)
        except BestieError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        self.queue = merge_queue(self.queue, fresh)
        if keep is not None and keep in self.queue:
            self.index = self.queue.index(keep)
        self.show_current()

    def show_current(self) -> None:
        """Load the proposal at ``index`` (one row), draw it and start its similarity lookup."""
        while self.queue:
            self.index = max(0, min(self.index, len(self.queue) - 1))
            try:
                self.current = self.store.get(self.queue[self.index])
            except NotFoundError:  # removed by another process since the queue was read
                del self.queue[self.index]
                continue
            break
        else:
            self.current = None
        card = self.query_one(ProposalCard)
        similar = self.query_one(SimilarList)
        if self.current is None:
            self._similar_for = None
            self.loaded(similar)
            if self.filter_text:
                card.show_empty(f"No pending proposal matches “{one_line(self.filter_text)}”.",
                                "esc clears the filter · / changes it · u undoes the last change")
            else:
                card.show_empty("Nothing pending.", "New proposals appear here as the assistant makes them. "
                                "u undoes the last change · / filters · 1 shows the tiers")
            similar.show_message("Nothing to compare.")
        else:
            card.show(self.current, self.store.owner_zone, self.store.clock())
            wanted = (self.current.id, self.current.text)
            if wanted != self._similar_for:
                self._similar_for = wanted
                self.related = None
                self.loading_later(similar)
                self.load_similar(self.current.id, self.current.text, self.current.user)
            elif self.related is not None:
                card.show_relations(self.related)
        self.update_progress()

    def update_progress(self) -> None:
        reviewed = len(self.reviewed)
        total = reviewed + self.store.count(status="pending")
        line = Text()
        line.append(f"reviewed {reviewed} / {total}", style="bold")
        if self.queue:
            line.append(f"  ·  proposal {self.index + 1} of {len(self.queue)} in the queue")
        else:
            line.append("  ·  queue empty")
        if self.filter_text:
            line.append("  ·  filter: ")
            append(line, self.filter_text, single_line=True)
        self.query_one("#pending-progress", Static).update(line)

    @work(thread=True, exclusive=True, group="pending-similar")
    def load_similar(self, memory_id: int, text: str, user: str | None) -> None:
        """Find approved memories like ``text`` off the UI thread; the result is posted back."""
        from bestie_tui.store.corrections import find_related

        try:
            found = self.store.similar(text, k=SIMILAR_K, user=user, exclude_id=memory_id)
            related = find_related(self.store, text, user, exclude_id=memory_id)
            result: object = ([(m, score) for m, score in found if score >= SIMILAR_MIN_SCORE], related)
        except Exception as exc:  # noqa: BLE001 - shown to the owner, never lost silently
            result = exc
        finally:
            # Peewee opened a connection for this worker thread; close it rather than leak one per lookup.
            self.store.db.close()
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_similar, memory_id, text, result)

    def _show_similar(self, memory_id: int, text: str, result: object) -> None:
        if self._similar_for != (memory_id, text):
            return  # the owner moved on; a newer lookup is running
        try:
            similar = self.query_one(SimilarList)
            card = self.query_one(ProposalCard)
        except NoMatches:
            return  # the view is closing (the app quits): its widgets are gone before the worker ended
        self.loaded(similar)
        if isinstance(result, Exception):
            similar.show_message(f"Similarity lookup failed: {result}")
        else:
            found, related = result  # type: ignore[misc]
            self.related = related
            similar.show(text, found, related)
            card.show_relations(related)

    # ------------------------------------------------------------------ decisions
    def _decide(self, memory_id: int, verb: str, apply, note: str = "") -> None:
        try:
            apply(memory_id)
        except BestieError as exc:
            # over the core cap: the console's way to what the CLI's approve --scope project does
            hint = "; w approves it into working" if getattr(exc, "rule", None) == "core_cap" else ""
            self.notify(f"#{memory_id} stays pending: {exc}{hint}", severity="error", markup=False)
            self.refresh_data()
            return
        self.reviewed.add(memory_id)
        if memory_id in self.queue:
            position = self.queue.index(memory_id)
            del self.queue[position]
            if position < self.index:
                self.index -= 1
        self.notify(f"{verb} #{memory_id}{note}", markup=False, timeout=2)
        self.show_current()
        self.changed()

    def _need_current(self, what: str) -> MemoryRecord | None:
        if self.current is None:
            self.notify(f"Nothing pending to {what}.", severity="warning")
        return self.current

    def _replaced_ids(self) -> list[int] | None:
        """What approving the current proposal supersedes: the corrections shown (``None`` while
        the lookup still runs: the store finds them itself)."""
        if self.related is None:
            return None
        return [r.memory.id for r in self.related if r.relation.kind == "correction" and r.relation.strong]

    def action_approve(self) -> None:
        """Approve; the approved memories it replaces ("replaces #N") are superseded in the same undo step."""
        if record := self._need_current("approve"):
            replaces = self._replaced_ids()
            note = f"; superseded {', '.join(f'#{i}' for i in replaces)}" if replaces else ""
            self._decide(record.id, "approved", lambda i: self.store.approve(i, replaces=replaces), note)

    def action_approve_working(self) -> None:
        """Approve into the working tier (scope project), as ``bestie memory approve ID --scope
        project``: where a proposal goes when core is full or it is no everyday fact."""
        if record := self._need_current("approve"):
            replaces = self._replaced_ids()
            self._decide(record.id, "approved into working",
                         lambda i: self.store.approve(i, replaces=replaces, scope="project"))

    def action_approve_keep(self) -> None:
        """Approve without superseding what the proposal replaces (both stay active)."""
        if record := self._need_current("approve"):
            self._decide(record.id, "approved", lambda i: self.store.approve(i, replaces=[]), " (what it replaces is kept)")

    def action_reject(self) -> None:
        if record := self._need_current("reject"):
            self._decide(record.id, "rejected", lambda i: self.store.reject(i))

    def action_edit_approve(self) -> None:
        record = self._need_current("edit")
        if record is None:
            return

        def done(text: str | None) -> None:
            if text is None:
                return
            if text == record.text:
                self._decide(record.id, "approved", lambda i: self.store.approve(i))
            else:
                self._decide(record.id, "edited and approved",
                             lambda i: self.store.approve(i, text=text))

        self.app.push_screen(EditMemoryModal(record.text, title=f"Edit, then approve #{record.id}",
                                             check=lambda t: self.store.check_text(t, record.id)), done)

    def action_reject_all_shown(self) -> None:
        ids = list(self.queue)
        if not ids:
            self.notify("Nothing pending to reject.", severity="warning")
            return
        n = len(ids)
        matching = f" matching “{self.filter_text}”" if self.filter_text else ""
        what = "the pending proposal shown" if n == 1 else f"all {n} pending proposals shown"
        question = (f"Reject {what}{matching}? "
                    + ("It is" if n == 1 else "They are") + " kept as rejected; u undoes it in one step.")

        def done(confirmed: bool | None) -> None:
            if not confirmed:
                return
            still = set(ids).intersection(self.store.pending_ids())
            try:
                count = self.store.reject_all(ids=sorted(still))
            except BestieError as exc:
                self.notify(str(exc), severity="error", markup=False)
                return
            self.reviewed.update(still)
            self.queue = [i for i in self.queue if i not in still]
            self.notify(f"rejected {count} proposal{'s' if count != 1 else ''}", timeout=3)
            self.show_current()
            self.changed()

        self.app.push_screen(ConfirmModal(question, confirm_label="Reject all"), done)

    def action_undo(self) -> None:
        """Undo this console session's last change; a decision that comes back to pending becomes the
        current proposal."""
        try:
            result = self.app.undo_own()
        except BestieError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        self.reviewed.difference_update(result.memory_ids)
        pending = set(self.store.pending_ids(self.filter_text or None))
        back = [i for i in result.memory_ids if i in pending and i not in self.queue]
        self.queue[self.index:self.index] = back
        self.notify(result.message, markup=False, timeout=3)
        self.show_current()
        self.changed()

    # ------------------------------------------------------------------ moving
    def _go(self, index: int) -> None:
        if not self.queue:
            return
        self.index = max(0, min(index, len(self.queue) - 1))
        self.show_current()

    def action_next(self) -> None:
        self._go(self.index + 1)

    def action_previous(self) -> None:
        self._go(self.index - 1)

    def action_first(self) -> None:
        self._go(0)

    def action_last(self) -> None:
        self._go(len(self.queue) - 1)

    def action_skip(self) -> None:
        """Leave the current proposal pending and move it to the back of this session's queue."""
        if self._need_current("skip") is None or len(self.queue) < 2:
            return
        self.queue.append(self.queue.pop(self.index))
        self.show_current()

    # ------------------------------------------------------------------ filter
    def action_filter(self) -> None:
        box = self.query_one("#pending-filter", Input)
        box.add_class("-open")
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        try:
            fresh = self.store.pending_ids(text or None)
        except BestieError as exc:
            self.notify(f"filter: {exc}", severity="warning", markup=False)
            return
        self.filter_text = text
        keep = self.current_id
        self.queue = fresh
        self.index = self.queue.index(keep) if keep in self.queue else 0
        if not text:
            event.input.remove_class("-open")
        self.set_focus(None)
        self.show_current()

    def action_clear_filter(self) -> None:
        box = self.query_one("#pending-filter", Input)
        had_filter = bool(self.filter_text)
        box.value = ""
        box.remove_class("-open")
        self.set_focus(None)
        if had_filter:
            self.filter_text = ""
            self.refresh_data()

    # ------------------------------------------------------------------ palette
    def palette_commands(self) -> Iterable[tuple[str, str, object]]:
        if self.current is not None:
            n = self.current.id
            yield "memory: Approve current", f"Approve proposal #{n}, superseding what it replaces (a)", self.action_approve
            yield ("memory: Approve current, keep old", f"Approve proposal #{n} and keep what it replaces (A)",
                   self.action_approve_keep)
            yield ("memory: Approve current into working", f"Approve proposal #{n} into the working tier (w)",
                   self.action_approve_working)
            yield "memory: Reject current", f"Reject proposal #{n} (r)", self.action_reject
            yield "memory: Edit then approve current", f"Edit #{n}, then approve it (e)", self.action_edit_approve
            yield "memory: Skip current", f"Leave #{n} pending, move it to the back (s)", self.action_skip
        if self.queue:
            yield ("memory: Reject all shown", f"Reject the {len(self.queue)} proposals in the queue (asks first; R)",
                   self.action_reject_all_shown)
        yield "view: Filter pending queue", "Narrow the queue by text (/)", self.action_filter
        if self.filter_text:
            yield "view: Clear pending filter", "Show every pending proposal again (esc)", self.action_clear_filter
