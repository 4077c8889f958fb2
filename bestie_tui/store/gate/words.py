"""Secrets stated in words, English and Vietnamese (with or without diacritics): passwords, PINs,
door and alarm codes, one-time codes, card security codes and API keys or tokens given beside the
word that names them.

The rules read a *folded* copy of the text (``fold``: lower case, Vietnamese diacritics dropped,
đ → d, no-break spaces → spaces) that has exactly the length of the NFC text, so a span found in
the folded copy is the same span of the text. A statement is a keyword, up to a few qualifier
words ("password *for the wifi* is", "mật khẩu *wifi nhà mình* là"), an optional separator (is,
was, =, :, là…) and a value; what makes the value a secret depends on the keyword:

* a password keyword takes a value with a digit or symbol, or, after an explicit separator, a
  word that is not an ordinary one ("my password is swordfish" — not "… is expired");
* the short forms (``pass``, ``pw``, ``mk`` — also Vietnamese chat for "mình" — and ``pin``,
  also Vietnamese for battery) need a separator and a value with a digit or symbol;
* PINs, door codes and one-time codes are digits; API keys and tokens are long mixed strings.

Qualifiers that make the phrase about something else ("password *manager*", "password *reset*",
"*bus* pass") end the statement. Every repetition is bounded, so the rules run in linear time.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

Span = tuple[int, int]

_SPACES = "\u00a0\u2007\u2009\u202f\u2002\u2003\u3000"


@lru_cache(maxsize=1)
def _fold_table() -> dict[int, str]:
    table: dict[int, str] = {cp: chr(cp + 32) for cp in range(0x41, 0x5B)}
    for lo, hi in ((0xC0, 0x250), (0x1E00, 0x1F00)):
        for cp in range(lo, hi):
            base = unicodedata.normalize("NFD", chr(cp))[0]
            if base.isascii() and base.isalpha():
                table[cp] = base.lower()
    table.update({ord(c): r for c, r in (("đ", "d"), ("Đ", "d"), ("ø", "o"), ("Ø", "o"), ("ł", "l"), ("Ł", "l"),
                                           ("ß", "s"), ("æ", "a"), ("Æ", "a"))})
    table.update({ord(c): " " for c in _SPACES})
    return table


def fold(text: str) -> tuple[str, str]:
    """``(nfc, folded)``: the NFC form of ``text`` and its folded copy, of the same length."""
    nfc = unicodedata.normalize("NFC", text)
    if nfc.isascii():
        return nfc, nfc.lower()
    return nfc, nfc.translate(_fold_table())


def _words(*items: str) -> str:
    return "|".join(sorted(items, key=len, reverse=True))


# Words that end a statement: the phrase is about a tool, a rule or an event, not a value.
_BLOCKED = _words(
    "manager", "managers", "manage", "managed", "reset", "resets", "policy", "policies", "strength", "hint", "hints",
    "field", "fields", "rule", "rules", "requirement", "requirements", "required", "requires", "protected",
    "protection", "generator", "vault", "app", "apps", "recovery", "expired", "expires", "expiry", "expiration",
    "length", "change", "changed", "changes", "changing", "update", "updated", "must", "should", "needs", "need",
    "format", "complexity", "checker", "prompt", "screen", "page", "form", "box", "input", "quan", "doi", "quen",
    "forgot", "forgotten", "lost", "wrong", "incorrect", "sharing", "shared", "stored", "saved", "not", "never",
    "khong", "phai", "nen",
)
# Ordinary words that can follow "password is" without being one.
_STOP = _words(
    "the", "a", "an", "my", "your", "his", "her", "their", "our", "its", "this", "that", "these", "those", "same",
    "strong", "weak", "long", "short", "wrong", "right", "correct", "incorrect", "invalid", "valid", "expired",
    "required", "optional", "needed", "necessary", "changed", "reset", "saved", "stored", "written", "hidden",
    "secure", "safe", "unsafe", "different", "easy", "hard", "simple", "complex", "complicated", "there", "here",
    "case", "sensitive", "protected", "encrypted", "hashed", "ready", "new", "old", "blank", "empty", "missing",
    "forgotten", "lost", "unknown", "not", "also", "still", "too", "very", "really", "quite", "somewhere",
    "taped", "stuck", "printed", "shared", "sent", "secret", "private", "public", "personal", "known", "good",
    "bad", "fine", "okay", "unique", "random", "default", "temporary", "what", "which", "where", "when", "how",
    "why", "who", "something", "nothing", "anything", "everything", "same", "none", "null", "true", "false",
    "inside", "under", "behind", "near", "next", "with", "without", "for", "from", "about", "into", "onto",
    "ten", "gi", "nao", "dau", "sai", "dung", "moi", "dai", "ngan", "yeu", "manh", "sinh", "ngay", "minh",
    "toi", "cua", "tren", "trong", "duoi", "giong", "nhu", "roi", "chua", "khong", "bao", "nhieu", "day",
    "kia", "nay", "cung", "van", "dang", "rat", "qua", "lam", "ban", "anh", "chi", "em", "con", "cai", "nhung",
    "mot", "hai", "viet", "tieng", "chu", "so", "dien", "thoai", "now", "currently", "just", "actually", "set",
    "simply", "literally", "probably", "always", "usually", "being", "been", "then", "and", "but", "or", "to",
)
_SEP = r"(?P<sep>(?:is|was|are|la)(?:\s{0,2}:)?|(?:changed|set|updated|reset|doi|doi thanh)\s{1,2}(?:to|thanh)|=|:|->|=>|-|\u2014)"
_Q = r"(?:\s{1,3}(?!(?:" + _BLOCKED + r")(?![a-z0-9]))[^\s:=.,;!?\"'`]{1,24})"
_PLACEHOLDER = r"(?![*x\u2022.]{3,}|<|\$\{|\{\{|%)"
_VALUE = r"[\"'`]?(?P<secret>[^\s\"'`]{1,127}[^\s\"'`.,;:!?)\]])"
_HAS_SYMBOL = r"(?=[^\s\"'`]{0,127}?[0-9@#$%^&*_+=~|/\\<>{}\[\]-])"
_ORDINARY = r"(?!(?:" + _STOP + r")(?![a-z0-9]))(?![a-z]{2,30}(?:ing|ed)(?![a-z0-9]))"

_PASSWORD_KW = _words("password", "passwords", "pass word", "passwd", "passcode", "passcodes", "passphrase",
                      "pass phrase", "pwd", "mat khau", "mat ma", "ma bi mat", "ma mo khoa", "login credentials")
_SHORT_KW = _words("pass", "pw", "mk", "mpass")
#: Words that make "pass" a ticket: "bus pass", "boarding pass", "season pass"…
_PASS_COMPOUNDS = {"bus", "boarding", "season", "ski", "day", "week", "weekly", "month", "monthly", "annual", "park",
                   "museum", "metro", "train", "rail", "transit", "travel", "festival", "backstage", "press", "hall",
                   "free", "guest", "vip", "gate", "toll", "fast", "express", "event", "gym", "parking", "mountain",
                   "hiking", "photo", "first", "second", "third", "final", "no", "a", "the", "to", "ve"}
_PIN_KW = _words("pin code", "pin codes", "pin number", "pin numbers", "ma pin", "ma so pin", "so pin", "pin")
#: Words before a lower-case "pin" that make it a PIN, not a battery ("pin" in Vietnamese).
_PIN_OWNERS = {"my", "your", "the", "atm", "sim", "card", "bank", "phone", "door", "garage", "safe", "debit", "credit",
               "ma", "its", "our", "his", "her", "new", "old"}
_CODE_KW = _words(*(f"{w} code" for w in ("door", "gate", "alarm", "lock", "safe", "garage", "access", "unlock", "entry",
                                           "building", "keypad", "locker", "door lock", "security system")),
                  *(f"{w} codes" for w in ("door", "gate", "alarm", "access")),
                  "ma cua", "ma khoa", "ma cong", "ma ket", "ma so cua", "ma so khoa", "ma so ket", "ma khoa cua")
_OTP_KW = _words("otp", "one time code", "one-time code", "one time password", "one-time password", "one-time pin",
                 "one time pin", "verification code", "security code", "confirmation code", "2fa code", "mfa code",
                 "auth code", "authentication code", "login code", "sms code", "ma otp", "ma xac nhan",
                 "ma xac thuc", "ma kich hoat", "ma giao dich", "ma bao mat", "ma dang nhap", "ma xac minh")
_CVV_KW = _words("cvv", "cvv2", "cvc", "cvc2", "csc", "cvn", "ma cvv", "ma cvc", "ma bao mat the", "card security code")
_KEY_KW = _words("api key", "api keys", "api-key", "api_key", "apikey", "secret key", "secret keys", "secret_key",
                 "access token", "access tokens", "access_token", "auth token", "auth_token", "refresh token",
                 "bearer token", "client secret", "client_secret", "app secret", "private token",
                 "personal access token", "khoa api", "ma token", "khoa bi mat", "license key")
_WEAK_KEY_KW = _words("token", "tokens", "secret", "secrets")

_L = r"(?<![a-z0-9])"
_R = r"(?![a-z0-9\-])"

# "password (for the wifi) is X" and "the password X" (no separator: X must have a digit or symbol)
_PASSWORD = re.compile(
    _L + r"(?P<kw>" + _PASSWORD_KW + ")" + _R + _Q + r"{0,5}?"
    r"\s{0,3}" + _SEP + r"\s{0,3}" + _PLACEHOLDER + r"(?:" + _HAS_SYMBOL + "|" + _ORDINARY + r")" + _VALUE)
_PASSWORD_BARE = re.compile(
    _L + r"(?P<kw>" + _PASSWORD_KW + ")" + _R + _Q + r"{0,3}?\s{1,3}" + _PLACEHOLDER + _HAS_SYMBOL + _VALUE)
_SHORT = re.compile(
    _L + r"(?P<kw>" + _SHORT_KW + ")" + _R + _Q + r"{0,3}?\s{0,3}" + _SEP + r"\s{0,3}" + _PLACEHOLDER + _HAS_SYMBOL
    + _VALUE)
_PIN = re.compile(
    _L + r"(?P<kw>" + _PIN_KW + ")" + _R + _Q + r"{0,4}?(?:\s{0,3}" + _SEP + r")?\s{0,3}[\"'`]?"
    r"(?P<secret>(?<![0-9])\d{4,8})(?![0-9a-z%])")
_CODE = re.compile(
    _L + r"(?P<kw>" + _CODE_KW + ")" + _R + _Q + r"{0,3}?(?:\s{0,3}" + _SEP + r")?\s{0,3}[\"'`]?"
    r"(?P<secret>(?<![0-9])[0-9][0-9*#]{2,11})(?![0-9a-z])")
_OTP = re.compile(_L + r"(?P<kw>" + _OTP_KW + r")(?![a-z0-9])(?P<gap>[^0-9\n]{0,24}?)"
                  r"(?P<secret>(?<![0-9])(?:\d{4,8}|\d{3}[ \-]\d{3}))(?![0-9])")
_CVV = re.compile(_L + r"(?P<kw>" + _CVV_KW + r")(?![a-z0-9])[^0-9\n]{0,16}?(?P<secret>(?<![0-9])\d{3,4})(?![0-9])")
_KEY = re.compile(
    _L + r"(?P<kw>" + _KEY_KW + ")" + _R + _Q + r"{0,4}?(?:\s{0,3}" + _SEP + r")?\s{0,3}"
    + _PLACEHOLDER + r"[\"'`]?(?P<secret>[^\s\"'`]{7,300}[^\s\"'`.,;:!?)\]])")
_WEAK_KEY = re.compile(
    _L + r"(?P<kw>" + _WEAK_KEY_KW + ")" + _R + _Q + r"{0,3}?\s{0,3}" + _SEP + r"\s{0,3}"
    + _PLACEHOLDER + r"[\"'`]?(?P<secret>[^\s\"'`]{9,300}[^\s\"'`.,;:!?)\]])")
_YEAR_GAP = re.compile(r"\b(?:in|since|from|until|till|by|nam|before|after)\s*$")


@dataclass(frozen=True)
class WordRule:
    name: str
    phrase: str
    #: cheap substrings of the folded text, one of which a statement needs
    anchors: tuple[str, ...]


PASSWORD = WordRule("password", "a password", ("pass", "pwd", "mat khau", "mat ma", "ma bi mat", "ma mo khoa",
                                               "credentials", "pw", "mk"))
PIN = WordRule("PIN", "a PIN", ("pin",))
CODE = WordRule("access code", "a door or alarm code", (" code", "ma "))
OTP = WordRule("one-time code", "a one-time code", ("otp", "code", "ma "))
CVV = WordRule("card security code", "a card security code", ("cv", "csc", "ma bao mat the", "security code"))
KEY = WordRule("API key or token", "an API key or token", ("key", "token", "secret", "khoa", "apikey"))


def _mixed(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _word_before(folded: str, start: int) -> str:
    head = folded[max(0, start - 24):start].split()
    return head[-1] if head else ""


def _letters_only_ok(m: re.Match) -> bool:
    value = m.group("secret")
    if not value.isalpha():
        return True
    sep = (m.groupdict().get("sep") or "").strip(" :")
    return bool(sep) and len(value) >= (6 if sep == "la" else 4)


def find_word_secrets(nfc: str, folded: str) -> Iterator[tuple[WordRule, Span]]:
    """Every secret stated in words in ``folded`` (see ``fold``), as ``(rule, span)``."""
    def has(rule: WordRule) -> bool:
        return any(a in folded for a in rule.anchors)

    if has(PASSWORD):
        for pattern in (_PASSWORD, _PASSWORD_BARE):
            for m in pattern.finditer(folded):
                if len(m.group("secret")) >= 4 and _letters_only_ok(m):
                    yield PASSWORD, m.span("secret")
        for m in _SHORT.finditer(folded):
            if m.group("kw") == "pass" and _word_before(folded, m.start()) in _PASS_COMPOUNDS:
                continue
            if len(m.group("secret")) >= 4:
                yield PASSWORD, m.span("secret")
    if has(PIN):
        for m in _PIN.finditer(folded):
            kw = m.group("kw")
            if kw == "pin" and not m.group("sep") and not nfc[m.start("kw"):m.end("kw")].isupper() \
                    and _word_before(folded, m.start()) not in _PIN_OWNERS:
                continue
            yield PIN, m.span("secret")
    if has(CODE):
        for m in _CODE.finditer(folded):
            yield CODE, m.span("secret")
    if has(OTP):
        for m in _OTP.finditer(folded):
            value = m.group("secret")
            if len(value) == 4 and value[:2] in ("19", "20") and _YEAR_GAP.search(m.group("gap")):
                continue  # "OTP login since 2021": a year
            yield OTP, m.span("secret")
    if has(CVV):
        for m in _CVV.finditer(folded):
            yield CVV, m.span("secret")
    if has(KEY):
        for m in _KEY.finditer(folded):
            if _mixed(m.group("secret")):
                yield KEY, m.span("secret")
        for m in _WEAK_KEY.finditer(folded):
            if _mixed(m.group("secret")):
                yield KEY, m.span("secret")
