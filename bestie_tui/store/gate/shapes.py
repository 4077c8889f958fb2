"""Credentials recognised by their shape, not by a vendor's format or one fixed phrase.

The vendor formats (``tokens``) and the stated-secret phrases (``words``) know what a secret is
*called*; these rules read how a credential is *written*, English and Vietnamese, on the folded
text (``fold.view``: lower case, no diacritics):

* **a credential cue and a value**, either order: a cue noun (password, passphrase, pass, PIN,
  PUK, key, token, secret, seed, combination, backup code, "mật khẩu", "mã PIN"…), a few qualifier
  words, an optional separator (is, was, =, :, là, "set to"…) and a value of the cue's shape
  ("the home wifi key is Tr0ub4dor&3", "passphrase correct horse battery staple"); or the value
  first and the cue after it ("use Kx9!mQ as my password", "G-228732 is your verification code",
  "Zq8#tt là mật khẩu wifi");
* **a user and a password written as a pair** after a login cue ("NAS login admin / Sa8gE6ci",
  "credentials: root/root", "SSH: admin / admin", "tài khoản admin/123456");
* **national identity numbers** after their cue (SSN, passport, tax code, CCCD/CMND, "mã số
  thuế"…): a run of at least six digits, with a letter or two in front where a passport has them.

What a value must look like depends on the cue (``_value_ok``): after a password cue, a word with a
digit, a symbol or an inner capital, or after an explicit separator any word that is not an
ordinary one; after a key or token cue, a string of six characters or more mixing letters with
digits or symbols, or a long string of high entropy; after a code cue, digits in groups. Dates,
versions, amounts, times and measures are never values.

Each rule is found from its cue (one scan of a prefix-tree alternation, which the regex engine
runs in C) and read in a bounded window around it, so the time is linear in ``len(text)``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

from bestie_tui.store.gate.fold import TextView, alternation
from bestie_tui.store.gate.words import _PASS_COMPOUNDS, ACCOUNT, CODE, KEY, OTP, PASSWORD, PIN, WordRule

Span = tuple[int, int]

IDENTITY = WordRule("identity number",  "a national identity number")
LOGIN = WordRule("login", "a user name and password")

# Cue families. ``password``: the value may be a plain word after a separator; ``key``: the value
# is token-shaped; ``code``: digits (in groups); ``id``: an identity number.
_CUES: dict[str, tuple[str, ...]] = {
    "password": (
        "password", "passwords", "passwd", "passcode", "passphrase", "pass phrase", "pwd", "pass", "pw", "passkey",
        "wifi key", "wi-fi key", "wpa key", "network key", "security key", "master key", "login", "mat khau",
        "secret answer", "security answer", "security question", "security question answer", "cau tra loi bi mat",
        "cau hoi bi mat", "cau hoi bao mat",
        "mat ma", "mk", "pass wifi", "khoa wifi",
    ),
    "key": (
        "key", "keys", "token", "tokens", "secret", "secrets", "credential", "credentials", "creds", "seed",
        "totp seed", "2fa seed", "otp seed", "private key id", "private_key_id", "key id", "signing key", "api",
        "auth", "khoa", "cookie", "session cookie", "session token", "session id", "khoa bi mat", "ma bi mat",
        "recovery key", "recovery phrase", "seed phrase", "mnemonic",
    ),
    "code": (
        "code", "codes", "backup code", "backup codes", "recovery code", "recovery codes", "security code",
        "combination", "combo", "puk", "puk code", "puk2", "pin", "pin code", "otp", "ma pin", "ma puk",
        "ma du phong", "ma khoi phuc", "ma bao mat", "ma xac nhan", "ma xac thuc", "ma otp", "ma so bi mat", "cvv", "cvv2", "cvc", "cvc2",
    ),
    "action": (
        "verify", "sign in", "log in", "login", "confirm", "authenticate", "reset", "complete", "continue",
        "xac nhan", "xac thuc", "dang nhap", "kich hoat", "hoan tat",
    ),
    "id": (
        "ssn", "social security number", "social security no", "social security", "passport number",
        "passport no", "passport", "tax code", "tax id", "tax number", "national id",
        "national id number", "id number", "id card number", "id card", "identity card", "identity number",
        "driver's license number", "drivers license number", "driving licence number", "license number", "nric",
        "ni number", "national insurance number", "tfn", "tax file number", "cccd", "cmnd", "can cuoc", "can cuoc cong dan",
        "the can cuoc", "chung minh nhan dan", "chung minh thu", "so dinh danh", "ma dinh danh", "ho chieu",
        "so ho chieu", "ma so thue", "mst", "so bhxh", "ma so bhxh", "bao hiem xa hoi", "bang lai", "so bang lai",
    ),
}
_FAMILY_OF: dict[str, str] = {}
for _family, _cues in _CUES.items():
    for _cue in _cues:
        _FAMILY_OF.setdefault(_cue, _family)
_ANY_CUE = re.compile("(?:" + alternation(_FAMILY_OF, word_start="[a-z0-9]") + r")(?![a-z0-9])")

# Words after a cue that make the phrase about something else: a tool, a rule, an event.
_BLOCKED = frozenset((
    "manager", "managers", "manage", "reset", "policy", "policies", "strength", "hint", "field", "fields", "rule",
    "rules", "requirement", "requirements", "required", "requires", "protected", "protection", "generator",
    "app", "apps", "expired", "expires", "expiry", "length", "change", "changed", "changes", "update", "updated",
    "must", "should", "needs", "need", "format", "complexity", "checker", "prompt", "screen", "page", "form",
    "box", "input", "forgot", "forgotten", "lost", "wrong", "incorrect", "sharing", "shared", "stored", "saved",
    "not", "never", "quen", "doi", "khong", "phai", "nen", "rotation", "rotates", "lifetime", "ttl", "expire",
    "review", "reviewer", "chain", "chains", "ring", "fob", "holder", "word", "words",
    "point", "points", "takeaway", "takeaways", "idea", "ideas", "sauce", "ingredient",
    "santa", "agent", "photo", "photos", "office", "renewal", "appointment", "application", "fee",
    "fees", "lam", "het", "han", "gia", "cap", "sai", "reviewers", "signature", "sent", "send", "arrives",
    "arrive", "by", "via", "giam", "buu", "vung", "loi", "mau", "zip", "postal",
    "area", "error", "promo", "discount", "coupon", "voucher", "referral", "invite", "invitation", "source", "qr",
    "bar", "barcode", "dress", "country", "language", "color", "colour", "style", "hs", "class", "sample",
    "review", "snippet", "snippets", "base", "editor", "block", "blocks",
))
# Ordinary words that are never a password on their own.
_STOP = frozenset((
    "the", "a", "an", "my", "your", "his", "her", "their", "our", "its", "this", "that", "these", "those", "same",
    "strong", "weak", "long", "short", "wrong", "right", "correct", "incorrect", "invalid", "valid", "expired",
    "required", "optional", "needed", "changed", "reset", "saved", "stored", "written", "hidden", "secure", "safe",
    "different", "easy", "hard", "simple", "complex", "there", "here", "case", "sensitive", "protected",
    "encrypted", "hashed", "ready", "new", "old", "blank", "empty", "missing", "forgotten", "lost", "unknown",
    "not", "also", "still", "too", "very", "really", "quite", "somewhere", "taped", "stuck", "printed", "shared",
    "sent", "secret", "private", "public", "personal", "known", "good", "bad", "fine", "okay", "unique", "random",
    "default", "temporary", "what", "which", "where", "when", "how", "why", "who", "something", "nothing",
    "anything", "everything", "none", "null", "true", "false", "inside", "under", "behind", "near", "next", "with",
    "without", "for", "from", "about", "into", "onto", "and", "but", "or", "to", "in", "on", "at", "of", "by",
    "is", "was", "are", "be", "been", "being", "it", "fridge", "written", "on", "up", "down", "off", "out",
    "enabled", "disabled", "active", "inactive", "set", "used", "working", "broken", "gone", "done", "same",
    "gi", "nao", "dau", "sai", "dung", "moi", "dai", "ngan", "yeu", "manh", "sinh", "ngay", "minh", "toi", "cua",
    "tren", "trong", "duoi", "giong", "nhu", "roi", "chua", "khong", "bao", "nhieu", "day", "kia", "nay", "cung",
    "van", "dang", "rat", "qua", "lam", "ban", "anh", "chi", "em", "con", "cai", "nhung", "mot", "hai", "viet",
    "de", "o", "va", "voi", "cho", "la", "co", "gium", "giup", "cu", "cuoi", "dau", "truoc", "sau", "nua",
    "enough", "important", "useful", "needed", "sorted", "fixed", "there's", "here's", "please", "thanks",
))
_ADVERBS = r"(?:(?:simply|just|now|still|always|literally|actually|currently|probably|basically|again|van|la|chi|van la)\s{1,2}){0,2}"
_SEP = (r"(?:(?:'s|is|was|are|=|:|->|=>|la|will be|has been|has always been|remains|became|becomes|stays|reads|"
        r"set to|changed to|updated to|reset to|is set to|doi thanh|dat la|doi la|dat thanh|moi la|hien tai la)"
        r"(?![a-z0-9]))")
_WORD = re.compile(r"[^\s\"'`,;()\[\]{}]{1,40}")
_VALUE = re.compile(r"[\"'`“”‘’]?([^\s\"'`“”‘’]{1,160})")
_NUMBERISH = re.compile(
    r"^(?:v?\d{1,4}(?:\.\d{1,4}){1,3}[a-z]{0,6}\d{0,3}"  # versions
    r"|\d{1,2}:\d{2}(?::\d{2})?(?:am|pm)?"  # times
    r"|[$€£¥₫]?\d{1,3}(?:[.,]\d{3})+(?:[.,]\d{1,2})?[a-z₫$€£%]{0,4}"  # amounts
    r"|[$€£¥₫]\d+(?:[.,]\d{1,2})?|\d+(?:[.,]\d+)?(?:%|k|m|km|kg|g|mb|gb|tb|mah|ms|s|h|am|pm|st|nd|rd|th|x|px|cm|mm"
    r"|vnd|usd|eur|d|tr|l|ml|kw|w|v|hz|ghz|mhz|fps|k\+)"
    r")$")
_DATE = re.compile(r"(\d{1,4})[\-./](\d{1,2})[\-./](\d{1,4})")


def _numberish(value: str) -> bool:
    """A version, time, amount, measure or calendar date — never a credential."""
    v = value.lower().strip(_TRAIL)
    if _NUMBERISH.match(v):
        return True
    m = _DATE.fullmatch(v)
    if not m:
        return False
    a, b, c = (int(x) for x in m.groups())
    la, lc = len(m.group(1)), len(m.group(3))
    if la == 4:
        return 1 <= b <= 12 and 1 <= c <= 31 and lc <= 2
    if lc not in (2, 4) or la > 2:
        return False
    return (1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31)


#: A value that stands for one: "${SECRET}", "{{token}}", "<your key>", "********", "xxxx".
_PLACEHOLDER = re.compile(r"(?:\$\{|\$[a-z_]|\{\{|<|%|[*•.x]{3,}|\[redacted)", re.IGNORECASE)
_LEAD = "\"'`“”‘’([{<"
_TRAIL = ".,;:?!)]}>\"'`“”‘’"


def _entropy(s: str) -> float:
    """Shannon entropy of ``s`` in bits per character."""
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


def _classes(s: str) -> tuple[bool, bool, bool, bool]:
    return (any(c.islower() for c in s), any(c.isupper() for c in s), any(c.isdigit() for c in s),
            any(not c.isalnum() for c in s))


def token_like(value: str, *, long_only: bool = False) -> bool:
    """True when ``value`` (as written, cases kept) reads as a machine token or a chosen password:
    six characters or more mixing letters with digits or symbols (not a date, version, amount or
    measure), or sixteen or more of high entropy. With ``long_only`` only the second."""
    v = value.strip(_TRAIL)
    if len(v) < 6 or _numberish(v) or "://" in v:
        return False
    lower, upper, digit, symbol = _classes(v)
    letters = lower or upper
    if len(v) >= 16 and (letters and digit or lower and upper) and _entropy(v) >= 3.0:
        return True
    if long_only:
        return False
    if v.isalpha():
        return lower and upper and not v[1:].islower() and not v.isupper()  # "Sa8gE6ci" yes, "Hanoi" no
    if not digit and not any(c in "!@#$%^&*+=?~|<>{}[]\\" for c in v):
        # letters and joining marks only: "Google/Apple", "e-mail", "well-known", "A/B" are words
        return any(lower and upper for part in re.split(r"[^A-Za-z]", v) if len(part) > 1
                   for lower, upper in [(any(c.islower() for c in part[1:]), any(c.isupper() for c in part[1:]))])
    return bool(letters and (digit or symbol) and sum(c.isalnum() for c in v) >= 4
                and not re.fullmatch(r"[a-z]{1,3}\d{1,3}|\d{1,3}[a-z]{1,3}|[a-z]+-[a-z]+(?:-[a-z]+)*", v.lower()))


def _password_word(value: str, explicit: bool) -> bool:
    """A password cue's value: a token, or (after an explicit separator) an uncommon plain word."""
    v = value.strip(_TRAIL)
    if len(v) < 4 or _numberish(v):
        return False
    if token_like(v):
        return True
    low = v.lower()
    if not explicit or low in _STOP or low in _BLOCKED:
        return False
    if any(c.isdigit() for c in v) or not v.isalnum():
        return len(v) >= 4 and not re.fullmatch(r"[a-z]{1,3}\d{1,2}", low)
    return len(v) >= 5 and not re.fullmatch(r"[a-z]{2,30}(?:ing|ed|ly)", low)


