"""``bestie memory analyze | cleanup | hygiene | rebalance`` end to end on a temp-file database."""

from __future__ import annotations

import json

import pytest

SEED = ["User prefers Vietnamese.", "User wants Vietnamese-first.", "Always answer in Vietnamese with diacritics."]
APPROVED = "User prefers Vietnamese replies with proper diacritics unless they ask for another language."


@pytest.fixture
def seeded(run):
    for t in SEED + ["I love durian.", "I hate durian.", "Likes [bold]markup[/bold]"]:
        assert run("memory", "add", "preference", t).exit_code == 0
    return run


def active_texts(run):
    return sorted(m["text"] for m in json.loads(run("memory", "list", "--json").output)
                  if m["status"] == "approved" and m["superseded_by"] is None)


def test_analyze_text_and_json_and_modes(seeded):
    out = seeded("memory", "analyze").output
    assert "duplicate groups: 1" in out and "contradiction candidates: 1" in out
    data = json.loads(seeded("memory", "analyze", "--json").output)
    assert data["duplicates"][0]["ids"] == [1, 2, 3]
    assert data["contradictions"][0]["kind"] == "antonym"
    stale = json.loads(seeded("memory", "analyze", "--mode", "stale", "--json").output)
    assert stale["duplicates"] == [] and stale["mode"] == "stale"
    assert seeded("memory", "analyze", "--mode", "bogus").exit_code == 2


def test_memory_text_is_printed_literally(run):
    run("memory", "add", "note", "[bold]x[/bold] \x1b[31mred", "--confidence", "0.2")
    out = run("memory", "analyze").output
    assert "low-value noisy memories: 1" in out
    assert "\x1b" not in out and "[bold]x[/bold] \\x1b[31mred" in out  # escapes shown, never run


def test_dry_run_is_a_diff_and_changes_nothing(seeded):
    before = seeded("memory", "list", "--json").output
    result = seeded("memory", "cleanup", "--dry-run")
    assert result.exit_code == 0
    assert "     - #1 [working] User prefers Vietnamese." in result.output
    assert "     + #" in result.output and "dry run: nothing changed" in result.output
    assert seeded("memory", "list", "--json").output == before


def test_ask_without_yes_is_a_usage_error_and_changes_nothing(seeded):
    before = seeded("memory", "list", "--json").output
    result = seeded("memory", "cleanup", "--apply")
    assert result.exit_code == 2 and "--yes" in result.output and "nothing changed" in result.output
    assert seeded("memory", "list", "--json").output == before


def test_deny_refuses_and_says_why(seeded):
    seeded("memory", "config", "memory.deletePolicy", "deny")
    before = seeded("memory", "list", "--json").output
    result = seeded("memory", "cleanup", "--apply", "--yes")
    assert result.exit_code == 1 and "deletePolicy is deny" in result.output
    assert seeded("memory", "list", "--json").output == before


def test_apply_with_edited_text_and_accepted_conflict_then_undo(seeded):
    before = active_texts(seeded)
    result = seeded("memory", "cleanup", "--apply", "--yes", "--accept", "supersede:4>5",
                    "--text", f"merge:1,2,3={APPROVED}")
    assert result.exit_code == 0, result.output
    assert "applied 2 operation(s)" in result.output
    assert active_texts(seeded) == sorted([APPROVED, "I hate durian.", "Likes [bold]markup[/bold]"])
    undo = seeded("memory", "undo")
    assert undo.exit_code == 0
    assert active_texts(seeded) == before


def test_cleanup_json_and_bad_references(seeded):
    data = json.loads(seeded("memory", "cleanup", "--dry-run", "--json").output)
    assert [o["action"] for o in data["operations"]] == ["merge", "supersede"]
    assert data["operations"][1]["selected"] is False and data["delete_policy"] == "ask"
    assert seeded("memory", "cleanup", "--accept", "9").exit_code == 1
    assert seeded("memory", "cleanup", "--text", "2=new").exit_code == 2
    assert seeded("memory", "cleanup", "--dry-run", "--apply").exit_code == 2


