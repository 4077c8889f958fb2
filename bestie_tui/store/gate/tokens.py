"""Machine-secret formats: API keys and tokens, private keys, credentials in URLs, ``.env`` lines.

Each rule is a regular expression we wrote from the provider's published token format (the same
shapes a maintained scanner such as ``detect-secrets`` knows; its plugins serve as the test oracle).
Every pattern runs in linear time: a rule is tried only when one of its literal ``anchors`` occurs
in the text (a C substring search); each pattern begins with a literal or a narrow class, which the
regex engine finds by a fast scan, and checks the character before it with a look-behind placed
*after* that first character (``_after``: a look-behind first would make the engine try every
position, and a run of token characters is entered once, not at every character); every
repetition is bounded. Private keys, URLs and ``.env`` lines are found from their one literal
("PRIVATE KEY", "://", "=") outwards.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

#: A span ``(start, end)`` of ``text`` that holds the secret itself.
Span = tuple[int, int]


@dataclass(frozen=True)
class TokenRule:
    """One format. ``name`` is the short label of a redaction (``[redacted: GitHub token]``),
    ``phrase`` the words of a refusal ("a GitHub token"). ``find(text)`` yields the secret spans."""

    name: str
    phrase: str
    anchors: tuple[str, ...]
    find: Callable[[str], Iterator[Span]]

    def spans(self, text: str) -> Iterator[Span]:
        if any(a in text for a in self.anchors):
            yield from self.find(text)


def _regex(pattern: str, group: str | int = 0, check: Callable[[re.Match], bool] | None = None,
           prefix: str = "") -> Callable[[str], Iterator[Span]]:
    """A finder over ``pattern``: the span of ``group`` (the whole match when that group did not take
    part), widened to take in ``prefix`` when the text has it just before (``https://``)."""
    compiled = re.compile(pattern)

    def find(text: str) -> Iterator[Span]:
        for m in compiled.finditer(text):
            if check is None or check(m):
                start, end = m.span(group) if m.group(group) is not None else m.span(0)
                if prefix and text.endswith(prefix, 0, start):
                    start -= len(prefix)
                yield start, end
    return find


def _mixed(m: re.Match) -> bool:
    """A random token mixes at least two of upper case, lower case and digits; a word with dashes
    ("sk-this-is-fine") does not."""
    body = m.group(0)
    return sum((any(c.isdigit() for c in body), any(c.isupper() for c in body), any(c.islower() for c in body))) >= 2


# Boundaries: the character before a token must not be one of its own characters. ``_after`` is the
# check, written after the token's first character (``x`` + ``_after`` looks back past ``x``).
_after = r"(?<![A-Za-z0-9_\-].)"
_E = r"(?![A-Za-z0-9_\-])"

_BEGIN_LABEL = re.compile(r"[ A-Z0-9]{0,40}")


def _private_keys(text: str) -> Iterator[Span]:
    """From each BEGIN line to the end of its END line (or of the text, when the block is cut)."""
    pos = 0
    putty = text.find("PuTTY-User-Key-File-")
    while True:
        if 0 <= putty < pos:
            putty = text.find("PuTTY-User-Key-File-", pos)
        found = [i for i in (text.find("PRIVATE KEY", pos), putty) if i >= 0]
        if not found:
            return
        at = min(found)
        begin = text.rfind("BEGIN", max(0, at - 46), at)
        if text.startswith("PuTTY", at):
            begin = -1
        elif begin < 0 or not _BEGIN_LABEL.fullmatch(text, begin + 5, at):
            pos = at + 11  # "PRIVATE KEY" in prose: not a key block
            continue
        start = at if begin < 0 else (begin - 5 if text.startswith("-----", begin - 5) else begin)
        end = text.find("-----END", at)
        if end < 0:
            stop = len(text)
        else:
            close = text.find("-----", end + 8)
            stop = len(text) if close < 0 else close + 5
        yield start, stop
        pos = stop


_SECRET_NAME_PART = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")
_HARD_NAMES = {"SECRET", "PASSWORD", "PASSWD", "PASS", "PWD", "PW", "PIN", "PASSPHRASE", "CREDENTIALS",
               "CREDENTIAL", "KHAU", "MATKHAU", "MK"}
_SOFT_NAMES = {"TOKEN", "APIKEY", "AUTH", "DSN", "SIGNATURE", "SALT"}
_KEY_QUALIFIERS = {"API", "ACCESS", "SECRET", "PRIVATE", "SIGNING", "MASTER", "ENCRYPTION", "LICENSE", "APP",
                   "CLIENT", "SERVICE", "WEBHOOK", "ACCOUNT"}
_PLACEHOLDER = re.compile(r"^(?:[$<{%*#.]|x{3,}$|changeme$|none$|null$|true$|false$|your[_-]|example|placeholder|redacted)",
                          re.IGNORECASE)
# A secret-sounding part of a variable name, then the rest of the name and "=" (found from the word,
# the name's start is found backwards).
_ENV_WORD = re.compile(r"(?:pass(?:word|wd|phrase)?|pwd|pw|pin|secret|token|key|auth|credentials?|dsn|salt|signature)"
                       r"[a-z0-9_]{0,40}(?P<eq>[ \t]{0,4}=)[ \t]{0,4}(?P<q>[\"']?)(?P<value>[^\s\"'`]{4,512})")
_NAME_START = re.compile(r"(?:export[ \t]{1,4})?(?P<name>[A-Za-z][A-Za-z0-9_]{0,80})$")


def _env_strength(name: str) -> int:
    """2: the variable names a password/secret; 1: a token or key; 0: neither (``MAX_TOKENS``)."""
    parts = [p.upper() for p in _SECRET_NAME_PART.findall(name.replace("_", " ").replace("-", " "))]
    if any(p in _HARD_NAMES for p in parts):
        return 2
    if any(p in _SOFT_NAMES for p in parts):
        return 1
    return 1 if any(p == "KEY" and i and parts[i - 1] in _KEY_QUALIFIERS for i, p in enumerate(parts)) else 0


def _env_lines(text: str) -> Iterator[Span]:
    lowered = text.lower() if text.isascii() else text.encode("ascii", "replace").decode("ascii").lower()
    for m in _ENV_WORD.finditer(lowered):
        head = _NAME_START.search(text, max(0, m.start() - 80), m.start("eq"))
        if head is None:
            continue
        name = head.group("name")
        value = text[m.start("value"):m.end("value")].rstrip(".,;)")
        strength = _env_strength(name)
        if not strength or _PLACEHOLDER.match(value) or len(value) < 4:
            continue
        if strength == 1 and (len(value) < 8 or value.isdigit()):
            continue
        yield m.start("value"), m.start("value") + len(value)


# "://" after a scheme character, with "user:password@" ahead (the user may be empty: "redis://:pw@").
_URL_CREDENTIALS = re.compile(r":(?<=[A-Za-z0-9+.\-]:)//(?=[^\s/:@?#]{0,256}:(?P<pw>[^\s/@?#]{1,256})@)")


def _url_passwords(text: str) -> Iterator[Span]:
    """``scheme://user:password@host``: the password."""
    for m in _URL_CREDENTIALS.finditer(text):
        if not _PLACEHOLDER.match(m.group("pw")):
            yield m.span("pw")


# A private key's body without its BEGIN line: the base64 of a key's DER (PKCS#1 and PKCS#8 begin
# with a SEQUENCE and the version 0, "MII…IBA"; an OpenSSH key with "openssh-key-v1"; EC keys with
# their own fixed bytes), then any more base64 lines, and an END line if there is one.
_KEY_BODY = re.compile(r"(?:M(?<![A-Za-z0-9+/].)II[A-Za-z0-9+/]{1,3}IBA|M(?<![A-Za-z0-9+/].)IG[A-Za-z0-9+/]{1,2}AgEA"
                       r"|M(?<![A-Za-z0-9+/].)HcCAQEE|M(?<![A-Za-z0-9+/].)C4CAQAw|b(?<![A-Za-z0-9+/].)3BlbnNzaC1rZXktdjE)"
                       r"[A-Za-z0-9+/=]{24,4000}(?:\r?\n[A-Za-z0-9+/=]{8,4000}){0,200}"
                       r"(?:\r?\n-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)?")


_BASE64_LINES = re.compile(r"(?:[A-Za-z0-9+/=]{16,4000}[ \t]{0,4}\r?\n){1,200}$")
_END_LINE = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----")


def _key_bodies(text: str) -> Iterator[Span]:
    done = 0
    for m in _KEY_BODY.finditer(text):
        done = m.end()
        yield m.span()
    # an END line whose BEGIN line was cut off: the base64 lines before it
    for m in _END_LINE.finditer(text):
        if m.start() < done or "BEGIN" in text[max(0, m.start() - 8000):m.start()]:
            continue
        body = _BASE64_LINES.search(text, max(0, m.start() - 8000), m.start())
        if body:
            yield body.start(), m.end()


# A token behind a short prefix and "_" or "-" ("shpat_…", "key-…", "sq0atp-…", "xyz_live_…"): the
# prefix is a short lower-case word (with digits), the body twenty characters or more mixing
# letters and digits with the entropy of a random string. Hash names (``sha256-``) are not prefixes.
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-]++")
_PREFIXED = re.compile(r"(?P<p>[A-Za-z][A-Za-z0-9]{1,9}(?:[_\-][a-z0-9]{1,10})?)[_\-]"
                       r"(?P<body>[A-Za-z0-9][A-Za-z0-9_\-]{19,300})")
