"""The credential-shape corpus of ``benchmarks/gate.py``: ``benchmarks/data/credential_shapes*.json``
expanded into sentences.

In a secret sentence the value that must never reach the disk is marked ``⟦…⟧``. Token-shaped
values are written as placeholders and generated here from a fixed seed, so the repository holds no
string in a live key's format:

* ``{rand:ALPHABET:N}``: ``N`` characters of ``hex``, ``alnum``, ``lowalnum``, ``upper``, ``b64``,
  ``b64url`` or ``base32`` (mixing its classes, as a random token does);
* ``{card:PREFIX:LENGTH:GROUPS}``: a Luhn-valid card number of ``LENGTH`` digits after ``PREFIX``,
  written in ``GROUPS`` (group sizes and the separators between them, "4-4-4-4", "2  7 4 3");
* ``{iban:CC:BBAN_LENGTH:GROUPS}``: an IBAN of country ``CC`` with valid check digits.

``load(path)`` returns ``(secrets, innocents)`` as ``Sentence`` lists; ``Sentence.secrets`` holds the
marked values of a secret sentence.
"""

from __future__ import annotations

import json
import random
import re
import string
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
CORPUS = DATA / "credential_shapes.json"
HELD_OUT = DATA / "credential_shapes_heldout.json"
SEED = 3030
_MARK = re.compile(r"⟦(.+?)⟧", re.DOTALL)
_PLACE = re.compile(r"\{(rand|card|iban):([^{}]+)\}")
_ALPHABETS = {
    "hex": "0123456789abcdef", "alnum": string.ascii_letters + string.digits,
    "lowalnum": string.ascii_lowercase + string.digits, "upper": string.ascii_uppercase + string.digits,
    "b64": string.ascii_letters + string.digits + "+/", "b64url": string.ascii_letters + string.digits + "-_",
    "base32": string.ascii_uppercase + "234567",
}


@dataclass(frozen=True)
class Sentence:
    text: str
    kind: str
    #: the values that must never reach the disk (empty for an innocent sentence)
    secrets: tuple[str, ...] = ()


class _Fakes:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def rand(self, alphabet: str, n: int) -> str:
        chars = _ALPHABETS[alphabet]
        classes = [set(c) & set(chars) for c in (string.digits, string.ascii_uppercase, string.ascii_lowercase)]
        classes = [c for c in classes if c]
        while True:
            s = "".join(self.rng.choice(chars) for _ in range(n))
            if n < len(classes) * 2 or all(set(s) & c for c in classes):
                return s

    def luhn(self, body: str) -> str:
        total = 0
        for i, ch in enumerate(reversed(body)):
            d = int(ch) * (2 if i % 2 == 0 else 1)
            total += d - 9 if d > 9 else d
        return body + str((10 - total % 10) % 10)

    @staticmethod
    def grouped(digits: str, groups: str) -> str:
        out, pos = [], 0
        for size, sep in re.findall(r"(\d+)([ \-.]*)", groups):
            out += [digits[pos:pos + int(size)], sep]
            pos += int(size)
        return "".join(out) + digits[pos:]

    def card(self, prefix: str, length: str, groups: str) -> str:
        body = prefix + "".join(self.rng.choice(string.digits) for _ in range(int(length) - len(prefix) - 1))
        return self.grouped(self.luhn(body), groups)

    def iban(self, country: str, length: str, groups: str) -> str:
        bban = "".join(self.rng.choice(string.digits) for _ in range(int(length)))
        numeric = int((bban + country + "00").translate({ord(c): str(10 + i) for i, c in
                                                          enumerate(string.ascii_uppercase)}))
        return self.grouped(f"{country}{98 - numeric % 97:02d}{bban}", groups)

    def expand(self, text: str) -> str:
        def one(m: re.Match) -> str:
            kind, args = m.group(1), m.group(2).split(":")
            if kind == "rand":
                return self.rand(args[0], int(args[1]))
            return self.card(*args) if kind == "card" else self.iban(*args)
        return _PLACE.sub(one, text)


def load(path: Path = CORPUS, seed: int = SEED) -> tuple[list[Sentence], list[Sentence]]:
    """``(secret sentences, innocent sentences)`` of a corpus file, placeholders generated."""
    data = json.loads(path.read_text(encoding="utf-8"))
    fakes = _Fakes(seed)
    secrets = []
    for item in data["secrets"]:
        marked = fakes.expand(item["text"])
        values = tuple(_MARK.findall(marked))
        secrets.append(Sentence(_MARK.sub(r"\1", marked), item["kind"], values))
    innocents = [Sentence(fakes.expand(item["text"]), item["kind"]) for item in data["innocents"]]
    return secrets, innocents
