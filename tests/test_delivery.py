"""Telegram and Zalo senders against a real HTTP stub on 127.0.0.1: requests, retries, refusals,
splitting, and the token never showing up anywhere."""

from __future__ import annotations

import logging
import os
import socket

import pytest
from stub_http import RawServer, Reply, StubServer, trickle

from bestie_tui.maintenance.delivery import (
    DeliveryAuthError,
    DeliveryConfigError,
    DeliveryError,
    RetryPolicy,
    TelegramSender,
    ZaloSender,
    base_url_for,
    deliver,
    parse_channel,
    read_token,
    retry_after_seconds,
    split_message,
    utf16_len,
)

try:
    from bestie_tui.maintenance.channels import MAX_TOKEN_FILE_BYTES
    from bestie_tui.maintenance.senders import MAX_ANSWER_BYTES
except ImportError:  # before the fix
    MAX_TOKEN_FILE_BYTES = 65536
    MAX_ANSWER_BYTES = 1_000_000
from datetime import UTC

from conftest import finishes

from bestie_tui.errors import InvalidValueError

TOKEN = "123456:SECRET-token_value"
ZALO_TOKEN = "zalo-SECRET-access-token"
OK_TELEGRAM = Reply(200, {"ok": True, "result": {"message_id": 77}})
OK_ZALO = Reply(200, {"error": 0, "message": "Success", "data": {"message_id": "m-1"}})