_NOT_PREFIXES = frozenset(("sha", "sha1", "sha256", "sha384", "sha512", "md5", "commit", "hash", "rev", "uuid", "id",
                           "build", "run", "job", "req", "request", "trace", "span", "order", "ref", "tx", "txn", "file",
                           "img", "image", "doc", "msg", "blake2b", "blake3", "crc32", "etag", "v", "ver", "version",
                           "cid", "ipfs", "bafy", "sri", "integrity", "session_id", "user_id", "object", "blob"))


def _entropy(s: str) -> float:
    import math
    from collections import Counter

    return -sum(c / len(s) * math.log2(c / len(s)) for c in Counter(s).values())


def _prefixed(text: str) -> Iterator[Span]:
    if "_" not in text and "-" not in text:
        return
    for run in _TOKEN_RUN.finditer(text):  # each run of token characters once: linear
        if not 22 <= len(run.group()) <= 322 or ("_" not in run.group() and "-" not in run.group()):
            continue
        m = _PREFIXED.fullmatch(text, run.start(), run.end())
        if m is None:
            continue
        prefix = m.group("p").lower()
        if prefix in _NOT_PREFIXES or re.split(r"[_\-]", prefix)[0] in _NOT_PREFIXES:
            continue
        body = m.group("body")
        if not (any(c.isdigit() for c in body) and any(c.isalpha() for c in body)):
            continue
        if max(len(part) for part in re.split(r"[_\-]", body)) < 16 and not _mixed(m):
            continue  # snake_case words with a number: "report_2025_q3_final_draft"
        hexish = all(c in "0123456789abcdefABCDEF-_" for c in body)
        if hexish and all(c in "0123456789abcdef_-" for c in prefix):
            continue  # a UUID or a hash cut in groups
        if hexish and m.group()[0] == "-" and prefix not in ("key", "token", "secret", "api", "apikey"):
            continue  # "build-<hash>": a dash and hex are an identifier unless the prefix names a key
        if _entropy(body) >= (3.3 if hexish else 3.6):
            yield m.start(), m.end()