_DIGIT_GROUPS = re.compile(r"(?:[a-z]{1,2}-)?\d{1,10}(?:[ \-]\d{1,8}){0,9}(?![0-9a-z])")
_ID_VALUE = re.compile(r"(?:[a-z]{1,2}[ \-]?)?\d(?:[ .\-]?\d){5,16}(?:-\d{3})?(?:[ \-]?[a-z])?(?![0-9a-z])")
#: What may stand between an identity cue and its number: "SSN#:", "passport no.", "ID number:".
_ID_GAP = re.compile(r"\.?\s{0,2}(?:#|no\.?|nr\.?|num(?:ber)?\.?|so)?\s{0,2}[:=]?\s{0,3}")


_SEP_RE = re.compile(_SEP)
_SEP_WORDS = frozenset(("is", "was", "la", "are", "it"))
_QUALIFIER = re.compile(r"\s{1,3}([a-z0-9][a-z0-9'\-]{0,20})(?=[\s:=?])")


def _qualifiers(folded: str, pos: int, most: int) -> int:
    """Offset after up to ``most`` qualifier words at ``pos`` (stops before a separator, a blocked
    word or a value: a number of two digits or more, a word with three digits), or -1 when a
    blocked word ends the phrase."""
    for _ in range(most):
        m = _QUALIFIER.match(folded, pos)
        if not m:
            break
        word = m.group(1)
        if word in _SEP_WORDS or _SEP_RE.fullmatch(word):
            break
        if not word.isalpha() and ((word.isdigit() and len(word) > 1) or sum(c.isdigit() for c in word) >= 3):
            break
        if word in _BLOCKED:
            return -1
        pos = m.end()
    return pos


