"""Installing the memory layer without the console: Textual is a compatible range for users (the
snapshot tests pin it exactly), and the agent-facing modules load neither Textual nor scikit-learn."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))


def _requirement(specs: list[str], name: str) -> Requirement:
    return next(r for r in map(Requirement, specs) if r.name == name)


def test_textual_is_a_compatible_range_at_runtime_and_exact_in_the_test_extra():
    runtime = _requirement(PYPROJECT["project"]["dependencies"], "textual")
    operators = {s.operator for s in runtime.specifier}
    assert "==" not in operators and {">=", "<"} <= operators
    assert runtime.specifier.contains("8.3.0") and not runtime.specifier.contains("9.0.0")
    pinned = _requirement(PYPROJECT["project"]["optional-dependencies"]["test"], "textual")
    assert [s.operator for s in pinned.specifier] == ["=="]


def test_the_mcp_sdk_is_an_optional_extra_that_the_test_extra_installs():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert _requirement(extras["mcp"], "mcp")
    assert _requirement(extras["test"], "mcp")
    assert all(Requirement(r).name != "mcp" for r in PYPROJECT["project"]["dependencies"])


def test_the_agent_modules_import_neither_textual_nor_sklearn_nor_mcp():
    code = (
        "import sys\n"
        "import bestie_tui\n"
        "import bestie_tui.agent.turns, bestie_tui.agent.forget_requests, bestie_tui.importers\n"
        "import bestie_tui.cli.agent_cmds\n"
        "print(','.join(sorted(m for m in ('textual', 'sklearn', 'mcp', 'jsonschema') if m in sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
