"""Quitting the console ends its process without tearing its heap down object by object
(``tui.app.leave``), and only once every write is in the database."""

from __future__ import annotations

import subprocess
import sys

from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.tui.app import leave

_SCRIPT = """
import sys, threading
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.tui.app import leave

store = MemoryStore(sys.argv[1])
store.add("note", "Written before the console quit.")

def late_write():
    other = MemoryStore(sys.argv[1])
    other.add("note", "Written by a view's worker while the console quit.")
    other.close()

worker = threading.Thread(target=late_write)
worker.start()
store.close()
print("leaving", flush=True)
leave(force=True)
print("not reached")
"""


def test_leave_ends_the_process_after_every_write(tmp_path):
    db = tmp_path / "memory.db"
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(db)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert done.stdout.splitlines() == ["leaving"]
    store = MemoryStore(db)
    try:
        assert sorted(m.text for m in store.list()) == ["Written before the console quit.",
                                                          "Written by a view's worker while the console quit."]
    finally:
        store.close()


def test_leave_is_a_no_op_off_a_terminal(capsys):
    leave()  # pytest's stdout is no terminal: the test process goes on
    assert capsys.readouterr().out == ""
