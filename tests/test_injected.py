"""One stripping step for what the system injected: proposing, compression and the pack all use it."""

from __future__ import annotations

import pytest

from bestie_tui.conversation.compress import compress
from bestie_tui.conversation.injected import clean_history, strip_injected, strip_message
from bestie_tui.conversation.pack import build_pack
from bestie_tui.conversation.pins import (
    CONTEXT_SUMMARY,
    MEMORY_BLOCK,
    PIN_PREFIXES,
    USER_INFO,
    is_summary,
    make_pin,
)
from bestie_tui.conversation.proposals import propose_from_turn
from bestie_tui.retrieval.assembly import HEADER, build_context
from bestie_tui.text.tokens import count_tokens

MEMORIES = ["Prefers concise replies in Vietnamese with proper diacritics.",
            "Works on the bestie-tui project in the evenings after 8 pm.",
            "Is allergic to shellfish and never eats shrimp or crab.",
            "Lives in Hà Nội near West Lake with a cat called Mochi."]


def seeded(store):
    for text in MEMORIES:
        store.add("preference", text, user="an", scope="core")
    return build_context(store, "reply style and evening work", "an", record_access=False).render()


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("shape", ["wrapped", "wrapped flat", "bare", "bare flat", "unterminated"])
def test_every_shape_of_an_injected_memory_block_is_removed(store, shape):
    block = seeded(store)
    assert all(m in block for m in MEMORIES[:2])
    wrapped = make_pin(MEMORY_BLOCK, block)["content"]
    injected = {"wrapped": wrapped, "wrapped flat": flat(wrapped), "bare": block, "bare flat": flat(block),
                "unterminated": MEMORY_BLOCK + "\n" + block}[shape]
    # On lines the person's words start a line of their own; flattened, they follow on the same line.
    sep = " " if "flat" in shape else "\n"
    tail = "" if shape == "unterminated" else sep + "Ms. Thu moved our call to Friday. Dr. Lan agrees."
    out = strip_injected(f"Quick note: {injected}{tail}")
    assert not any(m[:30] in out for m in MEMORIES) and HEADER not in out and MEMORY_BLOCK not in out
    assert out.startswith("Quick note:")
    if tail:  # the person's own words after a flattened block survive, abbreviations and all
        assert out.endswith("Ms. Thu moved our call to Friday. Dr. Lan agrees.")


def test_pins_and_summaries_flattened_onto_one_line_are_removed_and_clean_text_is_untouched():
    pins = " ".join(flat(make_pin(p, "machine text")["content"]) for p in PIN_PREFIXES)
    summary = f"{CONTEXT_SUMMARY} turns=3] - An: I hate coffee [/CONTEXT_SUMMARY]"
    assert strip_injected(f"{pins} {summary} I like oolong tea.") == "I like oolong tea."
    assert strip_injected("stray [/MEMORY_BLOCK] closing marker") == "stray closing marker"
    own = "First paragraph.\n\n  Second one, indented.  "
    assert strip_injected(own) == own  # nothing injected: not even the whitespace changes


def test_strip_message_keeps_tool_messages_and_drops_turns_that_were_only_injected():
    only = {"role": "user", "content": make_pin(USER_INFO, "Name: An")["content"]}
    assert strip_message(only) is None
    kept = {"role": "user", "content": "hi"}
    assert strip_message(kept) is kept
    tool = {"role": "tool", "tool_call_id": "c1", "content": f"{MEMORY_BLOCK}\n- x\n[/MEMORY_BLOCK]"}
    assert strip_message(tool) == {"role": "tool", "tool_call_id": "c1", "content": ""}
    parts = {"role": "user", "content": [{"type": "text", "text": f"{HEADER}\n- I like tea"},
                                         {"type": "text", "text": "Book a table for two."}]}
    assert strip_message(parts)["content"] == [{"type": "text", "text": "Book a table for two."}]


