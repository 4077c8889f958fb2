"""benchmarks/locomo.py: LoCoMo conv-26 → a file the real `bestie memory import` accepts."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from bestie_tui.store.memory_store import MemoryStore
from tests.conftest import shared_data

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "locomo.py"


def load_locomo_module():
    """benchmarks/ is not a package: load the script as a module by path."""
    spec = importlib.util.spec_from_file_location("locomo_benchmark", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def bestie_command() -> list[str]:
    """The installed console script when present (what a user runs), else the module entry."""
    exe = Path(sys.executable).with_name("bestie")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "bestie_tui.cli.main"]


def run(args: list[str], db: Path | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if db is not None:
        env["BESTIE_DB"] = str(db)
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def raw_counts(path: Path, sample_id: str) -> tuple[int, int, set[str]]:
    """(turns, observations, session keys) read straight from the JSON, independent of the script."""
    conv = next(c for c in json.loads(path.read_text(encoding="utf-8")) if c["sample_id"] == sample_id)
    body = conv["conversation"]
    real = {k for k, v in body.items() if re.fullmatch(r"session_\d+", k) and isinstance(v, list) and v}
    turns = sum(len(body[k]) for k in real)
    facts = sum(len(fs) for key, per in conv["observation"].items()
                if key.removesuffix("_observation") in real for fs in per.values())
    return turns, facts, {f"{sample_id}:{k}" for k in real}


@pytest.mark.slow
def test_conv26_converts_and_imports_with_the_bestie_cli(tmp_path: Path):
    data_path = shared_data("locomo_dev.json")
    out = tmp_path / "conv26.json"
    db = tmp_path / "memory.db"
    done = run([sys.executable, str(SCRIPT), str(data_path), "--conversation", "conv-26", "--out", str(out)])
    assert done.returncode == 0, done.stderr
    turns, facts, session_keys = raw_counts(data_path, "conv-26")

    first = run([*bestie_command(), "memory", "import", str(out)], db=db)
    assert first.returncode == 0, first.stderr
    assert f"imported {facts} memories" in first.stdout
    again = run([*bestie_command(), "memory", "import", str(out)], db=db)
    assert again.returncode == 0, again.stderr
    assert "imported 0 memories" in again.stdout and "0 messages" in again.stdout

    store = MemoryStore(db)
    try:
        assert store.message_count() == turns
        assert store.count(status="pending") == facts == store.count()
        messages = list(reversed(store.messages(limit=None)))
        # conv-26 has date keys for sessions 20-35 without turns: they must not become sessions.
        assert {m.session for m in messages} == session_keys
        assert {m.role for m in messages} == {"user"}
        assert {m.user for m in messages} == {"Caroline", "Melanie"}
        first_turns = [m for m in messages if m.session == "conv-26:session_1"][:2]
        # "1:56 pm on 8 May, 2023"; the next turn one second later keeps the order.
        assert [m.created_at for m in first_turns] == [datetime(2023, 5, 8, 13, 56, 0),
                                                        datetime(2023, 5, 8, 13, 56, 1)]
        proposal = store.pending(limit=1)[0]
        assert (proposal.user, proposal.kind, proposal.session, proposal.source, proposal.created_at) == (
            "Caroline", "note", "conv-26:session_1", "locomo:conv-26:D1:3 (kind: observation)",
            datetime(2023, 5, 8, 13, 56))
        assert proposal.text.startswith("Caroline attended an LGBTQ support group")
    finally:
        store.close()


def test_unknown_conversation_is_a_clear_failure(tmp_path: Path):
    data_path = shared_data("locomo_dev.json")
    out = tmp_path / "x.json"
    done = run([sys.executable, str(SCRIPT), str(data_path), "--conversation", "conv-99", "--out", str(out)])
    assert done.returncode == 1
    assert "no conversation 'conv-99'" in done.stderr and "conv-26" in done.stderr
    assert not out.exists()


def test_missing_input_file_is_a_usage_error(tmp_path: Path):
    done = run([sys.executable, str(SCRIPT), str(tmp_path / "absent.json"), "--conversation", "conv-26"])
    assert done.returncode == 2
    assert "does not exist" in done.stderr


def test_a_file_that_is_not_locomo_is_refused(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}', encoding="utf-8")
    done = run([sys.executable, str(SCRIPT), str(bad), "--conversation", "conv-26"])
    assert done.returncode == 1
    assert "not a LoCoMo file" in done.stderr


def test_dia_id_quirks_are_normalised():
    locomo = load_locomo_module()
    assert locomo.split_dia_ids("D1:3") == ["D1:3"]
    assert locomo.split_dia_ids(["D15:3", "D15:5"]) == ["D15:3", "D15:5"]
    assert locomo.split_dia_ids("D26:14, D26:34, D26:42") == ["D26:14", "D26:34", "D26:42"]
    assert locomo.split_dia_ids("D8:6; D9:17") == ["D8:6", "D9:17"]
    assert locomo.split_dia_ids("D9:1 D4:4 D4:6") == ["D9:1", "D4:4", "D4:6"]
    assert locomo.split_dia_ids("D:11:26") == ["D11:26"]
    assert locomo.split_dia_ids("D30:05") == ["D30:5"]
    assert locomo.split_dia_ids("D") == []


def test_session_time_is_parsed_with_dateutil():
    locomo = load_locomo_module()
    assert locomo.parse_session_time("12:09 am on 13 September, 2023") == datetime(2023, 9, 13, 0, 9)
    with pytest.raises(locomo.LocomoError, match="cannot parse session time"):
        locomo.parse_session_time("whenever")


def test_observation_with_several_evidence_turns_keeps_them_all_in_its_source():
    locomo = load_locomo_module()
    data = locomo.convert_file(shared_data("locomo_dev.json"), "conv-44")
    shared = [m for m in data["memories"] if m["text"].startswith("Andrew shared photos of a national park")]
    assert [m["source"] for m in shared] == ["locomo:conv-44:D26:14,D26:34,D26:42"]
    assert shared[0]["user"] == "Andrew" and shared[0]["status"] == "pending"
