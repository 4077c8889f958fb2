"""How hard a sender tries: ``RetryPolicy`` (attempts, exponential backoff, the ``Retry-After``
ceiling), the internal ``_Retry`` signal for a transient failure, and ``retry_after_seconds``
(reading a ``Retry-After`` header). ``bestie_tui.core.delivery`` re-exports the public names.
"""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable


@dataclass
class RetryPolicy:
    """How hard to try. Delays are seconds: attempt ``n`` (1-based) waits ``base_delay * 2**(n-1)``
    capped at ``max_delay``, unless the server sent ``Retry-After``, which is honoured as given; a
    ``Retry-After`` above ``max_delay`` ends the attempts (a cron job should not hang for an hour)."""

    max_attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 60.0
    #: Called with the number of seconds to wait; tests pass a recorder instead of ``time.sleep``.
    sleep: Callable[[float], None] = time.sleep


class _Retry(Exception):
    """Internal: a transient failure worth another attempt, after ``after`` seconds if known."""

    def __init__(self, reason: str, after: float | None = None, status: int | None = None):
        super().__init__(reason)
        self.reason, self.after, self.status = reason, after, status


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP-date (RFC 9110 §10.2.3).
    ``None`` when absent or unreadable; never negative."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())
