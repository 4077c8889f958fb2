"""What the summary keeps and how it reads: lists, decisions, tasks, records, names, dates; one shape."""

from __future__ import annotations

import re

import pytest

from bestie_tui.conversation.compress import compress
from bestie_tui.conversation.sentences import list_item, resolve_relative, split_sentences
from bestie_tui.conversation.summarize import ExtractiveSummarizer
from bestie_tui.conversation.summary_format import parse_body

CHATTER = ["Haha that sounds fun, tell me more about it!", "Wow, thanks so much, you are the best!",
           "Hey, good to see you again today!", "That's so cool, I love it!", "Aw, that is really sweet of you!"]


def chatter(n: int, start_day: int = 1) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "name": "An" if i % 2 == 0 else "Bình",
             "created_at": f"2024-03-{start_day + i // 20:02d}T09:{i % 60:02d}:00", "content": CHATTER[i % 5]}
            for i in range(n)]


def body(result) -> str:
    return result.summary.split("\n", 1)[1].rsplit("\n", 1)[0]


def listing(n: int) -> dict:
    items = "\n".join(f"{i}. Issue {i}: the upload dialog loses the draft on page {i}" for i in range(1, n + 1))
    return {"role": "user", "name": "An", "created_at": "2024-03-01T10:00:00",
            "content": f"Everything from the bug bash:\n{items}"}


@pytest.mark.parametrize("n", [10, 40, 200])
def test_a_list_keeps_its_first_items_and_counts_the_rest(n):
    history = chatter(5) + [listing(n)] + chatter(45, start_day=2)
    summary = body(compress(history, 40, 10))
    shown = re.findall(r"^  (\d+)\. Issue (\d+):", summary, re.M)
    assert shown and all(int(a) == int(b) for a, b in shown)  # the first items, in order
    assert [int(b) for _, b in shown] == list(range(1, len(shown) + 1))
    more = re.search(r"^  … and (\d+) more items \(turn 6\)$", summary, re.M)
    assert len(shown) + (int(more.group(1)) if more else 0) == n  # every item shown or counted
    assert f"An, a list of {n} items (turn 6): Everything from the bug bash" in summary
    if n == 40:  # the case: far more than 2 of the 40 survive
        assert len(shown) >= 10


def test_a_list_going_on_over_three_turns_is_one_list_with_its_turns():
    parts = [{"role": "user", "name": "An", "created_at": "2024-03-01T10:00:00",
              "content": "Open issues:\n" + "\n".join(f"- item {i} of the review list" for i in range(1, 16))}]
    parts += [{"role": "user", "name": "An", "created_at": "2024-03-01T10:01:00",
               "content": "\n".join(f"- item {i} of the review list" for i in range(k, k + 15))} for k in (16, 31)]
    for cap in (2000, 600):
        summary = body(compress(chatter(11) + parts + chatter(40, start_day=2), 40, 10, ExtractiveSummarizer(cap)))
        assert "An, a list of 45 items (turns 12–14): Open issues" in summary
        shown = len(re.findall(r"^  \d+\. item \d+ of the review list$", summary, re.M))
        more = re.search(r"^  … and (\d+) more items \(turns 12–14\)$", summary, re.M)
        assert shown + (int(more.group(1)) if more else 0) == 45 and (more is not None) == (cap == 600)


def test_decisions_and_open_tasks_come_first_and_outlast_chatter_under_a_small_cap():
    history = chatter(30) + [
        {"role": "user", "name": "An", "created_at": "2024-03-02T10:00:00",
         "content": "OK, we decided to ship the beta on Friday 15 March."},
        {"role": "assistant", "name": "Bình", "created_at": "2024-03-02T10:01:00",
         "content": "TODO: Bình updates the README before the release."},
        {"role": "user", "name": "An", "created_at": "2024-03-02T10:02:00",
         "content": "Chốt: dùng Postgres cho bản hosted."},
        {"role": "user", "name": "An", "created_at": "2024-03-02T10:03:00",
         "content": "Not sure whether the venue takes cards."},
    ] + chatter(30, start_day=3)
    summary = body(compress(history, 40, 10, ExtractiveSummarizer(500)))
    lines = summary.splitlines()
    assert lines[:8] == ["Decisions:",
                         "- [2 March 2024] An: We decided to ship the beta on Friday 15 March.",  # "OK, " tidied
                         "- [2 March 2024] An: Chốt: dùng Postgres cho bản hosted.",
                         "Open tasks:",
                         "- [2 March 2024] Bình: TODO: Bình updates the README before the release.",
                         "Open questions:",
                         "- [2 March 2024] An: Not sure whether the venue takes cards.",
                         lines[7]]
    assert lines[7].startswith("## ")  # chatter, if any, only after them, in the room they leave
    # Too small for all of them: the newest are shown, the rest counted, and still no chatter.
    small = body(compress(history, 40, 10, ExtractiveSummarizer(200)))
    assert len(small) <= 200 and not any(c.split(",")[0] in small for c in CHATTER)
    assert "… and 1 more decision (turn 31)" in small and "Chốt: dùng Postgres" in small