_SEP_AT = re.compile(r"\s{0,2}\?\s{0,3}(?:it is|it's|its|=|:)\s{0,3}" + _ADVERBS
                     + r"|\s{0,3}" + _SEP + r"(?:\s{0,2}:)?\s{0,3}" + _ADVERBS
                     + r"|\s{0,3}[\-\u2014]\s{1,3}|\s{1,3}(?=[\"'`“‘])")
_PAIR = re.compile(r"[\s:,\-]{0,4}(?:(?:user(?:name)?|tai khoan|ten dang nhap|u)\s{0,2}[:=]?\s{0,2})?"
                   r"(?P<u>[a-z][\w.@\-]{1,40})\s{0,2}(?:/|\||:|,\s{0,2}(?:pass(?:word)?|pw|mk|mat khau)\s{0,2}[:=]?)\s{0,2}"
                   r"(?P<p>[^\s/,;]{1,64})")
_ACCOUNT_NAMES = frozenset(("admin", "root", "user", "guest", "administrator", "pi", "ubuntu", "sa", "postgres",
                            "test", "operator", "demo", "support", "manager", "super", "superuser", "sysadmin",
                            "mysql", "oracle", "ftp", "default", "service", "system"))
_LOGIN_CUES = re.compile(alternation(("login", "log in", "logins", "credentials", "creds", "ssh", "sftp", "ftp",
                                      "rdp", "vpn", "username", "user name", "user/pass", "account", "acc", "tai khoan",
                                      "dang nhap", "ten dang nhap", "router", "nas", "wifi", "admin panel", "console",
                                      "db", "database", "mysql", "postgres", "server"), word_start="[a-z0-9]")
                         + r"(?![a-z0-9])")

