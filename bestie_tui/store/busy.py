"""Waiting out a long write: a writer that finds the database busy retries with backoff.

SQLite's busy timeout (``db.BUSY_TIMEOUT_MS``) already waits inside each attempt; when another
process holds the write lock longer (a cleanup of a large store), the proposal is not lost: it is
tried again after a pause that doubles from ``FIRST_PAUSE_S`` up to ``MAX_PAUSE_S`` (with jitter, so
several waiting writers do not retry in step) until ``WAIT_S`` have passed. Retrying is safe because
a busy attempt wrote nothing (its transaction never began).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from bestie_tui.errors import DatabaseBusyError

T = TypeVar("T")

#: Seconds a proposal keeps retrying a busy database before the error reaches the caller.
WAIT_S = 60.0
FIRST_PAUSE_S = 0.05
MAX_PAUSE_S = 2.0


def retry_busy(attempt: Callable[[], T], *, wait_s: float | None = None,
               clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> T:
    """Call ``attempt`` until it does not raise ``DatabaseBusyError`` or ``wait_s`` seconds
    (default ``WAIT_S``) passed.

    Returns what ``attempt`` returns. Raises the last ``DatabaseBusyError`` after ``wait_s``
    (its message says nothing was changed), and any other error at once.
    """
    deadline = clock() + (WAIT_S if wait_s is None else wait_s)
    pause = FIRST_PAUSE_S
    while True:
        try:
            return attempt()
        except DatabaseBusyError:
            left = deadline - clock()
            if left <= 0:
                raise
            sleep(min(left, pause * random.uniform(0.5, 1.0)))
            pause = min(MAX_PAUSE_S, pause * 2)