def test_names_numbers_dates_and_amounts_are_kept_before_chatter():
    facts = ["Ms. Thu signed the lease for 12,500,000 VND a month on 3 April.",
             "TP. Hồ Chí Minh office opens on 1 June with 14 desks.",
             "Dr. Lan moved the check-up to 9:30 on Tuesday 19 March."]
    history = chatter(20) + [{"role": "user", "name": "An", "created_at": "2024-03-02T09:00:00", "content": " ".join(facts)}]
    for cap in (230, 2000):
        summary = body(compress(history + chatter(30, start_day=3), 40, 10, ExtractiveSummarizer(cap)))
        for fact in facts:  # whole sentences: "Ms." and "TP." do not end them
            assert fact in summary
        # chatter only in the room facts leave
        assert any(c[4:20] in summary for c in CHATTER) == (cap == 2000)


def test_a_templated_turn_keeps_every_field():
    form = {"role": "user", "name": "An", "created_at": "2024-03-02T09:00:00",
            "content": "Name: Lan\nDate: 2024-03-14\nAmount: 500 USD\nStatus: approved"}
    summary = body(compress(chatter(20) + [form] + chatter(30, start_day=3), 40, 10))
    assert "An: Name: Lan; Date: 2024-03-14; Amount: 500 USD; Status: approved" in summary


def test_summary_is_grouped_by_day_with_who_said_it_and_merges_into_the_same_shape():
    first = chatter(20) + [
        {"role": "user", "name": "An", "created_at": "2024-03-01T11:00:00", "content": "We decided to rent the van from Hải on 8 March."},
        {"role": "assistant", "name": "Bình", "created_at": "2024-03-01T11:01:00",
         "content": "Linh flies to Đà Nẵng on 12 March 2024 for the new job."},
    ] + chatter(20, start_day=2)
    once = compress(first, 40, 10)
    later = once.messages + [
        {"role": "user", "name": "An", "created_at": "2024-03-05T08:00:00", "content": "Please book the hotel in Huế by Friday."},
        {"role": "assistant", "name": "Bình", "created_at": "2024-03-05T08:01:00",
         "content": "Mai starts at the Huế clinic on 2 April with 3 other nurses."},
    ] + chatter(40, start_day=6)
    twice = compress(later, 40, 10)
    assert twice.merged_previous and twice.summary.startswith("[CONTEXT_SUMMARY turns=74 from=2024-03-01")

    def shape(result) -> list[str]:
        kinds = []
        for line in body(result).splitlines():
            kind = ("section" if line.endswith(":") and not line.startswith("- ") else "day" if line.startswith("## ")
                    else "names" if line.startswith("Names:") else "line" if line.startswith("- ") else "other")
            if not kinds or kinds[-1] != kind:
                kinds.append(kind)
        return kinds

    assert shape(once)[:2] == ["section", "line"] and "day" in shape(once)
    assert shape(twice)[:4] == ["section", "line", "section", "line"] and "other" not in shape(twice)
    merged = body(twice)
    assert "- [1 March 2024] An: We decided to rent the van from Hải on 8 March." in merged
    assert "- [5 March 2024] An: Please book the hotel in Huế by Friday (Friday 8 March 2024)." in merged
    linh = "- Bình: Linh flies to Đà Nẵng on 12 March 2024 for the new job."
    assert linh in merged
    assert [h for h in merged[:merged.index(linh)].splitlines() if h.startswith("## ")][-1] == "## 1 March 2024"
    entries, _, _ = parse_body(merged)  # it reads back: the next merge starts from the same entries
    assert {e.kind for e in entries} >= {"decision", "task", "fact"} and all(e.who for e in entries)


def test_sentence_splitting_knows_abbreviations_initials_and_vietnamese():
    text = ("Ms. Thu met Dr. Lan at 9 a.m. in the U.S. embassy. J. K. Rowling wrote it, e.g. the first book! "
            "Anh ấy ở TP. Hồ Chí Minh. Đà Nẵng thì đẹp… Còn Huế? Ok.")
    assert split_sentences(text) == ["Ms. Thu met Dr. Lan at 9 a.m. in the U.S. embassy.",
                                     "J. K. Rowling wrote it, e.g. the first book!", "Anh ấy ở TP. Hồ Chí Minh.",
                                     "Đà Nẵng thì đẹp…", "Còn Huế?", "Ok."]
    assert list_item("- [ ] renew the passport") == ("renew the passport", False)
    assert list_item("3) call Lan") == ("call Lan", None) and list_item("A. Smith said so") is None


def test_relative_dates_are_resolved_against_the_day_they_were_said():
    said = "I ran last Sunday, met Lan yesterday, and we go to Huế next month; tuần trước thì bận."
    assert resolve_relative(said, "2023-05-25") == (
        "I ran last Sunday (Sunday 21 May 2023), met Lan yesterday (24 May 2023), and we go to Huế next month "
        "(June 2023); tuần trước (week of 15 May 2023) thì bận.")
    assert resolve_relative(said, None) == said
