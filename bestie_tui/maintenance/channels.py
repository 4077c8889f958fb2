"""Where a report goes and how to reach the API: parsing ``telegram:<chat id>`` / ``zalo:<user id>``
channels, reading a sender's token from the environment (or a token file), and checking and
choosing the API base URL (argument, ``BESTIE_<KIND>_API``, ``digest.<kind>Api`` setting).
``bestie_tui.maintenance.delivery`` re-exports these names.
"""

from __future__ import annotations

import os
import re
import stat
import urllib.parse
from dataclasses import dataclass
from typing import Mapping

from bestie_tui.maintenance.delivery_errors import DeliveryAuthError, DeliveryConfigError
from bestie_tui.errors import InvalidValueError

CHANNEL_KINDS = ("telegram", "zalo")
# [0-9], not \d: \d also matches Arabic-Indic, fullwidth and other digits, which no API takes.
# Matched with fullmatch (``$`` would also accept a trailing newline).
_TELEGRAM_TARGET = re.compile(r"-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31}")
_ZALO_TARGET = re.compile(r"[0-9]{1,32}")
#: A token file larger than this (bytes) is refused, not read: a token is one short line.
MAX_TOKEN_FILE_BYTES = 65536


@dataclass(frozen=True)
class Channel:
    """Where a report goes: ``kind`` is telegram or zalo, ``target`` the chat id / Zalo user id."""

    kind: str
    target: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.target}"


def parse_channel(text: str) -> Channel:
    """Parse ``telegram:<chat id>`` (an integer in ASCII digits, negative for groups, or
    ``@channelname``) or ``zalo:<user id>`` (ASCII digits).

    Raises:
        InvalidValueError: anything else, with the accepted forms in the message.
    """
    kind, sep, target = (text or "").strip().partition(":")
    kind = kind.lower()
    pattern = {"telegram": _TELEGRAM_TARGET, "zalo": _ZALO_TARGET}.get(kind)
    if not sep or pattern is None or not pattern.fullmatch(target):
        raise InvalidValueError(
            f"invalid channel {text!r}: use telegram:<chat id> (e.g. telegram:123456789) "
            "or zalo:<user id> (e.g. zalo:2468458835296117922)"
        )
    return Channel(kind, target)


def check_token(token: str, source: str) -> str:
    """Return ``token`` if every character is printable ASCII other than a space (``!``..``~``), the
    alphabet of Telegram bot tokens and Zalo access tokens. Anything else would be refused by
    http.client in the URL or header — in an error quoting the URL, and so the token — or would
    smuggle a second header in.

    Raises:
        DeliveryAuthError: naming ``source`` and what is wrong, never a character of the token.
    """
    if not all("!" <= c <= "~" for c in token):
        raise DeliveryAuthError(f"{source} holds a space, control or non-ASCII character: a token is "
                                "printable ASCII without spaces (check for a pasted quote, tab or line break)")
    return token


def _read_token_file(path: str, name: str) -> str:
    """The first line of the token file, stripped. Only a regular file of at most
    ``MAX_TOKEN_FILE_BYTES`` is read (a FIFO would block a cron job forever, a device never end).

    Raises:
        DeliveryAuthError: the file is missing, not a regular file, too large, or not UTF-8.
    """
    where = f"{name}_FILE ({path})"
    try:
        info = os.stat(os.path.expanduser(path))
        if not stat.S_ISREG(info.st_mode):
            raise DeliveryAuthError(f"cannot read {where}: not a regular file")
        # O_NONBLOCK: should a FIFO be swapped in after the check, opening it must not block.
        fd = os.open(os.path.expanduser(path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise DeliveryAuthError(f"cannot read {where}: not a regular file")
            data = fh.read(MAX_TOKEN_FILE_BYTES + 1)
    except OSError as exc:
        raise DeliveryAuthError(f"cannot read {where}: {exc.strerror}") from None
    if len(data) > MAX_TOKEN_FILE_BYTES:
        raise DeliveryAuthError(f"cannot read {where}: larger than {MAX_TOKEN_FILE_BYTES} bytes, not a token file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DeliveryAuthError(f"cannot read {where}: it is not UTF-8 text") from None
    return text.split("\n", 1)[0].strip()


def read_token(kind: str, env: Mapping[str, str] | None = None) -> str:
    """The API token for ``kind``: ``BESTIE_<KIND>_TOKEN``, else the first line of the file named by
    ``BESTIE_<KIND>_TOKEN_FILE`` (a regular file, at most ``MAX_TOKEN_FILE_BYTES``, UTF-8).
    Surrounding whitespace is dropped; what remains must pass ``check_token``.

    Raises:
        DeliveryAuthError: neither is set, the file cannot be read, or the token has characters no
        token has (the message names the variable or file, never the value).
    """
    env = os.environ if env is None else env
    name = f"BESTIE_{kind.upper()}_TOKEN"
    token = (env.get(name) or "").strip()
    if token:
        return check_token(token, name)
    path = env.get(name + "_FILE")
    if path:
        token = _read_token_file(path, name)
        if token:
            return check_token(token, f"{name}_FILE ({path})")
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
