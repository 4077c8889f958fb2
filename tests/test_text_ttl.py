"""Normalisation, TTL parsing and the secret guard's edges."""

from __future__ import annotations

from datetime import datetime

import pytest

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.secrets import detect_secret, iban_ok, luhn_ok
from bestie_tui.text import words as text
from bestie_tui.text.ttl import parse_ttl

NOW = datetime(2026, 11, 30, 12, 0)  # a Monday


def test_fold_and_normalize():
    assert text.fold("Hà Nội, Đà Nẵng") == "ha noi, da nang"
    assert text.normalize("  User PREFERS  Vietnamese!! ") == "user prefers vietnamese"
    assert text.printable("a\x1b[31mb\x07") == "a\\x1b[31mb\\x07"


@pytest.mark.parametrize("value, expected", [
    ("7d", datetime(2026, 12, 7, 12, 0)),
    ("2 weeks", datetime(2026, 12, 14, 12, 0)),
    ("12h", datetime(2026, 12, 1, 0, 0)),
    ("1 month", datetime(2026, 12, 30, 12, 0)),
    ("until friday", datetime(2026, 12, 4, 23, 59, 59)),
    ("2027-01-31", datetime(2027, 1, 31, 23, 59, 59)),
    ("2027-01-31T18:00", datetime(2027, 1, 31, 18, 0)),
])
def test_parse_ttl(value, expected):
    assert parse_ttl(value, NOW) == expected


@pytest.mark.parametrize("value", ["", "soon", "7 parsecs", "0d", "2020-01-01", "-3d"])
def test_bad_ttl(value):
    with pytest.raises(InvalidValueError):
        parse_ttl(value, NOW)


def test_checksums():
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert iban_ok("GB82 WEST 1234 5698 7654 32") and not iban_ok("GB82 WEST 1234 5698 7654 33")


@pytest.mark.parametrize("harmless", [
    "Prefers concise replies", "Born in 1990, has 2 kids", "Phone has 1234567890123 photos",
    "Uses the password manager 1Password", "Ticket PROJ-4411 is blocked",
])
def test_harmless_text_is_not_a_secret(harmless):
    assert detect_secret(harmless) is None
