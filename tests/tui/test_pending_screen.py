"""The Pending view (triage session), driven by keys with Pilot over a real temp-file store."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.confirm_modal import ConfirmModal
from bestie_tui.tui.screens.edit_memory_modal import EditMemoryModal
from bestie_tui.tui.screens.pending_screen import PendingScreen, merge_queue
from bestie_tui.tui.widgets.similar_list import relation_hint

SIZE = (120, 36)


async def settle(pilot) -> None:
    """Let messages run and the similarity worker finish."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def shown(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def pending_screen(app) -> PendingScreen:
    assert isinstance(app.screen, PendingScreen)
    return app.screen


def propose(store, *texts: str, user: str = "caroline") -> list[int]:
    ids = []
    for text in texts:
        ids.append(store.propose(text, "preference", user=user).memory.id)
        store.clock.advance(1)  # distinct created_at: triage order is oldest first
    return ids


def app_for(store, **kwargs) -> BestieApp:
    return BestieApp(store, poll_interval=kwargs.pop("poll_interval", 0), start_mode="pending", **kwargs)


async def test_approve_reject_and_progress(store):
    a, b, c = propose(store, "Prefers green tea in the morning", "Has a dog named Oscar", "Lives in Hà Nội")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Prefers green tea" in shown(app, "#proposal-text")
        assert shown(app, "#pending-progress").startswith("reviewed 0 / 3")
        await pilot.press("a")
        await settle(pilot)
        assert store.get(a).status == "approved"
        assert "Has a dog named Oscar" in shown(app, "#proposal-text")
        await pilot.press("r")
        await settle(pilot)
        assert store.get(b).status == "rejected"
        await pilot.press("x")
        await settle(pilot)
        assert store.get(c).status == "rejected"
        assert shown(app, "#pending-progress").startswith("reviewed 3 / 3")
        assert "Nothing pending." in shown(app, "#proposal-text")
    approve_event = store.history(a)[0]
    assert (approve_event.action, approve_event.actor, approve_event.at) == ("approve", "owner", store.clock())


async def test_edit_then_approve_is_one_step(store):
    (a,) = propose(store, "Likes jazz")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, EditMemoryModal)
        await pilot.press(*" and blues", "ctrl+s")
        await settle(pilot)
    record = store.get(a)
    assert (record.status, record.text) == ("approved", "Likes jazz and blues")
    assert [e.action for e in store.history(a)] == ["edit+approve", "propose"]


async def test_cancelled_edit_changes_nothing(store):
    (a,) = propose(store, "Likes jazz")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e", "x", "escape")
        await settle(pilot)
        assert isinstance(app.screen, PendingScreen)
    assert (store.get(a).status, store.get(a).text) == ("pending", "Likes jazz")


async def test_skip_leaves_pending_and_moves_to_the_back(store):
    a, b, c = propose(store, "Plays the violin", "Runs on Sundays", "Reads sci-fi")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        screen = pending_screen(app)
        assert screen.current_id == b
        assert screen.queue == [b, c, a]
        await pilot.press("G")
        await settle(pilot)
        assert screen.current_id == a
    assert [store.get(i).status for i in (a, b, c)] == ["pending"] * 3


async def test_next_and_previous_keys(store):
    a, b, c = propose(store, "Plays the violin", "Runs on Sundays", "Reads sci-fi")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pending_screen(app)
        for key, expected in [("j", b), ("down", c), ("n", c), ("k", b), ("up", a), ("p", a), ("G", c), ("g", a)]:
            await pilot.press(key)
            assert screen.current_id == expected, key
        assert "proposal 1 of 3" in shown(app, "#pending-progress")


async def test_filter_narrows_the_queue_then_reject_all_shown(store):
    tea, dog, tea2 = propose(store, "Prefers green tea", "Has a dog named Oscar", "Drinks tea before bed")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", "R", "a")  # typed into the filter box, not taken as keys
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmModal)
        assert store.get(tea).status == "pending"
        await pilot.press("backspace", "backspace", *"tea", "enter")
        await settle(pilot)
        screen = pending_screen(app)
        assert screen.queue == [tea, tea2]
        assert "of 2 in the queue" in shown(app, "#pending-progress")
        assert "filter: tea" in shown(app, "#pending-progress")
        # keys act on the queue again once the filter is applied
        await pilot.press("R")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        assert "Reject all 2 pending proposals shown matching “tea”" in shown(app, "#confirm-question")
        await pilot.press("y")
        await settle(pilot)
        assert "No pending proposal matches" in shown(app, "#proposal-text")
        await pilot.press("escape")
        await settle(pilot)
        assert screen.queue == [dog]
    assert [store.get(i).status for i in (tea, dog, tea2)] == ["rejected", "pending", "rejected"]


