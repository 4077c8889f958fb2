"""Doctor view with Pilot: a pair is resolved with one key (b keep both, n the newer replaces the
older, o keep the older), each an undoable change, and a pair kept apart is not asked again."""

from __future__ import annotations

from textual.widgets import Tree

from bestie_tui.tui.app import BestieApp

SIZE = (120, 40)
OLDER, NEWER = "I keep my passport in the desk drawer.", "The passport is in the blue folder now."


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def _open_on_the_pair(app, pilot) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    tree = app.screen.query_one(Tree)
    node = next(n for n in _walk(tree.root) if isinstance(n.data, tuple))
    tree.move_cursor(node)
    await pilot.pause()


def _walk(node):
    for child in node.children:
        yield child
        yield from _walk(child)


async def test_n_makes_the_newer_replace_the_older_and_u_undoes_it(store, clock):
    older = store.add("fact", OLDER)
    clock.advance(86400)
    newer = store.add("fact", NEWER)
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await _open_on_the_pair(app, pilot)
        assert "Corrections (1," in screen_text(app)
        await pilot.press("n")  # asks first, showing both texts
        await pilot.pause()
        assert "replaces #" in screen_text(app) and OLDER in screen_text(app)
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert store.get(older.id).superseded_by == newer.id
        assert "Corrections (0," in screen_text(app)
        await pilot.press("u")  # undone, and the doctor runs again: the pair is back
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert store.get(older.id).superseded_by is None
        assert "Corrections (1," in screen_text(app)


async def test_a_cancelled_confirmation_changes_nothing(store, clock):
    older = store.add("fact", OLDER)
    clock.advance(86400)
    store.add("fact", NEWER)
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=SIZE) as pilot:
        await _open_on_the_pair(app, pilot)
        await pilot.press("m")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert [m.superseded_by for m in store.list()] == [None, None]
        assert store.get(older.id).text == OLDER


async def test_o_keeps_the_older(store, clock):
    older = store.add("fact", OLDER)
    clock.advance(86400)
    newer = store.add("fact", NEWER)
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=SIZE) as pilot:
        await _open_on_the_pair(app, pilot)
        await pilot.press("o")
        await pilot.pause()
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert store.get(newer.id).superseded_by == older.id and store.get(older.id).superseded_by is None


async def test_b_keeps_both_and_the_doctor_does_not_ask_again_until_undone(store, clock):
    store.add("fact", OLDER)
    clock.advance(86400)
    store.add("fact", NEWER)
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=SIZE) as pilot:
        await _open_on_the_pair(app, pilot)
        await pilot.press("b")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Corrections (0," in screen_text(app)
        assert [m.superseded_by for m in store.list()] == [None, None]  # both stay
        await pilot.press("u")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Corrections (1," in screen_text(app)


async def test_a_key_with_no_pair_highlighted_says_what_to_do(store):
    store.add("fact", OLDER)
    app = BestieApp(store, poll_interval=0, start_mode="doctor")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert any("Highlight a pair" in n.message for n in app._notifications)
        assert store.list()[0].superseded_by is None
