"""Machine-secret formats: API keys and tokens, private keys, credentials in URLs, ``.env`` lines.

Each rule is a regular expression we wrote from the provider's published token format (the same
shapes a maintained scanner such as ``detect-secrets`` knows; its plugins serve as the test oracle).
Every pattern runs in linear time: a rule is tried only when one of its literal ``anchors`` occurs
in the text (a C substring search), each pattern starts at a token boundary (a negative
look-behind, so a long run of token characters is entered once, not at every character), and every
repetition is bounded.
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
           flags: int = 0) -> Callable[[str], Iterator[Span]]:
    compiled = re.compile(pattern, flags)

    def find(text: str) -> Iterator[Span]:
        for m in compiled.finditer(text):
            if check is None or check(m):
                # a named group that did not take part (another alternative matched): the whole match
                yield m.span(group) if m.group(group) is not None else m.span(0)
    return find


def _mixed(m: re.Match) -> bool:
    """A random token has letters and digits; a word with dashes ("sk-this-is-fine") does not."""
    body = m.group(0)
    return any(c.isdigit() for c in body) and any(c.isalpha() for c in body)


# Boundaries: the character before a token must not be one of its own characters.
_B = r"(?<![A-Za-z0-9_\-])"
_E = r"(?![A-Za-z0-9_\-])"

_BEGIN_KEY = re.compile(r"(?:-----)?BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?(?:-----)?|PuTTY-User-Key-File-\d")


def _private_keys(text: str) -> Iterator[Span]:
    """From each BEGIN line to the end of its END line (or of the text, when the block is cut)."""
    pos = 0
    while True:
        m = _BEGIN_KEY.search(text, pos)
        if m is None:
            return
        end = text.find("-----END", m.end())
        if end < 0:
            stop = len(text)
        else:
            close = text.find("-----", end + 8)
            stop = len(text) if close < 0 else close + 5
        yield m.start(), stop
        pos = stop


_SECRET_NAME_PART = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")
_HARD_NAMES = {"SECRET", "PASSWORD", "PASSWD", "PASS", "PWD", "PW", "PIN", "PASSPHRASE", "CREDENTIALS",
               "CREDENTIAL"}
_SOFT_NAMES = {"TOKEN", "APIKEY", "AUTH", "DSN", "SIGNATURE", "SALT"}
_KEY_QUALIFIERS = {"API", "ACCESS", "SECRET", "PRIVATE", "SIGNING", "MASTER", "ENCRYPTION", "LICENSE", "APP",
                   "CLIENT", "SERVICE", "WEBHOOK", "ACCOUNT"}
_PLACEHOLDER = re.compile(r"^(?:[$<{%*#.]|x{3,}$|changeme$|none$|null$|true$|false$|your[_-]|example|placeholder|redacted)",
                          re.IGNORECASE)
_ENV = re.compile(r"(?<![A-Za-z0-9_])(?:export[ \t]{1,4})?(?P<name>[A-Za-z][A-Za-z0-9_]{1,80})[ \t]{0,4}=[ \t]{0,4}"
                  r"(?P<q>[\"']?)(?P<value>[^\s\"'`]{4,512})")


def _env_strength(name: str) -> int:
    """2: the variable names a password/secret; 1: a token or key; 0: neither (``MAX_TOKENS``)."""
    parts = [p.upper() for p in _SECRET_NAME_PART.findall(name.replace("_", " ").replace("-", " "))]
    if any(p in _HARD_NAMES for p in parts):
        return 2
    if any(p in _SOFT_NAMES for p in parts):
        return 1
    return 1 if any(p == "KEY" and i and parts[i - 1] in _KEY_QUALIFIERS for i, p in enumerate(parts)) else 0


def _env_lines(text: str) -> Iterator[Span]:
    for m in _ENV.finditer(text):
        value = m.group("value").rstrip(".,;)")
        strength = _env_strength(m.group("name"))
        if not strength or _PLACEHOLDER.match(value) or len(value) < 4:
            continue
        if strength == 1 and (len(value) < 8 or value.isdigit()):
            continue
        yield m.start("value"), m.start("value") + len(value)


def _url_password(m: re.Match) -> bool:
    return not _PLACEHOLDER.match(m.group("pw"))


RULES: tuple[TokenRule, ...] = (
    TokenRule("private key", "a private key", ("PRIVATE KEY", "PuTTY-User-Key-File"), _private_keys),
    TokenRule("AWS access key", "an AWS access key", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
              _regex(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])")),
    TokenRule("AWS secret key", "an AWS secret key", ("aws", "AWS", "Aws"),
              _regex(r"(?i:aws)[^\n]{0,20}?(?i:secret|key)[^\n]{0,20}?[=:\s\"']\s{0,3}[\"']?"
                     r"(?P<s>(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])", "s", _mixed)),
    TokenRule("GitHub token", "a GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
              _regex(_B + r"(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{60,251})" + _E)),
    TokenRule("GitLab token", "a GitLab token",
              ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-",
               "GR1348941"),
              _regex(_B + r"(?:(?:glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glptt|glagent|gloas)-|GR1348941)"
                     r"[A-Za-z0-9_\-]{20,1024}" + _E)),
    TokenRule("Slack token", "a Slack token", ("xox", "xapp-"),
              _regex(_B + r"(?:xox[abposre]-[A-Za-z0-9\-]{10,250}|xapp-\d-[A-Za-z0-9\-]{20,250})" + _E)),
    TokenRule("Slack webhook", "a Slack webhook URL", ("hooks.slack.com",),
              _regex(r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{20,300}")),
    TokenRule("Stripe key", "a Stripe secret key", ("k_live_", "k_test_", "whsec_"),
              _regex(_B + r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}|whsec_[A-Za-z0-9]{24,100})" + _E)),
    TokenRule("Google key", "a Google API key or token", ("AIza", "GOCSPX-", "ya29."),
              _regex(_B + r"(?:AIza[0-9A-Za-z_\-]{35}|GOCSPX-[A-Za-z0-9_\-]{28}|ya29\.[0-9A-Za-z_\-]{30,500})" + _E)),
    TokenRule("Anthropic key", "an Anthropic API key", ("sk-ant-",),
              _regex(_B + r"sk-ant-[A-Za-z0-9_\-]{20,300}" + _E, check=_mixed)),
    TokenRule("OpenAI key", "an OpenAI API key", ("sk-",),
              _regex(_B + r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,300}" + _E, check=_mixed)),
    TokenRule("SendGrid key", "a SendGrid API key", ("SG.",),
              _regex(_B + r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _E)),
    TokenRule("Twilio key", "a Twilio key", ("AC", "SK"),
              _regex(r"(?<![A-Za-z0-9])(?:AC|SK)[a-f0-9]{32}(?![A-Za-z0-9])")),
    TokenRule("Discord token", "a Discord token or webhook", (".", "discord"),
              _regex(_B + r"(?:[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}" + _E +
                     r"|https?://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,30}/[A-Za-z0-9_\-]{20,100})",
                     check=_mixed)),
    TokenRule("PyPI token", "a PyPI token", ("pypi-AgE",),
              _regex(_B + r"pypi-AgE[A-Za-z0-9_\-]{50,500}" + _E)),
    TokenRule("npm token", "an npm token", ("npm_", "_authToken"),
              _regex(_B + r"npm_[A-Za-z0-9]{36}" + _E + r"|_authToken\s{0,3}=\s{0,3}(?P<t>[^\s\"']{8,300})")),
    TokenRule("Hugging Face token", "a Hugging Face token", ("hf_", "api_org_"),
              _regex(_B + r"(?:hf_|api_org_)[A-Za-z0-9]{30,40}" + _E, check=_mixed)),
    TokenRule("DigitalOcean token", "a DigitalOcean token", ("_v1_",),
              _regex(_B + r"do[por]_v1_[a-f0-9]{64}" + _E)),
    TokenRule("Telegram bot token", "a Telegram bot token", (":",),
              _regex(r"(?<![0-9])\d{8,10}:[A-Za-z0-9_\-]{35}" + _E, check=_mixed)),
    TokenRule("JWT", "a JSON web token", ("eyJ",),
              _regex(_B + r"eyJ[A-Za-z0-9_\-]{8,4000}\.[A-Za-z0-9_\-]{8,8000}\.[A-Za-z0-9_\-]{8,2000}" + _E)),
    TokenRule("bearer token", "a bearer token or basic credentials", ("earer", "EARER", "uthorization", "UTHORIZATION"),
              _regex(r"(?:(?i:bearer)|(?i:authorization)\s{0,3}:\s{0,3}(?i:basic))\s{1,3}"
                     r"(?P<t>(?<![A-Za-z0-9])[A-Za-z0-9_\-.=~+/]{16,2000})", "t", _mixed)),
    TokenRule("URL password", "a password inside a URL", ("://",),
              _regex(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s/:@?#]{0,256}:"
                     r"(?P<pw>[^\s/@?#]{1,256})@", "pw", _url_password)),
    TokenRule("environment secret", "a secret in an environment line", ("=",), _env_lines),
)
