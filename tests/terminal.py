"""Driving the real console in tmux, for the end-to-end tests: run a tmux command, wait for text on
the screen."""

from __future__ import annotations

import subprocess
import time


def tmux(*args: str) -> str:
    """Run ``tmux ARGS`` and return what it printed (stdout), with a 30 s timeout."""
    return subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=30).stdout


def wait_for(session: str, needle: str, timeout: float = 30.0) -> str:
    """The pane of ``session`` once it shows ``needle``; raises ``AssertionError`` with the screen
    after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", session)
        if needle in screen:
            return screen
        time.sleep(0.3)
    raise AssertionError(f"{needle!r} not on screen after {timeout}s:\n{screen}")
