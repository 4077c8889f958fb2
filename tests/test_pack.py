"""The prompt pack: pins, artifacts under caps, memory block from a real store, manifest, budget."""

from __future__ import annotations

import os
import re

import pytest
from conftest import finishes

from bestie_tui.conversation.pack import ArtifactSpec, BudgetError, build_pack, read_artifact
from bestie_tui.conversation.pins import ARTIFACT, MEMORY_BLOCK, PROJECT_CONTEXT, USER_INFO, is_summary
from bestie_tui.errors import InvalidValueError
from bestie_tui.text.tokens import count_tokens


@pytest.fixture(autouse=True)
def _artifacts_root_at_tmp(tmp_path, monkeypatch):
    """Artifacts must be inside the project root (the working directory here): these tests write theirs in tmp_path."""
    monkeypatch.chdir(tmp_path)


def recount(messages, mode):
    """Independent token count of a pack: content + 3 per message, + 3 for the reply."""
    return sum(count_tokens(m["content"], mode) + 3 for m in messages) + 3


def history(n):
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"Turn {i}: we talked about the garden, tomatoes and basil again."} for i in range(n)]


@pytest.fixture
def files(tmp_path):
    plan = tmp_path / "PLAN.md"
    plan.write_text("# Plan\n" + "".join(f"- step {i}: do thing {i}\n" for i in range(400)), encoding="utf-8")
    state = tmp_path / "BUILD_STATE.md"
    state.write_text("done: 1, 2\nnext: 3\n", encoding="utf-8")
    return plan, state


def test_excerpt_is_cut_under_its_cap_with_a_visible_marker(files):
    plan, state = files
    ex = read_artifact(plan, 500)
    data = plan.read_text(encoding="utf-8")
    assert ex.cut and ex.shown == 500 and ex.total_chars == len(data)
    assert ex.text == data[:500] + f"\n[… cut: first 500 of {len(data):,} characters of {plan} …]"
    whole = read_artifact(state, 500)
    assert not whole.cut and whole.text == "done: 1, 2\nnext: 3\n"


@pytest.mark.parametrize("cap", [1, 20, 43])
def test_artifact_cap_is_content_shown_and_the_marker_is_always_whole(tmp_path, cap):
    plan = tmp_path / "PLAN.md"
    text = "# Plan\n- step one: ship it\n- step two: test\n"
    plan.write_text(text, encoding="utf-8")
    assert len(text) == 44
    pack = build_pack("x", artifacts=[f"{plan}:{cap}"])
    assert pack.messages[0]["content"] == (f"[ARTIFACT]\npath: {plan}\n{text[:cap]}\n"
                                           f"[… cut: first {cap} of 44 characters of {plan} …]\n[/ARTIFACT]")
    segment = next(s for s in pack.manifest.segments if s.kind == "artifact")
    assert segment.cut and segment.note == f"cut to {cap} of 44 characters"


def test_missing_artifact_is_reported_not_fatal(files, tmp_path):
    plan, _ = files
    pack = build_pack("what next?", history(4), artifacts=[f"{plan}:300", str(tmp_path / "GONE.md")])
    assert pack.manifest.missing == [str(tmp_path / "GONE.md")]
    gone = [s for s in pack.manifest.segments if s.name.endswith("GONE.md")]
    assert gone[0].note == "missing" and gone[0].tokens == 0
    assert f"artifact:{plan}" in pack.manifest.cut


def test_pack_order_and_manifest_sizes(store, files):
    plan, state = files
    store.add("preference", "An prefers short answers in Vietnamese", user="an", scope="core")
    pack = build_pack("What is the next build step?", history(50),
                      pins={"project_context": "bestie-tui, a memory console", "user_info": "An, Hà Nội"},
                      artifacts=[ArtifactSpec(str(plan), 800), str(state)], store=store, user="an",
                      record_access=False)
    contents = [m["content"] for m in pack.messages]
    assert contents[0].startswith(USER_INFO) and contents[1].startswith(PROJECT_CONTEXT)
    assert contents[2].startswith(MEMORY_BLOCK) and "An prefers short answers in Vietnamese" in contents[2]
    assert contents[3].startswith(ARTIFACT) and contents[4].startswith(f"{ARTIFACT}\npath: {state}")
    assert is_summary(pack.messages[5]) and contents[6:16] == [m["content"] for m in history(50)[-10:]]
    assert pack.messages[-1] == {"role": "user", "content": "What is the next build step?"}
    kinds = [s.kind for s in pack.manifest.segments]
    assert kinds == ["pin", "pin", "memory", "artifact", "artifact", "summary", "history", "task"]
    assert pack.manifest.total_tokens == recount(pack.messages, "chars4")
    assert pack.manifest.total_chars == sum(len(c) for c in contents)
    assert "history: 40 turns summarised" in pack.manifest.cut
    assert store.get(1).access_count == 0  # a preview does not count as an access


