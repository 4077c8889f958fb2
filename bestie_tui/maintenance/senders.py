"""The Telegram and Zalo senders: the shared ``Sender`` base (a long report sent in the parts
``parts.split_message`` cuts, posting with retries, mapping HTTP answers to errors, redacting the token), ``TelegramSender``,
``ZaloSender``, the ``SENDERS`` table, and the ``DeliveryResult`` a send returns.
``bestie_tui.maintenance.delivery`` re-exports these names.
"""

from __future__ import annotations

import http.client
import json
import logging
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass, field
from typing import Any

from bestie_tui.errors import DeliveryAuthError, DeliveryError, DeliveryForbiddenError, InvalidValueError
from bestie_tui.maintenance.channels import check_base_url, check_token
from bestie_tui.maintenance.parts import split_message, utf16_len
from bestie_tui.maintenance.retry import (
    RequestDeadline,
    RetryPolicy,
    _Retry,
    retry_after_seconds,
    usable_delay,
)
from bestie_tui.text.words import printable

#: An answer larger than this (bytes) is not read further: API answers are a few hundred bytes.
MAX_ANSWER_BYTES = 1_000_000

#: Longest server-supplied text quoted in an error (characters).
SAID_LIMIT = 300

# Logged under the facade module's name, as before the split, so logging configuration keeps working.
log = logging.getLogger("bestie_tui.maintenance.delivery")


