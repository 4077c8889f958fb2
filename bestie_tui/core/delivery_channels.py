"""Where a report goes and how to reach the API: parsing ``telegram:<chat id>`` / ``zalo:<user id>``
channels, reading a sender's token from the environment (or a token file), and checking and
choosing the API base URL (argument, ``BESTIE_<KIND>_API``, ``digest.<kind>Api`` setting).
``bestie_tui.core.delivery`` re-exports these names.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass
from typing import Mapping

from .delivery_errors import DeliveryAuthError, DeliveryConfigError
from .errors import InvalidValueError

CHANNEL_KINDS = ("telegram", "zalo")
_TELEGRAM_TARGET = re.compile(r"^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$")
_ZALO_TARGET = re.compile(r"^\d{1,32}$")


@dataclass(frozen=True)
class Channel:
    """Where a report goes: ``kind`` is telegram or zalo, ``target`` the chat id / Zalo user id."""

    kind: str
    target: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.target}"


def parse_channel(text: str) -> Channel:
    """Parse ``telegram:<chat id>`` (an integer, negative for groups, or ``@channelname``) or
    ``zalo:<user id>`` (digits).

    Raises:
        InvalidValueError: anything else, with the accepted forms in the message.
    """
    kind, sep, target = (text or "").strip().partition(":")
    kind = kind.lower()
    pattern = {"telegram": _TELEGRAM_TARGET, "zalo": _ZALO_TARGET}.get(kind)
    if not sep or pattern is None or not pattern.match(target):
        raise InvalidValueError(
            f"invalid channel {text!r}: use telegram:<chat id> (e.g. telegram:123456789) "
            "or zalo:<user id> (e.g. zalo:2468458835296117922)"
        )
    return Channel(kind, target)


def read_token(kind: str, env: Mapping[str, str] | None = None) -> str:
    """The API token for ``kind``: ``BESTIE_<KIND>_TOKEN``, else the first line of the file named by
    ``BESTIE_<KIND>_TOKEN_FILE``.

    Raises:
        DeliveryAuthError: neither is set, or the file cannot be read (the message names the
        variables, never a value).
    """
    env = os.environ if env is None else env
    name = f"BESTIE_{kind.upper()}_TOKEN"
    token = (env.get(name) or "").strip()
    if token:
        return token
    path = env.get(name + "_FILE")
    if path:
        try:
            with open(os.path.expanduser(path), encoding="utf-8") as fh:
                token = fh.readline().strip()
        except OSError as exc:
            raise DeliveryAuthError(f"cannot read {name}_FILE ({path}): {exc.strerror}") from None
        if token:
            return token
        raise DeliveryAuthError(f"{name}_FILE ({path}) is empty")
    raise DeliveryAuthError(f"no {kind} token: set {name} (or {name}_FILE, a file holding it)")


def check_base_url(value: str, source: str) -> str:
    """Validate an API base URL and return it without surrounding spaces or a trailing ``/``:
    ``http``/``https``, a host (and a valid port if any), an optional path prefix, no spaces, no
    query or fragment (request paths are appended to it).

    Raises:
        DeliveryConfigError: anything else, naming ``source`` (where the value came from).
    """
    text = str(value).strip()
    problem = None
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError as exc:
        problem = str(exc)
    else:
        if parts.scheme not in ("http", "https"):
            problem = "use http:// or https://"
        elif not parts.hostname:
            problem = "no host"
        elif any(c.isspace() or not c.isprintable() for c in text):
            problem = "it contains spaces or control characters"
        elif parts.query or parts.fragment or text.endswith(("?", "#")):
            problem = "a base URL takes no ?query or #fragment"
    if problem:
        raise DeliveryConfigError(f"{source} {text!r} is not a usable API base URL ({problem}), "
                                  "e.g. https://api.telegram.org or http://127.0.0.1:8080/prefix")
    return text.rstrip("/")


def base_url_for(kind: str, store=None, env: Mapping[str, str] | None = None) -> str | None:
    """The configured API base URL of ``kind``: env ``BESTIE_<KIND>_API``, else the
    ``digest.<kind>Api`` setting, else ``None`` (the real API). Checked as it is read.

    Raises:
        DeliveryConfigError: a malformed URL (see ``check_base_url``), naming its source.
    """
    env = os.environ if env is None else env
    name = f"BESTIE_{kind.upper()}_API"
    if (env.get(name) or "").strip():
        return check_base_url(env[name], name)
    value = store.get_setting(f"digest.{kind}Api") if store is not None else None
    return check_base_url(value, f"setting digest.{kind}Api") if value else None