# A long random string anywhere: 32 characters or more of a token's alphabet mixing upper case, lower
# case and digits with the entropy of a random string (4 bits a character or more), not a URL's or a
# path's part, not a named hash ("sha384-…").
_RUN = re.compile(r"[A-Za-z0-9_\-.+/=]{32,400}+")
_HASH_NAMES = re.compile(r"(?i)(?:sha\d{0,3}|md5|blake\d\w*|crc32)[\-_:=]")


def _random_runs(text: str) -> Iterator[Span]:
    for m in _RUN.finditer(text):
        run = m.group().strip("._-=/+")
        start = m.start() + m.group().index(run[:1]) if run else m.start()
        if len(run) < 32 or run.count("/") > 1 or _HASH_NAMES.match(run):
            continue
        if start and text[start - 1] in "/?=&#%:@" or "://" in text[max(0, start - 3):start]:
            continue
        if not (any(c.isupper() for c in run) and any(c.islower() for c in run) and any(c.isdigit() for c in run)):
            continue
        if _entropy(run) >= 4.0 and sum(c.isdigit() for c in run) >= 3:
            yield start, start + len(run)


# A quoted field of a JSON or YAML document whose name is a secret's ("password", "private_key_id",
# "api-token"), and its quoted value.
_QUOTED_FIELD = re.compile(r"(?P<q>[\"'])(?P<name>[A-Za-z_][A-Za-z0-9_.\- ]{0,60})(?P=q)\s{0,3}:\s{0,3}"
                           r"(?P<vq>[\"'])(?P<value>[^\"'\n\\]{3,512})(?P=vq)")
