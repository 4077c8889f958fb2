"""The digest over a real store and the real doctor: what it lists, that its fix commands run and
fix, the health change since the last digest sent, and the records kept of each delivery."""

from __future__ import annotations

import json
import shlex

import pytest
from click.testing import CliRunner
from stub_http import Reply, StubServer

from bestie_tui.cli.main import cli
from bestie_tui.hygiene.health import trend
from bestie_tui.maintenance import digest as dg
from bestie_tui.maintenance.delivery import DeliveryAuthError, RetryPolicy

TOKEN = "999:SECRET-digest-token"


@pytest.fixture
def seeded(store, clock):
    """The seed's three Vietnamese-preference records, a love/hate pair, a stale note and two
    pending proposals created a day apart."""
    for text in ("User prefers Vietnamese.", "User wants Vietnamese-first.",
                 "Always answer in Vietnamese with diacritics."):
        store.add("communication_preference", text)
        clock.advance(60)
    store.add("preference", "I love durian.")
    clock.advance(60)
    store.add("preference", "I hate durian.")
    old = store.add("project_context", "The Q1 roadmap draft lives in the old wiki.")
    clock.advance(86400)
    first = store.propose("User is learning the guitar.", "note")
    clock.advance(86400)
    second = store.propose("User moved to Da Nang.", "note")
    clock.advance(120 * 86400)
    for memory_id in range(1, 6):  # used recently: only the roadmap note is long unused (stale)
        store.open(memory_id)
    store.open(first.memory.id)  # opening a pending one must not change its triage order
    return {"old": old.id, "pending": [first.memory.id, second.memory.id]}


def test_digest_lists_counts_pending_oldest_first_and_the_doctor_findings(store, seeded):
    d = dg.build_digest(store, snapshot=True)
    assert d.tiers == {"core": 0, "working": 6, "archive": 0, "pending": 2}
    assert d.statuses["approved"] == 6 and d.pending_total == 2
    assert [p.id for p in d.pending] == seeded["pending"]
    assert d.pending[0].age_days == 121
    [group] = d.doctor.duplicate_groups
    assert [i for i, _ in group] == [1, 2, 3]
    [(older, newer, reason, resolvable)] = d.doctor.contradictions
    assert (older[0], newer[0]) == (4, 5) and reason and resolvable
    assert [i for i, _ in d.doctor.stale] == [seeded["old"]]
    assert [f.section for f in d.findings] == ["pending", "duplicates", "contradictions", "stale"]
    assert 0 <= d.health < 100
    # the same snapshot series as `hygiene trend`
    assert [s.health for s in trend(store)] == [d.health]


def test_fix_commands_run_and_fix_what_they_name(store, seeded, db_path):
    d = dg.build_digest(store)
    dup = next(f for f in d.findings if f.section == "duplicates")
    runner = CliRunner()
    for fix in dup.fixes[:-1]:  # the supersede commands (the last one is the cleanup preview)
        argv = shlex.split(fix.command)
        assert argv[:4] == ["bestie", "memory", "--db", str(db_path)]
        result = runner.invoke(cli, argv[1:])
        assert result.exit_code == 0, result.output
    store.db.connect(reuse_if_open=True)
    assert store.get(1).superseded_by == 3 and store.get(2).superseded_by == 3
    assert dg.build_digest(store).doctor.duplicate_groups == []


def test_health_change_is_measured_from_the_last_digest_sent(store, seeded):
    first = dg.build_digest(store)
    dg.record_delivery(store, first, "telegram:1", first.render_text(), outcome="sent", parts=1)
    failed = dg.build_digest(store)
    dg.record_delivery(store, failed, "telegram:1", "x", outcome="failed", error="boom")
    store.supersede(1, 3)
    store.supersede(2, 3)
    now = dg.build_digest(store)
    assert now.health_previous == first.health and now.previous_at == first.generated_at
    assert now.health_change == round(now.health - first.health, 1) and now.health_change > 0
    assert f"▲ +{now.health_change:g} since" in now.render_text()


def test_memory_text_is_data_in_text_and_markdown(store):
    store.propose("Remember *this* [bold]red[/bold] \x1b[31m", "note")
    d = dg.build_digest(store)
    text, md = d.render_text(), d.render_markdown()
    assert "Remember *this* [bold]red[/bold] \\x1b[31m" in text and "\x1b" not in text
    assert r"Remember \*this\* \[bold\]red\[/bold\] \\x1b\[31m" in md


def test_to_dict_is_json_ready(store, seeded):
    data = json.loads(json.dumps(dg.build_digest(store).to_dict()))
    assert data["pending"][0]["created_at"] == "2026-12-01T12:04:00"
    assert data["findings"][1]["fixes"][0]["command"].endswith("supersede 1 3")
    assert set(data["doctor"]["totals"]) >= {"duplicates", "contradictions", "stale"}


def test_a_doctor_failure_still_gives_a_digest(store, monkeypatch):
    import bestie_tui.hygiene.health as hygiene

    def broken(*args, **kwargs):
        raise RuntimeError("index corrupted")

    monkeypatch.setattr(hygiene, "hygiene_status", broken)
    store.propose("User likes tea.", "note")
    d = dg.build_digest(store)
    assert d.health is None and d.doctor.error == "doctor failed: index corrupted"
    text = d.render_text()
    assert "Health: unknown" in text and "Doctor: doctor failed: index corrupted" in text
    assert "Pending review (1)" in text


def test_an_empty_store_has_nothing_to_fix(store):
    text = dg.build_digest(store).render_text()
    assert "Health 100/100" in text and "Nothing to fix" in text


