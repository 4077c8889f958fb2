"""SQL building blocks for memory listings: filters, tiers and the tolerant text match."""

from __future__ import annotations

from functools import reduce
from operator import and_

from peewee import fn

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.models import LAYERS, SCOPES, STATUSES, Memory
from bestie_tui.text import words as textmod


def tier_condition(tier: str):
    """SQL condition for the Tiers view: active approved records by layer; everything inactive
    (superseded, forgotten, rejected) lives in ``archive``. Pending records are in no tier."""
    if tier not in LAYERS:
        raise InvalidValueError(f"unknown tier {tier!r}; use one of {', '.join(LAYERS)}")
    active = (Memory.status == "approved") & Memory.superseded_by.is_null()
    if tier == "archive":
        inactive = Memory.status.in_(("forgotten", "rejected")) | (
            (Memory.status == "approved") & Memory.superseded_by.is_null(False)
        )
        return (active & (Memory.layer == "archive")) | inactive
    return active & (Memory.layer == tier)


def text_condition(query: str, terms_column, squashed_column):
    """Every word of ``query`` must match: as a stemmed word prefix in ``terms_column`` (space-padded
    stemmed terms), or as a substring of ``squashed_column`` (terms without spaces) so "hanoi" finds
    "Hà Nội" — the latter only where some stored word starts as the query word does (its first two
    letters), so "hồ tây" does not find "cho-bot will stay" inside "cho" and "stay". A long query is
    cut (``text.words.query_words``). A CJK query word (a character pair of a run, or one character)
    matches inside ``squashed_column`` alone: those scripts leave no spaces between words, and the
    squashed text holds the run as it was written (folded) in rows stored before runs were split.
    Returns a peewee expression; raises InvalidValueError for a query without words."""
    words = textmod.query_words(query)
    if not words:
        raise InvalidValueError("search query has no words")
    parts = []
    for word in words:
        if textmod.has_cjk(word):
            parts.append(squashed_column.contains(textmod.fold(word)))
            continue
        stemmed = textmod.stem(word)
        across = squashed_column.contains(word) & terms_column.contains(" " + word[:2])
        parts.append(terms_column.contains(" " + stemmed) | across)
    return reduce(and_, parts)


def memory_query(*, scope=None, status=None, tier=None, user=None, query=None, layer=None):
    """A ``Memory.select()`` with the given filters applied (each optional).

    Raises InvalidValueError for an unknown scope, status, tier or layer.
    """
    q = Memory.select()
    if scope is not None:
        if scope not in SCOPES:
            raise InvalidValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
        q = q.where(Memory.scope == scope)
    if status is not None and status != "all":
        if status not in STATUSES:
            raise InvalidValueError(f"unknown status {status!r}; use one of {', '.join(STATUSES)}")
        q = q.where(Memory.status == status)
    if layer is not None:
        if layer not in LAYERS:
            raise InvalidValueError(f"unknown layer {layer!r}; use one of {', '.join(LAYERS)}")
        q = q.where(Memory.layer == layer)
    if tier is not None:
        q = q.where(tier_condition(tier))
    if user is not None:
        q = q.where(Memory.user == user)
    if query:
        q = q.where(text_condition(query, Memory.terms, fn.REPLACE(Memory.norm, " ", "")))
    return q
