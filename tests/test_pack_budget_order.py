"""When the pack must shrink: chatter, older artifacts, older summary detail, recent turns — in that order."""

from __future__ import annotations

import os

import pytest

from bestie_tui.conversation.pack import BudgetError, build_pack
from bestie_tui.conversation.pins import is_summary
from bestie_tui.text.tokens import count_tokens


@pytest.fixture(autouse=True)
def _artifacts_root_at_tmp(tmp_path, monkeypatch):
    """Artifacts must be inside the project root (the working directory here): these tests write theirs in tmp_path."""
    monkeypatch.chdir(tmp_path)

CHATTER = ["Haha that sounds fun, tell me more!", "Wow, thanks so much, you are the best!",
           "Hey, good to see you again today!", "That's so cool, I love it!"]
FACTS = ["Linh booked the Huế hotel for 3 nights from 12 April at 1,200,000 VND a night.",
         "The staging server moved to the Hà Nội data centre on 2 March.",
         "Minh's visa interview is at 9:30 on 20 March at the embassy.",
         "The client approved 14 of the 20 screens in the March review."]
DECISION = "We decided to launch the beta in Đà Nẵng on 15 April."
TASK = "TODO: Bình sends the signed contract to the lawyer."


def history() -> list[dict]:
    out = []
    for i in range(60):
        day = f"2024-03-{1 + i // 12:02d}T10:{i % 60:02d}:00"
        text = CHATTER[i % 4] if i % 3 else FACTS[(i // 3) % 4].replace("March", f"March (note {i})")
        out.append({"role": "user" if i % 2 == 0 else "assistant", "name": "An" if i % 2 == 0 else "Bình",
                    "created_at": day, "content": text})
    out[20]["content"], out[21]["content"] = DECISION, TASK
    return out


@pytest.fixture
def artifacts(tmp_path):
    old, new = tmp_path / "PRODUCT_PLAN.md", tmp_path / "BUILD_STATE.md"
    old.write_text("".join(f"- plan step {i}: design the screen {i}\n" for i in range(200)), encoding="utf-8")
    new.write_text("".join(f"- built {i}, next {i + 1}\n" for i in range(100)), encoding="utf-8")
    os.utime(old, (1_700_000_000, 1_700_000_000))  # the plan is older than the build state
    os.utime(new, (1_710_000_000, 1_710_000_000))
    return [f"{old}:1500", f"{new}:1500"]


def recount(messages) -> int:
    return sum(count_tokens(m["content"]) + 3 for m in messages) + 3


def steps(dropped: list[str]) -> list[str]:
    """Which step of CANON each manifest line is (the stripping step's line left out)."""
    out = []
    for line in dropped:
        if "injected" in line:
            continue
        if line.startswith("summary: ") and "chatter" in line and not out:
            out.append("chatter")
        elif line.startswith("older artifacts"):
            out.append("older artifacts")
        elif line.startswith("summary: ") and "older detail" in line:
            out.append("detail")
        elif line.startswith("history: ") and "recent turn" in line:
            out.append("recent turns")
        elif line.startswith("newest artifact"):
            out.append("newest artifact")
        elif line.startswith("summary: ") and "decision" in line:
            out.append("priority")
    return out


CANON = ["chatter", "older artifacts", "detail", "recent turns", "newest artifact", "priority"]


def test_the_pack_gives_things_up_in_the_fixed_order(artifacts):
    seen_steps = set()
    last_fit = None
    for budget in range(2400, 200, -40):
        try:
            pack = build_pack("What is left to do before the launch?", history(), artifacts=artifacts, budget=budget,
                              threshold=40, keep_recent=10)
        except BudgetError:
            break
        last_fit = budget
        assert pack.manifest.total_tokens == recount(pack.messages) <= budget
        taken = steps(pack.manifest.dropped)
        assert taken == [s for s in CANON if s in taken], (budget, pack.manifest.dropped)  # never out of order
        seen_steps.update(taken)
        summary = next(m["content"] for m in pack.messages if is_summary(m))
        texts = [m["content"] for m in pack.messages]
        assert texts[-1] == "What is left to do before the launch?"
        assert history()[-1]["content"] in texts[-2]  # the newest turn stays verbatim
        chatter_left = any(c[5:25] in summary for c in CHATTER)
        if DECISION not in summary or TASK not in summary:
            # a decision or an open task is given up only once no chatter is left anywhere in the summary
            assert not chatter_left and "priority" in taken
        if "older artifacts" in taken:  # cut only after every chatter line of the summary
            assert not chatter_left
    assert last_fit is not None and set(CANON) <= seen_steps, seen_steps


def test_the_newest_artifact_outlasts_the_older_one(artifacts):
    lowered = []
    for budget in range(1800, 300, -100):
        pack = build_pack("Next step?", history(), artifacts=artifacts, budget=budget, threshold=40, keep_recent=10)
        plan, state = (next(s for s in pack.manifest.segments if s.name.endswith(name)) for name in
                       ("PRODUCT_PLAN.md", "BUILD_STATE.md"))
        if "lowered" in state.note:  # the newest is cut below its cap only once the older shows its marker alone
            assert plan.note.startswith("cut to 0 of"), (budget, plan.note, state.note)
            lowered.append(budget)
        if "lowered" in plan.note:
            assert "lowered" not in state.note or plan.note.startswith("cut to 0 of")
    assert lowered  # the sweep reached the newest artifact


def test_without_a_budget_nothing_is_dropped_and_the_manifest_says_so(artifacts):
    pack = build_pack("Next step?", history(), artifacts=artifacts)
    assert pack.manifest.dropped == [] and pack.manifest.budget is None
    summary = next(m["content"] for m in pack.messages if is_summary(m))
    assert DECISION in summary and TASK in summary
