"""The built wheel carries the stylesheets: install it apart from the checkout and start the app."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

APP_PROBE = """
import asyncio, sys, tempfile, os
import bestie_tui
from bestie_tui.paths import styles_dir
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.tui.app import BestieApp

async def main():
    store = MemoryStore(os.path.join(tempfile.mkdtemp(), "w.db"))
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        line = app.screen.query_one("#status-line")
        print("PACKAGE", bestie_tui.__file__)
        print("STYLES", styles_dir())
        print("HEIGHT", line.styles.height)
asyncio.run(main())
"""


@pytest.mark.slow
def test_wheel_contains_styles_and_app_starts_from_it(tmp_path):
    dist = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
    wheel = next(dist.glob("bestie_tui-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "bestie_tui/styles/app.tcss" in names
    assert "bestie_tui/py.typed" in names
    assert "bestie_tui/transfer/export.schema.json" in names  # the export format, checked on import
    assert not any(n.startswith(("tests/", "benchmarks/")) for n in names)
    target = tmp_path / "site"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target),
                              str(wheel)], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-2000:]
    env = {**os.environ, "PYTHONPATH": str(target), "BESTIE_DATA_DIR": str(tmp_path / "data")}
    run = subprocess.run([sys.executable, "-c", APP_PROBE], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in run.stdout.splitlines() if " " in line)
    assert lines["PACKAGE"].startswith(str(target))
    assert lines["STYLES"] == str(target / "bestie_tui" / "styles")
    assert lines["HEIGHT"] == "1"  # a rule from styles/app.tcss was applied
