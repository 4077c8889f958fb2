"""The owner's calendar: IANA time zones (``zoneinfo``) and showing the database's naive UTC times.

The database keeps every time as naive UTC. The owner lives in a zone (setting ``owner.timezone``,
by default the system's, as ``tzlocal`` reads it), and everything a person reads or types — "until
friday", "tomorrow", the times the console and the CLI print — is on that zone's calendar.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bestie_tui.errors import InvalidValueError


def system_zone_name() -> str:
    """The IANA name of the system's zone: ``TZ`` when it names one (read on every call, so a
    process can change it), else what ``tzlocal`` reads from the system (``/etc/localtime``…);
    ``"UTC"`` when the system names none."""
    name: str | None = os.environ.get("TZ", "").lstrip(":").strip() or None
    if name is not None:
        try:
            return check_zone(name)
        except InvalidValueError:
            name = None  # a POSIX rule such as "<+07>-7", which is no IANA name: ask the system
    try:
        from tzlocal import get_localzone_name

        name = get_localzone_name()
    except Exception:  # noqa: BLE001 - an unreadable or odd system setting means "no zone named"
        name = None
    if not name:
        return "UTC"
    try:
        return check_zone(name)
    except InvalidValueError:
        return "UTC"


def check_zone(name: str) -> str:
    """Return ``name`` when it is an IANA zone ``zoneinfo`` knows (``Asia/Ho_Chi_Minh``, ``UTC``).

    Raises:
        InvalidValueError: anything else, with an example.
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidValueError(f"a time zone is an IANA name such as Asia/Ho_Chi_Minh, not {name!r}")
    try:
        ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise InvalidValueError(f"unknown time zone {name!r}: use an IANA name such as Asia/Ho_Chi_Minh, "
                                "America/Los_Angeles or UTC") from None
    return name.strip()


@lru_cache(maxsize=64)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def zone(name: str | None) -> ZoneInfo:
    """The zone called ``name``; ``None`` means the system's. Raises InvalidValueError."""
    return _zone(check_zone(name) if name else system_zone_name())


def to_local(value: datetime, tz: tzinfo) -> datetime:
    """A naive UTC time as an aware time in ``tz``."""
    return value.replace(tzinfo=UTC).astimezone(tz)


def to_utc(value: datetime) -> datetime:
    """An aware time as the database's naive UTC."""
    return value.astimezone(UTC).replace(tzinfo=None)


def owner_day(value: datetime | None, tz: tzinfo) -> str:
    """The day a naive UTC time falls on in ``tz``, ``YYYY-MM-DD`` (``"?"`` for ``None``): how the
    memory block dates an excerpt. 16:30 UTC on 15 April is ``2026-04-16`` in Asia/Shanghai."""
    return "?" if value is None else f"{to_local(value, tz):%Y-%m-%d}"


def show(value: datetime | None, tz: tzinfo, *, seconds: bool = False, zone_name: bool = True) -> str:
    """A naive UTC time as the owner reads it: ``2026-12-01 07:30 +07`` (the zone's abbreviation or
    offset; ``seconds`` adds ``:ss``). ``"-"`` for ``None``."""
    if value is None:
        return "-"
    local = to_local(value, tz)
    text = local.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
    return f"{text} {local.strftime('%Z') or local.strftime('%z')}" if zone_name else text


def exact(value: datetime | None, tz: tzinfo, now: datetime, *, seconds: bool = False) -> str:
    """The detail form of a time, where a record is focused or inspected: the exact time on the
    owner's clock with the list form beside it, ``2026-12-01 07:30 +07 (3 days ago)``; ``"-"`` for
    ``None``. ``now`` is naive UTC like ``value``."""
    if value is None:
        return "-"
    return f"{show(value, tz, seconds=seconds)} ({ago(value, now)})"


def ago(value: datetime | None, now: datetime) -> str:
    """How long before ``now`` a naive-UTC time was, in the one relative style every view and the CLI
    use: ``just now``, ``5 min ago``, ``3 h ago``, ``yesterday``, ``3 days ago``, ``5 weeks ago``,
    ``4 months ago``, ``2 years ago`` (``in 3 days`` for a time ahead); ``"-"`` for ``None``. The exact
    time (``show``) goes where the record is focused."""
    if value is None:
        return "-"
    seconds = (now - value).total_seconds()
    ahead, seconds = seconds < 0, abs(seconds)
    if ahead:  # a TTL of "2w" set a moment ago is 2 weeks ahead, not 13 days and 23 h
        seconds += 60
    minutes, hours, days = seconds / 60, seconds / 3600, seconds / 86400
    if minutes < 1:
        return "just now"
    if minutes < 60:
        span = f"{int(minutes)} min"
    elif hours < 24:
        span = f"{int(hours)} h"
    elif days < 2:
        return "tomorrow" if ahead else "yesterday"
    elif days < 14:
        span = f"{int(days)} days"
    elif days < 60:
        span = f"{int(days // 7)} weeks"
    elif days < 730:
        span = f"{int(days // 30.44)} months"
    else:
        span = f"{int(days // 365.25)} years"
    return f"in {span}" if ahead else f"{span} ago"
