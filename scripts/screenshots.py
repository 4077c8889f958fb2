"""Render the console's views of the demo database to SVG in ``screenshots/``.

Usage: ``python scripts/screenshots.py [--out screenshots] [--size 80x24 ...] [--text] [VIEW ...]``.
Uses a fresh demo database in a temp dir, a frozen clock and the default theme, so reruns differ only
where the UI changed. Every view is drawn at each size: 120×40 into ``screenshots/VIEW.svg`` (the
README shows those), 80×24 and 200×60 into ``screenshots/80x24/VIEW.svg`` and
``screenshots/200x60/VIEW.svg``. ``--text`` also writes each screen as plain text beside its SVG
(``VIEW.txt``), to read for cut keys or cut words.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
from datetime import datetime
from pathlib import Path

from bestie_tui.cli.demo import populate
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.tui.app import BestieApp

#: view name → keys pressed after switching to it (to show something worth seeing).
VIEWS = {
    "tiers": [],
    "pending": [],
    "context": [*"train or flight for the trip to hue", "escape"],  # the cursor starts in the box
    "doctor": [],
    "cleanup": [],
    "messages": [],
    "health": [],
}


#: The clock the screenshots are taken at, so reruns differ only where the UI changed.
NOW = datetime(2026, 11, 30, 9, 0, 0)
#: The size whose screenshots sit in ``screenshots/`` itself (the README's), and the sizes drawn.
MAIN_SIZE = (120, 40)
SIZES = [MAIN_SIZE, (80, 24), (200, 60)]


def size_arg(value: str) -> tuple[int, int]:
    """``80x24`` → ``(80, 24)``: columns by rows, each 20 to 1,000."""
    try:
        columns, rows = (int(part) for part in value.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a size is COLUMNSxROWS such as 80x24, not {value!r}") from None
    if not (20 <= columns <= 1000 and 20 <= rows <= 1000):
        raise argparse.ArgumentTypeError(f"{value}: columns and rows are each 20 to 1000")
    return columns, rows


def folder(out: Path, size: tuple[int, int]) -> Path:
    """Where the screenshots of ``size`` go: ``out`` for ``MAIN_SIZE``, else ``out/COLSxROWS``."""
    return out if size == MAIN_SIZE else out / f"{size[0]}x{size[1]}"


def screen_text(app) -> str:
    """The screen as the characters drawn, one line per row, trailing spaces dropped."""
    return "\n".join(strip.text.rstrip() for strip in app.screen._compositor.render_strips()) + "\n"


async def render(view: str, keys: list[str], out: Path, db: Path, size: tuple[int, int] = MAIN_SIZE,
                 text: bool = False) -> Path:
    store = MemoryStore(db, clock=lambda: NOW)
    app = BestieApp(store, poll_interval=0, start_mode=view)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        for key in keys:
            await pilot.press(key)
        await pilot.pause(0.6)  # let debounced views (Context) start their worker
        await app.workers.wait_for_complete()
        await pilot.pause()
        target = out / f"{view}.svg"
        app.save_screenshot(filename=target.name, path=str(out))
        if text:
            target.with_suffix(".txt").write_text(screen_text(app), encoding="utf-8")
    store.close()
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "screenshots")
    parser.add_argument("--size", type=size_arg, action="append", dest="sizes", metavar="COLSxROWS",
                        help="a terminal size to draw at (repeatable; default: 120x40, 80x24 and 200x60)")
    parser.add_argument("--text", action="store_true", help="also write each screen as plain text (VIEW.txt)")
    parser.add_argument("views", nargs="*", default=list(VIEWS), help="views to render (default: all)")
    args = parser.parse_args()
    unknown = [v for v in args.views if v not in VIEWS]
    if unknown:
        parser.error(f"unknown view {unknown[0]!r}; the views are {', '.join(VIEWS)}")
    work = Path(tempfile.gettempdir()) / "bestie-screenshots"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    os.environ["HOME"] = str(work)  # the status line shows the database as ~/demo.db, no machine path
    os.environ["BESTIE_CONFIG_DIR"] = str(work / "config")  # the default theme, not the one you picked
    db = work / "demo.db"
    store = MemoryStore(db, clock=lambda: NOW)
    populate(store, now=NOW)
    store.close()
    for size in args.sizes or SIZES:
        where = folder(args.out, size)
        where.mkdir(parents=True, exist_ok=True)
        for view in args.views:
            print(asyncio.run(render(view, VIEWS[view], where, db, size, args.text)))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