def test_hygiene_status_trend_and_doctor(seeded):
    first = json.loads(seeded("memory", "hygiene", "status", "--json").output)
    assert 0 <= first["health"]["score"] < 100 and "formula" in first["health"]
    assert "health " in seeded("memory", "hygiene").output
    seeded("memory", "cleanup", "--apply", "--yes", "--accept", "supersede:4>5")
    trend = seeded("memory", "hygiene", "trend").output.splitlines()
    assert len(trend) == 2
    doctor = seeded("memory", "hygiene", "doctor")
    assert "duplicate groups: 0" in doctor.output and "health " in doctor.output
    assert len(json.loads(seeded("memory", "hygiene", "trend", "--json").output)) == 3


def test_hygiene_apply_and_rebalance(run):
    run("memory", "add", "note", "Dentist on Monday.", "--ttl", "1s")
    import time

    time.sleep(1.1)
    assert "expire:1" in run("memory", "hygiene", "--dry-run").output
    assert run("memory", "hygiene", "--apply").exit_code == 2
    assert run("memory", "hygiene", "--apply", "--yes").exit_code == 0
    assert json.loads(run("memory", "inspect", "1", "--json").output)["memory"]["layer"] == "archive"
    assert "nothing to do" in run("memory", "rebalance", "--dry-run").output
    assert run("memory", "rebalance", "--apply", "--yes").exit_code == 0


def _fingerprint(output: str) -> str:
    [line] = [text for text in output.splitlines() if text.startswith("plan fingerprint ")]
    return line.split()[2]


def test_accept_by_number_never_applies_an_operation_the_owner_did_not_see(run):
    for t in ["I am a teacher.", "I love durian.", "I hate durian."]:
        run("memory", "add", "preference", t)
    dry = run("memory", "cleanup", "--dry-run")
    assert "1. [ ] supersede:2>3" in dry.output  # the key is shown beside the number
    seen = _fingerprint(dry.output)
    run("memory", "add", "preference", "I am not a teacher.")
    before = run("memory", "list", "--json").output
    plain = run("memory", "cleanup", "--apply", "--yes", "--accept", "1")
    assert plain.exit_code == 2 and "--plan" in plain.output and "supersede:2>3" not in plain.output
    changed = run("memory", "cleanup", "--apply", "--yes", "--plan", seen, "--accept", "1")
    assert changed.exit_code == 1 and "plan changed since the dry run" in changed.output
    skipped = run("memory", "cleanup", "--apply", "--yes", "--plan", seen, "--skip", "1")
    assert skipped.exit_code == 1
    assert run("memory", "list", "--json").output == before
    by_key = run("memory", "cleanup", "--apply", "--yes", "--accept", "supersede:2>3")
    assert by_key.exit_code == 0, by_key.output
    assert active_texts(run) == ["I am a teacher.", "I am not a teacher.", "I hate durian."]


def test_plain_numbers_work_with_the_fingerprint_of_an_unchanged_plan(run):
    for t in ["I love durian.", "I hate durian."]:
        run("memory", "add", "preference", t)
    seen = _fingerprint(run("memory", "cleanup").output)
    assert json.loads(run("memory", "cleanup", "--json").output)["fingerprint"] == seen
    result = run("memory", "cleanup", "--apply", "--yes", "--plan", seen, "--accept", "1")
    assert result.exit_code == 0, result.output
    assert active_texts(run) == ["I hate durian."]


def test_an_empty_merged_text_is_refused_in_the_dry_run_too(seeded):
    result = seeded("memory", "cleanup", "--dry-run", "--text", "merge:1,2,3=  ")
    assert result.exit_code in (1, 2) and "+ #new" not in result.output
    assert len(result.output.strip().splitlines()) == 1 and "at least one word" in result.output


def test_accepting_and_skipping_the_same_operation_is_a_usage_error(seeded):
    result = seeded("memory", "cleanup", "--dry-run", "--accept", "2", "--skip", "supersede:4>5")
    assert result.exit_code == 2 and "both" in result.output


