"""Secrets stated in words, English and Vietnamese (with or without diacritics): passwords, PINs,
door and alarm codes, one-time codes, card security codes, API keys or tokens named as such, and
bank account numbers beside an account keyword or a bank's name.

The rules read the *folded* text (``fold.view``: lower case, no diacritics, đ → d), so "mật khẩu"
and "mat khau" are one keyword. One scan (a prefix tree of every keyword, which the regex engine
scans for in C) finds the keywords; a keyword with no word holding a digit or symbol, and no
separator and plain word, soon after it is passed over; the others are read by their family's
pattern, anchored at the keyword, every repetition in it bounded. So the time is linear in the text.

A statement is a keyword, up to a few qualifier words ("password *for the wifi* is", "mật khẩu
*wifi nhà mình* là"), an optional separator (is, was, =, :, là…) and a value; what makes the value
a secret depends on the keyword:

* a password keyword takes a value with a digit or symbol, or, after an explicit separator, a
  word that is not an ordinary one ("my password is swordfish" — not "… is expired");
* the short forms (``pass``, ``pw``, ``mk`` — also Vietnamese chat for "mình" — and ``pin``,
  also Vietnamese for battery) need a separator and a value with a digit or symbol;
* PINs, door codes and one-time codes are digits; API keys and tokens are long mixed strings;
* a bank account is a run of 6–20 digits after an account keyword ("số tài khoản", "STK",
  "account number", "sort code"…), or of 8–20 digits after a bank's name ("Vietcombank account is
  0071…"), unless it reads as a date, an amount of money or a hotline.

Qualifiers that make the phrase about something else ("password *manager*", "password *reset*",
"*bus* pass") end the statement.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from bestie_tui.store.gate.fold import TextView, alternation

Span = tuple[int, int]


def _words(*items: str) -> str:
    return alternation(items)


_KEYWORDS_OF: dict[str, tuple[str, ...]] = {}


def _keywords(*items: str) -> str:
    """A family's keywords as an alternation that matches only at a word start."""
    pattern = alternation(items, word_start="[a-z0-9]")
    _KEYWORDS_OF[pattern] = items
    return pattern


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
# A qualifier word. Possessive (``++``, Python 3.11): a word that did not lead to a separator is not
# tried again shortened letter by letter, which would cost a pass per letter.
_Q = r"(?:\s{1,3}+(?!(?:" + _BLOCKED + r")(?![a-z0-9]))[^\s:=.,;!?\"'`]{1,24}+)"
_PLACEHOLDER = r"(?![*x\u2022.]{3,}|<|\$\{|\{\{|%)"
# A value has four characters or more; it may end in "!" (a common last character of a password),
# not in ".,;:?)]".
_VALUE = r"[\"'`]?(?P<secret>[^\s\"'`]{3,127}[^\s\"'`.,;:?)\]])"
_HAS_SYMBOL = r"(?=[^\s\"'`]{0,127}?[0-9@#$%^&*_+=~|/\\<>{}\[\]-])"
_ORDINARY = r"(?=[a-z]{4})(?!(?:" + _STOP + r")(?![a-z0-9]))(?![a-z]{2,30}(?:ing|ed)(?![a-z0-9]))"

_PASSWORD_KW = _keywords("password", "passwords", "pass word", "passwd", "passcode", "passcodes", "passphrase",
                      "pass phrase", "pwd", "mat khau", "mat ma", "ma bi mat", "ma mo khoa", "login credentials")
_SHORT_KW = _keywords("pass", "pw", "mk", "mpass")
#: Words that make "pass" a ticket: "bus pass", "boarding pass", "season pass"…
_PASS_COMPOUNDS = {"bus", "boarding", "season", "ski", "day", "week", "weekly", "month", "monthly", "annual", "park",
                   "museum", "metro", "train", "rail", "transit", "travel", "festival", "backstage", "press", "hall",
                   "free", "guest", "vip", "gate", "toll", "fast", "express", "event", "gym", "parking", "mountain",
                   "hiking", "photo", "first", "second", "third", "final", "no", "a", "the", "to", "ve"}
_PIN_KW = _keywords("pin code", "pin codes", "pin number", "pin numbers", "ma pin", "ma so pin", "so pin", "pin")
#: Words before a lower-case "pin" that make it a PIN, not a battery ("pin" in Vietnamese).
_PIN_OWNERS = {"my", "your", "the", "atm", "sim", "card", "bank", "phone", "door", "garage", "safe", "debit", "credit",
               "ma", "its", "our", "his", "her", "new", "old"}
