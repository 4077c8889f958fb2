"""How hard and how long a sender tries: ``RetryPolicy`` (attempts, exponential backoff, the
``Retry-After`` ceiling, the deadlines of one request and of the whole send), ``RequestDeadline``
(the watchdog that enforces a request's deadline), the internal ``_Retry`` signal for a transient
failure, and ``retry_after_seconds`` (reading a ``Retry-After`` header).
``bestie_tui.maintenance.delivery`` re-exports the public names.
"""

from __future__ import annotations

import email.utils
import http.client
import math
import socket
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any


@dataclass
class RetryPolicy:
    """How hard and how long to try. Delays are seconds: attempt ``n`` (1-based) waits
    ``base_delay * 2**(n-1)`` capped at ``max_delay``, unless the server sent ``Retry-After``, which
    is honoured as given; a ``Retry-After`` above ``max_delay`` ends the attempts (a cron job should
    not hang for an hour).

    Two deadlines bound the time, whatever the server does (a socket timeout alone restarts at every
    byte received, so a server trickling one byte every few seconds would never trip it):
    ``request_deadline`` seconds for one HTTP request, from connecting to the last byte of the
    answer, and ``send_deadline`` seconds for the whole send (every part, attempt and wait). A wait
    that would end past ``send_deadline`` is not started. Not bounded: the DNS lookup of the API
    host and a TLS handshake, each limited only by the sender's per-read ``timeout``.
    """

    max_attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 60.0
    request_deadline: float = 30.0
    send_deadline: float = 120.0
    #: Called with the number of seconds to wait; tests pass a recorder instead of ``time.sleep``.
    sleep: Callable[[float], None] = time.sleep
    #: Seconds on a monotonic clock, for the send deadline.
    clock: Callable[[], float] = time.monotonic


class _Retry(Exception):
    """Internal: a transient failure worth another attempt, after ``after`` seconds if known."""

    def __init__(self, reason: str, after: float | None = None, status: int | None = None):
        super().__init__(reason)
        self.reason, self.after, self.status = reason, after, status


def usable_delay(value: Any) -> float | None:
    """``value`` as a number of seconds to wait, or ``None`` when it is not a finite number >= 0 (a
    server's ``retry_after`` of -5, NaN or a 400-digit integer must not reach ``time.sleep``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = float(value)
    except OverflowError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP-date (RFC 9110 §10.2.3).
    ``None`` when absent, unreadable or not finite; never negative (a past date or a negative
    number is 0)."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class RequestDeadline:
    """The overall deadline of one HTTP request. Used as a context manager around the request, made
    with ``opener()``: when ``seconds`` pass, a timer shuts down every socket the request opened,
    which ends a blocked read at once; ``expired`` then tells the caller why the request failed."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, seconds), self._expire)
        self._timer.daemon = True

    def __enter__(self) -> RequestDeadline:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()
        with self._lock:  # sockets closed after this point are never touched again
            self._sockets.clear()

    def watch(self, sock: socket.socket) -> None:
        """Shut ``sock`` down when the deadline passes (at once if it already has)."""
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def opener(self) -> urllib.request.OpenerDirector:
        """A urllib opener (environment proxies included) whose connections are watched, and which
        follows no redirect: an API never redirects a POST, and following one would carry a Zalo
        token header to whichever host the redirect names."""
        deadline = self

        def watched(base: type[http.client.HTTPConnection]) -> type[http.client.HTTPConnection]:
            class Watched(base):  # type: ignore[misc, valid-type]
                def __init__(self, *args, **kwargs):
                    super().__init__(*args, **kwargs)
                    create = self._create_connection

                    def created(*a, **kw):  # watched from the moment it is connected
                        sock = create(*a, **kw)
                        deadline.watch(sock)
                        return sock

                    self._create_connection = created

                def connect(self):
                    super().connect()
                    deadline.watch(self.sock)  # for HTTPS: the TLS socket that replaced the plain one

            return Watched

        class HTTPHandler(urllib.request.HTTPHandler):
            def do_open(self, http_class, req, **kwargs):
                return super().do_open(watched(http_class), req, **kwargs)

        class HTTPSHandler(urllib.request.HTTPSHandler):
            def do_open(self, http_class, req, **kwargs):
                return super().do_open(watched(http_class), req, **kwargs)

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None  # urllib then raises HTTPError with the 3xx status

        return urllib.request.build_opener(HTTPHandler(), HTTPSHandler(), NoRedirect())


def _shut(sock: socket.socket) -> None:
    # The plain socket method even for a TLS socket: SSLSocket.shutdown first drops its SSL object,
    # which the thread blocked in read() may be using. A closed or detached socket raises OSError.
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass
