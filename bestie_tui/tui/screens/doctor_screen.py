"""``DoctorScreen``: the doctor report as a tree — sections with counts, groups and pairs that open
to their memories, and a jump to any memory in the Tiers view.

The analysis runs in a thread worker with a progress bar (the doctor takes seconds on a large
store); each run records one hygiene snapshot, like ``bestie memory hygiene status``.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import ProgressBar, Static, Tree

from ..display import append, data
from .base import BestieScreen

#: Items listed per section; the rest is summarised (the CLI's --json has everything).
SECTION_ITEMS = 200
#: The suggested action of a related pair, in words.
_ACTIONS = {"keep_both": "keep both", "merge": "merge them", "newer": "the newer replaces the older",
            "older": "keep the older", "review": "you decide"}


class DoctorScreen(BestieScreen):
    """Sections of the doctor report; ``t`` jumps to the highlighted memory in the Tiers view."""

    VIEW_TITLE = "Doctor"
    AUTO_FOCUS = "#doctor-tree"
    BINDINGS = [
        Binding("r", "analyze", "Re-run", id="doctor.run"),
        Binding("t", "jump", "Show in Tiers", id="doctor.jump"),
        Binding("c", "cleanup", "Cleanup plan", id="doctor.cleanup"),
        Binding("i", "details", "Details", id="doctor.details"),
        Binding("b", "resolve('keep_both')", "Keep both", id="doctor.keep_both"),
        Binding("m", "resolve('merge')", "Merge", id="doctor.merge"),
        Binding("n", "resolve('newer')", "Newer wins", id="doctor.newer"),
        Binding("o", "resolve('older')", "Keep older", id="doctor.older"),
        Binding("u", "undo", "Undo", id="doctor.undo"),
        Binding("j", "tree('cursor_down')", "Down", show=False, id="doctor.down"),
        Binding("k", "tree('cursor_up')", "Up", show=False, id="doctor.up"),
        Binding("g", "tree('scroll_home')", "Top", show=False, id="doctor.top"),
        Binding("G", "tree('scroll_end')", "Bottom", show=False, id="doctor.bottom"),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.report = None
        self.status = None
        #: The newest audit event when the report shown was made (``refresh_data`` compares it).
        self.report_mark: int | None = None
        self.busy = False
        #: Show how each group was found (level, cosine, kind) beside its plain heading (key i).
        self.details = False

    def compose_body(self) -> ComposeResult:
        with Vertical(id="doctor-body"):
            yield Static("", id="doctor-summary")
            yield ProgressBar(total=1.0, show_eta=False, id="doctor-progress")
            tree: Tree = Tree(Text("Doctor report"), id="doctor-tree")
            tree.show_root = False
            yield tree

    def on_mount(self) -> None:
        super().on_mount()
        self.action_analyze(reuse=True)

    def refresh_data(self) -> None:
        """Reports are snapshots: a store change does not re-run the doctor (``r`` does), but the
        summary says that memories changed since the report was made."""
        if not self.busy and self.status is not None and self._event_mark() != self.report_mark:
            self.query_one("#doctor-summary", Static).update(self._summary(self.status, changed=True))

    def _event_mark(self) -> int | None:
        """Id of the newest audit event: every memory change writes one (a snapshot does not)."""
        newest = self.store.history(limit=1)
        return newest[0].id if newest else None

    # ------------------------------------------------------------------ analysis
    def action_analyze(self, reuse: bool = False) -> None:
        """Run the doctor (``r``); ``reuse``: show the report the Cleanup view just made, if the
        database is as it was then (``shared_report``)."""
        if self.busy:
            return
        self.busy = True
        bar = self.query_one(ProgressBar)
        bar.update(progress=0)
        bar.display = True
        self.query_one("#doctor-summary", Static).update(Text("Analysing…"))
        self.with_report(reuse, self.analyze, self.query_one("#doctor-summary", Static),
                         "Analysing… (the Cleanup view's analysis)")

    @work(thread=True, exclusive=True, group="doctor")
    def analyze(self, report=None) -> None:
        """Run the doctor (and record a snapshot) off the UI thread; post the result back."""
        from bestie_tui.errors import BestieError
        from bestie_tui.hygiene.health import hygiene_status
        from bestie_tui.hygiene.isolated import AnalysisCancelled, analyse

        def progress(stage: str, fraction: float) -> None:
            self.app.call_from_thread(self._progress, fraction)

        try:
            # at scale in a second process: its memory goes back to the system when it ends
            report, _plan = analyse(self.store, judge=True, report=report, progress=progress)
            status = hygiene_status(self.store, report=report)  # scored, one snapshot recorded
        except AnalysisCancelled:
            return  # the console is quitting
        except BestieError as exc:
            self.app.call_from_thread(self._show_error, str(exc))
            return
        self.app.call_from_thread(self._analysed, status)

    def _progress(self, fraction: float) -> None:
        self.query_one(ProgressBar).update(progress=fraction)

    def _show_error(self, message: str) -> None:
        self.analysis_ends(None)
        self.busy = False
        self.query_one(ProgressBar).display = False
        self.query_one("#doctor-summary", Static).update(data(f"The doctor failed: {message}"))

    def _summary(self, status, changed: bool = False) -> Text:
        report = status.report
        line = Text()
        line.append(f"Health {status.health.score:g}/100", style="bold")
        if status.change is not None:
            line.append(f"  ({status.change:+g} since the last run)")
        line.append(f"   ·  {report.total:,} active memories")
        if self.details:
            line.append(f"  ·  {report.timings.get('total', 0):.1f} s")
        if changed:
            line.append("   ·  memories changed since: r runs it again", style="bold yellow")
        if getattr(report, "judge_note", None):
            line.append("\n")
            append(line, report.judge_note, style="yellow", single_line=True)  # the judge failed: one line
        return line

    def _analysed(self, status) -> None:
        """A run ended (posted by the worker): keep its status, offer its report, show it."""
        self.busy = False
        self.status = status
        self.report = status.report
        self.analysis_ends(status.report)
        self.report_mark = self._event_mark()
        self._show(status)

    def _show(self, status) -> None:
        """Draw ``status`` (again on ``i`` and on a resize)."""
        report = status.report
        self.query_one(ProgressBar).display = False
        changed = self._event_mark() != self.report_mark
        self.query_one("#doctor-summary", Static).update(self._summary(status, changed))
        tree = self.query_one(Tree)
        tree.clear()
        self._duplicates(tree, report)
        self._corrections(tree, report)
        self._contradictions(tree, report)
        self._related(tree, report)
        self._findings(tree, "Stale memories", report.stale)
        self._findings(tree, "Low-value noisy memories", report.noisy)
        core = report.core
        pinned = tree.root.add(Text(f"Pinned / core memories ({len(report.pinned)}) — core {core.tokens}/"
                                    f"{core.cap} tokens{', OVER its cap' if core.over else ''}"))
        for m in report.pinned[:SECTION_ITEMS]:
            self._memory_leaf(pinned, m, "pinned" if m.pinned else "core")
        self._findings(tree, "Memories missing metadata", report.missing_metadata,
                       report.missing_metadata_count)  # the list may hold only the first (issue 31)
        tree.move_cursor(tree.root.children[0] if tree.root.children else None)

    def _duplicates(self, tree: Tree, report) -> None:
        from bestie_tui.hygiene import wording

        section = tree.root.add(Text(f"Duplicate groups ({len(report.duplicates)})"), expand=True)
        for _key, groups in wording.collapse(report.duplicates[:SECTION_ITEMS], wording.duplicate_collapse_key):
            details = ("; ".join(wording.duplicate_details(g) for g in groups[:3])
                       + ("; …" if len(groups) > 3 else ""))
            pair = ("related", *groups[0].ids) if len(groups) == 1 and len(groups[0].ids) == 2 else None
            parent = section.add(self._with_details(wording.duplicates_collapsed_heading(groups), details, 8),
                                 data=pair)  # a group of two is a pair: b/m/n/o resolve it
            for g in groups:
                group = parent.add(data(self._cut(wording.duplicate_heading(g)
                                                  + (f" (user {g.user})" if g.user else ""), 12),
                                        single_line=True)) if len(groups) > 1 else parent
                for m in g.members:
                    self._memory_leaf(group, m, "pinned" if m.pinned else None)
        self._more(section, len(report.duplicates))

    def _corrections(self, tree: Tree, report) -> None:
        strong = sum(1 for c in report.corrections if getattr(c, "strong", True))
        section = tree.root.add(Text(f"Corrections ({len(report.corrections)}, {strong} on strong evidence) — "
                                     "the newer may replace the older"), expand=True)
        self._pairs(section, report.corrections, self._correction_heading, "→", "corrections")
        self._more(section, len(report.corrections))

    def _contradictions(self, tree: Tree, report) -> None:
        from bestie_tui.hygiene import wording

        section = tree.root.add(Text(f"Contradiction candidates ({len(report.contradictions)})"), expand=True)
        self._pairs(section, report.contradictions, self._contradiction_heading, "or", "pairs",
                    topic=wording.contradiction_topic)
        self._more(section, len(report.contradictions))

    def _related(self, tree: Tree, report) -> None:
        """Pairs close enough to matter that the doctor cannot place: evidence, suggestion, and the
        keys that resolve the highlighted pair."""
        related = getattr(report, "related", [])
        section = tree.root.add(data(self._cut(f"Related — review ({len(related)}): b keep both · m merge · "
                                               "n newer replaces older · o keep older", 4), single_line=True),
                                expand=bool(related))
        for r in related[:SECTION_ITEMS]:
            heading = "; ".join(r.evidence) or "close in words"
            label = data(self._cut(f"{heading} — suggested: {_ACTIONS.get(r.action, r.action)}", 12), single_line=True)
            pair = section.add(label, data=("related", r.older.id, r.newer.id))
            self._memory_leaf(pair, r.older, "older, pinned" if r.older.pinned else "older")
            self._memory_leaf(pair, r.newer, "newer, pinned" if r.newer.pinned else "newer")
            if r.suggestion:
                pair.add_leaf(data(self._cut(r.suggestion, 16), single_line=True))
        self._more(section, len(related))

    def _pairs(self, section, items, heading, joiner: str, unit: str, topic=None) -> None:
        """Pairs under their plain heading; pairs whose headings read the same (or whose ``topic``
        nests, ``wording.collapse``) share one, with a count."""
        from bestie_tui.hygiene import wording

        for _text, pairs in wording.collapse(items[:SECTION_ITEMS], lambda c: heading(c).plain, topic):
            label = heading(pairs[0])
            if len(pairs) > 1:
                label = Text(f"{len(pairs)} × ") + label
            parent = section.add(label) if len(pairs) > 1 else section
            for c in pairs:
                pair = parent.add(label if len(pairs) == 1 else self._plain_pair(c.older, c.newer, joiner),
                                  data=("related", c.older.id, c.newer.id))  # b/m/n/o resolve it too
                self._memory_leaf(pair, c.older, "older, pinned" if c.older.pinned else "older")
                self._memory_leaf(pair, c.newer, "newer, pinned" if c.newer.pinned else "newer")

    def _findings(self, tree: Tree, title: str, findings, total: int | None = None) -> None:
        from bestie_tui.hygiene.wording import finding_reason

        total = len(findings) if total is None else total
        section = tree.root.add(Text(f"{title} ({total})"))
        now = self.store.clock()
        for f in findings[:SECTION_ITEMS]:
            self._memory_leaf(section, f.memory, finding_reason(f, now))
        self._more(section, total)

    # ------------------------------------------------------------------ plain headings
    def _correction_heading(self, c) -> Text:
        from bestie_tui.hygiene import wording

        return self._with_details(wording.correction_heading(c), wording.correction_details(c), 30, fit=12)

    def _contradiction_heading(self, c) -> Text:
        from bestie_tui.hygiene import wording

        return self._with_details(wording.contradiction_heading(c), wording.contradiction_details(c), 30, fit=12)

    def _with_details(self, heading: str, details: str, indent: int, fit: int | None = None) -> Text:
        """``heading`` on one line cut with ``…`` at the tree's width less ``indent``; with details on
        (``i``), the heading takes at most half the line and ``[details]`` follow, the whole cut with
        ``…`` at the width less ``fit`` (default ``indent``), so neither runs off the edge unmarked."""
        if not self.details:
            return data(self._cut(heading, indent), single_line=True)
        room = self._room(indent if fit is None else fit)
        label = data(self._cut(heading, indent, width=max(20, room // 2)), single_line=True)
        append(label, f"  [{details}]", style="dim", single_line=True)
        label.truncate(room, overflow="ellipsis")
        return label

    def _plain_pair(self, older, newer, joiner: str) -> Text:
        label = Text()
        append(label, self._cut(f"#{older.id} “{older.text.strip()}” {joiner} #{newer.id} “{newer.text.strip()}”", 24),
               single_line=True)
        return label

    def _room(self, indent: int) -> int:
        """The cells a label has on a tree line after ``indent`` cells (guides, a prefix)."""
        return max(20, (self.query_one(Tree).content_size.width or self.app.size.width - 4) - indent)

    def _cut(self, text: str, indent: int, width: int | None = None) -> str:
        """``text`` on one line, cut with ``…`` to the tree's width less ``indent`` cells (or to
        ``width``, if that is less)."""
        from rich.cells import cell_len, set_cell_size

        from ..display import one_line

        width = self._room(indent) if width is None else min(width, self._room(indent))
        text = one_line(text)
        return text if cell_len(text) <= width else set_cell_size(text, width - 1) + "…"

    def _memory_leaf(self, parent, memory, note: str | None = None) -> None:
        label = Text(f"#{memory.id} ")
        if note:
            append(label, f"({note}) ", style="italic", single_line=True)
        append(label, self._cut(memory.text, 16 + len(label.plain)), single_line=True)
        parent.add_leaf(label, data=memory.id)

    def action_details(self) -> None:
        self.details = not self.details
        if self.status is not None:
            self._show(self.status)

    def on_resize(self, event) -> None:
        if self.status is not None:
            self.call_after_refresh(self._show, self.status)

    @staticmethod
    def _more(section, total: int) -> None:
        if total > SECTION_ITEMS:
            section.add_leaf(Text(f"… {total - SECTION_ITEMS:,} more: bestie memory analyze --json"))

    # ------------------------------------------------------------------ actions
    def action_tree(self, action: str) -> None:
        getattr(self.query_one(Tree), f"action_{action}")()

    def action_jump(self) -> None:
        node = self.query_one(Tree).cursor_node
        memory_id = node.data if node is not None else None
        if isinstance(memory_id, tuple):
            memory_id = memory_id[2]  # a related pair: its newer memory
        if memory_id is None:
            self.notify("Highlight a memory (open a group with enter) to show it in Tiers.", severity="warning")
            return
        self.app.switch_mode("tiers")
        self.app.call_after_refresh(self._select_in_tiers, memory_id)

    def _select_in_tiers(self, memory_id: int) -> None:
        # The Tiers view offers ``select_memory(id)`` (switch to the memory's tier, highlight it);
        # without it the owner still lands in Tiers and is told which id to look for.
        select = getattr(self.app.screen, "select_memory", None)
        if select is not None:
            select(memory_id)
        else:
            self.app.notify(f"Showing the Tiers view; look for #{memory_id}.", markup=False)

    def _related_pair(self) -> tuple[int, int] | None:
        """The pair under the cursor (a related pair, a correction or a contradiction: its heading or
        one of its lines), else ``None``."""
        node = self.query_one(Tree).cursor_node
        while node is not None:
            if isinstance(node.data, tuple) and node.data[0] == "related":
                return node.data[1], node.data[2]
            node = node.parent
        return None

    def action_resolve(self, how: str) -> None:
        """Resolve the highlighted related pair (``b`` keep both, ``m`` merge, ``n`` the newer replaces
        the older, ``o`` keep the older): one undoable change, then the doctor runs again."""
        from bestie_tui.errors import BestieError
        from bestie_tui.hygiene.resolve import resolve_pair

        pair = self._related_pair()
        if pair is None:
            self.notify("Highlight a pair (a duplicate pair, a correction, a contradiction or a related pair) "
                        "to resolve it.", severity="warning")
            return

        def apply(confirmed: bool | None = True) -> None:
            if not confirmed:
                return
            try:
                done = resolve_pair(self.store, pair[0], pair[1], how)
            except BestieError as exc:
                self.notify(str(exc), severity="error", markup=False)
                return
            self.notify(done.message.replace("undo with `bestie memory undo`", "u undoes"), markup=False, timeout=4)
            self.changed()
            self.action_analyze()

        if how == "keep_both":
            apply()  # changes no memory
            return
        from ..screens.confirm_modal import ConfirmModal

        older, newer = self.store.get(pair[0]), self.store.get(pair[1])
        if (newer.created_at, newer.id) < (older.created_at, older.id):
            older, newer = newer, older
        question = {"merge": f"Merge #{older.id} and #{newer.id} into one memory?",
                    "newer": f"#{newer.id} replaces #{older.id}: #{older.id} leaves the prompt (kept, u undoes)?",
                    "older": f"Keep the older #{older.id}: #{newer.id} leaves the prompt (kept, u undoes)?"}[how]
        question += f"\n\nolder #{older.id}: {older.text}\nnewer #{newer.id}: {newer.text}"
        self.app.push_screen(ConfirmModal(question, confirm_label={"merge": "Merge", "newer": "Replace",
                                                                   "older": "Keep older"}[how]), apply)

    def action_undo(self) -> None:
        """Undo the last change of this console (``u``) and analyse again, so an undone resolution
        shows its pair again."""
        self.app.action_undo()
        self.action_analyze()

    def action_cleanup(self) -> None:
        self.app.switch_mode("cleanup")

    def palette_commands(self) -> Iterable[tuple[str, str, object]]:
        yield ("doctor: Re-run analysis", "Run the memory doctor again", self.action_analyze)
        yield ("doctor: Show highlighted memory in Tiers", "Jump to the Tiers view", self.action_jump)
        yield ("view: Cleanup plan", "Open the cleanup plan built from this report", self.action_cleanup)
