"""The doctor in plain words (issue 17, point 6): groups named by what they are about, pairs that
read the same collapsed under one heading with a count, scores only behind ``--details`` / ``i``,
and names such as "An" not taken for article noise."""

from __future__ import annotations

from datetime import timedelta

from bestie_tui.hygiene import wording
from bestie_tui.hygiene.doctor import run_doctor


def test_contradictions_are_named_by_what_they_are_about(store):
    store.add("preference", "I love jazz.")
    store.add("preference", "I hate jazz.")
    store.add("identity", "I was born in the year 1987.")
    store.add("identity", "I was born in 1989, to be exact.")
    headings = sorted(wording.contradiction_heading(c) for c in run_doctor(store).contradictions)
    assert headings == ["you: birth year 1987 or 1989?", "you: like jazz — one says yes, one says no"]


def test_a_correction_says_what_changed(store):
    store.add("identity", "I live in Vinh.")
    store.add("identity", "I moved to Saigon.")
    [c] = run_doctor(store).corrections
    assert wording.correction_heading(c) == "you: residence changed Vinh → Saigon"


def test_many_users_with_the_same_pair_read_as_one_heading_with_a_count(run):
    for n in range(12):
        for text in ("I love jazz.", "I hate jazz."):
            assert run("memory", "add", "preference", text, "--user", f"u{n}").exit_code == 0
    for n in range(3):
        for text in ("Prefers trains to flights for trips under 600 km.",
                     "Prefers the train to flights for trips under 600 km!"):
            assert run("memory", "add", "preference", text, "--user", f"u{n}").exit_code == 0
    out = run("memory", "analyze", "--limit", "50").output
    assert out.count("like jazz — one says yes, one says no") == 1
    assert "like jazz — one says yes, one says no (12 pairs)" in out
    assert "6 memories in 3 groups say “Prefers trains to flights for trips under 600 km”" in out
    assert "cosine" not in out and "frame" not in out and "antonym" not in out
    detailed = run("memory", "analyze", "--limit", "50", "--details").output
    assert "lowest cosine" in detailed and "antonym" in detailed


def test_a_name_like_an_is_not_article_noise(store):
    store.add("identity", "Name is An")
    store.add("identity", "The intern is called May")
    assert [f.memory.text for f in run_doctor(store).noisy] == []


def test_an_expiry_reads_as_days_ago(store, clock):
    m = store.add("preference", "On call this week.", ttl="1d")
    clock.advance(timedelta(days=3).total_seconds())
    [finding] = [f for f in run_doctor(store).stale if f.memory.id == m.id]
    assert wording.finding_reason(finding, store.clock()) == "expired 2 days ago"


def test_yes_and_no_about_one_thing_share_a_heading_whatever_its_wording(run):
    """"like jazz", "like jazz / jazz music" and "like jazz music" are one topic (the audit saw it split
    three ways); "ice cream" and "ice hockey" stay apart."""
    for text in ("I like jazz.", "I don't like jazz.", "I like jazz music.", "I do not like jazz music.",
                 "I hate jazz music.", "I like ice cream.", "I don't like ice cream.", "I like ice hockey.",
                 "I don't like ice hockey."):
        assert run("memory", "add", "preference", "--", text).exit_code == 0
    out = run("memory", "analyze", "--mode", "conflicts").output
    headings = [line.strip() for line in out.splitlines() if "one says yes" in line]
    assert headings[0].startswith("you: like jazz — one says yes, one says no (") and len(headings) == 3
    assert {h.split(" — ")[0] for h in headings[1:]} == {"you: like ice cream", "you: like ice hockey"}
