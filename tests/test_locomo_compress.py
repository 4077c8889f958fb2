"""Real input: whole LoCoMo conversations compressed with threshold 40 / keep 10, and packed."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from bestie_tui.conversation.compress import compress
from bestie_tui.conversation.pack import build_pack
from bestie_tui.conversation.pins import MEMORY_BLOCK, is_summary
from bestie_tui.text.tokens import count_tokens
from tests.conftest import shared_data
from tests.test_locomo_convert import load_locomo_module

CALENDAR = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January",
            "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December", "Fri", "Sat", "Sun", "Mon", "Tue", "Tues", "Wed", "Thu"}


@pytest.fixture(scope="module")
def conversations():
    locomo = load_locomo_module()
    convs = locomo.load_conversations(shared_data("locomo_dev.json"))
    out = {}
    for conv in convs:
        speaker_a = conv["conversation"]["speaker_a"]
        out[conv["sample_id"]] = [
            {"role": "user" if t.speaker == speaker_a else "assistant", "name": t.speaker,
             "content": t.text, "created_at": t.at.isoformat()}
            for s in locomo.sessions(conv) for t in s.turns]
    return out


def proper_names(texts):
    """Capitalised words that are not the first of a sentence (an independent, crude NER)."""
    counts = Counter()
    for text in texts:
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            words = re.findall(r"[A-Za-z][a-z]+", sentence)
            counts.update(w for w in words[1:] if w[0].isupper() and w not in CALENDAR)
    return counts


@pytest.mark.parametrize("sample_id", ["conv-26", "conv-30", "conv-41", "conv-47"])
def test_whole_conversation_becomes_one_summary_plus_last_ten(conversations, sample_id):
    messages = conversations[sample_id]
    assert len(messages) > 300
    result = compress(messages, threshold=40, keep_recent=10)
    out = result.messages
    assert len(out) == 11 and is_summary(out[0])
    assert sum(is_summary(m) for m in out) == 1
    assert out[1:] == messages[-10:]
    summary = result.summary
    assert summary.startswith(f"[CONTEXT_SUMMARY turns={len(messages) - 10} ")
    evicted, kept = messages[:-10], messages[-10:]
    # Dates: the first session's day occurs only in the evicted part.
    first_day = evicted[0]["created_at"][:10]
    assert first_day not in {m["created_at"][:10] for m in kept}
    assert first_day in summary
    # Names: the three most frequent proper names that occur only in the evicted part.
    kept_text = " ".join(m["content"] for m in kept)
    only_evicted = [(n, c) for n, c in proper_names(m["content"] for m in evicted).most_common()
                    if n not in kept_text and c >= 2]
    top = [n for n, _ in only_evicted[:3]]
    assert len(top) == 3
    assert all(name in summary for name in top), (top, summary)
    assert result.tokens_after < result.tokens_before / 10


@pytest.mark.parametrize("mode", ["chars4", "tiktoken_cl100k"])
def test_locomo_pack_respects_its_budget(conversations, store, tmp_path, mode):
    messages = conversations["conv-26"]
    store.add("identity", "Caroline is studying to become a counselor", user="Caroline", scope="core")
    state = tmp_path / "BUILD_STATE.md"
    state.write_text("".join(f"- note {i}: Caroline's adoption paperwork step {i}\n" for i in range(300)),
                     encoding="utf-8")
    budget = 1500
    pack = build_pack("What did Caroline research?", messages, artifacts=[f"{state}:2500"], store=store,
                      user="Caroline", token_mode=mode, budget=budget, record_access=False,
                      artifact_root=tmp_path)
    recount = sum(count_tokens(m["content"], mode) + 3 for m in pack.messages) + 3
    assert pack.manifest.total_tokens == recount <= budget
    assert sum(is_summary(m) for m in pack.messages) == 1
    assert any(m["content"].startswith(MEMORY_BLOCK) for m in pack.messages)
    assert pack.messages[-2] == messages[-1]


GREETING = re.compile(r"^(?:hey|hi|hello|wow|thanks|thank you|long time|yeah|aw+|omg|haha|good to|great to)\b", re.I)


@pytest.mark.parametrize("sample_id", ["conv-26", "conv-30", "conv-41", "conv-47"])
def test_summary_lines_are_not_greetings_and_names_are_names(conversations, sample_id):
    summary = compress(conversations[sample_id], threshold=40, keep_recent=10).summary
    lines = [line.split(": ", 1)[1] for line in summary.splitlines() if line.startswith("- ")]
    assert lines and not [line for line in lines if GREETING.match(line)]
    names = next(line for line in summary.splitlines() if line.startswith("Names: "))[7:].split(", ")
    false = {"Fri", "Sat", "Tues", "Month", "Perfect", "Embracing", "Grand", "Identity", "Wow", "Hey"}
    assert not false & set(names), names
