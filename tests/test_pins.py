"""The pinned layer's public prefixes, stripping of injected blocks, and proposals from a turn."""

from __future__ import annotations

import pytest

from bestie_tui.conversation.injected import strip_injected
from bestie_tui.conversation.pins import (
    ARTIFACT,
    BUILD_STATE,
    CONTEXT_SUMMARY,
    CROSS_STACK,
    FE_SPEC,
    KYB,
    MASTER,
    MEMORY_BLOCK,
    NOTE_PREFIXES,
    PIN_PREFIXES,
    PRODUCT_PLAN,
    PROJECT_CONTEXT,
    RESOURCE_DIGEST,
    USER_INFO,
    is_pinned,
    make_pin,
    pin_kind,
)
from bestie_tui.conversation.proposals import candidate_statements, guess_kind, propose_from_turn
from bestie_tui.retrieval.assembly import build_context

pytestmark = pytest.mark.both_engines

INJECTED = ["I prefer concise replies in Vietnamese.", "I always work on the bestie project in the evening."]


def test_prefixes_are_the_published_api():
    # Changing one of these strings breaks every runtime that parses them: this test is the tripwire.
    assert (USER_INFO, PROJECT_CONTEXT, BUILD_STATE, MEMORY_BLOCK, RESOURCE_DIGEST, ARTIFACT, CONTEXT_SUMMARY) == (
        "[USER_INFO]", "[PROJECT_CONTEXT]", "[BUILD_STATE]", "[MEMORY_BLOCK]", "[RESOURCE_DIGEST]",
        "[ARTIFACT]", "[CONTEXT_SUMMARY")
    # The design note's prefixes and the Engineer pack's segments, added beside ours.
    assert (FE_SPEC, MASTER, KYB, PRODUCT_PLAN, CROSS_STACK) == (
        "[FE_SPEC]", "[MASTER]", "[KYB]", "[PRODUCT_PLAN]", "[CROSS_STACK]")
    assert len(set(PIN_PREFIXES)) == len(PIN_PREFIXES) == 11


def test_every_prefix_the_note_names_is_a_pin_under_its_own_name():
    assert sorted(NOTE_PREFIXES) == sorted(["FE spec", "BUILD_STATE", "MASTER", "USER_INFO", "KYB",
                                            "project context", "resource digest"])
    for name, prefix in NOTE_PREFIXES.items():
        assert prefix in PIN_PREFIXES and pin_kind(name) == prefix
        pin = make_pin(prefix, "body")
        assert is_pinned(pin) and strip_injected(f"before {pin['content']} after") == "before\nafter"
    assert pin_kind("fe_spec") == pin_kind("spec") == FE_SPEC and pin_kind("digest") == RESOURCE_DIGEST
    assert pin_kind("nonsense") is None


def test_make_pin_wraps_the_body_and_is_recognised():
    pin = make_pin(BUILD_STATE, "step 3 of 5 done\n")
    assert pin == {"role": "system", "content": "[BUILD_STATE]\nstep 3 of 5 done\n[/BUILD_STATE]"}
    assert is_pinned(pin) and not is_pinned({"role": "user", "content": "about [BUILD_STATE]"})


def test_strip_removes_wrapped_unterminated_and_summary_blocks():
    text = ("[USER_INFO]\nName: An\n[/USER_INFO]\nI like oolong tea.\n"
            "[CONTEXT_SUMMARY turns=3]\n- user: I hate coffee\n[/CONTEXT_SUMMARY]\n"
            "ok then\n[MEMORY_BLOCK]\n- I prefer cats")
    assert strip_injected(text) == "I like oolong tea.\nok then"


def _seed_injected(store):
    return [store.add("preference", t, user="an") for t in INJECTED]


def _block(store) -> str:
    pack = build_context(store, "concise replies for the bestie project", "an", record_access=False)
    assert all(t in pack.render() for t in INJECTED)  # the block really carries them
    return pack.render()


def test_recalled_memories_are_never_learned_again(store):
    injected = _seed_injected(store)
    # The same sentences, said by the user without a block, would be proposals: the stripping is
    # what keeps the injected copy out.
    assert candidate_statements(" ".join(INJECTED)) == INJECTED
    turn = {"role": "user",
            "content": f"{make_pin(MEMORY_BLOCK, _block(store))['content']}\nMy dog is called Mochi."}
    first = propose_from_turn(store, turn)
    assert [r.outcome for r in first] == ["pending"] and first[0].memory.text == "My dog is called Mochi."
    count = store.count()
    for _ in range(99):
        propose_from_turn(store, turn)
    assert store.count() == count == len(INJECTED) + 1
    for record in injected:  # not reinforced either: nothing learned from the injected copy
        assert store.get(record.id).confidence == record.confidence
        assert [e.action for e in store.history(record.id)] == ["add"]
    assert [m.text for m in store.pending()] == ["My dog is called Mochi."]


def test_a_bare_rendered_memory_block_is_stripped_too(store):
    _seed_injected(store)
    text = _block(store) + "\nI live in Hà Nội now."
    assert strip_injected(text) == "I live in Hà Nội now."
    results = propose_from_turn(store, {"role": "user", "content": text})
    assert [r.memory.text for r in results] == ["I live in Hà Nội now."]


def test_only_lasting_user_statements_become_proposals(store):
    assert propose_from_turn(store, {"role": "assistant", "content": "I prefer short answers."}) == []
    said = "Do you like tea? I prefer short answers. I use the password hunter2 for my bank. lol"
    assert len(candidate_statements(said)) == 2  # the secret one is a candidate; the guard refuses it
    results = propose_from_turn(store, said, user="an")
    assert [(r.memory.text, r.memory.kind, r.memory.user) for r in results] == [
        ("I prefer short answers.", "communication_preference", "an")]
    assert "hunter2" not in " ".join(m.text for m in store.list())


def test_guess_kind():
    assert guess_kind("My name is Lan") == "identity"
    assert guess_kind("Tôi thích cà phê sữa đá") == "preference"
    assert guess_kind("We decided to ship on Friday") == "decision"
