"""TTL and expiry parsing on the owner's calendar (python-dateutil, ``zoneinfo``).

Accepted forms (case-insensitive):

* a duration: ``30m``, ``12h``, ``90 minutes`` (elapsed time); ``7d``, ``2w``, ``3mo``, ``1y``,
  ``2 weeks``, ``1 month`` (calendar steps: ``1d`` typed at 09:00 ends at 09:00 tomorrow on the
  owner's clock, across a DST change too);
* a named day, optionally after ``until``: ``today``, ``tonight``, ``end of day`` / ``eod``,
  ``tomorrow``, a weekday (``friday``, ``fri``: the next one, today included while it lasts),
  ``next friday`` (strictly after today), ``end of week`` (Sunday), ``end of month``, ``end of year``
  — each ends at 23:59:59 on the owner's calendar;
* an ISO date or date-time: ``2027-01-31`` (the end of that day), ``2027-01-31T18:00`` (owner's
  wall clock), ``2027-01-31T18:00+02:00`` (as given).

The owner's calendar is ``tz`` (``owner.timezone``); the results, like every timestamp in the
database, are naive UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from dateutil import parser as date_parser
from dateutil import relativedelta as rd

from bestie_tui.errors import InvalidValueError
from bestie_tui.text.clock import to_local, to_utc

_UNITS = {
    "s": "seconds", "sec": "seconds", "secs": "seconds", "second": "seconds", "seconds": "seconds",
    "m": "minutes", "min": "minutes", "mins": "minutes", "minute": "minutes", "minutes": "minutes",
    "h": "hours", "hr": "hours", "hrs": "hours", "hour": "hours", "hours": "hours",
    "d": "days", "day": "days", "days": "days",
    "w": "weeks", "wk": "weeks", "week": "weeks", "weeks": "weeks",
    "mo": "months", "month": "months", "months": "months",
    "y": "years", "yr": "years", "year": "years", "years": "years",
}
#: Units that count elapsed time; the others step the owner's calendar.
_ELAPSED = {"seconds", "minutes", "hours"}
_DURATION = re.compile(r"^\s*(\d+)\s*([a-z]+)\s*$")
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WEEKDAY_OF = {name: i for i, name in enumerate(_WEEKDAYS)}
_WEEKDAY_OF.update({name[:3]: i for i, name in enumerate(_WEEKDAYS)})
_WEEKDAY_OF.update({"tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3})
_END_OF_DAY = time(23, 59, 59)
_HINT = "use e.g. 7d, '2 weeks', tomorrow, 'until friday', 'end of day' or 2027-01-31"


def parse_ttl(value: str, now: datetime, tz: tzinfo = UTC) -> datetime:
    """Turn a TTL or expiry string into an absolute ``expires_at``.

    Args:
        value: the user's text, e.g. ``"7d"``, ``"2 weeks"``, ``"until friday"``, ``"tomorrow"``,
            ``"end of day"``, ``"2027-01-31"``.
        now: the reference time (naive UTC).
        tz: the owner's time zone: named days and dates are read on its calendar.

    Returns:
        A naive UTC datetime strictly after ``now``.

    Raises:
        InvalidValueError: the text is not one of the accepted forms, or names a time in the past.
    """
    text = " ".join((value or "").strip().lower().split())
    if not text:
        raise InvalidValueError(f"empty TTL: {_HINT}")
    local_now = to_local(now, tz)
    match = _DURATION.match(text)
    if match:
        amount, unit = int(match.group(1)), match.group(2)
        if unit not in _UNITS:
            raise InvalidValueError(f"unknown TTL unit {unit!r} in {value!r}: use s, m, h, d, w, mo or y")
        if amount <= 0:
            raise InvalidValueError(f"TTL must be positive: {value!r}")
        step = rd.relativedelta(**{_UNITS[unit]: amount})
        try:
            if _UNITS[unit] in _ELAPSED:
                result = now + step
            else:  # wall-clock arithmetic in the owner's zone, then back to UTC
                result = to_utc(_resolve(local_now.replace(tzinfo=None) + step, tz))
        except (ValueError, OverflowError):
            raise InvalidValueError(f"TTL {value!r} is too far in the future") from None
    else:
        target = text[len("until "):].strip() if text.startswith("until ") else text
        result = _parse_date(target, local_now, tz, value)
    if result <= now:
        raise InvalidValueError(f"TTL {value!r} is in the past")
    return result


def _resolve(wall: datetime, tz: tzinfo) -> datetime:
    """A naive wall-clock time in ``tz`` as an aware time. A time that does not exist (skipped by a
    DST change) moves forward by the gap; an ambiguous one (repeated) takes its first occurrence."""
    # PEP 495: with fold=0 a gap time is read with the offset before the change (so it lands the
    # gap's length later) and a repeated time is its first occurrence.
    return to_local(to_utc(wall.replace(tzinfo=tz, fold=0)), tz)


def _end_of(day: date, tz: tzinfo) -> datetime:
    return to_utc(_resolve(datetime.combine(day, _END_OF_DAY), tz))


def _named_day(target: str, today: date) -> date | None:
    if target in ("today", "tonight", "end of day", "end of the day", "end of today", "eod"):
        return today
    if target == "tomorrow":
        return today + timedelta(days=1)
    if target in ("end of week", "end of the week", "eow"):
        return today + rd.relativedelta(weekday=rd.SU)
    if target in ("end of month", "end of the month", "eom"):
        return today + rd.relativedelta(day=31)
    if target in ("end of year", "end of the year"):
        return date(today.year, 12, 31)
    if target in _WEEKDAY_OF:
        # "until friday": the end of the next Friday (today counts if it is Friday and not over).
        return today + rd.relativedelta(weekday=_WEEKDAY_OF[target])
    if target.startswith("next ") and target[5:] in _WEEKDAY_OF:
        return today + timedelta(days=1) + rd.relativedelta(weekday=_WEEKDAY_OF[target[5:]])
    return None


def _parse_date(target: str, local_now: datetime, tz: tzinfo, original: str) -> datetime:
    day = _named_day(target, local_now.date())
    if day is not None:
        return _end_of(day, tz)
    try:
        parsed = date_parser.isoparse(target)
    except (ValueError, OverflowError):
        try:
            parsed = date_parser.parse(target, default=datetime.combine(local_now.date(), _END_OF_DAY))
        except (ValueError, OverflowError) as exc:
            raise InvalidValueError(f"cannot read TTL {original!r}: {_HINT}") from exc
    if parsed.tzinfo is not None:
        return to_utc(parsed)
    if len(target) == 10 and parsed.time() == time(0, 0):
        parsed = datetime.combine(parsed.date(), _END_OF_DAY)
    try:
        return to_utc(_resolve(parsed, tz))
    except (ValueError, OverflowError):
        raise InvalidValueError(f"TTL {original!r} is too far in the future") from None