def test_paused_memory_gives_an_empty_block(store):
    store.add("preference", "An prefers tea", user="an")
    store.pause()
    pack = build_pack("tea?", store=store, user="an")
    assert not any(m["content"].startswith(MEMORY_BLOCK) for m in pack.messages)
    assert [s.note for s in pack.manifest.segments if s.kind == "memory"] == ["memory paused"]


@pytest.mark.parametrize("mode", ["chars4", "tiktoken_cl100k"])
@pytest.mark.parametrize("budget", [2000, 600, 250])
def test_budget_is_respected_in_both_token_modes(store, files, mode, budget):
    plan, _ = files
    store.add("preference", "An prefers short answers", user="an", scope="core")
    pack = build_pack("Summarise the plan", history(80), artifacts=[f"{plan}:3000"], store=store, user="an",
                      token_mode=mode, budget=budget, record_access=False)
    assert pack.manifest.total_tokens == recount(pack.messages, mode) <= budget
    assert pack.messages[-1]["content"] == "Summarise the plan"
    assert history(80)[-1] in pack.messages  # the newest turn is never given up
    assert any(m["content"].startswith(MEMORY_BLOCK) and "An prefers short answers" in m["content"]
               for m in pack.messages)


def test_budget_too_small_for_what_is_never_cut():
    with pytest.raises(BudgetError, match="a budget of 10 tokens cannot hold"):
        build_pack("a task " * 20, history(3), budget=10)


def test_task_defaults_to_the_last_user_message_and_errors_are_clear():
    msgs = history(3)
    pack = build_pack(None, msgs)
    assert pack.messages[-1]["content"] == msgs[-1]["content"] and len(pack.messages) == 3
    with pytest.raises(InvalidValueError, match="no task"):
        build_pack(None, history(2))
    with pytest.raises(InvalidValueError, match="unknown pin 'memory_block'"):
        build_pack("x", pins={"memory_block": "smuggled"})


def test_artifact_spec_parsing():
    assert ArtifactSpec.parse("notes/PLAN.md:1200") == ArtifactSpec("notes/PLAN.md", 1200)
    assert ArtifactSpec.parse("PLAN.md") == ArtifactSpec("PLAN.md", 4000)
    with pytest.raises(InvalidValueError, match="whole number"):
        ArtifactSpec.parse("PLAN.md:lots")


def test_history_system_prompt_opens_the_pack():
    prompt = {"role": "system", "content": "You are Bestie."}
    pack = build_pack("next?", [prompt] + history(60), pins={"user_info": "An"})
    assert pack.messages[0] == prompt and pack.messages[1]["content"].startswith(USER_INFO)
    assert [s.kind for s in pack.manifest.segments][:2] == ["system", "pin"]
    assert pack.manifest.total_tokens == recount(pack.messages, "chars4")


def long_names_summarizer(previous, evicted):
    """A summary whose Names/Dates lines are long: the lines the budget fitting once never trimmed."""
    lines = [f"- {m['content']}" for m in evicted[-3:]]
    return "\n".join(lines + ["Names: " + ", ".join(f"Person{i}" for i in range(60)),
                              "Dates: " + ", ".join(f"2024-01-{i:02d}" for i in range(1, 29))])


