"""A short run of the fuzzer (``benchmarks/fuzz.py``) in the normal suite: a few seconds of seeded
inputs over every command; the long run (10,000+ inputs) is run by hand."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz.py"


def load_fuzzer():
    spec = importlib.util.spec_from_file_location("bestie_fuzz", FUZZ)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed", [3, 4])
def test_a_short_fuzz_run_has_no_traceback_no_stray_exit_code_and_no_change_by_a_refusal(seed):
    fuzz = load_fuzzer()
    report = fuzz.run(seed, inputs=40, seconds=6)
    assert report.inputs >= 10
    assert set(report.exit_codes) <= {0, 1, 2}
    assert (report.tracebacks, report.bad_exit, report.db_changed) == (0, 0, 0), json.dumps(report.cases[:3])


def test_the_fuzzer_counts_a_planted_traceback(monkeypatch):
    """The oracle itself: a command that raises an unexpected exception is counted and shown."""
    fuzz = load_fuzzer()
    from bestie_tui.store.memory_store import MemoryStore

    def broken(self, *args, **kwargs):
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(MemoryStore, "list", broken)
    report = fuzz.run(5, inputs=8, seconds=8, commands_under=("memory", "list"))
    assert report.tracebacks > 0
    assert "ZeroDivisionError" in report.cases[0]["problem"]
