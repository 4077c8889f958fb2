"""The README's "Use it from your assistant" snippet runs verbatim and prints the block it shows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bestie_tui.store.memory_store import MemoryStore

README = Path(__file__).resolve().parents[1] / "README.md"


def _section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Use it from your assistant")
    return text[start:text.index("\n## ", start + 1)]


def test_the_ten_line_snippet_runs_and_prints_the_block_the_readme_shows(tmp_path):
    section = _section()
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    lines = [line for line in code.splitlines() if line.strip()]
    assert len(lines) <= 10
    assert all(not line.startswith(("from bestie_tui.", "import bestie_tui.")) for line in lines)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == shown
    store = MemoryStore(tmp_path / "assistant-memory.db")
    try:
        assert [(m.role, m.user) for m in reversed(store.messages())] == [("user", "ana"), ("assistant", "ana")]
        assert [(m.status, m.user) for m in store.list()] == [("approved", "ana")]
        assert store.list()[0].access_count == 1  # the block a real prompt gets records its access
    finally:
        store.close()