_CODE_KW = _keywords(*(f"{w} code" for w in ("door", "gate", "alarm", "lock", "safe", "garage", "access", "unlock", "entry",
                                           "building", "keypad", "locker", "door lock", "security system")),
                  *(f"{w} codes" for w in ("door", "gate", "alarm", "access")),
                  "ma cua", "ma khoa", "ma cong", "ma ket", "ma so cua", "ma so khoa", "ma so ket", "ma khoa cua")
_OTP_KW = _keywords("otp", "one time code", "one-time code", "one time password", "one-time password", "one-time pin",
                 "one time pin", "verification code", "security code", "confirmation code", "2fa code", "mfa code",
                 "auth code", "authentication code", "login code", "sms code", "ma otp", "ma xac nhan",
                 "ma xac thuc", "ma kich hoat", "ma giao dich", "ma bao mat", "ma dang nhap", "ma xac minh")
_CVV_KW = _keywords("cvv", "cvv2", "cvc", "cvc2", "csc", "cvn", "ma cvv", "ma cvc", "ma bao mat the", "card security code")
_KEY_KW = _keywords("api key", "api keys", "api-key", "api_key", "apikey", "secret key", "secret keys", "secret_key",
                 "access token", "access tokens", "access_token", "auth token", "auth_token", "refresh token",
                 "bearer token", "client secret", "client_secret", "app secret", "private token",
                 "personal access token", "khoa api", "ma token", "khoa bi mat", "license key")
_WEAK_KEY_KW = _keywords("token", "tokens", "secret", "secrets")

_SEP = (r"(?P<sep>(?:is|was|are|la)(?![a-z0-9])(?:\s{0,2}:)?"
        r"|(?:changed|set|updated|reset|doi|doi thanh)\s{1,2}(?:to|thanh)(?![a-z0-9])|=|:|->|=>|-)")
# A qualifier word. Possessive (``++``, Python 3.11): a word that did not lead to a separator is not
# tried again shortened letter by letter, which would cost a pass per letter.
_Q = r"(?:\s{1,3}+(?!(?:" + _BLOCKED + r")(?![a-z0-9]))[^\s:=.,;!?\"'`]{1,24}+)"
_PLACEHOLDER = r"(?![*x.]{3,}|<|\$\{|\{\{|%)"
# A value has four characters or more; it may end in "!" (a common last character of a password),
# not in ".,;:?)]".
_VALUE = r"[\"'`]?(?P<secret>[^\s\"'`]{3,127}[^\s\"'`.,;:?)\]])"
_HAS_SYMBOL = r"(?=[^\s\"'`]{0,127}?[0-9@#$%^&*_+=~|/\\<>{}\[\]-])"
_ORDINARY = r"(?=[a-z]{4})(?!(?:" + _STOP + r")(?![a-z0-9]))(?![a-z]{2,30}(?:ing|ed)(?![a-z0-9]))"
_R = r"(?![a-z0-9\-])"

_ACCOUNT_KW = _keywords(
    "so tai khoan", "so tk", "stk", "tai khoan ngan hang", "tai khoan", "tk", "bank account", "checking account",
    "savings account", "current account", "chequing account", "account number", "account no", "account #", "acct",
    "acct no", "acct #", "a/c", "a/c no", "routing number", "routing no", "sort code", "bsb", "bank acct",
    "so tai khoan ngan hang",
)
_BANKS = _keywords(
    "vietcombank", "vcb", "techcombank", "tcb", "bidv", "vietinbank", "agribank", "mb bank", "mbbank", "acb",
    "vpbank", "tpbank", "sacombank", "hdbank", "shb", "vib", "ocb", "seabank", "msb", "eximbank", "nam a bank",
    "bac a bank", "abbank", "lienvietpostbank", "lpbank", "kienlongbank", "pvcombank", "timo", "shinhan bank",
    "shinhan", "hsbc", "citibank", "standard chartered", "woori bank", "uob", "chase", "bank of america",
    "wells fargo", "barclays", "lloyds", "natwest", "santander", "revolut", "monzo", "deutsche bank",
    "bnp paribas", "commonwealth bank", "anz", "dbs", "ocbc", "maybank", "capital one", "pnc", "td bank",
    "scotiabank", "rbc", "n26", "ngan hang",
)


