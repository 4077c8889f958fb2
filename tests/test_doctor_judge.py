"""The doctor's optional judge (issue 28, item 7): an OpenAI-compatible chat endpoint on 127.0.0.1
answers for the pairs the doctor could not decide; what it receives, what the owner sees, and how
errors fall back to one line."""

from __future__ import annotations

import json
import socket
import time

import pytest
from stub_http import RawServer, Reply, StubServer

from bestie_tui.hygiene.judge import Suggestion, ask, endpoint_url, suggest_for

FALLBACK = "; showing the doctor's own verdicts"
PAIRS = [
    ("I cycle to the office every morning.", "Since March I take the tram to the office."),
    ("My sister Ilse teaches violin.", "Ilse gave up the violin and now teaches piano."),
    ("I never eat after eight in the evening.", "We had a midnight pizza after the concert."),
]


def completion(content: str) -> Reply:
    return Reply(200, {"id": "c1", "object": "chat.completion",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})


def answer(label: str, reason: str) -> Reply:
    return completion(json.dumps({"label": label, "reason": reason}))


def sent_texts(recorded) -> dict:
    """The two texts of one request, as the model reads them (the user message is JSON data)."""
    return json.loads(recorded.body["messages"][-1]["content"])


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_answer_becomes_a_suggestion_shown_with_its_model():
    with StubServer(answer("correction", "The tram replaces the bike since March.")) as stub:
        suggestions, error = ask(PAIRS[:1], stub.url, "qwen-local")
    assert error is None
    assert suggestions == [Suggestion("correction", "The tram replaces the bike since March.", "qwen-local")]
    assert suggestions[0].line() == "suggested by qwen-local: correction — The tram replaces the bike since March."
    (request,) = stub.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "qwen-local" and request.body["temperature"] == 0
    assert request.body["messages"][0]["role"] == "system"
    assert sent_texts(request) == {"older": PAIRS[0][0], "newer": PAIRS[0][1]}


def test_prose_code_fences_and_thinking_around_the_answer_are_tolerated():
    fenced = 'Sure! Here is my verdict:\n```json\n{"label": "Event vs state", "reason": "one late pizza"}\n```\nHope it helps.'
    thinking = '<think>maybe {"label": "duplicate"}?</think> {"label": "contradiction", "reason": "piano, not violin"}'
    with StubServer() as stub:
        stub.script = [completion(thinking), completion(fenced)]
        suggestions, error = ask(PAIRS[1:], stub.url, "m")
    assert error is None
    assert [s.line() if s else None for s in suggestions] == [
        "suggested by m: contradiction — piano, not violin",
        "suggested by m: event_vs_state — one late pizza",
    ]


def test_an_unknown_label_or_no_json_leaves_that_pair_undecided_and_goes_on():
    with StubServer() as stub:
        stub.script = [answer("maybe", "hard to say"), completion("I cannot tell."), answer("compatible", "both hold")]
        suggestions, error = ask(PAIRS, stub.url, "m")
    assert error is None
    assert suggestions[:2] == [None, None]
    assert suggestions[2] == Suggestion("compatible", "both hold", "m")
    assert len(stub.requests) == 3


def test_the_reason_is_one_clean_line_of_at_most_200_characters():
    reason = "The newer note\nreplaces\tthe \x1b[31mold\x1b[0m one\u202e. " + "word " * 80
    with StubServer(answer("correction", reason)) as stub:
        (suggestion,), _ = ask(PAIRS[:1], stub.url, "m")
    assert suggestion is not None
    assert suggestion.reason.startswith("The newer note replaces the [31mold[0m one. word")
    assert len(suggestion.reason) <= 200 and suggestion.reason.endswith("…")
    assert all(c.isprintable() for c in suggestion.line())


def test_a_secret_in_a_text_never_reaches_the_judge():
    pairs = [("The garage password is Tulip-7731", "The garage door code is 4821 now"),
             ("Deploy with token ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5", "I deploy by hand now")]
    with StubServer(answer("correction", "new code")) as stub:
        suggestions, error = ask(pairs, stub.url, "m")
    assert error is None and all(suggestions)
    received = json.dumps([r.body for r in stub.requests], ensure_ascii=False)
    for secret in ("Tulip-7731", "4821", "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"):
        assert secret not in received
    assert sent_texts(stub.requests[0]) == {"older": "The garage password is [redacted]",
                                            "newer": "The garage door code is [redacted] now"}
    assert sent_texts(stub.requests[1])["newer"] == "I deploy by hand now"


def test_a_refused_connection_gives_one_line_and_no_suggestions():
    port = unused_port()
    suggestions, error = ask(PAIRS, f"http://127.0.0.1:{port}", "m")
    assert suggestions == [None, None, None]
    assert error == f"judge at http://127.0.0.1:{port}/v1/chat/completions: connection refused" + FALLBACK


def test_a_timeout_gives_one_line_and_asks_nothing_more():
    def silent(conn, stopping):  # reads the request, then never answers
        stopping.wait(10)

    with RawServer(silent) as server:
        started = time.monotonic()
        suggestions, error = ask(PAIRS, server.url + "/v1", "m", timeout=0.3)
        took = time.monotonic() - started
    assert suggestions == [None, None, None]
    assert error == f"judge at {server.url}/v1/chat/completions: no answer within 0.3 s" + FALLBACK
    assert server.connections == 1
    assert took < 2