async def test_reject_all_cancelled_changes_nothing(store):
    ids = propose(store, "Prefers green tea", "Has a dog named Oscar")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await pilot.pause()
        assert "Reject all 2 pending proposals shown?" in shown(app, "#confirm-question")
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, PendingScreen)
    assert [store.get(i).status for i in ids] == ["pending", "pending"]


async def test_undo_brings_the_decision_back_as_current(store):
    a, b = propose(store, "Prefers green tea", "Has a dog named Oscar")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert store.get(a).status == "approved"
        await pilot.press("u")
        await settle(pilot)
        assert store.get(a).status == "pending"
        assert pending_screen(app).current_id == a
        assert shown(app, "#pending-progress").startswith("reviewed 0 / 2")
    assert store.history(a)[0].action == "undo"


async def test_empty_store_shows_nothing_pending_and_keys_still_answer(store):
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Nothing pending." in shown(app, "#proposal-text")
        assert shown(app, "#pending-progress").startswith("reviewed 0 / 0")
        await pilot.press("a", "r", "e", "s", "j", "k", "R", "u")
        await settle(pilot)
        assert isinstance(app.screen, PendingScreen)  # no modal opened on an empty queue
        notices = [str(n.message) for n in app._notifications]
        assert "Nothing pending to approve." in notices and "nothing to undo made in this session" in notices
    assert store.count() == 0


async def test_markup_and_escape_sequences_show_literally(store):
    store.propose("[bold]not bold[/bold] \x1b[31mred\x1b[0m", "note", user="caroline")
    store.add("note", "[bold]not bold[/bold] earlier", user="caroline")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown(app, "#proposal-text") == "[bold]not bold[/bold] \\x1b[31mred\\x1b[0m"
        assert "[bold]not bold[/bold] earlier" in shown(app, "#similar-list")


async def test_similar_approved_memories_are_shown_with_scores(store):
    kept = store.add("preference", "Prefers concise replies in Vietnamese", user="caroline")
    store.add("preference", "Owns a red bicycle", user="caroline")
    store.add("preference", "Prefers concise replies", user="melanie")  # another user's: not shown
    propose(store, "Prefers concise replies, in Vietnamese please")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)  # the lookup ran in a worker thread with its own connection to the file
        text = shown(app, "#similar-list")
        score = store.similar("Prefers concise replies, in Vietnamese please", user="caroline")[0][1]
        # a reply preference is a standing instruction: the gate gave it the kind communication_preference
        assert text.startswith(f"{score:.2f}  possible duplicate\n#{kept.id} · communication_preference · caroline\n")
        assert "bicycle" not in text and "melanie" not in text
        assert not app.screen.query_one("#similar-list").loading
        # the worker closed only its own thread's connection; the UI thread's is still open
        assert not store.db.is_closed()


async def test_contradiction_is_flagged_beside_the_proposal(store):
    store.add("preference", "Linh hates durian; never suggest it.", user="linh")
    propose(store, "Linh loves durian smoothies.", user="linh")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "possible contradiction" in shown(app, "#similar-list")


def test_relation_hint_thresholds():
    assert relation_hint("Linh loves durian", "Linh does not love durian", 0.6) == "possible contradiction"
    assert relation_hint("Keep answers short", "Keep answers short, please", 0.85) == "possible duplicate"
    assert relation_hint("Keep answers short", "Owns a bicycle", 0.1) is None


async def test_palette_offers_the_screen_actions(store):
    propose(store, "Prefers green tea")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = [title for title, _help, _cb in pending_screen(app).palette_commands()]
        assert {"memory: Approve current", "memory: Reject current", "memory: Edit then approve current",
                "memory: Skip current", "memory: Reject all shown", "view: Filter pending queue"} <= set(titles)
        for binding in PendingScreen.BINDINGS:
            assert binding.id and binding.description


def test_merge_queue_keeps_order_and_appends_new_ids():
    assert merge_queue([3, 1, 2], [1, 2, 3, 4]) == [3, 1, 2, 4]
    assert merge_queue([3, 1, 2], [2, 5]) == [2, 5]
    assert merge_queue([], [7, 8]) == [7, 8]


