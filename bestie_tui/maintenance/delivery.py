"""Sending a report to the owner's chat: Telegram Bot API and Zalo Official Account API senders.

Both speak plain HTTPS JSON through the standard library (``urllib.request``), so nothing extra is
installed for a once-a-week message. What both senders share:

* a channel is written ``telegram:<chat id>`` or ``zalo:<user id>`` (``parse_channel``);
* a long report is split on line boundaries at the API's length limit (``split_message``);
* 429 and 5xx answers (and connection failures) are retried with exponential backoff, honouring
  ``Retry-After`` up to ``RetryPolicy.max_delay`` seconds; 401 (the token) and 403 (no access to
  the chat) fail at once, each naming its likely cause beside the API's own description;
* time is bounded whatever the server does: ``RetryPolicy.request_deadline`` (30 s) for one request,
  from connecting to the last byte of the answer (a server trickling one byte every few seconds
  is cut off), and ``RetryPolicy.send_deadline`` (120 s) for the whole send, every part, attempt and
  wait included (a wait that would end past it is not started);
* the base URL comes from the ``base_url`` argument, else ``BESTIE_TELEGRAM_API`` /
  ``BESTIE_ZALO_API``, else the ``digest.telegramApi`` / ``digest.zaloApi`` setting, else the real API;
* the token is read from ``BESTIE_TELEGRAM_TOKEN`` / ``BESTIE_ZALO_TOKEN`` (or a file named by
  ``…_TOKEN_FILE``, which is what a cron job can use) and is redacted from every message this module
  produces: errors, log records and results never contain it.

Reports are sent as plain text (no ``parse_mode``): memory text is data, and a memory containing
``*`` or ``_`` must neither be formatted nor make Telegram refuse the message.

The code lives in ``delivery_errors`` (errors), ``delivery_channels`` (channel, token and base URL),
``delivery_retry`` (retry policy and deadlines) and ``delivery_senders`` (the senders); this module
re-exports their public names and offers ``sender_for`` and ``deliver``.
"""

from __future__ import annotations

from collections.abc import Mapping

from bestie_tui.errors import (  # noqa: F401  (re-exported)
    DeliveryAuthError,
    DeliveryConfigError,
    DeliveryError,
    DeliveryForbiddenError,
)
from bestie_tui.maintenance.channels import (  # noqa: F401  (re-exported)
    CHANNEL_KINDS,
    Channel,
    base_url_for,
    check_base_url,
    parse_channel,
    read_token,
)
from bestie_tui.maintenance.parts import split_message, utf16_len  # noqa: F401  (re-exported)
from bestie_tui.maintenance.retry import (  # noqa: F401  (re-exported)
    RequestDeadline,
    RetryPolicy,
    retry_after_seconds,
    usable_delay,
)
from bestie_tui.maintenance.senders import (  # noqa: F401  (re-exported)
    SENDERS,
    DeliveryResult,
    Sender,
    TelegramSender,
    ZaloSender,
)


def sender_for(channel: Channel | str, store=None, *, env: Mapping[str, str] | None = None,
               retry: RetryPolicy | None = None, base_url: str | None = None) -> Sender:
    """A ready sender for ``channel`` (token from the environment, base URL as ``base_url_for``).

    Raises:
        InvalidValueError: a malformed channel.
        DeliveryConfigError: a malformed base URL.
        DeliveryAuthError: no token configured.
    """
    channel = parse_channel(channel) if isinstance(channel, str) else channel
    token = read_token(channel.kind, env)
    url = base_url or base_url_for(channel.kind, store, env)
    return SENDERS[channel.kind](token, url, retry=retry)


def deliver(channel: Channel | str, text: str, store=None, *, env: Mapping[str, str] | None = None,
            retry: RetryPolicy | None = None) -> DeliveryResult:
    """Send ``text`` to ``channel`` (see ``sender_for`` and ``Sender.send`` for what is raised)."""
    channel = parse_channel(channel) if isinstance(channel, str) else channel
    return sender_for(channel, store, env=env, retry=retry).send(channel.target, text)
