"""``bestie memory approve ID...``: a proposal the write gate refuses (core over its cap) stays pending
and is reported on its own line while the rest are approved; ``--scope`` lands proposals in another
scope (``project``: the working tier); a bad id or a bad scope changes nothing."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli

pytestmark = pytest.mark.both_engines


def run(store, *args):
    return CliRunner().invoke(cli, ["--db", str(store.path), "memory", *args])


@pytest.fixture
def six_core(store):
    """Six pending core proposals of 20 tokens or so each, under a core cap that holds two of them."""
    ids = [store.propose(f"Keeps spare bicycle part number {n} in the garage cabinet near the door",
                         "fact", user="an", scope="core").memory.id for n in range(6)]
    store.set_setting("memory.coreTokenCap", 50)
    return ids


def test_a_batch_goes_on_past_the_core_cap_and_says_why_for_each(store, six_core):
    result = run(store, "approve", *map(str, six_core))
    assert result.exit_code == 1
    approved = [i for i in six_core if store.get(i).status == "approved"]
    left = [i for i in six_core if store.get(i).status == "pending"]
    assert approved == six_core[:2] and left == six_core[2:]
    assert all(f"approved #{i}" in result.stdout for i in approved)
    lines = result.stderr.splitlines()
    for i in left:  # one line per refused id, saying why
        assert [line for line in lines if line.startswith(f"#{i} refused, left pending: core is capped at 50")]
    assert lines[-1].startswith(f"Error: approved 2 of 6; 4 refused and left pending: #{left[0]},")
    assert "--scope project` lands them in working" in lines[-1]
    assert [m.id for m in store.list(tier="core")] == sorted(approved, reverse=True)


def test_all_approved_exits_0_and_each_approval_is_its_own_undo_step(store, six_core):
    store.set_setting("memory.coreTokenCap", 1000)
    result = run(store, "approve", *map(str, six_core[:3]))
    assert result.exit_code == 0 and result.stderr == ""
    assert run(store, "undo").exit_code == 0
    assert [store.get(i).status for i in six_core[:3]] == ["approved", "approved", "pending"]


def test_scope_project_lands_refused_ones_in_working(store, six_core):
    run(store, "approve", *map(str, six_core))
    result = run(store, "approve", *map(str, six_core[2:]), "--scope", "project")
    assert result.exit_code == 0, result.output
    for i in six_core[2:]:
        m = store.get(i)
        assert (m.status, m.scope, m.layer) == ("approved", "project", "working")
    assert run(store, "undo").exit_code == 0  # undo gives back the scope it was proposed with
    m = store.get(six_core[-1])
    assert (m.status, m.scope, m.layer) == ("pending", "core", "core")


def test_json_lists_the_approved_and_the_refused(store, six_core):
    result = run(store, "approve", *map(str, six_core[:3]), "--json")
    assert result.exit_code == 1
    out = json.loads(result.stdout)
    assert [m["id"] for m in out["approved"]] == six_core[:2]
    assert [(r["id"], r["rule"]) for r in out["refused"]] == [(six_core[2], "core_cap")]
    assert out["refused"][0]["reason"].startswith("core is capped at 50")


def test_one_refused_id_alone_is_the_gate_s_one_line(store, six_core):
    run(store, "approve", *map(str, six_core[:2]))
    result = run(store, "approve", str(six_core[2]))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: refused: core is capped at 50")


def test_unknown_and_decided_ids_among_good_ones_change_nothing_and_are_all_named(store, six_core):
    store.set_setting("memory.coreTokenCap", 1000)
    run(store, "approve", str(six_core[0]))
    result = run(store, "approve", str(six_core[1]), "99999", str(six_core[0]), "88888")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (f"Error: no memory with id 99999; memory #{six_core[0]} is approved, not pending; "
                             "no memory with id 88888; nothing was changed\n")
    assert store.get(six_core[1]).status == "pending"


@pytest.mark.parametrize("value, said", [
    ("working", "'working' is a tier, not a scope: --scope project or session lands a memory in working"),
    ("archive", "'archive' is a tier, not a scope (scopes: core, project, session)"),
    ("everywhere", "'everywhere' is not one of 'core', 'project', 'session'"),
])
def test_a_bad_scope_is_a_usage_error_of_one_line_and_changes_nothing(store, six_core, value, said):
    result = run(store, "approve", str(six_core[0]), "--scope", value)
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and said in errors[0]
    assert store.get(six_core[0]).status == "pending"