def _family(keywords: str, rest: str) -> str:
    return r"(?P<kw>" + keywords + ")" + rest


# "password (for the wifi) is X" and "the password X" (no separator: X must have a digit or symbol)
_PASSWORD = _family(_PASSWORD_KW, _R + _Q + r"{0,5}?\s{0,3}" + _SEP + r"\s{0,3}" + _PLACEHOLDER
                    + r"(?:" + _HAS_SYMBOL + "|" + _ORDINARY + r")" + _VALUE)
_PASSWORD_BARE = _family(_PASSWORD_KW, _R + _Q + r"{0,3}?\s{1,3}" + _PLACEHOLDER + _HAS_SYMBOL + _VALUE)
_SHORT = _family(_SHORT_KW, _R + _Q + r"{0,3}?\s{0,3}" + _SEP + r"\s{0,3}" + _PLACEHOLDER + _HAS_SYMBOL + _VALUE)
_PIN = _family(_PIN_KW, _R + _Q + r"{0,4}?(?:\s{0,3}" + _SEP + r")?\s{0,3}[\"'`]?"
               r"(?P<secret>\d{4,8})(?![0-9a-z%])")
_CODE = _family(_CODE_KW, _R + _Q + r"{0,3}?(?:\s{0,3}" + _SEP + r")?\s{0,3}[\"'`]?"
                r"(?P<secret>[0-9][0-9*#]{2,11})(?![0-9a-z])")
_OTP = _family(_OTP_KW, r"(?![a-z0-9])(?P<gap>[^0-9\n]{0,24}?)(?P<secret>(?:\d{4,8}|\d{3}[ \-]\d{3}))(?![0-9])")
_CVV = _family(_CVV_KW, r"(?![a-z0-9])[^0-9\n]{0,16}?(?P<secret>\d{3,4})(?![0-9])")
_KEY = _family(_KEY_KW, _R + _Q + r"{0,4}?(?:\s{0,3}" + _SEP + r")?\s{0,3}" + _PLACEHOLDER
               + r"[\"'`]?(?P<secret>(?=[^\s\"'`]{0,300}?[0-9])[^\s\"'`]{7,300}[^\s\"'`.,;:!?)\]])")
_WEAK_KEY = _family(_WEAK_KEY_KW, _R + _Q + r"{0,3}?\s{0,3}" + _SEP + r"\s{0,3}" + _PLACEHOLDER
                    + r"[\"'`]?(?P<secret>(?=[^\s\"'`]{0,300}?[0-9])[^\s\"'`]{9,300}[^\s\"'`.,;:!?)\]])")
_ACCOUNT = r"(?:(?P<acct>" + _ACCOUNT_KW + ")|(?P<bank>" + _BANKS + "))" \
    r"(?![a-z0-9])(?P<gap>[^0-9\n!?;]{0,40}?)(?P<secret>\d(?:[ .\-]?\d){5,23})(?![0-9])"
_YEAR_GAP = re.compile(r"\b(?:in|since|from|until|till|by|nam|before|after)\s*$")
_NOT_ACCOUNT = re.compile(r"hotline|tong dai|phone|tel\b|call|sdt|dien thoai|fax|swift|cskh|support|ho tro|"
                          r"branch|chi nhanh|since|nam \d|year|\. [a-z]")
_MONEY = re.compile(r"\d{1,3}(?:[.,]\d{3})+")
_DATE = re.compile(r"\d{4}[\-./]\d{1,2}[\-./]\d{1,2}|\d{1,2}[\-./]\d{1,2}[\-./]\d{2,4}")
_AFTER_MONEY = re.compile(r"\s?(?:d\b|vnd|dong|usd|eur|k\b|tr\b|trieu|nghin|ngan\b|\$|%)")


@dataclass(frozen=True)
class WordRule:
    name: str
    phrase: str


PASSWORD = WordRule("password", "a password")
PIN = WordRule("PIN", "a PIN")
CODE = WordRule("access code", "a door or alarm code")
OTP = WordRule("one-time code", "a one-time code")
CVV = WordRule("card security code", "a card security code")
KEY = WordRule("API key or token", "an API key or token")
ACCOUNT = WordRule("bank account", "a bank account number")

_FAMILIES = ((_PASSWORD, PASSWORD), (_PASSWORD_BARE, PASSWORD), (_SHORT, PASSWORD), (_PIN, PIN), (_CODE, CODE),
             (_OTP, OTP), (_CVV, CVV), (_KEY, KEY), (_WEAK_KEY, KEY), (_ACCOUNT, ACCOUNT))
