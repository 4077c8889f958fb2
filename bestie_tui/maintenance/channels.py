"""Where a report goes and how to reach the API: parsing ``telegram:<chat id>`` / ``zalo:<user id>``
channels, reading a sender's token from the environment (or a token file), and checking and
choosing the API base URL (argument, ``BESTIE_<KIND>_API``, ``digest.<kind>Api`` setting).
``bestie_tui.maintenance.delivery`` re-exports these names.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
from collections.abc import Mapping
from dataclasses import dataclass

from bestie_tui.errors import DeliveryAuthError, InvalidValueError
from bestie_tui.store.settings import check_base_url  # noqa: F401  (re-exported)

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
        DeliveryAuthError: the file is missing, not a regular file, readable by group or others (the
        message says how to fix it), too large, or not UTF-8.
    """
    where = f"{name}_FILE ({path})"
    try:
        info = os.stat(os.path.expanduser(path))
        if not stat.S_ISREG(info.st_mode):
            raise DeliveryAuthError(f"cannot read {where}: not a regular file")
        # O_NONBLOCK: should a FIFO be swapped in after the check, opening it must not block.
        fd = os.open(os.path.expanduser(path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            opened = os.fstat(fh.fileno())
            if not stat.S_ISREG(opened.st_mode):
                raise DeliveryAuthError(f"cannot read {where}: not a regular file")
            if os.name == "posix" and opened.st_mode & 0o077:
                raise DeliveryAuthError(f"refusing {where}: others can read it (mode "
                                        f"{stat.S_IMODE(opened.st_mode):04o}); run: chmod 600 {shlex.quote(path)}")
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
