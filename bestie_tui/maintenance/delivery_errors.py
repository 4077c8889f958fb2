"""The errors a report delivery raises: ``DeliveryError`` and its auth (401), forbidden (403) and
configuration (malformed base URL) variants. All are ``BestieError``s, so the CLI exits 1 with the
message. ``bestie_tui.maintenance.delivery`` re-exports them.
"""

from __future__ import annotations

from bestie_tui.errors import BestieError


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