_NAMES = ("password", "password", "short", "pin", "code", "otp", "cvv", "key", "key", "account")
_PATTERNS = [re.compile(source) for source, _ in _FAMILIES]
_FAMILY_WORDS = (_PASSWORD_KW, _PASSWORD_KW, _SHORT_KW, _PIN_KW, _CODE_KW, _OTP_KW, _CVV_KW, _KEY_KW, _WEAK_KEY_KW)
#: keyword → the indices of the families whose statements begin with it
_FAMILIES_OF: dict[str, list[int]] = {}
for _i, _words_of in enumerate([_KEYWORDS_OF[w] for w in _FAMILY_WORDS]
                               + [_KEYWORDS_OF[_ACCOUNT_KW] + _KEYWORDS_OF[_BANKS]]):
    for _word in _words_of:
        _FAMILIES_OF.setdefault(_word, []).append(_i)
# One scan finds every keyword. A statement needs, soon after its keyword, a word of three characters
# or more with a digit or symbol in it (a card code has three), or a separator and a plain word ("is swordfish", "là
# matkhau"): a keyword with neither within ``_REACH`` characters is passed over without reading it. The next such character is
# searched for only once the scan has passed the last one, so the searches never overlap.
_ANY_KEYWORD = re.compile("(?:" + alternation(_FAMILIES_OF, word_start="[a-z0-9]") + r")(?![a-z0-9])")
_INTERESTING = re.compile(r"(?<![^\s\"'`])(?=[^\s\"'`]{3})[^\s\"'`]{0,127}?[0-9@#$%^&*_+=~|/\\<>{}\[\]:]"
                          r"|(?<![a-z])(?:is|was|are|la|:|=)\s{1,3}[a-z]{4}")
_REACH = 170


def _mixed(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _word_before(folded: str, start: int) -> str:
    head = folded[start - 24 if start > 24 else 0:start].split()
    return head[-1] if head else ""


def _accept(family: str, get, start: int, end: int, view: TextView) -> bool:
    """The checks a pattern cannot say: who precedes a keyword, how long a value is. ``get(name)``
    reads a group of the family's match (``None`` for a group that did not take part)."""
    folded, kw, value = view.folded, get("kw"), get("secret")
    if family == "password":
        if len(value) < 4:
            return False
        if not value.isalpha():
            return True
        sep = (get("sep") or "").strip(" :")
        return bool(sep) and len(value) >= (6 if sep == "la" else 4)
    if family == "short":
        return len(value) >= 4 and not (kw == "pass" and _word_before(folded, start) in _PASS_COMPOUNDS)
    if family == "pin":
        if kw != "pin" or get("sep"):
            return True
        a, b = view.nfc_span(start, start + 3)
        return view.nfc[a:b].isupper() or _word_before(folded, start) in _PIN_OWNERS
    if family == "otp":
        return not (len(value) == 4 and value[:2] in ("19", "20") and _YEAR_GAP.search(get("gap")))
    if family == "key":
        return _mixed(value)
    if family == "account":
        digits = sum(c.isdigit() for c in value)
        if digits < (6 if get("acct") else 8) or digits > 20:
            return False
        return not (_NOT_ACCOUNT.search(get("gap")) or _MONEY.fullmatch(value) or _DATE.fullmatch(value)
                    or _AFTER_MONEY.match(folded, end))
    return True


def find_word_secrets(view: TextView) -> Iterator[tuple[WordRule, Span]]:
    """Every secret stated in words in ``view`` (spans of ``view.folded``), as ``(rule, span)``."""
    folded = view.folded
    end_of_last, interesting = 0, -1
    for k in _ANY_KEYWORD.finditer(folded):
        start = k.start()
        if start < end_of_last:  # inside a statement already found
            continue
        if interesting < start:
            found = _INTERESTING.search(folded, start)
            interesting = found.start() if found else len(folded) + _REACH + 1
        if interesting > start + _REACH:
            continue
        for i in _FAMILIES_OF[k.group()]:
            m = _PATTERNS[i].match(folded, start)
            if m is not None and _accept(_NAMES[i], m.groupdict().get, start, m.end(), view):
                end_of_last = m.end()
                yield _FAMILIES[i][1], m.span("secret")
                break
