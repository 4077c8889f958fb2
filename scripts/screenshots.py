"""Render the console's views of the demo database to SVG in ``screenshots/``.

Usage: ``python scripts/screenshots.py [--out screenshots] [VIEW ...]``. Uses a fresh demo database
in a temp dir, a frozen clock, a fixed terminal size (120×40) and the default theme, so reruns differ
only where the UI changed.
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


async def render(view: str, keys: list[str], out: Path, db: Path) -> Path:
    store = MemoryStore(db, clock=lambda: NOW)
    app = BestieApp(store, poll_interval=0, start_mode=view)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        for key in keys:
            await pilot.press(key)
        await pilot.pause(0.6)  # let debounced views (Context) start their worker
        await app.workers.wait_for_complete()
        await pilot.pause()
        target = out / f"{view}.svg"
        app.save_screenshot(filename=target.name, path=str(out))
    store.close()
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "screenshots")
    parser.add_argument("views", nargs="*", default=list(VIEWS), help="views to render (default: all)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.gettempdir()) / "bestie-screenshots"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    os.environ["HOME"] = str(work)  # the status line shows the database as ~/demo.db, no machine path
    os.environ["BESTIE_CONFIG_DIR"] = str(work / "config")  # the default theme, not the one you picked
    db = work / "demo.db"
    store = MemoryStore(db, clock=lambda: NOW)
    populate(store, now=NOW)
    store.close()
    for view in args.views:
        print(asyncio.run(render(view, VIEWS.get(view, []), args.out, db)))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
