"""Money secrets that are numbers: card numbers, IBANs and bank account numbers.

* **card numbers**: 13–19 digits, grouped by spaces, dashes, dots or no-break spaces, that pass the
  Luhn check (ISO/IEC 7812-1) *and* start with an issuer prefix that has that length (Visa 4…,
  Mastercard 51–55 and 2221–2720, Amex 34/37, Discover, JCB, Diners, UnionPay 62, Maestro, Mir,
  NAPAS 9704 in Viet Nam). An IMEI is Luhn-valid too but has 15 digits and no such prefix (and a
  number after the word "IMEI" is never a card).
* **IBANs**: the ISO 13616 shape with a valid mod-97 check.
* **bank accounts**: a run of 6–20 digits after an account keyword (English or Vietnamese: "số tài
  khoản", "STK", "account number", "sort code"…), or of 8–20 digits after a bank's name
  ("Vietcombank account is 0071…", "STK VCB …"), unless it reads as a date, an amount of money or a
  telephone hotline.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

Span = tuple[int, int]

_CARD_RUN = re.compile(r"(?<![0-9])\d(?:[ \-.]?\d){11,18}(?![0-9])")
_IMEI = re.compile(r"imei|serial|s/n|\bsn\b|meid")
_IBAN = re.compile(r"(?<![A-Z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Z0-9])")


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


def iban_ok(candidate: str) -> bool:
    """True when ``candidate`` (spaces allowed) passes the IBAN mod-97 check (ISO 13616)."""
    s = candidate.replace(" ", "").upper()
    if not 15 <= len(s) <= 34:
        return False
    rearranged = s[4:] + s[:4]
    try:
        number = int("".join(str(int(c, 36)) for c in rearranged))
    except ValueError:
        return False
    return number % 97 == 1


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
    if _TWELVE.search(folded) is None:  # a cheap scan first: most texts have no long number at all
        return
    for m in _CARD_RUN.finditer(folded):
        digits = re.sub(r"\D", "", m.group())
        if not 13 <= len(digits) <= 19 or not issuer_ok(digits) or not luhn_ok(digits):
            continue
        if _MONEY.fullmatch(m.group()) or _IMEI.search(folded, max(0, m.start() - 16), m.start()):
            continue
        yield m.span()


_TWELVE = re.compile(r"\d(?:[ \-.]?\d){11}")
_SIX = re.compile(r"\d(?:[ .\-]?\d){5}")


def find_ibans(nfc: str) -> Iterator[Span]:
    upper = nfc.upper()
    for m in _IBAN.finditer(upper):
        if iban_ok(m.group()):
            yield m.span()


def _words(*items: str) -> str:
    return "|".join(sorted(items, key=len, reverse=True))


_ACCOUNT_KW = _words(
    "so tai khoan", "so tk", "stk", "tai khoan ngan hang", "tai khoan", "tk", "bank account", "checking account",
    "savings account", "current account", "chequing account", "account number", "account no", "account no.",
    "account #", "acct", "acct no", "acct no.", "acct #", "a/c", "a/c no", "routing number", "routing no",
    "sort code", "bsb", "bank acct", "so the", "so tai khoan ngan hang",
)
_BANKS = _words(
    "vietcombank", "vcb", "techcombank", "tcb", "bidv", "vietinbank", "agribank", "mb bank", "mbbank", "acb",
    "vpbank", "tpbank", "sacombank", "hdbank", "shb", "vib", "ocb", "seabank", "msb", "eximbank", "nam a bank",
    "bac a bank", "abbank", "lienvietpostbank", "lpbank", "kienlongbank", "pvcombank", "timo", "shinhan bank",
    "shinhan", "hsbc", "citibank", "standard chartered", "woori bank", "uob", "chase", "bank of america",
    "wells fargo", "barclays", "lloyds", "natwest", "santander", "revolut", "monzo", "deutsche bank",
    "bnp paribas", "commonwealth bank", "anz", "dbs", "ocbc", "maybank", "capital one", "pnc", "td bank",
    "scotiabank", "rbc", "n26", "ngan hang",
)
_ACCOUNT = re.compile(r"(?<![a-z0-9])(?:(?P<kw>" + _ACCOUNT_KW + r")|(?P<bank>" + _BANKS + r"))(?![a-z0-9])"
                      r"(?P<gap>[^0-9\n!?;]{0,40}?)(?P<secret>(?<![0-9])\d(?:[ .\-]?\d){5,23})(?![0-9])")
_NOT_ACCOUNT = re.compile(r"hotline|tong dai|phone|tel\b|call|sdt|dien thoai|fax|swift|cskh|support|ho tro|"
                          r"branch|chi nhanh|since|nam \d|year|\. ")
_MONEY = re.compile(r"\d{1,3}(?:[.,]\d{3})+")
_DATE = re.compile(r"\d{4}[\-./]\d{1,2}[\-./]\d{1,2}|\d{1,2}[\-./]\d{1,2}[\-./]\d{2,4}")
_AFTER_MONEY = re.compile(r"\s?(?:d\b|đ|vnd|dong|usd|eur|k\b|tr\b|trieu|nghin|ngan\b|\$|%)")


def find_accounts(folded: str) -> Iterator[Span]:
    """Spans of bank account numbers beside an account keyword or a bank's name in ``folded``."""
    if _SIX.search(folded) is None:
        return
    for m in _ACCOUNT.finditer(folded):
        value = m.group("secret")
        digits = sum(c.isdigit() for c in value)
        if digits < (6 if m.group("kw") else 8) or digits > 20:
            continue
        if _NOT_ACCOUNT.search(m.group("gap")) or _MONEY.fullmatch(value) or _DATE.fullmatch(value):
            continue
        if _AFTER_MONEY.match(folded, m.end()):
            continue
        yield m.span("secret")