_NOT_SECRET_FIELD = re.compile(r"(?i)(?:url|uri|endpoint|type|path|file|dir|name|format|expiry|expires?|ttl|length"
                               r"|count|limit|max|min|size|hint|policy|label|description|algorithm|alg|kind|mode)$")


def _quoted_fields(text: str) -> Iterator[Span]:
    if ":" not in text:
        return
    for m in _QUOTED_FIELD.finditer(text):
        name, value = m.group("name"), m.group("value")
        strength = _env_strength(name)
        if not strength or _NOT_SECRET_FIELD.search(name.replace("-", "_")) or _PLACEHOLDER.match(value):
            continue
        if strength == 1 and (len(value) < 8 or value.isdigit() or "://" in value or " " in value.strip()):
            continue
        yield m.span("value")


RULES: tuple[TokenRule, ...] = (
    TokenRule("private key", "a private key", ("PRIVATE KEY", "PuTTY-User-Key-File"), _private_keys),
    TokenRule("AWS access key", "an AWS access key", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
              _regex(r"A(?<![A-Z0-9].)(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])")),
    TokenRule("AWS secret key", "an AWS secret key", ("aws", "AWS", "Aws"),
              _regex(r"(?i:aws)[^\n]{0,20}?(?i:secret|key)[^\n]{0,20}?[=:\s\"']\s{0,3}[\"']?"
                     r"(?P<s>(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])", "s", _mixed)),
    TokenRule("GitHub token", "a GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
              _regex(r"g" + _after + r"(?:h[pousr]_[A-Za-z0-9]{36,251}|ithub_pat_[A-Za-z0-9_]{60,251})" + _E)),
    TokenRule("GitLab token", "a GitLab token",
              ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-",
               "GR1348941"),
              _regex(r"(?:g" + _after + r"l(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-|G" + _after + r"R1348941)"
                     r"[A-Za-z0-9_\-]{20,1024}" + _E)),
    TokenRule("Slack token", "a Slack token", ("xox", "xapp-"),
              _regex(r"x" + _after + r"(?:ox[abposre]-[A-Za-z0-9\-]{10,250}|app-\d-[A-Za-z0-9\-]{20,250})" + _E)),
    TokenRule("Slack webhook", "a Slack webhook URL", ("hooks.slack.com",),
              _regex(r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{20,300}", prefix="https://")),
    TokenRule("Stripe key", "a Stripe secret key", ("k_live_", "k_test_", "whsec_"),
              _regex(r"(?:[sr]" + _after + r"k_(?:live|test)_[A-Za-z0-9]{16,247}|w" + _after + r"hsec_[A-Za-z0-9]{24,100})"
                     + _E)),
    TokenRule("Google key", "a Google API key or token", ("AIza", "GOCSPX-", "ya29."),
              _regex(r"(?:A" + _after + r"Iza[0-9A-Za-z_\-]{35}|G" + _after + r"OCSPX-[A-Za-z0-9_\-]{28}"
                     r"|y" + _after + r"a29\.[0-9A-Za-z_\-]{30,500})" + _E)),
    TokenRule("Anthropic key", "an Anthropic API key", ("sk-ant-",),
              _regex(r"s" + _after + r"k-ant-[A-Za-z0-9_\-]{20,300}" + _E, check=_mixed)),
    TokenRule("OpenAI key", "an OpenAI API key", ("sk-",),
              _regex(r"s" + _after + r"k-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,300}" + _E, check=_mixed)),
    TokenRule("SendGrid key", "a SendGrid API key", ("SG.",),
              _regex(r"S" + _after + r"G\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _E)),
    TokenRule("Twilio key", "a Twilio key", ("AC", "SK"),
              _regex(r"(?:A(?<![A-Za-z0-9].)C|S(?<![A-Za-z0-9].)K)[a-f0-9]{32}(?![A-Za-z0-9])")),
    TokenRule("Discord token", "a Discord bot token", (".",),
              _regex(r"[MNO]" + _after + r"[A-Za-z0-9_\-]{20,32}\.[A-Za-z0-9_\-]{5,7}\.[A-Za-z0-9_\-]{25,45}" + _E,
                     check=_mixed)),
    TokenRule("Discord webhook", "a Discord webhook URL", ("discord",),
              _regex(r"discord(?:app)?\.com/api/webhooks/\d{5,30}/[A-Za-z0-9_\-]{20,100}", prefix="https://")),
    TokenRule("PyPI token", "a PyPI token", ("pypi-AgE",),
              _regex(r"p" + _after + r"ypi-AgE[A-Za-z0-9_\-]{50,500}" + _E)),
    TokenRule("npm token", "an npm token", ("npm_", "_authToken"),
              _regex(r"n" + _after + r"pm_[A-Za-z0-9]{36}" + _E + r"|_authToken\s{0,3}=\s{0,3}(?P<t>[A-Za-z0-9_.\-]{8,300})", "t")),
    TokenRule("Hugging Face token", "a Hugging Face token", ("hf_", "api_org_"),
              _regex(r"(?:h" + _after + r"f_|a" + _after + r"pi_org_)[A-Za-z0-9]{30,40}" + _E, check=_mixed)),
    TokenRule("DigitalOcean token", "a DigitalOcean token", ("_v1_",),
              _regex(r"d" + _after + r"o[por]_v1_[a-f0-9]{64}" + _E)),
    TokenRule("Telegram bot token", "a Telegram bot token", (":",),
              _regex(r"\d(?<![0-9].)\d{7,9}:[A-Za-z0-9_\-]{35}" + _E, check=_mixed)),
    TokenRule("JWT", "a JSON web token", ("eyJ",),
              _regex(r"e" + _after + r"yJ[A-Za-z0-9_\-]{8,4000}\.[A-Za-z0-9_\-]{8,8000}\.[A-Za-z0-9_\-]{8,2000}" + _E)),
    TokenRule("bearer token", "a bearer token or basic credentials", ("earer", "EARER", "uthorization", "UTHORIZATION"),
              _regex(r"(?:(?i:bearer)|(?i:authorization)\s{0,3}:\s{0,3}(?i:basic))\s{1,3}"
                     r"(?P<t>(?<![A-Za-z0-9])[A-Za-z0-9_\-.=~+/]{16,2000})", "t", _mixed)),
    TokenRule("URL password", "a password inside a URL", ("://",), _url_passwords),
    TokenRule("private key", "a private key", ("MII", "MIG", "MHcCAQEE", "MC4CAQAw", "b3BlbnNzaC1rZXktdjE", "-----END"),
              _key_bodies),
    TokenRule("API token", "an API token", ("_", "-"), _prefixed),
    TokenRule("random token", "a long random token", ("",), _random_runs),
    TokenRule("secret field", "a secret in a JSON or YAML field", (":",), _quoted_fields),
    TokenRule("environment secret", "a secret in an environment line", ("=",), _env_lines),
)

# Each distinct anchor of ``RULES`` once, with the rules it opens as bits (bit i: ``RULES[i]``); the
# one-character anchors apart, and the longer ones also as one alternation: a text holding none of
# them (most texts) is told so by one regex search, which finds an anchor wherever one begins.
_ANCHOR_BITS: dict[str, int] = {}
for _i, _rule in enumerate(RULES):
    for _anchor in _rule.anchors:
        _ANCHOR_BITS[_anchor] = _ANCHOR_BITS.get(_anchor, 0) | 1 << _i
_ANCHORS = tuple(_ANCHOR_BITS.items())
_SHORT_ANCHORS = tuple((a, bits) for a, bits in _ANCHORS if len(a) <= 1)
_LONG_ANCHOR = re.compile("|".join(re.escape(a) for a, _ in sorted(_ANCHORS, key=lambda x: -len(x[0])) if len(a) > 1))


def rules_in(text: str) -> tuple[TokenRule, ...]:
    """The rules of ``RULES`` that ``text`` holds an anchor of, in ``RULES`` order: those whose
    ``spans`` can find anything. A C substring search per distinct anchor (one regex search for
    all the longer ones when the text holds none), instead of a generator per rule, which was most
    of the time of a short text's check."""
    bits = 0
    for anchor, rules in _ANCHORS if _LONG_ANCHOR.search(text) else _SHORT_ANCHORS:
        if anchor in text:
            bits |= rules
    found = _RULES_OF.get(bits)
    if found is None:
        if len(_RULES_OF) >= 4096:  # bounded, whatever mix of anchors texts bring
            _RULES_OF.clear()
        found = _RULES_OF[bits] = tuple(rule for i, rule in enumerate(RULES) if bits >> i & 1)
    return found


_RULES_OF: dict[int, tuple[TokenRule, ...]] = {}  # bits → their rules (a few dozen mixes in practice)