@dataclass
class DeliveryResult:
    """What a send did: ``parts`` messages, ``attempts`` HTTP requests in total, the API's ids."""

    channel: str
    parts: int
    attempts: int
    message_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Sender:
    """Base of the channel senders: splitting, retries, error mapping and token redaction.

    Args:
        token: the bot / OA access token (kept only in memory).
        base_url: scheme and host (and optional path prefix) of the API, without a trailing slash.
        retry: the retry policy (its ``sleep`` is injectable).
        timeout: seconds per HTTP request.
    """

    kind = ""
    #: Longest message the API accepts, in ``measure`` units.
    limit = 0
    default_base = ""
    #: ``(i/n)`` marker room kept free when a report needs several parts.
    PART_MARK_ROOM = 12

    def __init__(self, token: str, base_url: str | None = None, *, retry: RetryPolicy | None = None,
                 timeout: float = 20.0):
        if not token:
            raise DeliveryAuthError(f"no {self.kind} token")
        self._token = check_token(token, f"the {self.kind} token")
        self.base_url = check_base_url(base_url, "base_url") if base_url else self.default_base
        self.retry = retry or RetryPolicy()
        self.timeout = timeout

    @staticmethod
    def measure(text: str) -> int:
        return len(text)

    # ------------------------------------------------------------- what subclasses define
    def request_for(self, target: str, text: str) -> tuple[str, dict[str, str], dict[str, Any]]:
        """``(url, extra headers, JSON body)`` of one message."""
        raise NotImplementedError

    def check_body(self, body: Any, status: int) -> str | None:
        """Interpret a 2xx answer: return the message id, or raise ``DeliveryError``/``_Retry``."""
        raise NotImplementedError

    # ------------------------------------------------------------- the shared part
    def split(self, text: str) -> list[str]:
        """The parts ``send`` would post, each within ``limit`` including its ``(i/n)`` marker."""
        parts = split_message(text, self.limit, self.measure)
        if len(parts) == 1:
            return parts
        parts = split_message(text, self.limit - self.PART_MARK_ROOM, self.measure)
        return [f"({i}/{len(parts)})\n{p}" for i, p in enumerate(parts, 1)]

    def send(self, target: str, text: str) -> DeliveryResult:
        """Post ``text`` to ``target``, split into parts as needed, in order.

        Returns:
            A ``DeliveryResult``.
        Raises:
            DeliveryAuthError: 401 or an invalid-token answer (no retry).
            DeliveryForbiddenError: 403, no access to the chat (no retry).
            DeliveryError: other refusals, or retries exhausted; ``sent_parts`` of ``total_parts``
                says how far it got (and the message starts ``sent S of T parts`` when S > 0).
            InvalidValueError: empty text.
        """
        if not text.strip():
            raise InvalidValueError("nothing to send: the report is empty")
        parts = self.split(text)
        result = DeliveryResult(channel=f"{self.kind}:{target}", parts=len(parts), attempts=0)
        send_by = self.retry.clock() + self.retry.send_deadline
        for index, part in enumerate(parts):
            unexpected = None
            try:
                message_id, attempts = self._post_with_retries(target, part, send_by)
            except DeliveryError as exc:
                raise exc.after_parts(index, len(parts))  # noqa: B904 - the same error, re-raised with its progress
            except Exception as exc:  # noqa: BLE001 - the last line of defence, see _unexpected
                unexpected = self._unexpected(exc)
            if unexpected is not None:  # raised outside the except block: nothing chained
                raise unexpected.after_parts(index, len(parts))
            result.attempts += attempts
            if message_id is not None:
                result.message_ids.append(message_id)
        return result

    def _post_with_retries(self, target: str, part: str, send_by: float) -> tuple[str | None, int]:
        """Post one part, retrying transient failures; ``send_by`` is the send deadline on
        ``retry.clock``. Returns ``(message id, attempts)``. Raises DeliveryError."""
        url, headers, body = self.request_for(target, part)
        policy = self.retry
        last = ""
        for attempt in range(1, policy.max_attempts + 1):
            remaining = send_by - policy.clock()
            if remaining <= 0:
                raise DeliveryError(f"{self.kind}: gave up: the {policy.send_deadline:g} s limit for the whole send "
                                    f"passed" + (f" ({last})" if last else ""))
            try:
                return self._post_once(url, headers, body, min(policy.request_deadline, remaining)), attempt
            except _Retry as retry:
                last = retry.reason
                if attempt == policy.max_attempts:
                    break
                after = usable_delay(retry.after)
                delay = after if after is not None else min(
                    policy.max_delay, policy.base_delay * 2 ** (attempt - 1))
                if delay > policy.max_delay:
                    raise DeliveryError(
                        f"{self.kind}: {last}; the server asked to retry after {delay:g} s, more than "
                        f"the {policy.max_delay:g} s maximum", status=retry.status) from None
                remaining = send_by - policy.clock()
                if remaining <= 0:
                    raise DeliveryError(f"{self.kind}: {last}; gave up: the {policy.send_deadline:g} s limit "
                                        "for the whole send passed", status=retry.status) from None
                if delay >= remaining:  # a wait that cannot end in time is not started
                    raise DeliveryError(
                        f"{self.kind}: {last}; gave up: waiting {delay:g} s more would pass the "
                        f"{policy.send_deadline:g} s limit for the whole send", status=retry.status) from None
                log.info("%s: %s; retry %d/%d in %.1f s (%s)", self.kind, last, attempt,
                         policy.max_attempts - 1, delay, self.redact(url))
                policy.sleep(delay)
        raise DeliveryError(f"{self.kind}: gave up after {policy.max_attempts} attempts: {last}")

    def _post_once(self, url: str, headers: dict[str, str], body: dict[str, Any], seconds: float) -> str | None:
        """One HTTP request, over within ``seconds`` (see ``RequestDeadline``)."""
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(url, data=data, method="POST", headers={
            "Content-Type": "application/json; charset=utf-8", "Accept": "application/json",
            "User-Agent": "bestie-tui", **headers})
        failure = broken = unexpected = None
        with RequestDeadline(seconds) as deadline:
            try:
                status, raw, response_headers = _exchange(deadline.opener(), request, min(self.timeout, seconds))
            except (urllib.error.URLError, OSError) as exc:
                # Connection refused/reset, DNS failure and timeouts are retried: at cron time the
                # network or a proxy may be coming up. A malformed URL never gets here (check_base_url).
                failure = str(getattr(exc, "reason", exc))
            except http.client.IncompleteRead:  # the connection dropped mid-answer: worth another try
                failure = "the answer was cut off"
            except (http.client.InvalidURL, ValueError) as exc:  # http.client refused to send it
                unexpected = self._unexpected(exc)
            except http.client.HTTPException as exc:
                broken = f"{type(exc).__name__}: {exc}"
            except Exception as exc:  # noqa: BLE001 - unless the deadline explains it, see _unexpected
                unexpected = self._unexpected(exc)
        # Raised outside the except blocks so no urllib exception (which carries the URL, and so
        # the Telegram token) is chained onto ours.
        if deadline.expired:  # whatever the cut-off socket made urllib raise (or return)
            raise _Retry(f"no complete answer within {_secs(seconds)} s (the limit for one request)")
        if unexpected is not None:
            raise unexpected
        if failure is not None:
            raise _Retry(f"connection to {self.redact(self.base_url)} failed: {self.said(failure)}")
        if broken is not None:
            raise DeliveryError(f"{self.kind}: the server's answer is not valid HTTP ({self.said(broken)})")
        if len(raw) > MAX_ANSWER_BYTES:
            if 200 <= status < 300:  # not retried: the message may well have been delivered
                raise DeliveryError(f"{self.kind}: the answer (HTTP {status}) is larger than {MAX_ANSWER_BYTES} "
                                    "bytes, not an API answer; check the chat before sending again", status=status)
            raw = b""  # an error page too large to read: the status alone decides
        if not 200 <= status < 300:
            self._raise_for_status(status, raw, response_headers)
        return self.check_body(_json(raw), status)

    def _raise_for_status(self, status: int, raw: bytes, headers) -> None:
        body = _json(raw)
        detail = self.said(self.describe(body) or f"HTTP {status}")
        if status == 401:
            raise DeliveryAuthError(f"{self.kind} refused the token (HTTP 401: {detail}); "
                                    f"check BESTIE_{self.kind.upper()}_TOKEN", status=status)
        if status == 403:  # the bot is known but may not write here: retrying or a new token won't help
            raise DeliveryForbiddenError(
                f"{self.kind} has no access to this chat (HTTP 403: {detail}); likely the user blocked "
                "the bot or never started it, or the bot is not a member of the chat", status=status)
        if status == 429 or status >= 500:
            after = retry_after_seconds(headers.get("Retry-After") if headers else None)
            if after is None:
                after = self.body_retry_after(body)
            raise _Retry(f"HTTP {status}: {detail}", after=after, status=status)
        hint = "; check the chat id in --channel (and that the user has started the bot)" \
            if "chat not found" in detail.lower() else ""
        raise DeliveryError(f"{self.kind} refused the message (HTTP {status}: {detail}){hint}", status=status)

    def describe(self, body: Any) -> str:
        """The API's human-readable error text from an answer body, if any."""
        return ""

    def body_retry_after(self, body: Any) -> float | None:
        return None

    def redact(self, text: str) -> str:
        """``text`` with the token replaced by ``***``: raw, URL-encoded, and escaped as ``repr`` and
        JSON show it (how http.client and urllib quote a URL in their errors)."""
        token = self._token
        forms = {token, urllib.parse.quote(token, safe=""), urllib.parse.quote(token),
                 repr(token)[1:-1], ascii(token)[1:-1], json.dumps(token)[1:-1]}
        for form in sorted(forms, key=len, reverse=True):
            if form:
                text = text.replace(form, "***")
        return text

    def said(self, text: str) -> str:
        """Text from the server (or a library quoting it) fit for a one-line error: the token masked,
        line breaks and runs of whitespace made one space, control characters shown as escapes,
        at most ``SAID_LIMIT`` characters."""
        flat = printable(" ".join(self.redact(str(text)).split()))
        return flat if len(flat) <= SAID_LIMIT else flat[:SAID_LIMIT - 1] + "…"

    def _unexpected(self, exc: BaseException) -> DeliveryError:
        """A failure no branch of ``_post_once`` expected (a library error, a bug of ours): turned
        into a ``DeliveryError`` with the token masked, so that it is recorded like any failed
        delivery and no traceback (whose messages may quote the URL, and so the token) is shown."""
        detail = self.said(f"{type(exc).__name__}: {exc}")
        return DeliveryError(f"{self.kind}: the request failed unexpectedly ({detail})")

    def __repr__(self) -> str:  # never show the token, even in a debugger or a traceback's locals
        return f"{type(self).__name__}(base_url={self.base_url!r})"


