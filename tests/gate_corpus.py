"""The write gate's corpus: ``tests/data/gate_corpus.json`` expanded into sentences.

The data file holds sentences only. Token-shaped values (API keys, private keys, card numbers,
IBANs, commit hashes, IMEIs…) are written there as placeholders, ``{gen:NAME}``, and generated here
from a fixed seed, so the repository never holds a string in a real key's format (which would trip
secret scanners) and every run sees the same corpus. In a secret sentence the secret itself is
marked ``⟦…⟧`` in the file; a generated value is the secret. ``Sentence.secret`` is that value:
what must never reach the disk.

Used by the tests (``test_gate*.py``) and by ``benchmarks/gate.py``.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).parent / "data" / "gate_corpus.json"
SEED = 2026
_MARK = re.compile(r"⟦(.+?)⟧", re.DOTALL)
_GEN = re.compile(r"\{gen:([a-z0-9_]+)\}")


@dataclass(frozen=True)
class Sentence:
    text: str
    #: the format or rule it exercises ("GitHub token", "password (vi)")
    kind: str
    #: the secret part (``None`` for an innocent sentence)
    secret: str | None = None


class Fakes:
    """Token-shaped strings from a seeded generator (obviously fake: random, never issued)."""

    def __init__(self, seed: int = SEED):
        self.rng = random.Random(seed)

    def pick(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def mixed(self, alphabet: str, n: int) -> str:
        """``n`` characters of ``alphabet`` with at least one digit, upper and lower letter where
        the alphabet has them (a random token almost always does; a fixed seed must not be unlucky)."""
        while True:
            s = self.pick(alphabet, n)
            classes = [set(s) & set(c) for c in (string.digits, string.ascii_uppercase, string.ascii_lowercase)
                       if set(c) & set(alphabet)]
            if all(classes):
                return s

    def alnum(self, n: int) -> str:
        return self.mixed(string.ascii_letters + string.digits, n)

    def upper(self, n: int) -> str:
        return self.mixed(string.ascii_uppercase + string.digits, n)

    def hex(self, n: int) -> str:
        return self.mixed("0123456789abcdef", n)

    def digits(self, n: int) -> str:
        return self.rng.choice("123456789") + self.pick(string.digits, n - 1)

    def b64url(self, n: int) -> str:
        return self.mixed(string.ascii_letters + string.digits + "-_", n)

    def b64(self, n: int) -> str:
        return self.mixed(string.ascii_letters + string.digits + "+/", n)

    @staticmethod
    def luhn_digit(body: str) -> str:
        total = 0
        for i, ch in enumerate(reversed(body)):
            d = int(ch)
            if i % 2 == 0:
                d *= 2
                if d > 9:
                    d -= 9
            total += d
        return str((10 - total % 10) % 10)

    def card(self, prefix: str, length: int) -> str:
        body = prefix + self.pick(string.digits, length - len(prefix) - 1)
        return body + self.luhn_digit(body)

    def iban(self, country: str, bban: str) -> str:
        rearranged = bban + country + "00"
        number = int("".join(str(int(c, 36)) for c in rearranged))
        check = 98 - number % 97
        return f"{country}{check:02d}{bban}"

    def jwt(self) -> str:
        """A JSON web token whose header and claims decode (a scanner checks that), signed by noise."""
        def part(obj: dict) -> str:
            return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")
        claims = {"sub": self.alnum(12), "name": "Fake Person", "iat": self.rng.randint(1_600_000_000, 1_800_000_000)}
        return part({"alg": "HS256", "typ": "JWT"}) + "." + part(claims) + "." + self.b64url(43)

    def pem(self, label: str) -> str:
        lines = [self.b64(64) for _ in range(4)] + [self.b64(24) + "=="]
        return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"

    def make(self, name: str) -> str:  # noqa: C901 - one table of formats
        g = self
        table = {
            "aws_key": lambda: "AKIA" + g.upper(16),
            "aws_key_temp": lambda: "ASIA" + g.upper(16),
            "aws_secret": lambda: g.b64(40),
            "github_pat": lambda: "ghp_" + g.alnum(36),
            "github_oauth": lambda: "gho_" + g.alnum(36),
            "github_server": lambda: "ghs_" + g.alnum(36),
            "github_fine": lambda: "github_pat_" + g.alnum(22) + "_" + g.alnum(59),
            "gitlab_pat": lambda: "glpat-" + g.b64url(20),
            "gitlab_deploy": lambda: "gldt-" + g.b64url(20),
            "gitlab_runner": lambda: "GR1348941" + g.b64url(20),
            "slack_bot": lambda: f"xoxb-{g.digits(12)}-{g.digits(13)}-{g.alnum(24)}",
            "slack_user": lambda: f"xoxp-{g.digits(12)}-{g.digits(12)}-{g.digits(13)}-{g.hex(32)}",
            "slack_app": lambda: f"xapp-1-A{g.upper(10)}-{g.digits(13)}-{g.hex(64)}",
            "slack_webhook": lambda: f"https://hooks.slack.com/services/T{g.upper(8)}/B{g.upper(10)}/{g.alnum(24)}",
            "stripe_live": lambda: "sk_live_" + g.alnum(24),
            "stripe_restricted": lambda: "rk_live_" + g.alnum(24),
            "stripe_test": lambda: "sk_test_" + g.alnum(24),
            "stripe_webhook": lambda: "whsec_" + g.alnum(32),
            "google_api": lambda: "AIza" + g.b64url(35),
            "google_oauth_secret": lambda: "GOCSPX-" + g.b64url(28),
            "google_oauth_token": lambda: "ya29." + g.b64url(60),
            "openai_project": lambda: "sk-proj-" + g.b64url(48),
            "openai_legacy": lambda: "sk-" + g.alnum(20) + "T3BlbkFJ" + g.alnum(20),
            "openai_service": lambda: "sk-svcacct-" + g.b64url(40),
            "anthropic": lambda: "sk-ant-api03-" + g.b64url(93) + "AA",
            "anthropic_admin": lambda: "sk-ant-admin01-" + g.b64url(80),
            "sendgrid": lambda: "SG." + g.b64url(22) + "." + g.b64url(43),
            "twilio_sid": lambda: "AC" + g.hex(32),
            "twilio_key": lambda: "SK" + g.hex(32),
            "discord_bot": lambda: "M" + g.b64url(23) + "." + g.b64url(6) + "." + g.b64url(27),
            "discord_webhook": lambda: f"https://discord.com/api/webhooks/{g.digits(18)}/{g.b64url(68)}",
            "pypi": lambda: "pypi-AgEIcHlwaS5vcmc" + g.b64url(80),
            "npm": lambda: "npm_" + g.alnum(36),
            "huggingface": lambda: "hf_" + g.mixed(string.ascii_letters, 34),
            "huggingface_org": lambda: "api_org_" + g.mixed(string.ascii_letters, 34),
            "digitalocean": lambda: "dop_v1_" + g.hex(64),
            "digitalocean_oauth": lambda: "doo_v1_" + g.hex(64),
            "telegram": lambda: f"{g.digits(10)}:AA{g.b64url(33)}",
            "jwt": lambda: g.jwt(),
            "pem_rsa": lambda: g.pem("RSA PRIVATE KEY"),
            "pem_ec": lambda: g.pem("EC PRIVATE KEY"),
            "pem_openssh": lambda: g.pem("OPENSSH PRIVATE KEY"),
            "pem_openssh_flat": lambda: " ".join(g.pem("OPENSSH PRIVATE KEY").split("\n")),
            "pem_pkcs8": lambda: g.pem("PRIVATE KEY"),
            "pem_encrypted": lambda: g.pem("ENCRYPTED PRIVATE KEY"),
            "pgp_private": lambda: g.pem("PGP PRIVATE KEY BLOCK"),
            "password": lambda: g.alnum(14),
            "token40": lambda: g.alnum(40),
            "visa": lambda: g.card("4", 16),
            "mastercard": lambda: g.card("5" + g.rng.choice("12345"), 16),
            "amex": lambda: g.card(g.rng.choice(["34", "37"]), 15),
            "jcb": lambda: g.card("35" + str(g.rng.randint(28, 89)), 16),
            "napas": lambda: g.card("9704", 16),
            "unionpay": lambda: g.card("62", 19),
            "iban_de": lambda: g.iban("DE", g.pick(string.digits, 18)),
            "iban_gb": lambda: g.iban("GB", g.pick(string.ascii_uppercase, 4) + g.pick(string.digits, 14)),
            "iban_fr": lambda: g.iban("FR", g.pick(string.digits, 23)),
            "account13": lambda: "00" + g.pick(string.digits, 11),
            "account10": lambda: g.digits(10),
            "sha1": lambda: g.hex(40),
            "sha256": lambda: g.hex(64),
            "short_sha": lambda: g.hex(7),
            "uuid": lambda: f"{g.hex(8)}-{g.hex(4)}-4{g.hex(3)}-a{g.hex(3)}-{g.hex(12)}",
            "imei": lambda: g.card("35" + g.pick(string.digits, 6), 15),
            "isbn": lambda: "978" + g.pick(string.digits, 10),
        }
        if name not in table:
            raise KeyError(f"no generator {name!r}")
        return table[name]()


def _format(value: str, fmt: str) -> str:
    """Cards are written as people write them: ``spaces``, ``dashes``, ``dots``, ``nbsp`` or ``plain``."""
    if fmt == "plain":
        return value
    sep = {"spaces": " ", "dashes": "-", "dots": ".", "nbsp": "\u00a0", "nnbsp": "\u202f"}[fmt]
    return sep.join(value[i:i + 4] for i in range(0, len(value), 4))


def expand(template: str, fakes: Fakes) -> tuple[str, str | None]:
    """``(text, secret)``: placeholders generated, the ``⟦…⟧`` mark removed."""
    secret = None

    def gen(m: re.Match) -> str:
        nonlocal secret
        name, _, fmt = m.group(1).partition("__")
        value = _format(fakes.make(name), fmt) if fmt else fakes.make(name)
        secret = secret or value
        return value

    text = _GEN.sub(gen, template)
    marked = _MARK.search(text)
    if marked:
        secret = marked.group(1)
        text = _MARK.sub(lambda m: m.group(1), text)
    return text, secret


def load() -> tuple[list[Sentence], list[Sentence]]:
    """``(secret sentences, innocent sentences)`` of the corpus, generated from ``SEED``."""
    data = json.loads(CORPUS.read_text(encoding="utf-8"))
    fakes = Fakes()
    secrets, innocents = [], []
    for item in data["secrets"]:
        text, secret = expand(item["text"], fakes)
        if not secret:
            raise ValueError(f"secret sentence without a marked or generated secret: {item['text']!r}")
        secrets.append(Sentence(text, item["kind"], secret))
    for item in data["innocents"]:
        text, _ = expand(item["text"], fakes)
        innocents.append(Sentence(text, item["kind"]))
    return secrets, innocents