@pytest.mark.parametrize("mode", ["chars4", "tiktoken_cl100k"])
def test_budget_feasibility_is_monotone_and_the_error_gives_the_true_floor(files, mode):
    plan, _ = files
    outcome = {}
    for budget in range(40, 360, 5):
        try:
            pack = build_pack("What next?", history(30), artifacts=[f"{plan}:300"], budget=budget, threshold=20,
                              keep_recent=5, summarizer=long_names_summarizer, token_mode=mode)
        except BudgetError as exc:
            outcome[budget] = str(exc)
        else:
            assert pack.manifest.total_tokens == recount(pack.messages, mode) <= budget
            outcome[budget] = True
    first = min(b for b, ok in outcome.items() if ok is True)
    assert all(outcome[b] is True for b in outcome if b >= first)  # any larger budget works too
    error = outcome[first - 5]
    floor = int(re.search(r"needs at least (\d+) tokens", error).group(1))
    assert first - 5 < floor <= first
    assert re.search(r"newest turn \d+", error) and re.search(r"task \d+", error)
    smallest = build_pack("What next?", history(30), artifacts=[f"{plan}:300"], budget=floor, threshold=20,
                          keep_recent=5, summarizer=long_names_summarizer, token_mode=mode)
    summary = next(m["content"] for m in smallest.messages if is_summary(m))
    assert "Names:" not in summary and "history:summary" in smallest.manifest.cut  # trimmed to its header


@pytest.mark.parametrize("payload, reason", [
    (b"PK\x03\x04\x00\x00binary\x00stuff", "binary file (NUL bytes)"),
    (bytes(range(128, 256)) * 3, "binary file (not UTF-8 text)"),
], ids=["nul", "undecodable"])
def test_binary_artifact_is_skipped_with_its_reason(tmp_path, payload, reason):
    blob = tmp_path / "bin.dat"
    blob.write_bytes(payload)
    pack = build_pack("x", artifacts=[f"{blob}:300"])
    assert not any(m["content"].startswith(ARTIFACT) for m in pack.messages)
    assert pack.manifest.skipped == {str(blob): reason} and pack.manifest.missing == []
    segment = next(s for s in pack.manifest.segments if s.kind == "artifact")
    assert segment.note == f"skipped: {reason}" and segment.tokens == 0


def test_artifact_with_a_bom_is_read_without_it(tmp_path):
    plan = tmp_path / "PLAN.md"
    plan.write_bytes("\ufeff# Plan".encode("utf-8"))
    assert read_artifact(plan, 100).text == "# Plan"


@pytest.mark.parametrize("spec, message", [
    ("PLAN.md:99999999999999999999", "between 1 and 1,000,000"),
    ("PLAN.md:0", "between 1 and 1,000,000"),
    ("", "artifact path is empty"),
    (":300", "artifact path is empty"),
])
def test_bad_artifact_specs_are_clear_errors(spec, message):
    with pytest.raises(InvalidValueError, match=message):
        ArtifactSpec.parse(spec)
    with pytest.raises(InvalidValueError, match=message):
        build_pack("x", artifacts=[spec])




def test_fifo_artifact_is_skipped_not_waited_on(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    how, ex = finishes(lambda: read_artifact(fifo, 300))
    assert how == "returned", ex
    assert ex.error == "not a regular file (FIFO)" and ex.text == ""
    how, pack = finishes(lambda: build_pack("hi", artifacts=[str(fifo)]))
    assert how == "returned", pack
    assert pack.manifest.skipped == {str(fifo): "not a regular file (FIFO)"} and pack.manifest.missing == []
    assert [m["content"] for m in pack.messages] == ["hi"]


def test_socket_directory_device_and_bad_links_are_skipped_with_their_reason(tmp_path):
    import socket

    sock_path = tmp_path / "s.sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    try:
        reasons = {p: read_artifact(p, 300).error
                   for p in (sock_path, tmp_path, "/dev/zero", loop, dangling)}
    finally:
        sock.close()
    assert reasons[sock_path] == "not a regular file (socket)"
    assert reasons[tmp_path] == "not a regular file (directory)"
    assert reasons["/dev/zero"] == "not a regular file (character device)"
    assert reasons[loop].startswith("unreadable: ") and "symbolic links" in reasons[loop]
    assert reasons[dangling] == "missing"


def test_symlink_to_a_regular_file_is_read(tmp_path):
    plan = tmp_path / "PLAN.md"
    plan.write_text("# Plan", encoding="utf-8")
    link = tmp_path / "link.md"
    link.symlink_to(plan)
    assert read_artifact(link, 100).text == "# Plan"


@pytest.mark.parametrize("history, message", [
    ([5], "message 1 is not an object"),
    ([{"role": "user", "content": float("nan")}], "message 1 has content of type float"),
    ([{"role": "user", "content": "a\ud800"}], "message 1 holds a lone surrogate"),
])
def test_build_pack_validates_its_history_first(history, message):
    for task in (None, "x"):
        with pytest.raises(InvalidValueError, match=message):
            build_pack(task, history)