def test_pinned_records_are_in_the_report_marked_pinned(run):
    run("memory", "add", "preference", "I love durian.", "--pin")
    run("memory", "add", "preference", "I hate durian.")
    out = run("memory", "analyze", "--mode", "conflicts").output
    assert "contradiction candidates: 1" in out and "older #1     (pinned) I love durian." in out
    dry = run("memory", "cleanup").output
    assert "supersede:1>2" in dry and "blocked: pinned" in dry


def test_report_shows_the_user_of_a_group_and_plain_metadata_wording(run, db_path):
    for t in SEED:
        run("memory", "add", "preference", t, "--user", "an")
    out = run("memory", "analyze").output
    assert "user an" in out and "cosine" not in out  # scores only behind --details
    assert "lowest cosine" in run("memory", "analyze", "--details").output
    from bestie_tui.hygiene.doctor import run_doctor
    from bestie_tui.store.memory_store import MemoryStore
    from bestie_tui.store.models import Memory

    store = MemoryStore(db_path)
    row = Memory.get_by_id(1)
    Memory.update(last_accessed_at=row.created_at.replace(year=2000)).where(Memory.id == 1).execute()
    [finding] = [f for f in run_doctor(store).missing_metadata if f.memory.id == 1]
    store.close()
    assert finding.reason == "last_accessed_at before created_at"


def test_an_empty_plan_fingerprint_is_a_usage_error(run):
    run("memory", "add", "note", "I like tea.")
    run("memory", "add", "note", "i like tea")
    out = run("memory", "cleanup", "--apply", "--yes", "--plan", "")
    assert out.exit_code == 2 and "fingerprint" in out.output


def test_an_archived_expired_record_is_no_longer_stale(store):
    from datetime import timedelta

    from bestie_tui.hygiene.doctor import run_doctor
    from bestie_tui.store.models import Memory

    m = store.add("note", "On call this week")
    Memory.update(expires_at=store.clock() - timedelta(days=1)).where(Memory.id == m.id).execute()
    assert [f.memory.id for f in run_doctor(store).stale] == [m.id]
    store.set_layer(m.id, "archive")
    assert run_doctor(store).stale == []


def test_plan_diff_is_coloured_in_a_terminal_only_and_never_under_no_color(run, store):
    store.add("preference", "User prefers Vietnamese.")
    store.add("preference", "User wants Vietnamese-first.")
    from click.testing import CliRunner

    from bestie_tui.cli.main import cli

    db = str(store.path)
    piped = run("memory", "cleanup", "--dry-run")
    assert "\x1b[" not in piped.output and "- #1" in piped.output
    tty = CliRunner().invoke(cli, ["--db", db, "memory", "cleanup", "--dry-run"], color=True)
    assert "\x1b[32m" in tty.output and "\x1b[31m" in tty.output
    plain = CliRunner().invoke(cli, ["--db", db, "memory", "cleanup", "--dry-run"], color=True,
                               env={"NO_COLOR": "1"})
    assert "\x1b[" not in plain.output and "- #1" in plain.output


def test_memory_lines_colour_status_and_tier_in_a_terminal_only(run, store):
    """``list`` and ``pending`` colour a memory's status and tier (never its text) in a terminal; a
    pipe or ``NO_COLOR`` gets plain text."""
    from click.testing import CliRunner

    from bestie_tui.cli.main import cli

    store.add("preference", "User likes \x1b[31mred", scope="core")
    store.propose("User likes tea", "preference")
    db = str(store.path)
    piped = run("memory", "list")
    assert "\x1b[" not in piped.output.replace("\\x1b", "")
    tty = CliRunner().invoke(cli, ["--db", db, "memory", "list", "--status", "all"], color=True)
    assert "\x1b[32mapproved" in tty.output and "\x1b[33mpending" in tty.output
    assert "\x1b[36m\x1b[1mcore" in tty.output
    assert "User likes \\x1b[31mred" in tty.output  # the text's own escape is shown, not run
    plain = CliRunner().invoke(cli, ["--db", db, "memory", "list"], color=True, env={"NO_COLOR": "1"})
    assert "\x1b[" not in plain.output.replace("\\x1b", "")