async def test_proposal_from_another_process_joins_without_moving_the_owner(store, db_path: Path):
    a, b = propose(store, "Prefers green tea", "Has a dog named Oscar")
    app = app_for(store, poll_interval=0.1)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j")
        screen = pending_screen(app)
        assert screen.current_id == b
        bestie = Path(sys.executable).with_name("bestie")
        cmd = [str(bestie)] if bestie.exists() else [sys.executable, "-m", "bestie_tui.cli.main"]
        done = subprocess.run([*cmd, "memory", "propose", "hobby", "Collects vinyl records", "--user", "caroline"],
                              env={**os.environ, "BESTIE_DB": str(db_path)}, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        for _ in range(50):  # the app polls PRAGMA data_version every 0.1 s
            if len(screen.queue) == 3:
                break
            await pilot.pause(0.1)
        assert len(screen.queue) == 3
        assert screen.current_id == b
        assert "Has a dog named Oscar" in shown(app, "#proposal-text")
        assert "proposal 2 of 3" in shown(app, "#pending-progress")
        await pilot.press("j")
        assert "Collects vinyl records" in shown(app, "#proposal-text")


async def test_refused_edit_keeps_the_editor_open_and_later_keys_do_nothing(store):
    from bestie_tui.tui.app import BestieApp
    from bestie_tui.tui.screens.edit_memory_modal import EditMemoryModal

    first = store.propose("Likes green tea", "preference").memory
    second = store.propose("Likes jasmine tea", "preference").memory
    app = BestieApp(store, poll_interval=0, start_mode="pending")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("e", "ctrl+a")
        area = app.screen.query_one("TextArea")
        area.text = "my password is hunter2xyz"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, EditMemoryModal)
        assert "looks like a password" in str(app.screen.query_one("#edit-error").render())
        area.text = "!!!"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, EditMemoryModal)
        await pilot.press(*"ara")  # typed into the editor, not triage commands
        await pilot.press("escape")
        await pilot.pause()
    assert store.get(first.id).status == "pending" and store.get(second.id).status == "pending"
    assert store.get(first.id).text == "Likes green tea"


async def test_a_correction_shows_replaces_and_a_approves_superseding_it_in_one_undo_step(store):
    old = store.add("identity", "User lives in Hanoi.", user="caroline")
    store.clock.advance(60)
    (new,) = propose(store, "I moved from Hanoi to Da Nang last month.")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        card = shown(app, "#proposal-relations")
        assert card == f"replaces #{old.id}  User lives in Hanoi."
        listing = shown(app, "#similar-list")
        assert f"replaces #{old.id}" in listing and "possible duplicate" not in listing
        assert "same subject: owner; attribute: residence; Hanoi → Da Nang" in listing
        await pilot.press("a")
        await settle(pilot)
        assert store.get(new).status == "approved" and store.get(old.id).superseded_by == new
        await pilot.press("u")
        await settle(pilot)
        assert store.get(new).status == "pending" and store.get(old.id).superseded_by is None


