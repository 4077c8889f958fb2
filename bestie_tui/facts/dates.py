"""Dates, times, days and amounts in a memory text, in any common spelling, as comparable values.

``quantities(text)`` returns a frozenset of ``Quantity(kind, value)``. Two memories that name the
same day, hour or amount in different spellings get the same quantities, so "3/3" and "March 3rd",
"11 pm" and "23:00", "12 km" and "7.5 miles", "1m65" and "165 cm" compare equal, and "iPhone 14" and
"iPhone 15" do not.

Kinds and their values:

* ``date``: ``(month, day)``. "March 3rd", "3 March", "Mar 3", "the 3rd of March" (month names are
  parsed by ``dateutil.parser``), "3/3" and "30/06" (day first, the Vietnamese and European order,
  unless only month-first is possible: "12/25"), "ngày 3 tháng 3", "3 tháng 3". A bare "the 14th"
  is ``("dom", 14)`` (day of month).
* ``month``: 1–12 for a month named alone ("in April", "tháng 5").
* ``year``: 1900–2099.
* ``time``: minutes after midnight. "9:30", "9.15am", "2 pm", "23:00", "7 giờ sáng", "8h", "9 giờ tối".
* ``weekday``: 0 (Monday) – 6 (Sunday); "weekdays" / "Mon-Fri" give 0–4, "weekends" 5–6.
  Vietnamese "thứ Hai" … "thứ Bảy", "thứ 2" … "thứ 7", "chủ nhật", "cuối tuần".
* ``daypart``: ``morning`` | ``noon`` | ``afternoon`` | ``evening`` | ``night``.
* amounts with a unit, in one base unit each: ``length`` (metres), ``mass`` (kilograms),
  ``money`` (the amount; "$3k" is 3000), ``duration`` (days).
* ``age`` (years: "7 tuổi", "8 years old", "turned 8"), ``grade`` ("grade 2", "lớp 2A" → ``"2a"``,
  "lớp 3B2" → ``"3b2"``),
  ``floor`` ("12th floor", "tầng 7"), ``count`` (a number before a noun: "two cats", "hai con").
* ``number``: any other number, digits or words ("iPhone 14" → 14).

Amounts compare within ``TOLERANCE`` (a relative 5 %: 12 km is 7.46 miles).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, cast

from bestie_tui.text import words as textmod

#: Relative difference under which two amounts of one kind are the same amount.
TOLERANCE = 0.05
AMOUNT_KINDS = frozenset({"length", "mass", "money", "duration"})


@dataclass(frozen=True)
class Quantity:
    """One date, time, day or amount: ``kind`` (see the module docstring) and a comparable ``value``."""

    kind: str
    value: object

    def same(self, other: Quantity) -> bool:
        """Equal, or within ``TOLERANCE`` for amounts of the same kind."""
        if self.kind != other.kind:
            return False
        if self.kind in AMOUNT_KINDS:
            a, b = float(self.value), float(other.value)  # type: ignore[arg-type]
            return abs(a - b) <= TOLERANCE * max(abs(a), abs(b), 1e-9)
        return self.value == other.value


_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}
_WEEKDAYS = {"monday": 0, "mon": 0, "mondays": 0, "tuesday": 1, "tue": 1, "tues": 1, "tuesdays": 1,
             "wednesday": 2, "wed": 2, "wednesdays": 2, "thursday": 3, "thu": 3, "thur": 3, "thurs": 3,
             "thursdays": 3, "friday": 4, "fri": 4, "fridays": 4, "saturday": 5, "sat": 5, "saturdays": 5,
             "sunday": 6, "sun": 6, "sundays": 6}
#: Vietnamese weekday words after "thứ" (folded): hai = Monday … bảy = Saturday; "chủ nhật" is Sunday.
_VI_WEEKDAYS = {"hai": 0, "2": 0, "ba": 1, "3": 1, "tu": 2, "4": 2, "nam": 3, "5": 3, "sau": 4, "6": 4,
                "bay": 5, "7": 5}
_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "dozen": 12, "a couple of": 2,
    "single": 1, "both": 2, "once": 1, "twice": 2,
}
#: Vietnamese number words as written (folded, "năm" is also "year" and "bảy" Saturday: they count
#: only before a classifier or unit, see ``_VI_COUNTED``).
_VI_NUMBERS = {"một": 1, "hai": 2, "ba": 3, "bốn": 4, "tư": 4, "năm": 5, "sáu": 6, "bảy": 7, "tám": 8,
               "chín": 9, "mười": 10, "mươi": 10}
_VI_COUNTED = ("con", "đứa", "cái", "chiếc", "lần", "người", "tuổi", "năm", "tháng", "ngày", "tuần", "buổi",
               "lon", "chai", "cốc", "ly", "bé", "cháu", "quyển", "cuốn", "căn", "giờ", "tiếng", "km", "kg", "xe",
               "quả", "bộ", "điếu", "miếng", "bát", "tô", "phòng", "ngôi")
_DAYPARTS = {"morning": "morning", "mornings": "morning", "am": "morning", "noon": "noon", "lunchtime": "noon",
             "afternoon": "afternoon", "afternoons": "afternoon", "evening": "evening", "evenings": "evening",
             "night": "night", "nights": "night", "tonight": "night",
             "sáng": "morning", "trưa": "noon", "chiều": "afternoon", "tối": "evening", "đêm": "night"}
# length in metres, mass in kilograms, duration in days
_UNITS = {
    "km": ("length", 1000.0), "kms": ("length", 1000.0), "kilometre": ("length", 1000.0),
    "kilometres": ("length", 1000.0), "kilometer": ("length", 1000.0), "kilometers": ("length", 1000.0),
    "mi": ("length", 1609.344), "mile": ("length", 1609.344), "miles": ("length", 1609.344),
    "m": ("length", 1.0), "metre": ("length", 1.0), "metres": ("length", 1.0), "meter": ("length", 1.0),
    "meters": ("length", 1.0), "cm": ("length", 0.01), "mm": ("length", 0.001), "ft": ("length", 0.3048),
    "feet": ("length", 0.3048), "foot": ("length", 0.3048), "inch": ("length", 0.0254),
    "inches": ("length", 0.0254),
    "kg": ("mass", 1.0), "kgs": ("mass", 1.0), "kilo": ("mass", 1.0), "kilos": ("mass", 1.0),
    "kilogram": ("mass", 1.0), "kilograms": ("mass", 1.0), "lb": ("mass", 0.45359237),
    "lbs": ("mass", 0.45359237), "pound": ("mass", 0.45359237), "pounds": ("mass", 0.45359237),
    "g": ("mass", 0.001), "gram": ("mass", 0.001), "grams": ("mass", 0.001), "cân": ("mass", 1.0),
    "day": ("duration", 1.0), "days": ("duration", 1.0), "ngày": ("duration", 1.0),
    "week": ("duration", 7.0), "weeks": ("duration", 7.0), "tuần": ("duration", 7.0),
    "month": ("duration", 30.0), "months": ("duration", 30.0), "tháng": ("duration", 30.0),
    "year": ("duration", 365.0), "years": ("duration", 365.0), "năm": ("duration", 365.0),
    "usd": ("money", 1.0), "dollars": ("money", 1.0), "dollar": ("money", 1.0), "đồng": ("money", 1.0),
    "vnd": ("money", 1.0), "eur": ("money", 1.0), "euros": ("money", 1.0),
}
#: Race distances that name a length (metres).
_DISTANCES = {"half marathon": 21097.5, "marathon": 42195.0, "5k": 5000.0, "10k": 10000.0}

_NUM = r"\d+(?:[.,]\d+)?"
_DATE_SLASH = re.compile(r"(?<![\d/])(\d{1,2})\s*[/-]\s*(\d{1,2})(?:\s*[/-]\s*(\d{2,4}))?(?![\d/])")
_DATE_VI = re.compile(r"(?:ngày\s+)?(\d{1,2})\s+tháng\s+(\d{1,2})(?:\s+năm\s+(\d{4}))?")
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_EN = re.compile(
    rf"\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+(?P<m1>{_MONTH_NAMES})\.?"
    rf"|(?P<m2>{_MONTH_NAMES})\.?\s+(?:the\s+)?(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?)\b(?:,?\s+(?P<y>\d{{4}}))?")
_MONTH_ALONE = re.compile(rf"\b(?:in|of|by|until|since|from|next|last|this)\s+(?P<m>{_MONTH_NAMES})\b"
                          r"|\btháng\s+(?P<v>\d{1,2})(?!\s*/)\b")
_DOM = re.compile(r"\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b")
_TIME_COLON = re.compile(r"(?<![\d.])(\d{1,2})\s*[:.h]\s*(\d{2})\s*(am|pm|a\.m\.|p\.m\.)?(?!\d)")
_TIME_AMPM = re.compile(r"(?<![\d:.])(\d{1,2})\s*(am|pm|a\.m\.|p\.m\.)(?![a-z])")
_TIME_VI = re.compile(r"(?<![\d:.])(\d{1,2})\s*(?:giờ|h)(?:\s*(\d{1,2})(?:\s*phút)?)?(?:\s+(sáng|trưa|chiều|tối|đêm))?"
                      r"(?![\w])")
_YEAR = re.compile(r"(?<![\d/.,])((?:19|20)\d{2})(?![\d/]|'?s\b)")
_HEIGHT = re.compile(r"(?<![\d.])(\d)\s*m\s*(\d{2})(?!\d)")
_AMOUNT = re.compile(rf"(?P<cur>[$€£])?\s*(?P<n>{_NUM})\s*(?P<k>k|m|tr|triệu|nghìn|ngàn)?\b\s*(?P<u>[^\W\d_]+)?")
_AGE = re.compile(r"(\d{1,3})\s*(?:years?\s+old|yrs?\s+old|tuổi|yo\b)|\b(?:turned|turns|turning|lên|tròn)\s+(\d{1,3})\b"
                  r"|\b(?:aged?)\s+(\d{1,3})\b")
#: "grade 2", "lớp 2A" and a class named by its grade, letter and number ("lớp 3B2", "class 10A1").
_GRADE = re.compile(r"\b(?:grade|year|class|lớp)\s+(\d{1,2}(?:[a-z]\d{0,2})?)\b|\b(\d{1,2})(?:st|nd|rd|th)\s+grade")
_FLOOR = re.compile(r"\b(\d{1,3})(?:st|nd|rd|th)?\s+floor\b|\b(?:floor|tầng|lầu)\s+(\d{1,3})\b")
_DIGITS = re.compile(rf"{_NUM}")


#: Anything a quantity can start with: a digit, a month or a day written out, a part of the day, a
#: race; three-letter abbreviations ("Mar", "Wed") count only beside a digit or a dash.
_TRIGGER = re.compile(r"\d|-|" + "|".join(sorted({m for m in _MONTHS if len(m) > 3 and m != "may"}
                                                 | {d for d in _WEEKDAYS if len(d) > 3} | {
    "weekday", "weekend", "morning", "afternoon", "evening", "night", "noon", "lunchtime", "tonight", "thứ ",
    "thu ", "chủ nhật", "chu nhat", "cuối tuần", "cuoi tuan", "marathon", "tháng", "giờ", "sáng", "trưa",
    "chiều", "tối", "đêm", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve",
    "twenty", "dozen", "couple", "once", "twice", "hai ", "một ", "ba ", "bốn ", "năm ", "sáu ", "bảy ", "tám ",
    "chín ", "mười"}, key=len, reverse=True)))


def _int(text: str) -> int:
    return int(text)


def _parse_month_day(match: re.Match) -> tuple[int, int] | None:
    """``(month, day)`` of an English month-name match, parsed by dateutil (ordinals, abbreviations)."""
    from dateutil import parser

    try:
        parsed = parser.parse(match.group(0), default=datetime(2000, 1, 1))
    except (ValueError, OverflowError):
        return None
    return parsed.month, parsed.day


def _slash(a: int, b: int) -> tuple[int, int] | None:
    """Day first ("30/06", "3/3"); month first only when the day-first reading is impossible."""
    if 1 <= b <= 12 and 1 <= a <= 31:
        return b, a
    if 1 <= a <= 12 and 1 <= b <= 31:
        return a, b
    return None


class _Found:
    """Quantities found so far, each with the position of its first mention in the text."""

    def __init__(self) -> None:
        self.at: dict[Quantity, int] = {}

    def add(self, q: Quantity, at: int) -> None:
        if q not in self.at or at < self.at[q]:
            self.at[q] = at

    def ordered(self) -> tuple[Quantity, ...]:
        """In the order of the text; quantities named at one place (a range, "weekends") in the
        order they were found (``sorted`` is stable and dicts keep their insertion order)."""
        return tuple(sorted(self.at, key=self.at.__getitem__))


@lru_cache(maxsize=131072)
def quantities(text: str) -> frozenset[Quantity]:
    """Every date, time, day and amount in ``text`` (see the module docstring). Pure and cached.
    ``in_order`` gives the same quantities in the order the text names them."""
    return frozenset(in_order(text))


@lru_cache(maxsize=131072)
def in_order(text: str) -> tuple[Quantity, ...]:
    """The quantities of ``text`` (``quantities``) in the order the text names them, so that a
    reader that needs one of several ("lớp 3B2": 3 or 2?) takes the same one on every run, whatever
    the hash seed of the process."""
    low = text.lower().replace("’", "'")
    out = _Found()
    if not _TRIGGER.search(low):
        _words(low, out)
        return out.ordered()
    spent: list[tuple[int, int]] = []

    def take(m: re.Match) -> bool:
        """Mark the span used; False when it overlaps a span read already."""
        s, e = m.span()
        if any(s < b and a < e for a, b in spent):
            return False
        spent.append((s, e))
        return True

    for m in _DATE_VI.finditer(low):
        if take(m) and 1 <= _int(m.group(2)) <= 12 and 1 <= _int(m.group(1)) <= 31:
            out.add(Quantity("date", (_int(m.group(2)), _int(m.group(1)))), m.start())
            if m.group(3):
                out.add(Quantity("year", _int(m.group(3))), m.start(3))
    for m in _DATE_EN.finditer(low):
        md = _parse_month_day(m)
        if md and take(m):
            out.add(Quantity("date", md), m.start())
            if m.group("y"):
                out.add(Quantity("year", _int(m.group("y"))), m.start("y"))
    for m in _TIME_COLON.finditer(low):
        hour, minute = _int(m.group(1)), _int(m.group(2))
        if hour <= 24 and minute < 60 and take(m):
            out.add(Quantity("time", _clock(hour, minute, m.group(3), low[m.end():m.end() + 12])), m.start())
    for m in _DATE_SLASH.finditer(low):
        md = _slash(_int(m.group(1)), _int(m.group(2)))
        if md and take(m):
            out.add(Quantity("date", md), m.start())
            if m.group(3) and len(m.group(3)) == 4:
                out.add(Quantity("year", _int(m.group(3))), m.start(3))
    for m in _TIME_AMPM.finditer(low):
        if _int(m.group(1)) <= 12 and take(m):
            out.add(Quantity("time", _clock(_int(m.group(1)), 0, m.group(2), "")), m.start())
    for m in _TIME_VI.finditer(low):
        hour = _int(m.group(1))
        if hour <= 24 and take(m):
            part = m.group(3) or _daypart_after(low, m.end())
            out.add(Quantity("time", _clock(hour, _int(m.group(2) or "0"), None, part or "")), m.start())
    for m in _MONTH_ALONE.finditer(low):
        month = _MONTHS.get(m.group("m") or "") or (_int(m.group("v")) if m.group("v") else 0)
        if 1 <= month <= 12 and take(m):
            out.add(Quantity("month", month), m.start())
    for m in _AGE.finditer(low):
        if take(m):
            out.add(Quantity("age", _int(next(g for g in m.groups() if g))), m.start())
    for m in _GRADE.finditer(low):
        if take(m):
            out.add(Quantity("grade", (m.group(1) or m.group(2)).lower()), m.start())
    for m in _FLOOR.finditer(low):
        if take(m):
            out.add(Quantity("floor", _int(m.group(1) or m.group(2))), m.start())
    for m in _DOM.finditer(low):
        if 1 <= _int(m.group(1)) <= 31 and take(m):
            out.add(Quantity("date", ("dom", _int(m.group(1)))), m.start())
    for m in _HEIGHT.finditer(low):
        if take(m):
            out.add(Quantity("length", round(_int(m.group(1)) + _int(m.group(2)) / 100, 4)), m.start())
    for m in _YEAR.finditer(low):
        if take(m):
            out.add(Quantity("year", _int(m.group(1))), m.start())
    for phrase, metres in _DISTANCES.items():
        at = low.find(phrase)
        if at >= 0 and (at == 0 or not low[at - 1].isalpha()) and not any(s <= at < e for s, e in spent):
            spent.append((at, at + len(phrase)))
            out.add(Quantity("length", metres), at)
    for m in _AMOUNT.finditer(low):
        if any(m.start("n") < b and a < m.end("n") for a, b in spent):
            continue
        amount = _amount(m)
        if amount is not None:
            spent.append(m.span("n"))
            out.add(amount, m.start())
    _days(low, spent, out)
    _words(low, out)
    for m in _DIGITS.finditer(low):
        if not any(s <= m.start() < e for s, e in spent):
            out.add(Quantity("number", _number(m.group(0))), m.start())
    return out.ordered()


def _number(text: str) -> float | int:
    text = text.replace(",", ".") if text.count(",") == 1 and len(text.split(",")[1]) != 3 else text.replace(",", "")
    value = float(text)
    return int(value) if value.is_integer() else value


def _clock(hour: int, minute: int, ampm: str | None, after: str) -> int:
    """Minutes after midnight; "pm" / "chiều" / "tối" / "evening" after the number move it past noon."""
    ampm = (ampm or "").replace(".", "")
    part = _DAYPARTS.get(after.strip().split(" ")[0] if after.strip() else "", "")
    if ampm == "pm" or (not ampm and part in ("afternoon", "evening", "night") and hour < 12):
        if hour < 12:
            hour += 12
    if ampm == "am" and hour == 12:
        hour = 0
    return (hour % 24) * 60 + minute


def _daypart_after(low: str, end: int) -> str | None:
    word = low[end:end + 8].strip().split(" ")[0] if low[end:end + 8].strip() else ""
    return word if word in ("sáng", "trưa", "chiều", "tối", "đêm") else None


def _amount(m: re.Match) -> Quantity | None:
    unit = (m.group("u") or "").lower()
    scale = {"k": 1e3, "nghìn": 1e3, "ngàn": 1e3, "m": 1e6, "tr": 1e6, "triệu": 1e6}.get(m.group("k") or "", 1.0)
    value = _number(m.group("n")) * scale
    if m.group("cur"):
        return Quantity("money", float(value))
    if m.group("k") == "m" and not m.group("cur"):
        return Quantity("length", float(_number(m.group("n"))))  # "5m": metres, not millions
    if unit in _UNITS:
        kind, factor = _UNITS[unit]
        return Quantity(kind, float(value) * factor)
    return None


_EN_DAY = re.compile(r"\b(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\s*[-–]\s*(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b")
_VI_DAY = re.compile(r"\bthứ\s+(hai|ba|tư|năm|sáu|bảy|2|3|4|5|6|7)\b|\bthu\s+(hai|ba|tu|nam|sau|bay|[2-7])\b"
                     r"|\b(chủ\s+nhật|chu\s+nhat|cn)\b")


def _days(low: str, spent: list[tuple[int, int]], out: _Found) -> None:
    for m in _EN_DAY.finditer(low):
        a, b = _WEEKDAYS[m.group(1)], _WEEKDAYS[m.group(2)]
        for d in range(a, b + 1):
            out.add(Quantity("weekday", d), m.start())
    words = [(m.group(0), m.start()) for m in re.finditer(r"[^\W\d_]+", low)]
    for w, at in words:
        if w in _WEEKDAYS and len(w) > 3:
            out.add(Quantity("weekday", _WEEKDAYS[w]), at)
        elif w in ("weekday", "weekdays"):
            for d in range(5):
                out.add(Quantity("weekday", d), at)
        elif w in ("weekend", "weekends"):
            for d in (5, 6):
                out.add(Quantity("weekday", d), at)
    for m in _VI_DAY.finditer(low):
        spent.append(m.span())
        if m.group(3):
            out.add(Quantity("weekday", 6), m.start())
        else:
            key = textmod.fold(m.group(1) or m.group(2))
            out.add(Quantity("weekday", _VI_WEEKDAYS[key]), m.start())
    weekend = [at for at in (low.find("cuối tuần"), low.find("cuoi tuan")) if at >= 0]
    if weekend:
        for d in (5, 6):
            out.add(Quantity("weekday", d), min(weekend))
    for (w, at), (nxt, _) in zip(words, words[1:] + [("", 0)]):
        part = _DAYPARTS.get(w)
        if part and w != "am" and not (w == "chiều" and nxt in ("cao", "dài", "rộng")):
            out.add(Quantity("daypart", part), at)


def _words(low: str, out: _Found) -> None:
    """Counts written as words: "two cats", "a dozen eggs", "hai con", "ba lần"."""
    found = [(m.group(0), m.start()) for m in re.finditer(r"[^\W\d_]+|\d+", low)]
    words = [w for w, _ in found]
    for i, (w, at) in enumerate(found):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in _NUMBER_WORDS and w not in ("single", "once", "twice", "both") and nxt and nxt not in ("of", "or", "and"):
            if w == "one" and nxt in ("day", "of"):
                continue  # "one day" (someday), "one of"
            out.add(Quantity("count", _NUMBER_WORDS[w]), at)
        elif w in ("once", "twice"):
            out.add(Quantity("count", _NUMBER_WORDS[w]), at)
        elif w in _VI_NUMBERS and nxt in _VI_COUNTED and not (w == "năm" and i and words[i - 1] in ("thứ", "mỗi")):
            if nxt == "tuổi":
                out.add(Quantity("age", _VI_NUMBERS[w]), at)
            else:
                out.add(Quantity("count", _VI_NUMBERS[w]), at)
        elif w.isdigit() and nxt in _VI_COUNTED and nxt not in ("tuổi", "giờ", "km", "kg", "tháng", "năm", "ngày", "tuần"):
            out.add(Quantity("count", int(w)), at)


def differ(a: frozenset[Quantity], b: frozenset[Quantity]) -> list[tuple[Quantity, Quantity]]:
    """Pairs ``(qa, qb)`` of one kind where ``a`` and ``b`` name different values and neither side
    names the other's value: "May 12" / "May 26" differ, "Mon, Wed" / "Mon" do not. Of several
    values of a kind the pair shows the first by ``_stable`` order (a frozenset has no order that
    holds from one process to the next)."""
    out = []
    kinds = {q.kind for q in a} & {q.kind for q in b}
    for kind in sorted(kinds):
        qa = sorted((q for q in a if q.kind == kind), key=_stable)
        qb = sorted((q for q in b if q.kind == kind), key=_stable)
        if any(x.same(y) for x in qa for y in qb):
            continue
        out.append((qa[0], qb[0]))
    return out


def _stable(q: Quantity) -> tuple[str, str]:
    """An order of quantities that is the same in every process: kind, then the value as written."""
    return q.kind, repr(q.value)


def agree(a: frozenset[Quantity], b: frozenset[Quantity]) -> bool:
    """True when every kind both name has one value in common and neither names more of a kind."""
    kinds = {q.kind for q in a} & {q.kind for q in b}
    for kind in kinds:
        qa = {q for q in a if q.kind == kind}
        qb = {q for q in b if q.kind == kind}
        if not all(any(x.same(y) for y in qb) for x in qa) or not all(any(y.same(x) for x in qa) for y in qb):
            return False
    return True


def show(q: Quantity) -> str:
    """A quantity as a person would write it: ``March 3``, ``23:00``, ``Monday``, ``12 km``."""
    if q.kind == "date":
        month, day = cast("tuple[Any, int]", q.value)
        if month == "dom":
            return f"the {day}th"
        return f"{_MONTH_TITLES[int(month) - 1]} {day}"
    if q.kind == "time":
        minutes = int(q.value)  # type: ignore[call-overload]
        return f"{minutes // 60:02d}:{minutes % 60:02d}"
    if q.kind == "weekday":
        return _DAY_TITLES[int(q.value)]  # type: ignore[call-overload]
    if q.kind == "month":
        return _MONTH_TITLES[int(q.value) - 1]  # type: ignore[call-overload]
    if q.kind == "length":
        metres = float(q.value)  # type: ignore[arg-type]
        return f"{metres / 1000:g} km" if metres >= 1000 else f"{metres:g} m"
    if q.kind == "mass":
        return f"{float(q.value):g} kg"  # type: ignore[arg-type]
    if q.kind == "money":
        return f"{float(q.value):,.0f}"  # type: ignore[arg-type]
    if q.kind == "duration":
        return f"{float(q.value):g} days"  # type: ignore[arg-type]
    if q.kind == "floor":
        return f"floor {q.value}"
    if q.kind == "grade":
        return f"grade {q.value}"
    if q.kind == "age":
        return f"age {q.value}"
    return str(q.value)


_MONTH_TITLES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                 "October", "November", "December")
_DAY_TITLES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

__all__ = ["Quantity", "quantities", "in_order", "differ", "agree", "show", "TOLERANCE"]