def _secs(seconds: float) -> str:
    """Seconds for a message: at most two decimals, no trailing zeros (0.5, 30, 0.2)."""
    return f"{seconds:.2f}".rstrip("0").rstrip(".")


def _exchange(opener: urllib.request.OpenerDirector, request: urllib.request.Request,
              timeout: float) -> tuple[int, bytes, Any]:
    """``(status, body, headers)`` of one request; an HTTP error status is an answer here, not an
    exception."""
    try:
        response = opener.open(request, timeout=timeout)
    except urllib.error.HTTPError as exc:  # a 4xx/5xx answer: read like any other
        response = exc
    with response:  # read no further than the cap: a server announcing 3 GB gets 1 MB read
        return response.status, response.read(MAX_ANSWER_BYTES + 1), response.headers


def _json(raw: bytes) -> Any:
    """The JSON value of an answer, or ``None`` when it is not readable JSON (not UTF-8, malformed,
    an integer too long to convert, nesting deeper than the recursion limit)."""
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None


def _message_id(body: Any, key: str) -> str | None:
    """``body[key]["message_id"]`` as text when the answer has that shape, else ``None``."""
    inner = body.get(key) if isinstance(body, dict) else None
    value = inner.get("message_id") if isinstance(inner, dict) else None
    return str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) and value != "" else None


