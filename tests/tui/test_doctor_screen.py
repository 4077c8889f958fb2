"""Doctor view with Pilot: sections with counts from a worker run, open a group, jump to Tiers."""

from __future__ import annotations

from textual.widgets import Tree

from bestie_tui.hygiene.health import trend
from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.doctor_screen import DoctorScreen

SIZE = (120, 40)


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_sections_counts_open_group_and_jump(store):
    ids = [store.add("preference", t).id for t in
           ("User prefers Vietnamese.", "User wants Vietnamese-first.", "I am vegan.", "I am not a vegan.")]
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, DoctorScreen)
        shown = screen_text(app)
        assert "Duplicate groups (1)" in shown and "Contradiction candidates (1)" in shown
        assert "Stale memories (0)" in shown and "Health " in shown
        assert len(trend(store)) == 1  # one snapshot per run
        tree = app.screen.query_one(Tree)
        await pilot.press("j")  # the group under "Duplicate groups"
        await pilot.press("enter")  # open it
        await pilot.pause()
        await pilot.press("j")
        assert tree.cursor_node.data == ids[0]
        assert "#2 User wants Vietnamese-first." in screen_text(app)
        await pilot.press("t")
        await pilot.pause()
        await pilot.pause()
        assert app.current_mode == "tiers"
        # the oldest of four working memories: the jump moved the cursor to it
        assert app.screen.memory_list.highlighted.id == ids[0]
        assert "User prefers Vietnamese." in screen_text(app)


async def test_rerun_shows_the_change(store):
    store.add("identity", "I am vegan.")
    dup = store.add("identity", "I am not a vegan.")
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Contradiction candidates (1)" in screen_text(app)
        store.forget(dup.id)
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Contradiction candidates (0)" in screen_text(app)
        assert "since the last run" in screen_text(app)


async def test_groups_read_as_plain_words_scores_behind_i_and_like_pairs_collapse(store):
    for t in ("User prefers Vietnamese replies.", "User wants Vietnamese replies.",
              "I love jazz.", "I hate jazz.", "I love jazz music.", "I hate jazz music."):
        store.add("preference", t)
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = screen_text(app)
        assert "memories say “User prefers Vietnamese replies”" in shown
        assert "cosine" not in shown and "frame" not in shown
        report = app.screen.report
        headings = {app.screen._contradiction_heading(c).plain for c in report.contradictions}
        if len(report.contradictions) > len(headings):  # pairs that read the same share one heading
            assert any(f"{n} × " in shown for n in range(2, 10))
        await pilot.press("i")
        await pilot.pause()
        assert "lowest cosine" in screen_text(app)


async def test_details_at_80_columns_are_cut_with_an_ellipsis_not_at_the_edge(store):
    from conftest import FROZEN_NOW

    from bestie_tui.cli.demo import populate

    populate(store, now=FROZEN_NOW)  # two duplicate groups and a contradiction, with long headings
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("i")
        await pilot.pause()
        rows = [strip.text for strip in app.screen._compositor.render_strips()]
        tree = [row[1:-1].rstrip() for row in rows if row.startswith("│") and row.rstrip().endswith("│")]
        inner = len(rows[3]) - 2
        # the details show beside each heading: the duplicate groups' and the contradiction's
        groups = int(next(line for line in tree if "Duplicate groups (" in line).split("(")[1].split(")")[0])
        assert groups >= 2 and sum("[found by" in line for line in tree) == groups, "\n".join(tree)
        assert sum("[antonym" in line for line in tree) == 1, "\n".join(tree)
        # a line that reaches the tree's edge is cut, and says so
        for line in tree:
            if line.endswith("▇▇") or line.endswith("  "):  # the tree's scrollbar: its text ends before it
                line = line[:-2].rstrip()
                if len(line) < inner - 4:
                    continue
            if len(line) >= inner - 2:
                assert line.endswith("…"), line


async def test_a_change_after_the_report_is_said_and_r_analyses_again(store):
    store.add("preference", "User prefers Vietnamese.")
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "1 active memories" in screen_text(app) and "memories changed since" not in screen_text(app)
        await pilot.press("i")  # redrawing the report keeps it as it was
        await pilot.pause()
        assert "memories changed since" not in screen_text(app)
        store.add("preference", "User wants Vietnamese-first.")
        app.store_written()
        await pilot.pause()
        assert "memories changed since: r runs it again" in screen_text(app)
        assert "1 active memories" in screen_text(app)  # the report is still the one that was made
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = screen_text(app)
        assert "2 active memories" in shown and "memories changed since" not in shown
