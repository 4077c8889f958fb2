"""``TiersScreen``: core / working / archive lists with counts, a detail panel and the owner's
lifecycle actions (pin, standing instruction on/off, move, edit, forget, restore, supersede, copy, undo)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Static, Tab, Tabs

from bestie_tui.errors import BestieError
from bestie_tui.store.instructions import is_instruction
from bestie_tui.store.models import LAYERS, SCOPE_DEFAULT_LAYER
from bestie_tui.store.records import MemoryRecord
from bestie_tui.text.words import tokens

from ..widgets.memory_detail import MemoryDetail
from ..widgets.memory_list import MemoryList
from .base import BestieScreen
from .confirm_modal import ConfirmModal
from .edit_memory_modal import EditMemoryModal
from .move_modal import MoveModal
from .supersede_modal import SupersedeModal

#: Events shown under a memory in the detail panel.
HISTORY_LIMIT = 8
TIER_TITLES = {"core": "Core", "working": "Working", "archive": "Archive"}


class TiersScreen(BestieScreen):
    """Browse every memory by tier and change it by keyboard. The list is virtual (``MemoryList``),
    so it opens as fast with 10,000 memories as with 10."""

    VIEW_TITLE = "Tiers"
    BINDINGS = [
        Binding("c", "show_tier('core')", "Core", id="tiers.core", show=False),
        Binding("w", "show_tier('working')", "Working", id="tiers.working", show=False),
        Binding("a", "show_tier('archive')", "Archive", id="tiers.archive", show=False),
        Binding("right_square_bracket", "cycle_tier(1)", "Next tier", id="tiers.next", show=False,
                key_display="]"),
        Binding("left_square_bracket", "cycle_tier(-1)", "Previous tier", id="tiers.previous",
                show=False, key_display="["),
        Binding("n", "new_memory", "New", id="tiers.new"),
        Binding("p", "toggle_pin", "Pin/unpin", id="tiers.pin"),
        Binding("i", "toggle_instruction", "Instruction on/off", id="tiers.instruction"),
        Binding("m", "move", "Move scope", id="tiers.move"),
        Binding("e", "edit", "Edit", id="tiers.edit"),
        Binding("d,delete", "forget", "Forget", id="tiers.forget"),
        Binding("r", "restore", "Restore", id="tiers.restore"),
        Binding("s", "supersede", "Supersede", id="tiers.supersede"),
        Binding("y", "copy_text", "Copy text", id="tiers.copy"),
        Binding("u", "app.undo", "Undo", id="tiers.undo"),
        Binding("slash", "filter", "Filter", id="tiers.filter", key_display="/"),
        Binding("escape", "clear_filter", "Clear filter", id="tiers.clear_filter", show=False),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.tier = "core"
        self.query_text = ""

    # ------------------------------------------------------------------ layout
    def compose_body(self) -> ComposeResult:
        counts = self.store.tier_counts()
        # Open on the first tier that has something to show.
        self.tier = next((t for t in LAYERS if counts[t]), "core")
        tabs = Tabs(*(Tab(self._tab_label(t, counts[t]), id=t) for t in LAYERS), active=self.tier,
                    id="tier-tabs")
        tabs.can_focus = False  # the list keeps focus; c/w/a and [ ] switch tiers
        with Vertical(id="tiers-body"):
            yield tabs
            yield Input(placeholder="filter this tier (tolerant: hanoi finds Hà Nội) · enter keeps, esc clears",
                        id="tiers-filter", classes="hidden")
            yield Static("", id="tiers-caption")
            with Horizontal(id="tiers-main"):
                yield MemoryList(self.store, filters={"tier": self.tier}, empty_text=self._empty_text(),
                                 id="tiers-list")
                yield MemoryDetail(id="tiers-detail")

    def on_mount(self) -> None:
        super().on_mount()
        self.memory_list.focus()
        self._update_caption()

    @property
    def memory_list(self) -> MemoryList:
        return self.query_one("#tiers-list", MemoryList)

    @property
    def detail(self) -> MemoryDetail:
        return self.query_one("#tiers-detail", MemoryDetail)

    @property
    def selected(self) -> MemoryRecord | None:
        return self.memory_list.highlighted

    @staticmethod
    def _tab_label(tier: str, count: int) -> str:
        return f"{TIER_TITLES[tier]} {count:,}"

    def _empty_text(self) -> str:
        if self.query_text:
            return f"No {self.tier} memories match this filter (esc clears it)."
        if not any(self.store.tier_counts().values()):
            return ("No memories yet. Press n to add one, or: bestie memory import FILE · "
                    "bestie memory add KIND TEXT · bestie tui --demo to look around.")
        return f"No memories in the {self.tier} tier. Keys c / w / a switch tiers; n adds one."

    def _update_caption(self) -> None:
        total = self.memory_list.total
        caption = Text(f"{TIER_TITLES[self.tier]} · {total:,} {'memory' if total == 1 else 'memories'}")
        if self.query_text:
            caption.append(" matching ")
            caption.append(repr(self.query_text), style="bold")
        self.query_one("#tiers-caption", Static).update(caption)

    # ------------------------------------------------------------------ data
    def refresh_data(self) -> None:
        """Re-read counts and the list, keeping the selected memory and the scroll position."""
        counts = self.store.tier_counts()
        tabs = self.query_one(Tabs)
        for tier in LAYERS:
            tabs.get_tab(tier).label = self._tab_label(tier, counts[tier])
        self.memory_list.reload(keep_place=True)
        self._update_caption()

    def _load_list(self) -> None:
        query = self.query_text if tokens(self.query_text) else None
        self.memory_list.empty_text = self._empty_text()
        self.memory_list.set_filters(tier=self.tier, query=query)
        self._update_caption()

    def on_memory_list_highlighted(self, message: MemoryList.Highlighted) -> None:
        if message.memory is None:
            self.detail.show_message(self.memory_list.empty_text)
            return
        try:
            # ``get`` rather than ``open``: browsing with the cursor is not an access.
            memory = self.store.get(message.memory.id)
        except BestieError:
            self.detail.show_message("This memory no longer exists.")
            return
        self.detail.show(memory, self.store.history(memory.id, limit=HISTORY_LIMIT), self.store.clock(),
                         self.store.owner_zone)

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        tier = event.tab.id
        if tier in LAYERS and tier != self.tier:
            self._switch_tier(tier)

    def _switch_tier(self, tier: str) -> None:
        """Show ``tier``'s list with the memory that was selected there when it was left (each tier
        keeps its place, as tabs do), else its first row."""
        places: dict[str, int] = self.__dict__.setdefault("_places", {})
        here = self.memory_list.highlighted
        if here is not None:
            places[self.tier] = here.id
        self.tier = tier
        self._load_list()
        back = places.get(tier)
        if back is not None:
            query = self.query_text if tokens(self.query_text) else None
            position = self.store.position(back, tier=tier, query=query)
            if position is not None:
                self.memory_list.move_cursor(position)

    def select_memory(self, memory_id: int) -> bool:
        """Show ``memory_id`` in its tier and highlight it (used by other views' "jump to memory").
        Clears a text filter that would hide it. Returns False (with a notice) for a pending or
        unknown id, which have no tier."""
        try:
            memory = self.store.get(memory_id)
        except BestieError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return False
        if memory.status == "pending":
            self.notify(f"#{memory_id} is pending: it is in the Pending view (key 2).", markup=False)
            return False
        box = self.query_one("#tiers-filter", Input)
        box.add_class("hidden")
        with box.prevent(Input.Changed):
            box.value = ""
        self.query_text = ""
        self.tier = memory.tier
        with self.query_one(Tabs).prevent(Tabs.TabActivated):
            self.query_one(Tabs).active = memory.tier
        self._load_list()
        position = self.store.position(memory_id, tier=memory.tier)
        if position is not None:
            self.memory_list.move_cursor(position)
        self.memory_list.focus()
        return True

    def action_show_tier(self, tier: str) -> None:
        # The list changes now, not when the tab's TabActivated message arrives: a key already queued
        # behind this one (w then p in one read from the terminal) acts on the tier it switched to.
        if tier != self.tier:
            self._switch_tier(tier)
        self.query_one(Tabs).active = tier  # its TabActivated then finds self.tier already set

    def action_cycle_tier(self, step: int) -> None:
        self.action_show_tier(LAYERS[(LAYERS.index(self.tier) + step) % len(LAYERS)])

    # ------------------------------------------------------------------ filter
    def action_filter(self) -> None:
        box = self.query_one("#tiers-filter", Input)
        box.remove_class("hidden")
        box.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "tiers-filter" and event.value != self.query_text:
            self.query_text = event.value
            self._load_list()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "tiers-filter":
            if not event.value.strip():
                event.input.add_class("hidden")
            self.memory_list.focus()

    def action_clear_filter(self) -> None:
        box = self.query_one("#tiers-filter", Input)
        box.add_class("hidden")
        self.memory_list.focus()
        if box.value or self.query_text:
            box.value = ""  # posts Input.Changed, which reloads the list
            self.query_text = ""
            self._load_list()

    # ------------------------------------------------------------------ actions
    def _with_selected(self) -> MemoryRecord | None:
        memory = self.selected
        if memory is None:
            self.notify("No memory selected.", severity="warning")
        return memory

    def action_new_memory(self) -> None:
        from .add_memory_modal import AddMemoryModal

        def save(values: dict):
            # Raises BestieError (a bad TTL, the write gate's refusal): the form shows it and stays open.
            owner = self.store.user or self.store.get_setting("owner.user")  # a bound console: its user
            return self.store.add_result(values["kind"], values["text"], scope=values["scope"],
                                         ttl=values["ttl"], user=owner)

        def added(result) -> None:
            if result is None:
                return
            self.notify(result.message, markup=False)
            self.changed()
            self.call_after_refresh(self._show_added, result.memory.id)

        self.app.push_screen(AddMemoryModal(save=save), added)

    def _show_added(self, memory_id: int) -> None:
        select = getattr(self, "select_memory", None)
        if select is not None:
            select(memory_id)

    def _apply(self, change: Callable[[], MemoryRecord], done: str) -> None:
        """Run one store write; a refusal becomes a one-line notice and nothing changes."""
        try:
            change()
        except BestieError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.notify(done, markup=False)
        self.changed()

    def action_toggle_pin(self) -> None:
        if (memory := self._with_selected()) is None:
            return
        if memory.pinned:
            self._apply(lambda: self.store.unpin(memory.id), f"Unpinned #{memory.id}.")
        else:
            self._apply(lambda: self.store.pin(memory.id), f"Pinned #{memory.id}.")

    def action_toggle_instruction(self) -> None:
        """A standing instruction (enters every prompt, "How to answer:") becomes an ordinary memory,
        or the other way round; undoable with u."""
        if (memory := self._with_selected()) is None:
            return
        if is_instruction(memory):
            self._apply(lambda: self.store.uninstruct(memory.id),
                        f"#{memory.id} is an ordinary memory now: it enters a prompt only when relevant.")
        else:
            self._apply(lambda: self.store.instruct(memory.id),
                        f"#{memory.id} is a standing instruction now: it enters every prompt.")

    def action_move(self) -> None:
        if (memory := self._with_selected()) is None:
            return

        def moved(scope: str | None) -> None:
            if scope and scope != memory.scope:
                kept = memory.pinned and scope != "core" and memory.layer != SCOPE_DEFAULT_LAYER[scope]
                note = f" It is pinned, so it stays in the {memory.layer} layer." if kept else ""
                if memory.is_expired(self.store.clock()):  # said, as the CLI says it: moving renews nothing
                    note += (" It has expired, so it stays out of every prompt until it gets a new TTL "
                             f"(bestie memory expire {memory.id} never).")
                self._apply(lambda: self.store.move(memory.id, scope), f"Moved #{memory.id} to scope {scope}.{note}")

        self.app.push_screen(MoveModal(memory.id, memory.scope, memory.pinned), moved)

    def action_edit(self) -> None:
        if (memory := self._with_selected()) is None:
            return

        def edited(text: str | None) -> None:
            if text is not None and text != memory.text:
                self._apply(lambda: self.store.edit(memory.id, text), f"Edited #{memory.id}.")

        self.app.push_screen(EditMemoryModal(memory.text, title=f"Edit #{memory.id}",
                                             check=lambda t: self.store.check_text(t, memory.id)), edited)

    def action_forget(self) -> None:
        if (memory := self._with_selected()) is None:
            return
        if memory.status == "forgotten":
            self.notify(f"#{memory.id} is already forgotten; r restores it.", severity="warning")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._apply(lambda: self.store.forget(memory.id),
                            f"Forgot #{memory.id} (moved to the archive; r restores, u undoes).")

        question = f"Forget #{memory.id}? It leaves prompts and moves to the archive; restore or undo brings it back."
        self.app.push_screen(ConfirmModal(question, confirm_label="Forget"), confirmed)

    def action_restore(self) -> None:
        if (memory := self._with_selected()) is None:
            return
        try:
            after = self.store.restore(memory.id)
        except BestieError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        self.notify(self.store.restore_message(memory, after) + ".", markup=False)
        self.changed()  # the Archive list reloads: the restored row leaves it

    def action_supersede(self) -> None:
        if (memory := self._with_selected()) is None:
            return

        def chosen(new_id: int | None) -> None:
            if new_id is not None:
                self._apply(lambda: self.store.supersede(memory.id, new_id),
                            f"#{memory.id} is superseded by #{new_id} (now in the archive).")

        self.app.push_screen(SupersedeModal(memory), chosen)

    def action_copy_text(self) -> None:
        if (memory := self._with_selected()) is None:
            return
        from ..clipboard import NO_CLIPBOARD, copy_text

        where = copy_text(self.app, memory.text)
        if where is None:
            self.notify(NO_CLIPBOARD, severity="warning", markup=False, timeout=8)
            return
        if where == "terminal clipboard":  # OSC 52: the terminal may refuse it and cannot say so
            self.notify(f"Sent the text of #{memory.id} to the terminal clipboard. "
                        "If nothing pastes, the terminal blocks OSC 52: select with the mouse.", markup=False)
        else:
            self.notify(f"Copied the text of #{memory.id} to the {where}.", markup=False)

    # ------------------------------------------------------------------ palette
    def palette_commands(self) -> Iterable[tuple[str, str, object]]:
        memory = self.selected
        if memory is not None:
            if memory.pinned:
                yield "memory: Unpin selected", f"Unpin #{memory.id}", self.action_toggle_pin
            else:
                yield "memory: Pin selected", f"Pin #{memory.id}: never auto-cleaned", self.action_toggle_pin
            if is_instruction(memory):
                yield ("memory: Make selected an ordinary memory",
                       f"#{memory.id} stops entering every prompt", self.action_toggle_instruction)
            else:
                yield ("memory: Make selected a standing instruction",
                       f"#{memory.id} enters every prompt (how to answer)", self.action_toggle_instruction)
            yield "memory: Move selected to another scope", f"Move #{memory.id} (core/project/session)", self.action_move
            yield "memory: Edit selected", f"Edit the text of #{memory.id}", self.action_edit
            if memory.status != "forgotten":
                yield "memory: Forget selected", f"Soft-delete #{memory.id} (undoable)", self.action_forget
            if memory.tier == "archive" and (memory.status != "approved" or memory.superseded_by is not None):
                yield "memory: Restore selected", f"Bring #{memory.id} back to active", self.action_restore
            yield "memory: Supersede selected", f"Mark #{memory.id} as replaced by another memory", self.action_supersede
            yield "memory: Copy selected text", f"Copy the text of #{memory.id} to the clipboard", self.action_copy_text
        for tier in LAYERS:
            if tier != self.tier:
                yield (f"view: {TIER_TITLES[tier]} tier", f"Show the {tier} tier",
                       lambda tier=tier: self.action_show_tier(tier))
        yield "view: Filter tier list", "Filter the list by text (/)", self.action_filter