class Sleeps(list):
    """Records the waits instead of sleeping."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def stub():
    with StubServer(default=OK_TELEGRAM) as server:
        yield server


def telegram(stub, sleeps, **policy) -> TelegramSender:
    return TelegramSender(TOKEN, stub.url, retry=RetryPolicy(sleep=sleeps, **policy), timeout=5)


def zalo(stub, sleeps, **policy) -> ZaloSender:
    return ZaloSender(ZALO_TOKEN, stub.url, retry=RetryPolicy(sleep=sleeps, **policy), timeout=5)


def test_telegram_posts_send_message_with_chat_id_and_plain_text(stub, sleeps):
    result = telegram(stub, sleeps).send("-100200300", "Health 82/100\n*not bold*")
    assert len(stub.requests) == 1
    req = stub.requests[0]
    assert req.method == "POST"
    assert req.path == f"/bot{TOKEN}/sendMessage"
    assert req.headers["content-type"].startswith("application/json")
    assert req.body == {"chat_id": -100200300, "text": "Health 82/100\n*not bold*",
                        "link_preview_options": {"is_disabled": True}}
    assert "parse_mode" not in req.body  # memory text is data: never formatted by Telegram
    assert result.parts == 1 and result.attempts == 1 and result.message_ids == ["77"]
    assert sleeps == []


def test_zalo_posts_cs_message_with_access_token_header(stub, sleeps):
    stub.default = OK_ZALO
    result = zalo(stub, sleeps).send("2468458835296117922", "Xin chào: sức khỏe 82/100")
    req = stub.requests[0]
    assert (req.method, req.path) == ("POST", "/v3.0/oa/message/cs")
    assert req.headers["access_token"] == ZALO_TOKEN
    assert req.body == {"recipient": {"user_id": "2468458835296117922"},
                        "message": {"text": "Xin chào: sức khỏe 82/100"}}
    assert ZALO_TOKEN not in str(req.body)
    assert result.message_ids == ["m-1"]


def test_429_with_retry_after_waits_that_long_then_succeeds(stub, sleeps):
    stub.script = [Reply(429, {"ok": False, "error_code": 429, "description": "Too Many Requests"},
                         {"Retry-After": "3"})]
    result = telegram(stub, sleeps).send("42", "hi")
    assert sleeps == [3.0]
    assert len(stub.requests) == 2 and stub.requests[0].body == stub.requests[1].body
    assert result.attempts == 2


def test_telegram_retry_after_in_the_body_is_honoured(stub, sleeps):
    stub.script = [Reply(429, {"ok": False, "error_code": 429, "description": "Too Many Requests: retry after 7",
                               "parameters": {"retry_after": 7}})]
    telegram(stub, sleeps).send("42", "hi")
    assert sleeps == [7.0]


def test_5xx_is_retried_with_exponential_backoff(stub, sleeps):
    stub.script = [Reply(500, {"ok": False}), Reply(502, {"ok": False}), Reply(503, {"ok": False})]
    result = telegram(stub, sleeps, base_delay=0.5).send("42", "hi")
    assert sleeps == [0.5, 1.0, 2.0]
    assert len(stub.requests) == 4 and result.attempts == 4


def test_5xx_exhausting_the_attempts_is_a_clear_failure(stub, sleeps):
    stub.default = Reply(500, {"ok": False, "description": "Internal Server Error"})
    with pytest.raises(DeliveryError, match="gave up after 3 attempts: HTTP 500") as info:
        telegram(stub, sleeps, max_attempts=3).send("42", "hi")
    assert len(stub.requests) == 3 and len(sleeps) == 2
    assert TOKEN not in str(info.value)


def test_retry_after_above_the_maximum_fails_without_waiting(stub, sleeps):
    stub.script = [Reply(429, {"ok": False, "description": "Too Many Requests"}, {"Retry-After": "3600"})]
    with pytest.raises(DeliveryError, match="retry after 3600 s, more than the 60 s maximum"):
        telegram(stub, sleeps).send("42", "hi")
    assert sleeps == [] and len(stub.requests) == 1


def test_401_fails_at_once_naming_the_variable_not_the_token(stub, sleeps):
    stub.default = Reply(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
    with pytest.raises(DeliveryAuthError) as info:
        telegram(stub, sleeps).send("42", "hi")
    message = str(info.value)
    assert "telegram refused the token (HTTP 401: Unauthorized)" in message and "BESTIE_TELEGRAM_TOKEN" in message
    assert TOKEN not in message and "SECRET" not in message
    assert len(stub.requests) == 1 and sleeps == []


@pytest.mark.parametrize("description", ["Forbidden: bot was blocked by the user",
                                         "Forbidden: bot is not a member of the channel chat"])
def test_403_is_no_access_to_the_chat_not_a_token_problem(stub, sleeps, description):
    stub.default = Reply(403, {"ok": False, "error_code": 403, "description": description})
    with pytest.raises(DeliveryError) as info:
        telegram(stub, sleeps).send("42", "hi")
    message = str(info.value)
    assert not isinstance(info.value, DeliveryAuthError) and info.value.status == 403
    assert f"(HTTP 403: {description})" in message  # the API's own words
    assert "no access to this chat" in message and "blocked the bot" in message
    assert "token" not in message
    assert len(stub.requests) == 1 and sleeps == []


def test_chat_not_found_names_the_chat_id_as_the_likely_cause(stub, sleeps):
    stub.default = Reply(400, {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"})
    with pytest.raises(DeliveryError) as info:
        telegram(stub, sleeps).send("42", "hi")
    assert "(HTTP 400: Bad Request: chat not found)" in str(info.value)
    assert "check the chat id in --channel" in str(info.value)


def test_other_4xx_is_not_retried(stub, sleeps):
    stub.default = Reply(400, {"ok": False, "description": "Bad Request: chat not found"})
    with pytest.raises(DeliveryError, match="chat not found"):
        telegram(stub, sleeps).send("42", "hi")
    assert len(stub.requests) == 1


def test_zalo_error_codes_in_a_200_answer(stub, sleeps):
    stub.script = [Reply(200, {"error": -32, "message": "Too many requests"}), OK_ZALO,
                   Reply(200, {"error": -216, "message": "Access token is invalid"})]
    sender = zalo(stub, sleeps)
    assert sender.send("1", "one").attempts == 2
    with pytest.raises(DeliveryAuthError, match="error -216: Access token is invalid"):
        sender.send("1", "two")


def test_long_report_is_split_on_line_boundaries_at_the_telegram_limit(stub, sleeps):
    lines = [f"line {i:04d} " + "x" * 90 for i in range(100)]  # ~10 000 characters
    result = telegram(stub, sleeps).send("42", "\n".join(lines))
    texts = [r.body["text"] for r in stub.requests]
    assert len(texts) == result.parts == 3
    assert all(utf16_len(t) <= 4096 for t in texts)
    assert [t.split("\n", 1)[0] for t in texts] == ["(1/3)", "(2/3)", "(3/3)"]
    sent_lines = [line for t in texts for line in t.split("\n")[1:]]
    assert sent_lines == lines  # every line arrives whole and in order


def test_zalo_splits_at_2000_characters(stub, sleeps):
    stub.default = OK_ZALO
    text = "\n".join("dòng " + "ạ" * 95 for _ in range(50))  # 5 000 characters
    zalo(stub, sleeps).send("1", text)
    assert len(stub.requests) == 3
    assert all(len(r.body["message"]["text"]) <= 2000 for r in stub.requests)


def test_failure_in_a_later_part_says_how_many_were_sent(stub, sleeps):
    stub.script = [OK_TELEGRAM, Reply(403, {"ok": False, "description": "Forbidden: bot was blocked by the user"})]
    with pytest.raises(DeliveryError) as info:
        telegram(stub, sleeps).send("42", "\n".join("y" * 100 for _ in range(100)))  # 3 parts
    assert (info.value.sent_parts, info.value.total_parts) == (1, 3)
    assert str(info.value).startswith("sent 1 of 3 parts, then failed: telegram has no access to this chat "
                                      "(HTTP 403: Forbidden: bot was blocked by the user)")


def test_a_failure_in_the_first_part_has_no_progress_prefix(stub, sleeps):
    stub.default = Reply(400, {"ok": False, "description": "Bad Request"})
    with pytest.raises(DeliveryError) as info:
        telegram(stub, sleeps).send("42", "\n".join("y" * 100 for _ in range(100)))
    assert (info.value.sent_parts, info.value.total_parts) == (0, 3)
    assert str(info.value).startswith("telegram refused the message")


def test_token_never_in_logs_errors_or_repr(stub, sleeps, caplog):
    caplog.set_level(logging.DEBUG)
    stub.script = [Reply(503, {"ok": False, "description": f"echo {TOKEN}"})]
    stub.default = Reply(401, {"ok": False, "description": f"token {TOKEN} is bad"})
    sender = telegram(stub, sleeps)
    with pytest.raises(DeliveryAuthError) as info:
        sender.send("42", "hi")
    assert "retry 1/4" in caplog.text  # the retry was logged…
    assert TOKEN not in caplog.text  # …with the URL redacted
    assert TOKEN not in str(info.value) and "***" in str(info.value)
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert TOKEN not in repr(sender)


def test_connection_refused_is_retried_then_fails_without_the_token(sleeps):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sender = TelegramSender(TOKEN, f"http://127.0.0.1:{port}", retry=RetryPolicy(max_attempts=2, sleep=sleeps))
    with pytest.raises(DeliveryError, match="connection to http://127.0.0.1") as info:
        sender.send("42", "hi")
    assert sleeps == [1.0] and TOKEN not in str(info.value)


def test_deliver_reads_token_and_base_url_from_the_environment(stub, sleeps):
    env = {"BESTIE_TELEGRAM_TOKEN": TOKEN, "BESTIE_TELEGRAM_API": stub.url}
    result = deliver("telegram:42", "hello", env=env, retry=RetryPolicy(sleep=sleeps))
    assert result.channel == "telegram:42" and stub.requests[0].path == f"/bot{TOKEN}/sendMessage"


def test_base_url_env_beats_the_setting(store):
    store.set_setting("digest.zaloApi", "http://127.0.0.1:9/setting")
    assert base_url_for("zalo", store, env={}) == "http://127.0.0.1:9/setting"
    assert base_url_for("zalo", store, env={"BESTIE_ZALO_API": "http://127.0.0.1:9/env"}) == "http://127.0.0.1:9/env"
    assert base_url_for("telegram", store, env={}) is None


def test_token_from_a_file_and_a_clear_error_when_missing(tmp_path):
    path = tmp_path / "tg.token"
    path.write_text(TOKEN + "\n")
    path.chmod(0o600)
    assert read_token("telegram", {"BESTIE_TELEGRAM_TOKEN_FILE": str(path)}) == TOKEN
    with pytest.raises(DeliveryAuthError, match="set BESTIE_ZALO_TOKEN"):
        read_token("zalo", {})


@pytest.mark.parametrize("text", ["telegram", "telegram:", "telegram:abc", "zalo:@name", "sms:123",
                                  "telegram:12 34", ""])
def test_invalid_channels_are_refused(text):
    with pytest.raises(InvalidValueError, match="use telegram:<chat id>"):
        parse_channel(text)


def test_split_message_keeps_lines_and_surrogate_pairs():
    assert split_message("short", 10) == ["short"]
    assert split_message("aaaa\nbbbb\ncccc", 9) == ["aaaa\nbbbb", "cccc"]
    emoji = "🙂" * 5  # 10 UTF-16 units
    parts = split_message(emoji, 4, utf16_len)
    assert parts == ["🙂🙂", "🙂🙂", "🙂"] and "".join(parts) == emoji


def test_retry_after_accepts_seconds_and_http_dates():
    from datetime import datetime

    now = datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("12") == 12.0
    assert retry_after_seconds("Mon, 30 Nov 2026 09:00:30 GMT", now) == 30.0
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


@pytest.mark.parametrize("value", ["ht!tp://bad url", "ftp://127.0.0.1", "127.0.0.1:8080", "http://",
                                   "http://host:99999", "http://127.0.0.1/x?y=1", "https://a b"])
def test_a_malformed_base_url_fails_at_once_naming_where_it_came_from(value, sleeps, store):
    env = {"BESTIE_TELEGRAM_TOKEN": TOKEN, "BESTIE_TELEGRAM_API": value}
    with pytest.raises(DeliveryConfigError, match=r"BESTIE_TELEGRAM_API .* is not a usable API base URL") as info:
        deliver("telegram:42", "hello", env=env, retry=RetryPolicy(sleep=sleeps))
    assert sleeps == [] and TOKEN not in str(info.value)
    with pytest.raises(DeliveryConfigError, match=r"digest.zaloApi .* is not a usable API base URL"):
        store.set_setting("digest.zaloApi", value)  # refused when set…
    import json as _json

    from bestie_tui.store.models import Setting

    Setting.replace(key="digest.zaloApi", value=_json.dumps(value)).execute()  # …and when found stored
    with pytest.raises(DeliveryConfigError, match=r"setting digest.zaloApi .* is not a usable API base URL"):
        base_url_for("zalo", store, env={})
    with pytest.raises(DeliveryConfigError):
        TelegramSender(TOKEN, value)


def test_a_good_base_url_keeps_its_path_prefix(stub, sleeps):
    env = {"BESTIE_TELEGRAM_TOKEN": TOKEN, "BESTIE_TELEGRAM_API": f" {stub.url}/proxy/ "}
    assert base_url_for("telegram", env=env) == f"{stub.url}/proxy"
    deliver("telegram:42", "hello", env=env, retry=RetryPolicy(sleep=sleeps))
    assert stub.requests[0].path == f"/proxy/bot{TOKEN}/sendMessage"


# ------------------------------------------------------------------ tokens that cannot be sent


BAD_TOKENS = ["123:FAKE TOKEN sp", "123:FAKE\tTOKEN", "123:FA\x1bKE", "123:FAKE\x00", "123:FAKÉ", "123:FAKE\u2028X"]


@pytest.mark.parametrize("token", BAD_TOKENS)
def test_a_token_with_spaces_or_control_characters_is_refused_without_showing_it(stub, token):
    with pytest.raises(DeliveryAuthError, match="BESTIE_TELEGRAM_TOKEN .*printable ASCII") as info:
        deliver("telegram:42", "hi", env={"BESTIE_TELEGRAM_TOKEN": token, "BESTIE_TELEGRAM_API": stub.url})
    assert "FAK" not in str(info.value) and stub.requests == []
    with pytest.raises(DeliveryAuthError, match="printable ASCII") as info:
        TelegramSender(token, stub.url)
    assert "FAK" not in str(info.value)


def test_a_token_file_line_with_a_tab_is_refused_without_showing_it(tmp_path):
    path = tmp_path / "tok"
    path.write_text("123:FAKE\tTOKEN\n")
    path.chmod(0o600)
    with pytest.raises(DeliveryAuthError, match=r"BESTIE_TELEGRAM_TOKEN_FILE .*printable ASCII") as info:
        read_token("telegram", {"BESTIE_TELEGRAM_TOKEN_FILE": str(path)})
    assert "FAKE" not in str(info.value)


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_token_file_others_can_read_is_refused_with_the_fix(tmp_path, mode):
    path = tmp_path / "my token"
    path.write_text(TOKEN + "\n")
    path.chmod(mode)
    with pytest.raises(DeliveryAuthError) as info:
        read_token("telegram", {"BESTIE_TELEGRAM_TOKEN_FILE": str(path)})
    message = str(info.value)
    assert f"chmod 600 '{path}'" in message and f"{mode:04o}" in message
    assert TOKEN not in message and "\n" not in message
    path.chmod(0o600)
    assert read_token("telegram", {"BESTIE_TELEGRAM_TOKEN_FILE": str(path)}) == TOKEN


def test_a_token_file_that_is_not_utf8_is_a_clear_error(tmp_path):
    path = tmp_path / "tok"
    path.write_bytes(b"123:FAKE\xff\xfeTOKEN\n")
    path.chmod(0o600)
    with pytest.raises(DeliveryAuthError, match="is not UTF-8 text") as info:
        read_token("telegram", {"BESTIE_TELEGRAM_TOKEN_FILE": str(path)})
    assert "FAKE" not in str(info.value)


def test_a_token_file_that_is_a_fifo_a_directory_or_a_device_is_refused(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path, "/dev/null"):  # /dev/null is only read-checked, never written
        how, exc = finishes(lambda p=path: read_token("zalo", {"BESTIE_ZALO_TOKEN_FILE": str(p)}))
        assert how == "raised" and isinstance(exc, DeliveryAuthError), (path, exc)
        assert "not a regular file" in str(exc)


def test_an_oversized_token_file_is_refused_unread(tmp_path):
    path = tmp_path / "tok"
    path.write_bytes(b"a" * (MAX_TOKEN_FILE_BYTES + 1))
    path.chmod(0o600)
    with pytest.raises(DeliveryAuthError, match="larger than"):
        read_token("zalo", {"BESTIE_ZALO_TOKEN_FILE": str(path)})


def test_an_unexpected_failure_inside_a_send_never_shows_the_token(stub, sleeps):
    """The last line of defence: should a bad token get past the checks, http.client's own error
    (which quotes the URL, and so the token) is turned into a DeliveryError with the token masked."""
    sender = telegram(stub, sleeps)
    sender._token = "123:FAKE TOKEN sp"  # past the checks, as a future bug might let it
    with pytest.raises(DeliveryError) as info:
        sender.send("42", "hi")
    assert "FAKE TOKEN" not in str(info.value) and "***" in str(info.value)
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert stub.requests == [] and sleeps == []  # a malformed request is not retried


# ------------------------------------------------------------------ deadlines
@pytest.mark.parametrize("head", [
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",  # body trickled
    b"HTTP/1.1 200 OK\r\nX-Slow: ",  # a header trickled
    b"",  # nothing at all: a server that sleeps
])
def test_a_server_that_never_finishes_is_cut_off_at_the_request_deadline(sleeps, head):
    import time

    with RawServer(trickle(head, every=0.1)) as server:
        sender = TelegramSender(TOKEN, server.url, timeout=5, retry=RetryPolicy(
            sleep=sleeps, request_deadline=0.5, send_deadline=1.8))
        started = time.monotonic()
        how, exc = finishes(lambda: sender.send("42", "hi"), seconds=10)
        elapsed = time.monotonic() - started
    assert how == "raised" and isinstance(exc, DeliveryError)
    assert "no complete answer within 0.5 s" in str(exc) and "1.8 s limit for the whole send" in str(exc)
    assert elapsed < 3.5  # 0.5 s per attempt, two attempts: the next wait would pass the limit
    assert server.connections == 2 and sleeps == [1.0]


def test_the_whole_send_stops_at_its_deadline_however_many_attempts_are_left(sleeps):
    import time

    with RawServer(trickle(b"HTTP/1.1 200 OK\r\nX-Slow: ")) as server:
        sender = TelegramSender(TOKEN, server.url, timeout=5, retry=RetryPolicy(
            sleep=sleeps, max_attempts=50, base_delay=0.0, request_deadline=0.4, send_deadline=1.0))
        started = time.monotonic()
        how, exc = finishes(lambda: sender.send("42", "hi"), seconds=10)
        elapsed = time.monotonic() - started
    assert how == "raised" and "the 1 s limit for the whole send passed" in str(exc)
    assert 0.9 < elapsed < 3.0 and 3 <= server.connections <= 4


def test_a_wait_that_would_pass_the_send_deadline_is_not_started(stub, sleeps):
    stub.script = [Reply(429, {"ok": False, "description": "Too Many Requests"}, {"Retry-After": "50"})]
    with pytest.raises(DeliveryError, match="waiting 50 s more would pass the 10 s limit for the whole send"):
        telegram(stub, sleeps, send_deadline=10).send("42", "hi")
    assert sleeps == [] and len(stub.requests) == 1


# ------------------------------------------------------------------ servers that break HTTP
def raw_reply(data: bytes):
    def respond(conn, stopping):
        conn.sendall(data)

    return respond


def ok_head(body_length: int) -> bytes:
    return f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {body_length}\r\n\r\n".encode()


def answered(body: bytes) -> bytes:
    return ok_head(len(body)) + body


@pytest.mark.parametrize("answer, expected", [
    (b"HTTP/1.1 abc\r\n\r\n", "the server's answer is not valid HTTP (BadStatusLine"),
    (b"HTTP/1.1 200 OK\r\n" + b"X-A: 1\r\n" * 101 + b"\r\n",
     "the server's answer is not valid HTTP (HTTPException: got more than 100 headers"),
    (answered(b'{"ok": true, "result": {"message_id": 1' + b"1" * 5000 + b"}}"), "with no readable JSON"),
    (answered(b"[" * 100000), "with no readable JSON"),
], ids=["bad-status-line", "101-headers", "5000-digit-int", "deep-nesting"])
def test_a_broken_answer_is_a_clear_failure_not_retried(sleeps, answer, expected):
    with RawServer(raw_reply(answer)) as server:
        how, exc = finishes(lambda: telegram(server, sleeps).send("42", "hi"))
    assert how == "raised" and isinstance(exc, DeliveryError), exc
    assert expected in str(exc) and TOKEN not in str(exc)
    assert server.connections == 1 and sleeps == []  # retrying a broken server does not help


def test_a_huge_answer_is_read_no_further_than_the_cap(sleeps):
    def respond(conn, stopping):
        conn.sendall(ok_head(3_000_000_000))  # 3 GB announced; a little more than the cap sent
        chunk = b" " * 65536
        for _ in range(MAX_ANSWER_BYTES // len(chunk) + 2):
            conn.sendall(chunk)
        stopping.wait(10)

    with RawServer(respond) as server:
        how, exc = finishes(lambda: telegram(server, sleeps).send("42", "hi"))
    assert how == "raised" and isinstance(exc, DeliveryError), exc
    assert "larger than 1000000 bytes" in str(exc) and server.connections == 1


@pytest.mark.parametrize("retry_after", [-5, float("nan"), 10 ** 400, "7", True],
                         ids=["negative", "nan", "400-digits", "string", "bool"])
def test_a_nonsense_retry_after_in_the_body_falls_back_to_backoff(stub, sleeps, retry_after):
    stub.script = [Reply(429, {"ok": False, "description": "Too Many Requests",
                               "parameters": {"retry_after": retry_after}})]
    result = telegram(stub, sleeps).send("42", "hi")
    assert sleeps == [1.0] and result.attempts == 2


@pytest.mark.parametrize("header", ["-5", "nan", "inf", "1e999", "Mon, 99 Foo 2026 99:99:99 GMT"])
def test_a_nonsense_retry_after_header_never_reaches_sleep(stub, sleeps, header):
    stub.script = [Reply(503, {"ok": False}, {"Retry-After": header})]
    telegram(stub, sleeps).send("42", "hi")
    assert len(sleeps) == 1 and 0 <= sleeps[0] <= 1.0


@pytest.mark.parametrize("result", [[1], "x", None, {"message_id": [1]}])
def test_an_odd_success_answer_still_counts_as_sent(stub, sleeps, result):
    stub.default = Reply(200, {"ok": True, "result": result})
    assert telegram(stub, sleeps).send("42", "hi").parts == 1


def test_a_redirect_is_not_followed_so_no_token_goes_elsewhere(stub, sleeps):
    stub.default = OK_ZALO
    stub.script = [Reply(302, {"error": 0}, {"Location": f"{stub.url}/elsewhere"})]
    with pytest.raises(DeliveryError, match="HTTP 302"):
        zalo(stub, sleeps).send("1", "hi")
    assert [r.path for r in stub.requests] == ["/v3.0/oa/message/cs"]


def test_what_the_server_says_is_quoted_on_one_line_escaped_and_short(stub, sleeps):
    stub.default = Reply(400, {"ok": False, "description": "Bad Request:\nline two\x1b[31m " + "x" * 1000})
    with pytest.raises(DeliveryError) as info:
        telegram(stub, sleeps).send("42", "hi")
    message = str(info.value)
    assert "\n" not in message and "\x1b" not in message and "\\x1b[31m" in message
    assert "Bad Request: line two" in message and len(message) < 450


@pytest.mark.parametrize("text", ["telegram:١٢٣", "telegram:-١٢٣", "zalo:١٢٣", "telegram:１２３", "zalo:２",
                                  "telegram:12\u00b3", "telegram:-", "zalo:-5", "telegram:--5"])
def test_only_ascii_digits_make_a_chat_id(text):
    with pytest.raises(InvalidValueError, match="invalid channel"):
        parse_channel(text)


def test_ascii_chat_ids_and_group_ids_are_accepted():
    assert str(parse_channel("telegram:-100200300")) == "telegram:-100200300"
    assert str(parse_channel(" Zalo:2468458835296117922 ")) == "zalo:2468458835296117922"
    assert str(parse_channel("telegram:@bestie_bot")) == "telegram:@bestie_bot"
