"""The secret check: what must never be stored, whatever the write policy, and its redaction.

``find_secrets(text)`` returns every secret as a ``SecretMatch`` (the kind and where it is);
``detect_secret(text)`` the phrase of the first kind found, for a refusal ("a password", "a GitHub
token"), never any part of the secret; ``redact(text)`` the text with each secret replaced by
``[redacted: KIND]`` (what chat messages and persisted summaries keep).

Four families, each in its module:

* ``tokens``: machine formats (AWS, GitHub, GitLab, Slack, Stripe, Google, OpenAI, Anthropic,
  SendGrid, Twilio, Discord, PyPI, npm, Hugging Face, DigitalOcean, Telegram, JWTs, bearer
  tokens, private key blocks, passwords inside URLs, ``.env`` lines);
* ``words``: secrets stated in words, English and Vietnamese (passwords, PINs, door codes,
  one-time codes, card security codes, API keys named as such, bank account numbers beside an
  account keyword or a bank's name);
* ``shapes``: credentials by their shape whatever they are called: a credential cue and a value
  of its shape in either order ("use Kx9!mQ as my password", "G-228732 is your code"), a user and
  password written as a pair ("admin / Sa8gE6ci", "root/root"), national identity numbers after
  their cue;
* ``numbers``: card numbers (Luhn and issuer prefix) and IBANs (mod 97), however their digits are
  grouped.

Every rule runs in linear time in ``len(text)`` (see ``benchmarks/gate.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bestie_tui.store.gate.fold import view
from bestie_tui.store.gate.numbers import find_cards, find_ibans, iban_ok, luhn_ok
from bestie_tui.store.gate.shapes import find_shaped
from bestie_tui.store.gate.tokens import rules_in
from bestie_tui.store.gate.words import find_word_secrets


@dataclass(frozen=True, order=True)
class SecretMatch:
    """One secret: ``start``/``end`` in the NFC form of the text, ``name`` (short, for
    ``[redacted: name]``) and ``phrase`` (for a refusal: "a password")."""

    start: int
    end: int
    name: str
    phrase: str


_CARD = ("card number", "a card number")
_IBAN = ("IBAN", "an IBAN")


def find_secrets(text: str) -> list[SecretMatch]:
    """Every secret in ``text``, sorted by position, overlapping matches merged (the first kind
    found at a place names it). Offsets refer to ``unicodedata.normalize("NFC", text)``.

    Args:
        text: any text (a memory, a chat message, a summary).

    Returns:
        A list of ``SecretMatch``; empty when nothing looks secret.
    """
    if not text:
        return []
    v = view(text)
    nfc = v.nfc
    found: list[SecretMatch] = []
    for rule in rules_in(nfc):
        found += [SecretMatch(s, e, rule.name, rule.phrase) for s, e in rule.find(nfc)]
    found += [SecretMatch(*v.nfc_span(s, e), rule.name, rule.phrase) for rule, (s, e) in find_word_secrets(v)]
    found += [SecretMatch(*v.nfc_span(s, e), rule.name, rule.phrase) for rule, (s, e) in find_shaped(v)]
    found += [SecretMatch(*v.nfc_span(s, e), *_CARD) for s, e in find_cards(v.folded)]
    found += [SecretMatch(s, e, *_IBAN) for s, e in find_ibans(nfc)]
    return _merge(found)


def _merge(found: list[SecretMatch]) -> list[SecretMatch]:
    out: list[SecretMatch] = []
    for m in sorted(found, key=lambda m: (m.start, -m.end)):
        if out and m.start < out[-1].end:
            last = out[-1]
            if m.end > last.end:
                out[-1] = SecretMatch(last.start, m.end, last.name, last.phrase)
            continue
        out.append(m)
    return out


def detect_secret(text: str) -> str | None:
    """The phrase naming a secret in ``text`` ("a password", "a card number"), or ``None``.

    The phrase is safe to show and to log: it never holds any part of the secret. Stops at the first
    secret found (in rule order: token formats, stated secrets, cards, IBANs), so a text full of
    secrets is refused as fast as it is read.
    """
    if not text:
        return None
    v = view(text)
    for token_rule in rules_in(v.nfc):
        if next(token_rule.find(v.nfc), None) is not None:
            return token_rule.phrase
    for word_rule, _ in find_word_secrets(v):
        return word_rule.phrase
    for word_rule, _ in find_shaped(v):
        return word_rule.phrase
    if next(find_cards(v.folded), None) is not None:
        return _CARD[1]
    if next(find_ibans(v.nfc), None) is not None:
        return _IBAN[1]
    return None


def secret_kinds(text: str) -> list[str]:
    """The distinct phrases of every secret in ``text``, in order of appearance."""
    return list(dict.fromkeys(m.phrase for m in find_secrets(text or "")))


_MARKER = re.compile(r"\[redacted: [^\]\n]{1,40}\]")


def redact(text: str) -> tuple[str, list[str]]:
    """``(redacted text, short names of the kinds redacted)``. Each secret becomes
    ``[redacted: NAME]`` (e.g. ``[redacted: password]``); the rest of the text is kept. A text
    without a secret comes back unchanged (not even NFC-normalised)."""
    found = find_secrets(text or "")
    if not found:
        return text, []
    nfc = view(text).nfc
    # A marker already in the text ("my password is [redacted: password]") is not itself a secret:
    # redacting twice gives the same text, so a logged message survives export → import unchanged.
    marks = [(m.start(), m.end()) for m in _MARKER.finditer(nfc)]
    found = [m for m in found if not any(m.start < end and start < m.end for start, end in marks)]
    if not found:
        return text, []
    parts, pos = [], 0
    for m in found:
        parts += [nfc[pos:m.start], f"[redacted: {m.name}]"]
        pos = m.end
    parts.append(nfc[pos:])
    return "".join(parts), list(dict.fromkeys(m.name for m in found))


__all__ = ["SecretMatch", "find_secrets", "detect_secret", "secret_kinds", "redact", "luhn_ok", "iban_ok"]