# A value before its cue: "VALUE is my password", "use VALUE as the wifi password", "VALUE là mật khẩu".
_BEFORE = re.compile(r"(?:(?<=\s)|^)[\"'`“‘]?(?P<v>[^\s\"'`“”‘’]{3,128})[\"'`”’]?\s{1,3}"
                     r"(?:(?:is|was|=|la|lam|as|la cai|chinh la|:)\s{1,3})(?:(?:my|the|your|our|his|her|their|a|new|current"
                     r"|cua|moi)\s{1,3})?(?:[a-z0-9\-']{1,20}\s{1,3}){0,3}$")
_USE_AS = re.compile(r"(?:use|using|used|uses|pick|picked|chose|choose|set|type|enter|dung|dat|go with|went with)"
                     r"\s{1,3}[\"'`“‘]?(?P<v>[^\s\"'`“”‘’]{3,128})[\"'`”’]?\s{1,3}(?:as|for|lam|cho|la)\s{1,3}"
                     r"(?:(?:my|the|your|our|a|new)\s{1,3})?(?:[a-z0-9\-']{1,20}\s{1,3}){0,3}$")
_SENDER = re.compile(r"(?:(?<=\s)|^)(?P<v>(?:[a-z]{1,3}-)?\d{4,8}|\d{3}[ \-]\d{3})\s{1,3}(?:is|la)\s{1,3}"
                     r"(?:your|the|ma|ma so)(?:\s{1,3}[a-z0-9\-']{1,20}){0,4}\s{1,3}$")
_WINDOW = 90