def test_digest_records_are_not_undo_steps_and_the_log_is_bounded(store):
    store.add("note", "User likes tea.")
    d = dg.build_digest(store)
    for i in range(dg.LOG_SIZE + 3):
        dg.record_delivery(store, d, f"telegram:{i}", "text", outcome="sent", parts=1)
    log = dg.digest_log(store)
    assert len(log) == dg.LOG_SIZE and log[0]["channel"] == f"telegram:{dg.LOG_SIZE + 2}"
    result = store.undo()  # undoes the owner's add, not a digest record
    assert result.memory_ids == [1] and len(dg.digest_log(store)) == dg.LOG_SIZE


def test_send_digest_records_success_and_keeps_a_failed_digest(store, seeded, monkeypatch):
    monkeypatch.setenv("BESTIE_TELEGRAM_TOKEN", TOKEN)
    with StubServer() as stub:
        store.set_setting("digest.telegramApi", stub.url)
        d = dg.build_digest(store)
        record = dg.send_digest(store, d, "telegram:42", retry=RetryPolicy(sleep=lambda s: None))
        assert record["outcome"] == "sent" and record["parts"] == 1
        assert stub.requests[0].body["text"] == d.render_text()

        stub.default = Reply(401, {"ok": False, "description": "Unauthorized"})
        with pytest.raises(DeliveryAuthError):
            dg.send_digest(store, d, "telegram:42", retry=RetryPolicy(sleep=lambda s: None))
    last = dg.last_digest_record(store)
    assert last["outcome"] == "failed" and "HTTP 401" in last["error"]
    assert last["text"] == d.render_text()  # nothing lost
    assert dg.last_sent_record(store)["at"] == record["at"]
    stored = json.dumps(dg.digest_log(store))
    assert TOKEN not in stored and "SECRET" not in stored


def test_an_event_against_a_state_is_reviewed_not_superseded_and_long_lists_say_how_many_more(store):
    store.add("preference", "I am vegetarian.")
    store.add("preference", "I had steak on Friday.")
    for i in range(dg.PENDING_TOP + 2):
        store.propose(f"Proposal number {i} about topic {i}", "note")
    d = dg.build_digest(store)
    [finding] = [f for f in d.findings if f.section == "contradictions"]
    assert d.doctor.contradictions[0][3] is False
    assert [fix.command.split()[-2:] for fix in finding.fixes] == [["inspect", "1"], ["inspect", "2"], ["1", "2"]]
    assert "only if #1 is no longer true" in d.render_text()
    assert "… and 2 more" in d.render_text()


def test_every_fix_command_names_the_database_including_the_console(store, seeded, db_path):
    d = dg.build_digest(store)
    commands = [shlex.split(fix.command) for f in d.findings for fix in f.fixes]
    assert commands and all(argv[argv.index("--db") + 1] == str(db_path) for argv in commands if "--db" in argv)
    assert all("--db" in argv for argv in commands)
    assert ["bestie", "tui", "--db", str(db_path)] in commands
    assert f"fix: `bestie tui --db {db_path}` (key 2: triage by keys)" in d.render_markdown()


def test_a_preview_writes_no_snapshot_a_recorded_digest_writes_one(store, seeded):
    dg.build_digest(store)
    dg.build_digest(store)
    assert trend(store) == []  # previews leave the trend alone
    d = dg.build_digest(store, snapshot=True)
    assert [s.health for s in trend(store)] == [d.health]


def test_markdown_escapes_only_what_would_format(store):
    store.propose("Issue #13 (fact) costs 5.00! a-b + c | d snake_case_name", "note")
    store.propose("*bold* _it_ `code` [link](http://x) <b>html</b> ~~gone~~ a\\b &amp;", "note")
    md = dg.build_digest(store).render_markdown()
    assert "- #1 (note, proposed just now): Issue #13 (fact) costs 5.00! a-b + c | d snake_case_name\n" in md
    assert r"\*bold\* \_it\_ \`code\` \[link\](http://x) \<b>html\</b> \~\~gone\~\~ a\\b \&amp;" in md


@pytest.mark.parametrize("text, escaped", [
    ("# Heading", r"\# Heading"), ("## two", r"\## two"), ("#13 (fact)", "#13 (fact)"),
    ("1. item", r"1\. item"), ("2) item", r"2\) item"), ("- x", r"\- x"), ("+ x", r"\+ x"),
    ("> quote", r"\> quote"), ("a > b - c", "a > b - c"), ("===", r"\==="), ("1.5 cups", "1.5 cups"),
])
def test_md_escape_at_the_start_of_a_line(text, escaped):
    assert dg.md_escape(text) == escaped


def test_a_command_with_a_backtick_stays_one_code_span():
    assert dg.md_code("bestie memory --db '/tmp/a`b'") == "`` bestie memory --db '/tmp/a`b' ``"
    assert dg.md_code("bestie memory pending") == "`bestie memory pending`"


def test_the_digest_keeps_the_same_duplicate_as_the_cleanup_plan(store):
    from bestie_tui.hygiene.plan_build import build_cleanup_plan
    from bestie_tui.maintenance.digest import build_digest

    store.add("preference", "Prefers trains to flights for trips under 600 km.")
    store.add("preference", "Prefers the train to flights for trips under 600 km!")
    plan = build_cleanup_plan(store)
    merge = next(op for op in plan.operations if op.action == "merge")
    kept_by_plan = next(m.id for m in merge.records if m.text == merge.text)
    digest = build_digest(store)
    fixes = [f.command for finding in digest.findings if finding.section == "duplicates" for f in finding.fixes]
    assert any(cmd.endswith(f"supersede {other} {kept_by_plan}") for cmd in fixes
               for other in [m.id for m in merge.records if m.id != kept_by_plan])
