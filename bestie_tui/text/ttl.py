"""TTL and expiry parsing with python-dateutil.

Accepted forms (case-insensitive):

* a duration: ``7d``, ``12h``, ``30m``, ``2w``, ``3mo``, ``1y``, ``2 weeks``, ``1 month``, ``90 minutes``;
* ``until <date>``: ``until friday`` (the next Friday, end of day), ``until 2027-01-31``;
* an ISO date or date-time: ``2027-01-31``, ``2027-01-31T18:00``.

All results are naive UTC datetimes, like every timestamp in the database.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta

from dateutil import parser as date_parser
from dateutil import relativedelta as rd

from bestie_tui.errors import InvalidValueError

_UNITS = {
    "s": "seconds", "sec": "seconds", "secs": "seconds", "second": "seconds", "seconds": "seconds",
    "m": "minutes", "min": "minutes", "mins": "minutes", "minute": "minutes", "minutes": "minutes",
    "h": "hours", "hr": "hours", "hrs": "hours", "hour": "hours", "hours": "hours",
    "d": "days", "day": "days", "days": "days",
    "w": "weeks", "wk": "weeks", "week": "weeks", "weeks": "weeks",
    "mo": "months", "month": "months", "months": "months",
    "y": "years", "yr": "years", "year": "years", "years": "years",
}
_DURATION = re.compile(r"^\s*(\d+)\s*([a-z]+)\s*$")
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


def parse_ttl(value: str, now: datetime) -> datetime:
    """Turn a TTL or expiry string into an absolute ``expires_at``.

    Args:
        value: the user's text, e.g. ``"7d"``, ``"2 weeks"``, ``"until friday"``, ``"2027-01-31"``.
        now: the reference time (naive UTC).

    Returns:
        A naive UTC datetime strictly after ``now``.

    Raises:
        InvalidValueError: the text is not one of the accepted forms, or names a time in the past.
    """
    text = (value or "").strip().lower()
    if not text:
        raise InvalidValueError("empty TTL: use e.g. 7d, '2 weeks', 'until friday' or 2027-01-31")
    match = _DURATION.match(text)
    if match:
        amount, unit = int(match.group(1)), match.group(2)
        if unit not in _UNITS:
            raise InvalidValueError(f"unknown TTL unit {unit!r} in {value!r}: use s, m, h, d, w, mo or y")
        if amount <= 0:
            raise InvalidValueError(f"TTL must be positive: {value!r}")
        try:
            result = now + rd.relativedelta(**{_UNITS[unit]: amount})
        except (ValueError, OverflowError):
            raise InvalidValueError(f"TTL {value!r} is too far in the future") from None
    else:
        target = text[len("until "):].strip() if text.startswith("until ") else text
        result = _parse_date(target, now, value)
    if result <= now:
        raise InvalidValueError(f"TTL {value!r} is in the past")
    return result


def _parse_date(target: str, now: datetime, original: str) -> datetime:
    if target in _WEEKDAYS:
        # "until friday": the end of the next Friday (today counts if it is Friday and not over).
        weekday = _WEEKDAYS.index(target)
        day = now.date() + rd.relativedelta(weekday=weekday)
        return datetime.combine(day, time(23, 59, 59))
    if target in ("tomorrow",):
        return datetime.combine(now.date() + timedelta(days=1), time(23, 59, 59))
    try:
        parsed = date_parser.isoparse(target)
    except (ValueError, OverflowError):
        try:
            parsed = date_parser.parse(target, default=datetime.combine(now.date(), time(23, 59, 59)))
        except (ValueError, OverflowError) as exc:
            raise InvalidValueError(
                f"cannot read TTL {original!r}: use e.g. 7d, '2 weeks', 'until friday' or 2027-01-31"
            ) from exc
    if parsed.tzinfo is not None:

        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    if len(target) == 10 and parsed.time() == time(0, 0):
        parsed = datetime.combine(parsed.date(), time(23, 59, 59))
    return parsed
