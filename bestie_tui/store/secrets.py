"""The secret guard: text that must never be stored, whatever the write policy.

``detect_secret(text)`` returns the *kind* of secret found ("a password", "a card number", …) or
``None``. It never returns the matched text, so callers cannot leak it into events or logs.

Checks, in order: private key blocks; well-known API key/token shapes (OpenAI ``sk-``, GitHub ``ghp_``,
Slack ``xox?-``, AWS ``AKIA``, Google ``AIza``, Telegram bot tokens, JWTs); a password/PIN/token stated
with a keyword (English and Vietnamese); a one-time code stated with a keyword; card numbers of 13–19
digits that pass the Luhn check (ISO/IEC 7812-1); IBANs that pass the ISO 13616 mod-97 check; bank
account numbers given with a keyword.
"""

from __future__ import annotations

import re

_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----|PuTTY-User-Key-File|\bssh-(?:rsa|ed25519) AAAA")
_TOKEN_SHAPES = re.compile(
    r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|glpat-[A-Za-z0-9_\-]{20,}"
    r"|github_pat_[A-Za-z0-9_]{30,}"
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_\-]{35}"
    r"|\d{8,10}:[A-Za-z0-9_\-]{35}"
    r"|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})"
)
_SECRET_WORD = (
    r"(?:password|passwd|passcode|pass phrase|passphrase|pwd|pin(?: code)?|api[ _-]?key|secret(?: key)?"
    r"|access[ _-]?token|auth[ _-]?token|bearer token|token|mật khẩu|mat khau|mã pin|ma pin)"
)
_PASSWORD_WORD = r"(?:password|passwd|passcode|passphrase|pass phrase|pass|pwd|pw|pin(?: code)?|mật khẩu|mat khau|mã pin|ma pin)"
_STATED_PASSWORD = re.compile(
    r"\b" + _PASSWORD_WORD + r"(?:\s+\w+){0,2}?\s*(?:is|was|=|:|là|la)\s*[\"'`]?[^\s\"'`]{4,}", re.IGNORECASE
)
_STATED_SECRET = re.compile(
    _SECRET_WORD + r"\s*(?:is|was|=|:|là|la)?\s*[\"'`]?(?=[^\s\"'`]*[0-9!@#$%^&*_\-])[^\s\"'`]{4,}",
    re.IGNORECASE,
)
_OTP = re.compile(
    r"(?:otp|one[- ]time (?:code|password)|verification code|security code|2fa code|auth(?:entication)? code"
    r"|login code|mã (?:otp|xác (?:nhận|thực))|ma (?:otp|xac (?:nhan|thuc)))"
    r"\D{0,20}\b\d{4,8}\b",
    re.IGNORECASE,
)
_BANK_ACCOUNT = re.compile(
    r"(?:(?:bank |checking |savings )?account(?: (?:number|no\.?|#))?|acct(?: no\.?)?|routing number|sort code|bsb"
    r"|số tài khoản|so tai khoan|stk)"
    r"\W{0,5}\d[\d \-]{5,}",
    re.IGNORECASE,
)
# scheme://user:password@host — credentials inside a URL or connection string.
_URL_CREDENTIALS = re.compile(r"\b[a-z][a-z0-9+.\-]*://[^\s/:@]+:[^\s/@]+@", re.IGNORECASE)
_DIGIT_RUN = re.compile(r"(?<![\d])\d(?:[ \-]?\d){12,18}(?![\d])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")


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


def detect_secret(text: str) -> str | None:
    """Return what kind of secret ``text`` holds (e.g. ``"a card number"``), or ``None``.

    Args:
        text: the memory text to check.

    Returns:
        A short human phrase naming the kind, safe to show; never any part of the secret.
    """
    if _PRIVATE_KEY.search(text):
        return "a private key"
    if _TOKEN_SHAPES.search(text):
        return "an API key or access token"
    if _URL_CREDENTIALS.search(text):
        return "a password inside a URL"
    if _OTP.search(text):
        return "a one-time code"
    if _STATED_PASSWORD.search(text) or _STATED_SECRET.search(text):
        return "a password, PIN or token"
    for match in _DIGIT_RUN.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if 13 <= len(digits) <= 19 and luhn_ok(digits):
            return "a card number"
    for match in _IBAN.finditer(text.upper()):
        if iban_ok(match.group()):
            return "an IBAN"
    if _BANK_ACCOUNT.search(text):
        return "bank account details"
    return None