#: A character a value has (a digit or a symbol): a cue with none within ``_WINDOW`` characters on a
#: side has no token-shaped value on that side.
_MARK = re.compile(r"[0-9@#$%^&*+=~|<>{}\[\]!?/_\\-]")
#: What a plain-word value needs after its cue: a separator ("is", "=", "là"…).
_SEP_WORD = re.compile(r"(?<![a-z])(?:is|was|la|are|be|been|remains|became|becomes|stays|reads|to|thanh)(?![a-z])|[:=]")
#: What a value before its cue needs between them: "X is my password", "X là mật khẩu", "use X as …".
_SEP_BEFORE = re.compile(r"(?<![a-z])(?:is|was|la|lam|as|for|cho|to|de)(?![a-z])|[=:]")
_USE_WORD = re.compile(r"(?<![a-z])(?:use|using|used|uses|pick|picked|chose|choose|set|type|enter|dung|dat|go with"
                       r"|went with)(?![a-z])")


class _Next:
    """The next match of ``pattern`` at or after a position, searched again only once passed (the
    searches never overlap, so the total cost is one pass over the text)."""

    def __init__(self, pattern: re.Pattern[str], text: str):
        self.pattern, self.text, self.at, self.found = pattern, text, -1, -1

    def __call__(self, pos: int) -> int:
        if not (self.at <= pos and (self.found >= pos or self.found == len(self.text) + _WINDOW * 2)):
            m = self.pattern.search(self.text, pos)
            self.at, self.found = pos, (m.start() if m else len(self.text) + _WINDOW * 2)
        return self.found


def find_shaped(view: TextView) -> Iterator[tuple[WordRule, Span]]:
    """Every credential found by its shape in ``view``, as ``(rule, span of view.folded)``."""
    folded = view.folded
    nfc = view.nfc if view.aligned else None
    done = 0
    next_mark, next_sep, next_use = _Next(_MARK, folded), _Next(_SEP_WORD, folded), _Next(_USE_WORD, folded)
    next_bsep = _Next(_SEP_BEFORE, folded)
    last_mark, scanned = -_WINDOW * 2, 0  # the last mark before the cue, found by walking the marks once
    for cue in _ANY_CUE.finditer(folded):
        start, end = cue.span()
        word = cue.group()
        family = _FAMILY_OF[word]
        while (m := next_mark(scanned)) < start:
            last_mark, scanned = m, m + 1
        mark_before = last_mark >= start - _WINDOW and next_bsep(max(0, start - _WINDOW)) < start
        use_before = next_use(max(0, start - _WINDOW)) < start
        if family == "action":
            found = _before_cue(folded, nfc, family, word, start) if mark_before else None
            if found:
                done = max(done, found[1][1], end)
                yield found
            continue
        # a cue may close one statement and open the next ("… as my password\nN0odle$oup …"): both
        before = _before_cue(folded, nfc, family, word, start) if mark_before or use_before else None
        if word in _BARE and not _owned(folded, start):
            if before:
                done = max(done, before[1][1], end)
                yield before
            continue  # "zip code", "error code", "house key": not a credential
        worth = (next_mark(end) <= end + _WINDOW or word in _PHRASE_CUES
                 or family == "password" and next_sep(end) <= end + _WINDOW)
        after = None
        if start >= done and worth:
            after = _after_cue(folded, nfc, family, word, end) or (
                _pair(folded, end) if word in ("login", "credentials", "creds", "pass", "password") else None)
        for found in (before, after):
            if found:
                done = max(done, found[1][1], end)
                yield found
    yield from _pairs(folded)


#: Cues that name a credential only after an article or a possessive ("your code", "the key"), or
#: at the start of a line ("Code: …"): "zip code", "error code", "car keys" are not credentials.
_BARE = frozenset(("code", "codes", "key", "keys", "combo", "api", "auth", "seed", "khoa", "cookie", "session id"))
_OWNERS = frozenset(("", "your", "my", "the", "our", "his", "her", "their", "this", "new", "its", "whose", "a",
                     "wifi", "wi-fi", "wpa", "wpa2", "network", "router", "ssh", "gpg", "pgp", "license", "licence",
                     "product", "activation", "serial", "master", "admin", "root", "signing", "encryption",
                     "decryption", "access", "secret", "private", "app", "client", "service", "account", "backup",
                     "recovery", "unlock", "login", "sign-in", "2fa", "mfa", "totp", "authenticator", "one-time",
                     "verification", "confirmation", "security", "auth", "safe", "vault", "disk",
                     "cua", "wallet", "seed", "crypto", "storage", "deploy", "webhook", "bot", "session",
                     "cookie", "jwt", "cloud", "locker", "lock", "padlock", "bike", "suitcase", "luggage", "door",
                     "gate", "garage", "alarm", "keypad", "is", ":", "-"))


