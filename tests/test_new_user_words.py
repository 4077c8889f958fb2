"""What a new user reads from the CLI and the doctor: whole kind lists, plain help, the demo's owner,
request commands that need no --user once owner.user is set, honest restore and expiry wording."""

from __future__ import annotations

from datetime import datetime, timedelta

import click
from conftest import FROZEN_NOW

from bestie_tui.store.models import Memory


def test_a_kind_that_is_no_word_lists_every_kind_whole_and_an_unknown_word_is_a_note_with_its_kind_kept(run):
    from bestie_tui.store.support import KNOWN_KINDS

    result = run("memory", "add", "Weird!", "--", "Owns a blue bicycle")
    assert result.exit_code == 2
    assert ", ".join(KNOWN_KINDS) in result.output  # communication_preference is not cut to "communicatio…"
    long = run("memory", "add", "k" * 70, "--", "Owns a blue bicycle")
    assert long.exit_code == 2 and "k" * 30 not in long.output
    assert run("memory", "list", "--json").output.strip() == "[]"
    weird = run("memory", "add", "Weird", "--", "Owns a blue bicycle")  # the rule of every write path (issue 30)
    assert weird.exit_code == 0 and "stored as note" in weird.output
    assert '"source": "owner (kind: Weird)"' in run("memory", "list", "--json").output


def test_no_help_page_shows_rst_double_backticks():
    from bestie_tui.cli.main import cli

    def pages(cmd: click.Command, path: list[str]):
        yield " ".join(path), cmd.get_help(click.Context(cmd, info_name=" ".join(path)))
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                yield from pages(sub, [*path, name])

    assert [name for name, text in pages(cli, ["bestie"]) if "``" in text] == []


def test_the_demo_names_its_owner_so_request_commands_need_no_user(tmp_path):
    from click.testing import CliRunner

    from bestie_tui.cli.demo import ensure_demo_db
    from bestie_tui.cli.main import cli

    runner = CliRunner()
    db = str(ensure_demo_db(tmp_path / "demo.db"))
    pack = runner.invoke(cli, ["--db", db, "memory", "context", "deploy days"])
    assert pack.exit_code == 0, pack.output
    assert "user linh" in pack.output and "Tuesdays and Thursdays" in pack.output
    recalled = runner.invoke(cli, ["--db", db, "memory", "recall", "deploy days"])
    assert recalled.exit_code == 0 and recalled.output.startswith("Memory (approved notes about this user")


def test_recall_without_user_or_owner_is_a_usage_error(run):
    result = run("memory", "recall", "bicycle")
    assert result.exit_code == 2 and "owner.user" in result.output


def test_restoring_a_superseded_memory_says_its_replacement_is_still_active(run, store):
    old = store.add("fact", "Deploys happen every Friday evening")
    new = store.add("decision", "Deploys go out on Tuesdays and Thursdays")
    store.supersede(old.id, new.id)
    result = run("memory", "restore", str(old.id))
    assert result.exit_code == 0
    assert f"#{new.id}, which replaced it, is still active" in result.output
    assert Memory.get_by_id(old.id).superseded_by is None and Memory.get_by_id(new.id).status == "approved"
    store.forget(old.id)  # with the replacement gone too, the plain wording
    Memory.update(status="forgotten").where(Memory.id == new.id).execute()
    again = run("memory", "restore", str(old.id))
    assert again.exit_code == 0 and "still active" not in again.output


def test_a_ttl_set_a_moment_ago_reads_as_its_own_length():
    from bestie_tui.text.clock import ago

    now = datetime(2026, 12, 6, 1, 15, 4)
    assert ago(now + timedelta(days=14) - timedelta(seconds=22), now) == "in 2 weeks"
    assert ago(now + timedelta(days=3) - timedelta(seconds=5), now) == "in 3 days"
    assert ago(now - timedelta(days=14) + timedelta(seconds=22), now) == "13 days ago"  # the past floors


def test_the_doctor_calls_note_a_generic_kind_not_a_missing_one(store):
    from bestie_tui.hygiene.doctor import run_doctor

    note = store.add("note", "Buy oat milk on the way home")
    [finding] = [f for f in run_doctor(store).missing_metadata if f.memory.id == note.id]
    assert "missing kind" not in finding.reason and "generic kind 'note'" in finding.reason


def test_a_protected_identity_reads_with_an(store, clock):
    from bestie_tui.hygiene.plan_build import build_cleanup_plan

    me = store.add("identity", "I am a pharmacist")
    Memory.update(created_at=FROZEN_NOW - timedelta(days=400)).where(Memory.id == me.id).execute()
    clock.advance(timedelta(days=400).total_seconds())
    [op] = [o for o in build_cleanup_plan(store).operations if o.action == "archive" and o.records[0].id == me.id]
    assert not op.selected and "not selected: an identity is kept" in op.reason


def test_add_without_user_binds_to_the_owner_once_named(run, store):
    assert run("memory", "add", "fact", "--", "Owns a blue bicycle").exit_code == 0
    assert run("memory", "config", "owner.user", "linh").exit_code == 0
    assert run("memory", "add", "fact", "--", "Owns a red bicycle").exit_code == 0
    assert run("memory", "add", "fact", "--user", "bao", "--", "Owns a green bicycle").exit_code == 0
    users = {m.text: m.user for m in Memory.select()}
    assert users == {"Owns a blue bicycle": None, "Owns a red bicycle": "linh", "Owns a green bicycle": "bao"}
