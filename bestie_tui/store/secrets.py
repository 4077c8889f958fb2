"""The secret check, under the name it has always had: ``detect_secret``, ``redact``, ``luhn_ok`` and
``iban_ok`` live in ``bestie_tui.store.gate.secrets`` (the write gate's family of secret rules) and
are re-exported here."""

from __future__ import annotations

from bestie_tui.store.gate.secrets import (
    SecretMatch,
    detect_secret,
    find_secrets,
    iban_ok,
    luhn_ok,
    redact,
    secret_kinds,
)

__all__ = ["SecretMatch", "detect_secret", "find_secrets", "iban_ok", "luhn_ok", "redact", "secret_kinds"]