#: Words before a bare cue that make it an identifier or a thing, never a credential: "zip code",
#: "order code", "error code", "car key".
_NOT_SECRET_BEFORE = frozenset((
    "zip", "postal", "post", "area", "country", "dial", "error", "status", "exit", "return", "promo", "promotion",
    "discount", "coupon", "voucher", "referral", "invite", "invitation", "gift", "dress", "course", "class",
    "subject", "product", "item", "sku", "model", "part", "serial", "tracking", "order", "booking", "invoice",
    "ticket", "reference", "customer", "student", "employee", "member", "room", "gate", "seat", "flight", "airport",
    "station", "route", "bus", "train", "qr", "bar", "barcode", "hs", "iso", "swift", "bic", "branch", "bank",
    "color", "colour", "style", "source", "sample", "example", "secret", "morse", "genetic", "zip-", "car",
    "house", "door", "room", "office", "spare", "master", "piano", "keyboard", "answer", "music", "major",
    "minor", "low", "high", "main", "primary", "foreign", "composite", "sort", "tax", "postcode", "legal", "civil",
    "penal", "building", "fire", "safety", "health", "moral", "ethics", "conduct", "dress", "machine", "binary",
    "python", "java", "javascript", "source", "open", "legacy", "new", "old", "this", "that", "which",
))


def _owned(folded: str, start: int) -> bool:
    """Whether a bare cue ("code", "key") names a credential: an owner word just before it ("your
    code", "the wifi key"), or, when the word just before is not an identifier's ("zip code", "order
    code"), a message's first words ("Telegram code: …") or an owner within three words before ("your
    Facebook code")."""
    before = _word_before(folded, start)
    if before in _OWNERS:
        return True
    if before in _NOT_SECRET_BEFORE:
        return False
    line = re.split(r"[\n.!?;]", folded[max(0, start - 40):start])[-1]
    words = re.findall(r"[a-z0-9][a-z0-9\-]*", line)
    if len(words) <= 2:  # "Telegram code: …" opening a message
        return True
    return any(w in ("your", "my", "our", "the") for w in words[-4:-1])


def _word_before(folded: str, start: int) -> str:
    head = folded[max(0, start - 24):start]
    words = re.findall(r"[a-z0-9][a-z0-9\-]*|[:\-]", head)
    if not head.strip() or re.search(r"[\n.!?;]\s*$", head):
        return ""
    return words[-1] if words else ""


def _original(nfc: str | None, folded: str, start: int, end: int) -> str:
    """The value as written (cases kept) when the folded text is aligned with the NFC one."""
    return nfc[start:end] if nfc is not None else folded[start:end]


def _trim(folded: str, start: int, end: int) -> tuple[int, int]:
    while end > start and folded[end - 1] in _TRAIL:
        end -= 1
    return start, end


_RULE_OF = {"password": PASSWORD, "key": KEY, "code": CODE, "id": IDENTITY}