class TelegramSender(Sender):
    """Telegram Bot API ``sendMessage``: ``POST {base}/bot<token>/sendMessage`` with JSON
    ``{"chat_id", "text", "link_preview_options"}``; text up to 4096 UTF-16 code units.
    Answers are ``{"ok": true, "result": {"message_id": …}}`` or ``{"ok": false, "error_code",
    "description", "parameters": {"retry_after"}}`` (https://core.telegram.org/bots/api)."""

    kind = "telegram"
    limit = 4096
    default_base = "https://api.telegram.org"

    @staticmethod
    def measure(text: str) -> int:
        return utf16_len(text)

    def request_for(self, target, text):
        numeric = re.fullmatch(r"-?[0-9]+", target) is not None  # ASCII only, like parse_channel
        chat_id: int | str = int(target) if numeric else target
        body = {"chat_id": chat_id, "text": text, "link_preview_options": {"is_disabled": True}}
        return f"{self.base_url}/bot{self._token}/sendMessage", {}, body

    def check_body(self, body, status):
        if isinstance(body, dict) and body.get("ok"):
            return _message_id(body, "result")
        if body is None:  # not retried: the message may well have been delivered
            raise DeliveryError(f"telegram answered HTTP {status} with no readable JSON; check the chat "
                                "before sending again", status=status)
        raise DeliveryError(f"telegram refused the message: {self.said(self.describe(body) or 'no answer')}",
                            status=status)

    def describe(self, body):
        return str(body.get("description", "")) if isinstance(body, dict) else ""

    def body_retry_after(self, body):
        params = body.get("parameters") if isinstance(body, dict) else None
        return usable_delay(params.get("retry_after")) if isinstance(params, dict) else None


class ZaloSender(Sender):
    """Zalo Official Account API v3 customer-service message: ``POST {base}/v3.0/oa/message/cs``
    with header ``access_token`` and JSON ``{"recipient": {"user_id"}, "message": {"text"}}``;
    text up to 2000 characters. Zalo answers HTTP 200 with ``{"error": 0, "data": {"message_id"}}``
    on success and a negative ``error`` code otherwise (-216 invalid and -124 expired access token
    are treated as auth failures, -32 "too many requests" is retried)."""

    kind = "zalo"
    limit = 2000
    default_base = "https://openapi.zalo.me"
    AUTH_CODES = (-216, -124)
    RATE_CODES = (-32,)

    def request_for(self, target, text):
        body = {"recipient": {"user_id": target}, "message": {"text": text}}
        return f"{self.base_url}/v3.0/oa/message/cs", {"access_token": self._token}, body

    def check_body(self, body, status):
        if not isinstance(body, dict):
            raise DeliveryError(f"zalo answered HTTP {status} with no readable JSON; check the chat before "
                                "sending again", status=status)
        code = body.get("error", 0)
        if code == 0:
            return _message_id(body, "data")
        detail = self.said(f"error {code}: {self.describe(body)}")
        if code in self.AUTH_CODES or "access token" in self.describe(body).lower():
            raise DeliveryAuthError(f"zalo refused the token ({detail}); check BESTIE_ZALO_TOKEN", status=status)
        if code in self.RATE_CODES:
            raise _Retry(detail, status=status)
        raise DeliveryError(f"zalo refused the message ({detail})", status=status)

    def describe(self, body):
        return str(body.get("message", "")) if isinstance(body, dict) else ""


SENDERS: dict[str, type[Sender]] = {"telegram": TelegramSender, "zalo": ZaloSender}
