"""Sensitive details: health, finance and identity documents (the special categories of personal
data that a leaked prompt or a digest sent to a chat app should not carry).

``sensitive_kind(text)`` names the first category a memory's text holds, or ``None``. It reads
general category words, English and Vietnamese — medical conditions, treatment and the people who
give it; income, debt and accounts; identity documents — never one person's phrase. Vietnamese is
read as written (with diacritics), and its multi-syllable words also typed without them ("tram cam",
"ho chieu"): a single syllable typed bare ("no", "vay") is another word too often.

What follows from the mark (``store.gate.decision``, the console, the digest):

* a sensitive memory is never put in core by default — a proposal, an ``add`` or an import that would
  land in core lands in working, with a note; the owner can still move it into core by hand;
* the console shows it with the ``sensitive`` flag;
* the weekly digest, which is sent to chat apps, names the category instead of quoting the text.

The mark is read from the text every time, so an edit that removes the detail removes the mark, and
no column or migration holds it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: Category → English words (matched whole, case-insensitive; ``\w*`` endings where written).
_EN = {
    "health": (
        r"diagnos\w*|disease|(?:eating|anxiety|panic|personality|bipolar|mental health) disorder|mental health"
        r"|illness|syndrome|medications?|medicines?|prescri\w*|dosage|antidepressants?"
        r"|insulin|chemo\w*|therap(?:y|ies|ist|ists)|psychiatri\w*|psycholog(?:ist|ists)|surger(?:y|ies)"
        r"|cancer|tumou?rs?|diabet\w*|asthma|epilep\w*|hiv|hepatitis|depression|anxiety|bipolar|schizophreni\w*"
        r"|adhd|ptsd|autis\w*|pregnan\w*|miscarriage|blood pressure|hypertension|cholesterol|chronic pain"
        r"|hospitali[sz]ed|rehab"),
    "finance": (
        r"salary|salaries|income|paycheck|payslip|debts?|loans?|mortgage|credit score|credit card debt"
        r"|bank account|bank balance|savings account|net worth|bankrupt\w*|overdraft|tax return|owes?\s+\$?\d"),
    "identity document": (
        r"passports?|national id|id card|identity card|identity number|driver'?s licen[cs]e|driving licen[cs]e"
        r"|social security|ssn|residence permit|birth certificate|tax id|tax code"),
}
#: Category → Vietnamese words as written (NFC, lower case).
_VI = {
    "health": r"bệnh|chẩn đoán|đơn thuốc|uống thuốc|trị liệu|bác sĩ tâm lý|tâm thần|trầm cảm|rối loạn|lo âu"
              r"|tiểu đường|ung thư|huyết áp|mang thai|có thai|sảy thai|phẫu thuật|nhập viện|hen suyễn|hóa trị",
    "finance": r"lương|thu nhập|nợ|khoản vay|vay tiền|thế chấp|tài khoản ngân hàng|số dư|điểm tín dụng|phá sản",
    "identity document": r"hộ chiếu|căn cước|cccd|cmnd|chứng minh nhân dân|bằng lái|giấy phép lái xe|mã số thuế",
}
#: Vietnamese multi-syllable words typed without diacritics (one syllable alone is too often another word).
_VI_BARE = {
    "health": r"chan doan|don thuoc|tri lieu|bac si tam ly|tram cam|roi loan|tieu duong|ung thu|huyet ap|mang thai"
              r"|pha thai|phau thuat|nhap vien|hen suyen|hoa tri",
    "finance": r"thu nhap|khoan vay|the chap|tai khoan ngan hang|diem tin dung|pha san",
    "identity document": r"ho chieu|can cuoc|chung minh nhan dan|bang lai|giay phep lai xe|ma so thue",
}
CATEGORIES = tuple(_EN)


@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[str, re.Pattern, re.Pattern], ...]:
    out = []
    for category in CATEGORIES:
        written = re.compile(rf"(?<!\w)(?:{_EN[category]}|{_VI[category]})(?!\w)", re.IGNORECASE)
        bare = re.compile(rf"(?<!\w)(?:{_VI_BARE[category]})(?!\w)")
        out.append((category, written, bare))
    return tuple(out)


def sensitive_kind(text: str | None) -> str | None:
    """``"health"``, ``"finance"`` or ``"identity document"``: the first category of sensitive
    detail ``text`` holds, or ``None`` (also for an empty text). Linear in ``len(text)``."""
    if not text:
        return None
    written = unicodedata.normalize("NFC", text).lower().replace("’", "'")
    bare = None
    for category, pattern, bare_pattern in _patterns():
        if pattern.search(written):
            return category
        if bare is None:
            bare = " ".join(_fold(written).split())
        if bare_pattern.search(bare):
            return category
    return None


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.replace("đ", "d"))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def withheld(category: str) -> str:
    """What a digest line says instead of a sensitive memory's text."""
    return f"(a {category} detail, withheld: read it in the console)"