def _after_cue(folded: str, nfc: str | None, family: str, cue: str, end: int) -> tuple[WordRule, Span] | None:
    limit = min(len(folded), end + _WINDOW)
    if cue in _PHRASE_CUES:  # "vault passphrase correct horse battery staple": the words are the secret
        sep = _SEP_AT.match(folded, end, limit)
        phrase = _phrase(folded, sep.end() if sep else end, limit)
        if phrase:
            return PASSWORD, phrase
    if family == "id":  # "passport number QQ 12 34 56 C": the value may open with letters
        sep = _SEP_AT.match(folded, end, limit) or _ID_GAP.match(folded, end, limit)
        m = _ID_VALUE.match(folded, sep.end() if sep else end, limit)
        if m and sum(c.isdigit() for c in m.group()) >= 6 and not _numberish(m.group()):
            return IDENTITY, _trim(folded, *m.span())
    pos = _qualifiers(folded, end, 6)
    if pos < 0:  # "client secret for the app: …": a long random string after the noun is still one
        m = _LONG_AFTER.match(folded, end, limit)
        if m and token_like(_original(nfc, folded, *m.span("v")), long_only=True):
            return KEY, m.span("v")
        return None
    sep = _SEP_AT.match(folded, pos, limit)
    explicit = bool(sep and sep.group().strip(" \"'`“‘"))
    vpos = sep.end() if sep else pos
    if not sep:
        space = re.compile(r"\s{1,3}").match(folded, pos, limit)
        if not space:
            return None
        vpos = space.end()
    if family == "id":
        m = _ID_VALUE.match(folded, vpos, limit)
        if not m and not sep:
            m = re.compile(r"(?:[^0-9\n.!?]{0,24}?)(?=[a-z]{0,2}[ \-]?\d)").match(folded, vpos, limit)
            m = _ID_VALUE.match(folded, m.end(), limit) if m else None
        if m and sum(c.isdigit() for c in m.group()) >= 6 and not _numberish(m.group()):
            return IDENTITY, _trim(folded, *m.span())
        return None
    if family == "key":  # a recovery key in digit groups: twelve digits or more
        m = _DIGIT_GROUPS.match(folded, vpos, limit)
        if m and sum(c.isdigit() for c in m.group()) >= 12 and not _numberish(m.group()):
            return KEY, _trim(folded, *m.span())
    if family == "code":
        m = _DIGIT_GROUPS.match(folded, vpos, limit)
        if m:
            digits = sum(c.isdigit() for c in m.group())
            short = cue in ("code", "codes", "combo", "pin", "otp")
            # a PIN or a sent code has four digits or more; a lock's combination may have three
            # a combination or a code reads like a date at times ("3-19-27"): after its cue it is one
            if digits >= (4 if short and cue != "combo" else 3) and (explicit or not short) and not _YEARISH.fullmatch(m.group()) \
                    and not _NUMBERISH.match(m.group()):
                return (PIN if "pin" in cue or "puk" in cue else OTP), _listed(folded, *_trim(folded, *m.span()))
        if cue in ("code", "codes", "combo"):
            return None
    v = _VALUE.match(folded, vpos, limit)
    if not v or _PLACEHOLDER.match(v.group(1)):
        return None
    s, e = _trim(folded, *v.span(1))
    value = _original(nfc, folded, s, e)
    if family == "password" or cue in ("secret", "secrets"):
        if cue in ("password", "mat khau") and explicit:
            phrase = _phrase(folded, vpos, limit)
            if phrase:
                return PASSWORD, phrase
        short = cue in ("pass", "pw", "mk", "login", "passkey")
        if short and not (explicit and (token_like(value) or _has_digit_or_symbol(value) and len(value) >= 4)
                          or not explicit and token_like(value) and _word_before(folded, end - len(cue))
                          not in _PASS_COMPOUNDS):
            return None
        if cue == "login" and value.lower() in _ACCOUNT_NAMES:
            return None
        if _password_word(value, explicit):
            return PASSWORD, (s, e)
        return None
    if family in ("key", "code"):
        if token_like(value, long_only=not explicit and cue in ("key", "keys", "api", "auth", "khoa", "code", "codes")):
            return KEY, _listed(folded, s, e)
    return None


_PHRASE_CUES = frozenset(("passphrase", "pass phrase", "recovery phrase", "seed phrase", "mnemonic"))
_LONG_AFTER = re.compile(r"(?:[^\n.!?]{0,60}?)(?:[:=]|\s(?:is|la))\s{0,3}[\"'`“‘]?(?P<v>[^\s\"'`“”‘’]{16,300})")
_NEXT = re.compile(r"(?:\s{0,2}[,;/]\s{0,2}|\s{1,3}(?:and|or|va|hoac)\s{1,3}|\s{1,3})(?P<v>[a-z0-9][a-z0-9\-]{2,40})")


def _listed(folded: str, start: int, end: int) -> Span:
    """The span of a value and of the values listed after it in the same shape ("backup codes 4829
    1739, 5521 and 0986"; "recovery codes ab12c-3de45 and f6g7h-8i9j0")."""
    shape = re.sub(r"[a-z]", "a", re.sub(r"\d", "0", folded[start:end]))
    for _ in range(16):
        m = _NEXT.match(folded, end)
        if not m or re.sub(r"[a-z]", "a", re.sub(r"\d", "0", m.group("v"))) != shape:
            break
        end = m.end()
    return start, end


_YEARISH = re.compile(r"(?:19|20)\d\d")


def _has_digit_or_symbol(value: str) -> bool:
    return any(c.isdigit() or not c.isalnum() for c in value)


#: Words that are never part of a passphrase: articles, pronouns, prepositions, auxiliaries.
_FUNCTION = frozenset((
    "the", "a", "an", "my", "your", "his", "her", "their", "our", "its", "this", "that", "these", "those", "is",
    "was", "are", "be", "been", "it", "and", "but", "or", "to", "in", "on", "at", "of", "by", "for", "from", "with",
    "as", "so", "if", "than", "then", "when", "where", "which", "who", "what", "how", "why", "i", "we", "you", "he",
    "she", "they", "me", "us", "them", "do", "does", "did", "has", "have", "had", "can", "could", "will", "would",
    "should", "must", "may", "might", "not", "no", "also", "very", "too", "just", "still", "every", "each", "all",
    "some", "any", "stored", "saved", "written", "kept", "hidden", "la", "cua", "toi", "minh", "va", "voi", "o",
    "trong", "tren", "duoc", "bi", "khong", "co", "nay", "do", "da", "se", "dang", "nhung", "cac", "mot",
))
_PHRASE_WORD = re.compile(r"\s{0,3}([a-z]{2,16})(?![a-z0-9'])")


