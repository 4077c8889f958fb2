"""``CleanupScreen``: the cleanup plan as a coloured diff; toggle operations, edit merged texts,
apply behind a confirmation that states what ``memory.deletePolicy`` allows, see the result, undo.

The plan is built in a thread worker (it runs the doctor) with a progress bar; applying also runs
in a worker. The screen never touches Peewee: it calls the core's plan functions with the store.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import ProgressBar, Static

from ..display import append, data, one_line
from ..widgets.plan_diff import PlanDiff
from .base import BestieScreen
from .confirm_modal import ConfirmModal
from .edit_memory_modal import EditMemoryModal


class CleanupScreen(BestieScreen):
    """Review and apply the cleanup plan (``bestie memory cleanup`` in the console)."""

    VIEW_TITLE = "Cleanup"
    AUTO_FOCUS = "#cleanup-plan"
    BINDINGS = [
        Binding("space,x", "toggle", "Toggle op", id="cleanup.toggle"),
        Binding("e", "edit_text", "Edit merged text", id="cleanup.edit"),
        Binding("a", "apply", "Apply…", id="cleanup.apply"),
        Binding("u", "undo", "Undo", id="cleanup.undo"),
        Binding("r", "rebuild", "Rebuild plan", id="cleanup.rebuild"),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.plan = None
        self.plan_mark: int | None = None
        self.busy = False
        #: The owner's choices by operation key (stable across rebuilds): ``{"selected": bool, "text": str}``.
        self.choices: dict[str, dict] = {}
        self.auto_rebuild = False

    def compose_body(self) -> ComposeResult:
        with Vertical(id="cleanup-body"):
            yield Static("", id="cleanup-summary")
            yield ProgressBar(total=1.0, show_eta=False, id="cleanup-progress")
            yield PlanDiff(id="cleanup-plan")
            yield Static("", id="cleanup-result")

    def on_mount(self) -> None:
        super().on_mount()
        self.action_rebuild(reuse=True)

    def _store_mark(self) -> int | None:
        """Id of the newest audit event: every memory change writes one, so a new id means the plan
        may be stale. (A closing modal also resumes this screen; that alone must not drop the edits.)"""
        newest = self.store.history(limit=1)
        return newest[0].id if newest else None

    def refresh_data(self) -> None:
        if not self.busy and self.plan is not None and self._store_mark() != self.plan_mark:
            self.auto_rebuild = True  # the owner did not ask: say why the plan moved
            self.action_rebuild()

    # ------------------------------------------------------------------ building
    def action_rebuild(self, reuse: bool = False) -> None:
        """Run the doctor and build the plan; ``reuse``: from the report the Doctor view just made, if
        the database is as it was then (``shared_report``)."""
        if self.busy:
            return
        self.busy = True
        self.plan_mark = self._store_mark()
        bar = self.query_one(ProgressBar)
        bar.update(progress=0)
        bar.display = True
        self.query_one("#cleanup-summary", Static).update(Text("Building the cleanup plan…"))
        self.with_report(reuse, self.build_plan, self.query_one("#cleanup-summary", Static),
                         "Waiting for the Doctor's analysis…")

    @work(thread=True, exclusive=True, group="cleanup")
    def build_plan(self, report=None) -> None:
        """Run the doctor and build the plan off the UI thread; results are handed back with call_from_thread."""
        from bestie_tui.errors import BestieError
        from bestie_tui.hygiene.isolated import AnalysisCancelled, analyse

        def progress(stage: str, fraction: float) -> None:
            self.app.call_from_thread(self._progress, fraction)

        try:
            # at scale in a second process: its memory goes back to the system when it ends
            report, plan = analyse(self.store, plan=True, report=report, progress=progress)
        except AnalysisCancelled:
            return  # the console is quitting
        except BestieError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self._show_plan, plan, report)

    def _progress(self, fraction: float) -> None:
        self.query_one(ProgressBar).update(progress=fraction)

    def _failed(self, message: str) -> None:
        self.analysis_ends(None)
        self.busy = False
        self.query_one(ProgressBar).display = False
        self.query_one("#cleanup-summary", Static).update(data(f"Could not build the plan: {message}"))

    def _show_plan(self, plan, report=None) -> None:
        self.busy = False
        if report is not None:
            self.analysis_ends(report)
        kept, lost = self._carry_choices(plan)
        self.plan = plan
        self.query_one(ProgressBar).display = False
        self.query_one(PlanDiff).show_plan(plan)
        self._summarise()
        if self.auto_rebuild:
            self.auto_rebuild = False
            message = "The plan was rebuilt because memories changed"
            if kept or lost:
                message += f"; kept your {kept} choice(s)"
                if lost:
                    message += f", {lost} no longer apply (their operation is gone or changed)"
            self.notify(message + ".", markup=False, severity="warning" if lost else "information")

    def _carry_choices(self, plan) -> tuple[int, int]:
        """Re-apply the owner's toggles and edited texts to ``plan`` by operation key (keys name the
        records involved, so a kept key is the same operation); drop the ones whose key is gone."""
        ops = {op.key: op for op in plan.operations}
        kept = lost = 0
        for key, choice in list(self.choices.items()):
            op = ops.get(key)
            if op is None or op.blocked:
                lost += len(choice)
                del self.choices[key]
                continue
            if "selected" in choice:
                op.selected = choice["selected"]
            if "text" in choice and op.action == "merge":
                op.text = choice["text"]
            kept += len(choice)
        return kept, lost

    def _summarise(self) -> None:
        plan = self.plan
        line = Text()
        if not plan.operations:
            line.append("Nothing to clean up.", style="bold")
        else:
            line.append(f"{len(plan.selected_operations())} of {len(plan.operations)} operations selected",
                        style="bold")
            counts = plan.counts()
            if counts:
                line.append("  (" + ", ".join(f"{n} {a}" for a, n in counts.items()) + ")")
        line.append(f"\n{plan.policy_text()}")
        for note in plan.notes[:3]:
            append(line, f"\n• {one_line(note)}")
        if len(plan.notes) > 3:
            line.append(f"\n• … {len(plan.notes) - 3} more flagged pairs (Doctor view, key 4)")
        self.query_one("#cleanup-summary", Static).update(line)

    # ------------------------------------------------------------------ editing the plan
    def _current(self):
        diff = self.query_one(PlanDiff)
        op = diff.current
        if op is None:
            self.notify("No operation selected.", severity="warning")
        return diff, op

    def action_toggle(self) -> None:
        diff, op = self._current()
        if op is None:
            return
        if op.blocked:
            self.notify(f"Blocked: {op.blocked}", severity="warning", markup=False)
            return
        op.selected = not op.selected
        self.choices.setdefault(op.key, {})["selected"] = op.selected
        diff.refresh_operation(diff.highlighted)
        self._summarise()

    def action_edit_text(self) -> None:
        diff, op = self._current()
        if op is None:
            return
        if op.action != "merge":
            self.notify("Only a merge has a text to edit.", severity="warning")
            return
        if op.into is not None:
            self.notify(f"This merge keeps the pinned #{op.into.id} as it is; edit it in Tiers.", severity="warning")
            return
        index = diff.highlighted

        def edited(text: str | None) -> None:
            if text:
                op.text = text
                self.choices.setdefault(op.key, {})["text"] = text
                diff.refresh_operation(index)

        self.app.push_screen(EditMemoryModal(op.text or "", title=f"Merged text for {' '.join(f'#{i}' for i in op.ids)}",
                                             check=self.store.check_text),
                             edited)

    # ------------------------------------------------------------------ apply / undo
    def action_apply(self) -> None:
        if self.plan is None or self.busy:
            self.notify("The plan is still being built.", severity="warning")
            return
        policy = self.store.get_setting("memory.deletePolicy")
        self.plan.delete_policy = policy
        if policy == "deny":
            self.notify(self.plan.policy_text(), severity="error", markup=False)
            return
        chosen = self.plan.selected_operations()
        if not chosen:
            self.notify("No operation is selected.", severity="warning")
            return
        question = (f"Apply {len(chosen)} operation(s) of the cleanup plan in one undoable step?\n\n"
                    f"{self.plan.policy_text()}")

        def apply_now(yes: bool | None) -> None:
            if yes:
                self.busy = True
                self.apply_selected()

        def confirmed(yes: bool | None) -> None:
            if yes and self.plan is not None and self.plan.is_large():
                # a second question, with the number: one stray `a`, `y` must not reshape the store
                again = (f"{self.plan.large_text()} That is more than a fifth of them.\n\n"
                         f"Really apply it? Everything stays undoable with u.")
                self.app.push_screen(ConfirmModal(again, confirm_label=f"Change {self.plan.changed_count():,}"),
                                     apply_now)
            else:
                apply_now(yes)

        self.app.push_screen(ConfirmModal(question, confirm_label="Apply"), confirmed)

    @work(thread=True, exclusive=True, group="cleanup-apply")
    def apply_selected(self) -> None:
        from bestie_tui.errors import BestieError
        from bestie_tui.hygiene.plan_apply import apply_plan

        try:
            result = apply_plan(self.store, self.plan, yes=True)
        except BestieError as exc:
            self.app.call_from_thread(self._applied, None, str(exc))
            return
        self.app.call_from_thread(self._applied, result, None)

    def _applied(self, result, error: str | None) -> None:
        self.busy = False
        box = self.query_one("#cleanup-result", Static)
        if error:
            box.update(data(f"Nothing applied: {error}"))
            self.notify(error, severity="error", markup=False)
            return
        self.choices.clear()  # applied: the next plan starts from its own proposals
        text = data(result.message, style="bold")
        for key, reason in result.skipped:
            append(text, f"\nskipped {key}: {one_line(reason)}")
        if result.batch:
            text.append("\npress u to undo the whole apply")
        box.update(text)
        self.notify(result.message, markup=False)
        self.changed()

    def action_undo(self) -> None:
        self.choices.clear()
        self.app.action_undo()
        self.query_one("#cleanup-result", Static).update(Text("Undone: see the notice. The plan is rebuilt."))

    def palette_commands(self) -> Iterable[tuple[str, str, object]]:
        yield ("cleanup: Apply selected operations", "Apply the plan after a confirmation", self.action_apply)
        yield ("cleanup: Rebuild plan", "Run the doctor again and rebuild the plan", self.action_rebuild)
        yield ("cleanup: Toggle highlighted operation", "Switch the highlighted operation on or off",
               self.action_toggle)
