"""Money secrets that are numbers: card numbers and IBANs (bank account numbers, which need their
keyword or bank's name, are read with the other stated secrets in ``words``).

* **card numbers**: 13–19 digits, grouped any way by spaces, dashes, dots or no-break spaces (up
  to three between two digits), that pass the
  Luhn check (ISO/IEC 7812-1) *and* start with an issuer prefix that has that length (Visa 4…,
  Mastercard 51–55 and 2221–2720, Amex 34/37, Discover, JCB, Diners, UnionPay 62, Maestro, Mir,
  NAPAS 9704 in Viet Nam). An IMEI is Luhn-valid too but has 15 digits and no such prefix (and a
  number after the word "IMEI" is never a card).
* **IBANs**: two letters, two check digits and 11–30 letters or digits, grouped by single spaces,
  dashes or dots, with a valid mod-97 check (ISO 13616); the longest prefix that passes is the
  IBAN, so words after it do not hide it.

Both patterns begin with a digit, which the regex engine finds by a fast scan; a digit's left
neighbour is checked after it (a look-behind *first* would disable that scan).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

Span = tuple[int, int]

# A digit that can begin a card (issuers' numbers start with 2–6 or 9) and does not follow another
# digit, then 12–18 more digits, each after an optional separator.
_CARD_RUN = re.compile(r"[2-69](?<![0-9].)(?:[ \-.]{0,3}\d){12,18}(?![0-9])")
_IMEI = re.compile(r"imei|serial|s/n|\bsn\b|meid")
_MONEY = re.compile(r"\d{1,3}(?:[.,]\d{3})+")


def luhn_ok(digits: str) -> bool:
    """True when the digit string passes the Luhn mod-10 check (ISO/IEC 7812-1)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


#: IBAN length per country (the ISO 13616 registry).
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29, "BY": 28,
    "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
    "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20,
    "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15,
    "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19,
    "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}
# The check digits of an IBAN, after two letters at a word start (the country is looked up after).
_IBAN = re.compile(r"\d(?<=(?<![A-Za-z0-9])[A-Za-z]{2}\d)\d")
_LETTER_DIGITS = {ord(c): str(10 + i) for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}


def iban_ok(candidate: str) -> bool:
    """True when ``candidate`` (spaces allowed) passes the IBAN mod-97 check (ISO 13616)."""
    s = candidate.replace(" ", "").upper()
    if not 15 <= len(s) <= 34 or not s.isalnum() or not s.isascii():
        return False
    return int((s[4:] + s[:4]).translate(_LETTER_DIGITS)) % 97 == 1


def issuer_ok(digits: str) -> bool:
    """True when ``digits`` start with a card issuer's prefix that issues numbers of that length."""
    n = len(digits)
    two, four = int(digits[:2]), int(digits[:4])
    if digits[0] == "4":
        return n in (13, 16, 19)  # Visa
    if 51 <= two <= 55 or 2221 <= four <= 2720:
        return n == 16  # Mastercard
    if two in (34, 37):
        return n == 15  # American Express
    if digits.startswith("6011") or 644 <= int(digits[:3]) <= 649 or two == 65:
        return 16 <= n <= 19  # Discover
    if 3528 <= four <= 3589:
        return 16 <= n <= 19  # JCB
    if 300 <= int(digits[:3]) <= 305 or two in (36, 38, 39) or digits.startswith("309"):
        return 14 <= n <= 19  # Diners Club
    if two == 62 or digits.startswith("9704"):
        return 16 <= n <= 19  # UnionPay; NAPAS (Viet Nam's domestic cards)
    if 2200 <= four <= 2204:
        return n == 16  # Mir
    if two == 50 or 56 <= two <= 69:
        return 12 <= n <= 19  # Maestro
    return False


def find_cards(folded: str) -> Iterator[Span]:
    """Spans of card numbers in ``folded`` (no-break spaces already turned into spaces)."""
    for m in _CARD_RUN.finditer(folded):
        run = m.group()
        digits = "".join(c for c in run if c.isdigit())
        if not 13 <= len(digits) <= 19 or not issuer_ok(digits) or not luhn_ok(digits):
            continue
        if _MONEY.fullmatch(run) or _IMEI.search(folded, max(0, m.start() - 16), m.start()):
            continue
        yield m.span()


def find_ibans(nfc: str) -> Iterator[Span]:
    """Spans of IBANs in ``nfc``: a candidate's first characters, as many as its country's IBAN
    has (letters and digits, single spaces between groups), when they pass mod 97 — so words after
    an IBAN do not hide it."""
    seen: dict[str, int] = {}  # candidate text → the IBAN's length in it (0: none); checked once
    done = 0
    for m in _IBAN.finditer(nfc):
        start = m.start() - 2
        if start < done:
            continue
        length = IBAN_LENGTHS.get(nfc[start:start + 2].upper())
        if length is None:
            continue
        raw = nfc[start:start + 2 * length]
        found = seen.get(raw)
        if found is None:
            found = seen[raw] = _iban_prefix(raw, length)
        if found:
            done = start + found
            yield start, done


def _iban_prefix(raw: str, length: int) -> int:
    """Characters of ``raw`` that hold an IBAN of ``length`` letters and digits (a single space,
    dash or dot allowed between them) passing mod 97, or 0."""
    compact: list[str] = []
    prev_space = False
    for i, ch in enumerate(raw):
        if ch in " -." and not prev_space and compact:
            prev_space = True
            continue
        if not (ch.isascii() and ch.isalnum()):
            return 0
        prev_space = False
        compact.append(ch)
        if len(compact) == length:
            return i + 1 if iban_ok("".join(compact)) else 0
    return 0