def _phrase(folded: str, pos: int, limit: int) -> Span | None:
    """Three to twelve plain words (a passphrase, a seed phrase), none of them a function word."""
    words, start, end = 0, -1, pos
    while words < 12:
        m = _PHRASE_WORD.match(folded, end, limit)
        if not m or m.group(1) in _FUNCTION or m.group(1) in _BLOCKED or m.group(1) in _FAMILY_OF:
            break
        if start < 0:
            start = m.start(1)
        end, words = m.end(), words + 1
    return (start, end) if words >= 3 else None


_ACTIONS = frozenset(_CUES["action"])
_CUE_AFTER = {"password", "passwords", "passcode", "passphrase", "pass", "pwd", "pw", "mat khau", "mk", "pin", "code",
              "codes", "otp", "ma xac nhan", "ma xac thuc", "ma otp", "passkey", "wifi key", "key", "token", "secret",
              "puk", "combination", "security code", "backup code", "recovery code", "ma pin", "ma bao mat"}


# "Use 448102 to verify", "nhập 553901 để xác nhận": a code given to act with.
_TO_ACT = re.compile(r"(?:use|enter|type|input|nhap|dung|go with)\s{1,3}(?:(?:the\s{1,3})?code\s{1,3}|ma\s{1,3})?"
                     r"[\"'`“‘]?(?P<v>(?:[a-z]{1,3}-)?\d{4,8}|\d{3}[ \-]\d{3})[\"'`”’]?\s{1,3}(?:to|de|in order to)\s{1,3}$")


def _before_cue(folded: str, nfc: str | None, family: str, cue: str, start: int) -> tuple[WordRule, Span] | None:
    head = max(0, start - _WINDOW)
    if family == "action" or cue in _ACTIONS:
        m = _TO_ACT.search(folded, head, start)
        if m:
            return OTP, m.span("v")
    if cue not in _CUE_AFTER:
        return None
    for pattern in (_USE_AS, _SENDER, _BEFORE):
        if pattern is _SENDER and family != "code" and cue not in ("password", "passcode", "pin"):
            continue
        m = pattern.search(folded, head, start)
        if not m:
            continue
        s, e = _trim(folded, *m.span("v"))
        value = _original(nfc, folded, s, e)
        if pattern is _SENDER:
            return OTP, (s, e)
        if family == "code" and re.fullmatch(r"(?:[a-z]{1,3}-)?\d{4,10}", value.lower()) and not _YEARISH.fullmatch(value):
            return (PIN if "pin" in cue else OTP), (s, e)
        if value.lower() in _STOP or value.lower() in _FAMILY_OF:
            continue
        if pattern is _USE_AS and family == "password" and (len(value) >= 4 and value.lower() not in _BLOCKED):
            return PASSWORD, (s, e)
        if token_like(value) or family == "password" and _has_digit_or_symbol(value) and len(value) >= 5 \
                and not _numberish(value):
            return (PASSWORD if family == "password" else KEY), (s, e)
    return None


def _pair(folded: str, end: int) -> tuple[WordRule, Span] | None:
    m = _PAIR.match(folded, end, min(len(folded), end + _WINDOW))
    if not m:
        return None
    user, password = m.group("u"), m.group("p").rstrip(_TRAIL)
    if _pair_ok(user, password, cue=True):
        return LOGIN, (m.start("u"), m.start("p") + len(password))
    return None


def _pair_ok(user: str, password: str, cue: bool) -> bool:
    if not password or password.lower() in _STOP or "://" in password or password.startswith("/"):
        return False
    if _numberish(password) or _numberish(user):
        return False
    if user in _ACCOUNT_NAMES:
        return cue or password == user or _has_digit_or_symbol(password) or password in _ACCOUNT_NAMES
    return cue and (token_like(password) or (_has_digit_or_symbol(password) and len(password) >= 4
                                             and any(c.isalpha() for c in password)))


# "USER / PASSWORD" where USER is an account name ("root/root", "admin / Sa8gE6ci"), or any user
# after a login cue within a few words ("NAS login bob / Kx9…").
_SLASH_PAIR = re.compile(r"(?<![\w/.\-])(?P<u>[a-z][\w.@\-]{1,40})\s{0,2}/\s{0,2}(?P<p>[^\s/,;]{1,64})")


def _pairs(folded: str) -> Iterator[tuple[WordRule, Span]]:
    if "/" not in folded:
        return
    for m in _SLASH_PAIR.finditer(folded):
        user, password = m.group("u"), m.group("p").rstrip(_TRAIL)
        head = folded[max(0, m.start() - 40):m.start()]
        cue = _LOGIN_CUES.search(head) is not None
        if _pair_ok(user, password, cue) and (user in _ACCOUNT_NAMES or cue):
            yield LOGIN, (m.start("u"), m.start("p") + len(password))


__all__ = ["find_shaped", "token_like", "IDENTITY", "LOGIN", "ACCOUNT"]