def test_an_http_error_stops_the_asking_with_one_line():
    with StubServer(Reply(500, {"error": "model not loaded"})) as stub:
        suggestions, error = ask(PAIRS, stub.url + "/v1/chat/completions", "m")
    assert suggestions == [None, None, None]
    assert error is not None and error.startswith(f"judge at {stub.url}/v1/chat/completions: HTTP 500")
    assert error.endswith(FALLBACK) and "\n" not in error
    assert len(stub.requests) == 1


def test_an_answer_that_is_no_chat_completion_stops_the_asking():
    with StubServer(Reply(200, {"status": "ok"})) as stub:
        suggestions, error = ask(PAIRS, stub.url, "m")
    assert suggestions == [None, None, None]
    assert error == f"judge at {stub.url}/v1/chat/completions: the answer is not a chat completion" + FALLBACK
    assert len(stub.requests) == 1


def test_the_limit_bounds_the_requests_and_the_rest_stay_undecided():
    with StubServer(answer("compatible", "both can hold")) as stub:
        suggestions, error = ask(PAIRS, stub.url, "m", limit=2)
    assert error is None
    assert len(stub.requests) == 2
    assert [s is not None for s in suggestions] == [True, True, False]


def test_no_request_starts_once_the_total_time_is_spent():
    with StubServer(answer("compatible", "both can hold")) as stub:
        suggestions, error = ask(PAIRS, stub.url, "m", total_timeout=0)
    assert stub.requests == [] and suggestions == [None, None, None]
    assert error == f"judge at {stub.url}/v1/chat/completions: no time left after 0 s, 0 of 3 pairs asked" + FALLBACK


@pytest.mark.parametrize("url, endpoint", [
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/chat/completions"),
    ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1/chat/completions"),
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/chat/completions"),
    ("https://llm.example/openai/v1/", "https://llm.example/openai/v1/chat/completions"),
    ("http://127.0.0.1:8080/v1/chat/completions", "http://127.0.0.1:8080/v1/chat/completions"),
])
def test_the_endpoint_is_found_from_a_base_url(url, endpoint):
    assert endpoint_url(url) == endpoint


def test_without_both_settings_nothing_is_asked(store):
    with StubServer(answer("compatible", "both can hold")) as stub:
        assert suggest_for(store, PAIRS) == ([None, None, None], None)
        store.set_setting("doctor.judgeUrl", stub.url)
        assert suggest_for(store, PAIRS) == ([None, None, None], None)
        store.set_setting("doctor.judgeUrl", None)
        store.set_setting("doctor.judgeModel", "qwen-local")
        assert suggest_for(store, PAIRS) == ([None, None, None], None)
    assert stub.requests == []


def test_with_both_settings_the_judge_is_asked_with_the_key_from_the_environment(store, monkeypatch):
    monkeypatch.setenv("BESTIE_JUDGE_KEY", "sk-test-not-a-real-key")
    with StubServer(answer("duplicate", "same habit")) as stub:
        store.set_setting("doctor.judgeUrl", stub.url + "/v1")
        store.set_setting("doctor.judgeModel", "qwen-local")
        suggestions, error = suggest_for(store, PAIRS[:1])
    assert error is None and suggestions[0] is not None
    assert suggestions[0].line() == "suggested by qwen-local: duplicate — same habit"
    assert stub.requests[0].headers["authorization"] == "Bearer sk-test-not-a-real-key"


def test_the_settings_are_set_and_checked_from_the_cli(run):
    ok = run("memory", "config", "doctor.judgeUrl", "http://127.0.0.1:11434/v1/")
    assert ok.exit_code == 0 and 'doctor.judgeUrl = "http://127.0.0.1:11434/v1"' in ok.output
    ok = run("memory", "config", "doctor.judgeModel", "llama3.1:8b")
    assert ok.exit_code == 0 and 'doctor.judgeModel = "llama3.1:8b"' in ok.output
    refused = run("memory", "config", "doctor.judgeUrl", "localhost:11434")
    assert refused.exit_code == 1 and "not a usable API base URL" in refused.output
    assert "http://127.0.0.1:11434/v1" in refused.output
    listed = run("memory", "config")
    assert "doctor.judgeModel" in listed.output and "doctor.judgeUrl" in listed.output
    cleared = run("memory", "config", "doctor.judgeModel", "null")
    assert cleared.exit_code == 0 and "doctor.judgeModel = null" in cleared.output


def test_a_judge_url_holding_a_password_is_refused_without_echoing_it(run):
    refused = run("memory", "config", "doctor.judgeUrl", "http://admin:s3cretPassw0rd@127.0.0.1:11434/v1")
    assert refused.exit_code == 1 and "user or password" in refused.output
    assert "s3cretPassw0rd" not in refused.output and "http://127.0.0.1:11434/v1" in refused.output
    assert run("memory", "config", "doctor.judgeUrl").output.split() == ["doctor.judgeUrl", "null"]  # nothing stored