def runtime_history(block: str, turns: int = 12) -> list[dict]:
    """What a runtime logs over ``turns`` requests: each prompt's memory pin, and a user turn that
    carries a pasted copy of the block before the person's own words."""
    out = []
    for i in range(turns):
        out.append(make_pin(MEMORY_BLOCK, block))
        out.append({"role": "user", "content": f"{block}\nTurn {i}: can we move the demo of the console to day {i + 3}?"})
        out.append({"role": "assistant", "content": f"Sure, the demo moves to day {i + 3}."})
    return out


def test_after_twelve_turns_the_pack_carries_one_memory_block_and_fits_300_tokens(store):
    block = seeded(store)
    history = runtime_history(block)
    pack = build_pack("What did we decide about the demo?", history, store=store, user="an", budget=300,
                      record_access=False)
    blocks = [m for m in pack.messages if MEMORY_BLOCK in m["content"] or HEADER in m["content"]]
    assert len(blocks) == 1 and blocks[0]["content"].startswith(MEMORY_BLOCK)  # the pack's own, fresh one
    assert pack.manifest.total_tokens == sum(count_tokens(m["content"]) + 3 for m in pack.messages) + 3 <= 300
    assert any("removed 24 injected blocks" in line for line in pack.manifest.dropped)
    assert pack.messages[-1]["content"] == "What did we decide about the demo?"


def test_a_summary_never_quotes_an_injected_block(store):
    block = seeded(store)
    result = compress(runtime_history(block), threshold=10, keep_recent=4)
    assert result.compressed and result.summary
    assert not any(m[:30] in result.summary for m in MEMORIES) and HEADER not in result.summary
    assert "demo of the console" in result.summary  # the person's words are what it summarises
    pins = [m for m in result.messages if m["content"].startswith(MEMORY_BLOCK)]
    assert len(pins) == 1 and pins[0] == make_pin(MEMORY_BLOCK, block)  # the newest copy, once
    kept_users = [m for m in result.messages if m["role"] == "user"]
    assert kept_users and all(HEADER not in m["content"] for m in kept_users)


def test_a_custom_summarizer_is_given_stripped_turns_and_cannot_quote_a_block(store):
    block = seeded(store)
    seen = []

    def echo(previous, evicted):
        seen.extend(m["content"] for m in evicted)
        return f"{block}\nthey talked about the demo"

    result = compress(runtime_history(block), threshold=10, keep_recent=4, summarizer=echo)
    assert seen and not any(HEADER in text for text in seen)
    assert result.summary.split("\n")[1:-1] == ["they talked about the demo"]


def test_proposals_use_the_same_step(store):
    block = seeded(store)
    turn = {"role": "user", "content": flat(make_pin(MEMORY_BLOCK, block)["content"]) + " I prefer tea to coffee."}
    assert [r.memory.text for r in propose_from_turn(store, turn)] == ["I prefer tea to coffee."]
    bare = {"role": "user", "content": flat(block) + " My dog is called Bơ."}
    assert [r.memory.text for r in propose_from_turn(store, bare)] == ["My dog is called Bơ."]


def test_clean_history_keeps_the_newest_pin_once_and_drops_what_the_caller_supplies():
    old, new = make_pin(USER_INFO, "Name: An"), make_pin(USER_INFO, "Name: An, Hà Nội")
    summary = {"role": "system", "content": f"{CONTEXT_SUMMARY} turns=4]\n- An: hi {MEMORY_BLOCK} - x [/MEMORY_BLOCK]\n"
                                            "[/CONTEXT_SUMMARY]"}
    history = [summary, old, {"role": "user", "content": "hello"}, new]
    cleaned = clean_history(history)
    assert cleaned.messages[1:] == [{"role": "user", "content": "hello"}, new] and cleaned.dropped == [1]
    assert is_summary(cleaned.messages[0]) and MEMORY_BLOCK not in cleaned.messages[0]["content"]
    assert cleaned.positions == [0, 2, 3] and cleaned.stripped == [0]
    supplied = clean_history(history, supplied={USER_INFO})
    assert supplied.dropped == [1, 3] and "pin USER_INFO ×2" in supplied.describe()