async def test_shift_a_approves_and_keeps_what_the_proposal_replaces(store):
    old = store.add("identity", "User lives in Hanoi.", user="caroline")
    store.clock.advance(60)
    (new,) = propose(store, "I moved from Hanoi to Da Nang last month.")
    app = app_for(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
    assert store.get(new).status == "approved" and store.get(old.id).superseded_by is None


async def test_the_card_shows_every_binding(store):
    from bestie_tui.tui.widgets.proposal_card import proposal_meta

    store.propose("Prefers tabs over spaces in the dispatch repo.", "preference", user="linh",
                  channel="telegram:7", project="song-hong", session="s-42")
    [record] = store.list(status="pending")
    meta = proposal_meta(record).plain
    for name, value in (("user", "linh"), ("channel", "telegram:7"), ("project", "song-hong"), ("session", "s-42")):
        assert any(line.split() == [name, value] for line in meta.splitlines()), name



async def test_the_card_shows_every_binding_at_every_size_and_cuts_text_with_an_ellipsis(store):
    import re

    old = store.add("identity", "User lives in Hanoi in the Old Quarter near Hoan Kiem lake with a cat named Mochi.",
                    user="linh")
    store.clock.advance(60)
    long_text = ("The owner said that for the dispatch repository the team prefers tabs over spaces, except in "
                 "YAML files where two spaces are required by the linter, as agreed at the November retro. ") * 3
    where = {"user": "linh", "session": "s-42", "channel": "telegram:7", "project": "song-hong", "scope": "session"}
    store.propose(long_text.strip(), "preference", **where)
    store.clock.advance(60)
    store.propose("I moved from Hanoi to Da Nang last month.", "identity", **where)

    def card_lines(app) -> list[str]:
        rows = [strip.text for strip in app.screen._compositor.render_strips()]
        return [row.split("│")[1].strip() for row in rows if row.lstrip().startswith("│")]

    def check(lines: list[str], size) -> str:
        """Every binding on a line of its own; returns the proposal's text as drawn."""
        for name, value in where.items():
            assert any(re.fullmatch(rf"{name} +{re.escape(value)}", line) for line in lines), (size, name)
        rule = next(i for i, line in enumerate(lines) if line.startswith("▁"))
        assert [line for line in lines if line][-1].startswith("scope ")  # the last field is drawn: nothing cut below it
        return " ".join(line for line in lines[:rule] if line)

    for size in ((80, 24), (120, 40), (200, 60)):
        app = app_for(store)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            text = check(card_lines(app), size)
            assert text == long_text.strip() or text.endswith("…"), size
            if size == (80, 24):
                assert text.endswith("…")  # the text is cut where it is cut, with …
            else:
                assert text == long_text.strip()
            # the next proposal replaces #old: that is one line (cut with … where narrow), not wrapped
            await pilot.press("j")
            await settle(pilot)
            lines = card_lines(app)
            check(lines, size)
            [replaces] = [i for i, line in enumerate(lines) if line.startswith(f"replaces #{old.id}")]
            assert lines[replaces + 1].startswith("id ")
            assert lines[replaces].endswith(old.text) or lines[replaces].endswith("…"), size
            assert lines[replaces].endswith("…") == (size != (200, 60)), size


async def test_an_empty_queue_says_what_to_do_next_whole_at_80_columns(store):
    app = BestieApp(store, poll_interval=0, start_mode="pending")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        card = app.screen.query_one("#proposal-card").region
        strips = app.screen._compositor.render_strips()[card.y:card.bottom]
        shown = " ".join(" ".join(s.text[card.x:card.right].replace("│", " ").split()) for s in strips)
        assert "Nothing pending." in shown
        assert "New proposals appear here as the assistant makes them. u undoes the last change · / filters · " \
               "1 shows the tiers" in shown


async def test_the_similar_heading_is_whole_or_ends_in_an_ellipsis(store):
    """At 80 columns the right-hand heading does not fit: it is cut with "…", never silently."""
    store.add("preference", "Linh prefers Vietnamese replies with proper diacritics.", user="linh")
    propose(store, "Linh prefers concise replies in Vietnamese.", user="linh")
    heading = "Related and similar approved memories"
    for size, whole in (((80, 24), False), ((160, 40), True)):
        app = app_for(store)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            title = app.screen.query_one("#similar-title").region
            row = app.screen._compositor.render_strips()[title.y].text[title.x:title.right].rstrip()
            if whole:
                assert row == heading, size
            else:
                assert row.endswith("…") and heading.startswith(row[:-1]) and len(row) <= title.width, (size, row)


async def test_the_card_keeps_a_times_relative_part_whole(store):
    """At 80 columns "created 2026-11-30 12:00 UTC (12 h ago)" does not fit the card: "(12 h ago)"
    goes on the line under the time, whole, not cut to "(12 h ag…"; where it fits it stays beside."""
    propose(store, "Linh prefers concise replies in Vietnamese.", user="linh")
    store.clock.advance(12 * 3600)
    time = "2026-11-30 12:00 UTC"
    for size, beside in (((80, 24), False), ((160, 40), True)):
        app = app_for(store)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            card = app.screen.query_one("#proposal-card").region
            strips = app.screen._compositor.render_strips()[card.y + 1:card.bottom - 1]  # inside the frame
            rows = [s.text[card.x:card.right].strip("│ ") for s in strips]
            [at] = [i for i, row in enumerate(rows) if row.startswith("created ")]
            if beside:
                assert rows[at] == f"created    {time} (12 h ago)", (size, rows[at])
            else:
                assert rows[at:at + 2] == [f"created    {time}", "(12 h ago)"], (size, rows[at:at + 2])
            assert rows[at + 1 + (not beside)].startswith("session "), size  # the next field follows
            assert [row for row in rows if row][-1].startswith("scope "), size  # every field still shows
