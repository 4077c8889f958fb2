"""End-to-end smoke: the installed ``bestie tui`` in a real terminal (tmux), driven by keys."""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from pathlib import Path

import pytest

from bestie_tui.store.memory_store import MemoryStore
from tests.terminal import tmux, wait_for

pytestmark = pytest.mark.slow




@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_console_starts_in_a_terminal_and_quits(tmp_path):
    db = tmp_path / "smoke.db"
    store = MemoryStore(db)
    store.add("preference", "Smoke test memory [bold]literal[/bold]")
    store.propose("Pending smoke proposal", "note")
    store.close()
    exe = Path(sys.executable).with_name("bestie")
    session = f"bestie-{uuid.uuid4().hex[:8]}"
    env_args = ["-e", f"BESTIE_DATA_DIR={tmp_path / 'data'}", "-e", "TERM=xterm-256color"]
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "36", *env_args,
         f"{exe} --db {db} tui; echo EXITED-$?; sleep 30")
    try:
        screen = wait_for(session, "[bold]literal[/bold]")
        assert "write ask" in screen
        tmux("send-keys", "-t", session, "2")
        wait_for(session, "Pending smoke proposal")
        tmux("send-keys", "-t", session, "q")
        wait_for(session, "EXITED-0")
    finally:
        tmux("kill-session", "-t", session)
    assert os.path.exists(db)
