"""Exceptions raised by the core. The CLI maps them to exit code 1 with a one-line message."""

from __future__ import annotations


class BestieError(Exception):
    """Base class: every error the core raises on purpose."""


class NotFoundError(BestieError):
    """An id (memory, message, event) that does not exist."""


class InvalidValueError(BestieError, ValueError):
    """A value the user gave that cannot be used (bad TTL, bad scope, empty text...)."""


class SchemaError(BestieError):
    """The database file is newer than this program, or not a bestie database at all."""


class StorageError(BestieError):
    """The database file cannot be written or read right now: read-only, locked past the busy
    timeout, missing directory, disk error. Nothing was changed."""


class DatabaseBusyError(StorageError):
    """Another process held the write lock past the busy timeout (a long maintenance write).
    Nothing was changed; proposals retry with backoff (``store.busy.retry_busy``) before this reaches a user."""


class PolicyError(BestieError):
    """A write refused by a policy setting (writePolicy deny, paused memory, deletePolicy)."""


class WriteRefusedError(BestieError):
    """A memory write the write gate refused (``store.gate.check_write``): the message gives the
    reason in one line; ``rule`` names the check (``secret``, ``venting``, ``injected``,
    ``core_cap``, ``about``). Nothing was written."""

    def __init__(self, message: str, rule: str = "refused"):
        self.rule = rule
        super().__init__(message)


class SecretRefusedError(WriteRefusedError):
    """A write that looks like a secret. The message names the kind, never the secret."""

    def __init__(self, kind: str):
        self.kind = kind
        super().__init__(
            f"refused: the text looks like {kind}; secrets are never stored "
            "(if the owner really wants it kept: bestie memory add KIND TEXT --allow-secret)",
            rule="secret",
        )


class ImportFormatError(BestieError):
    """An import file that is not valid JSON or not in the export format; nothing was written."""


class DeliveryError(BestieError):
    """The report could not be delivered (after retries, or a refusal that retrying cannot fix)."""

    def __init__(self, message: str, *, sent_parts: int = 0, status: int | None = None):
        super().__init__(message)
        #: How many parts of a split report were delivered before the failure.
        self.sent_parts = sent_parts
        #: How many parts the report was split into (0 when it failed before splitting).
        self.total_parts = 0
        #: The HTTP status of the last answer, if there was one.
        self.status = status

    def after_parts(self, sent: int, total: int) -> DeliveryError:
        """Note how far a split report got; the message gains ``sent S of T parts, then failed: ``
        when some parts were delivered (so a partial send is never read as a plain failure)."""
        self.sent_parts, self.total_parts = sent, total
        if sent:
            self.args = (f"sent {sent} of {total} parts, then failed: {self.args[0]}",)
        return self


class DeliveryAuthError(DeliveryError):
    """HTTP 401 (or the API's own "invalid token" answer): the token is wrong, expired or revoked."""


class DeliveryForbiddenError(DeliveryError):
    """HTTP 403: the token works but has no access to this chat — on Telegram the user blocked the
    bot or never started it, or the bot is not (or no longer) a member of the group/channel."""


class DeliveryConfigError(DeliveryError):
    """The delivery settings cannot work (a malformed API base URL): raised before any request and
    never retried — waiting does not repair a typo."""
