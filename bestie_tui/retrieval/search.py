"""Ranked search over memories of any status: the tolerant text match of ``MemoryStore.list`` cut
to the newest ``SEARCH_POOL`` matches, then ordered by the scorer ``build_context`` uses (without
its scope part, since a search has no request binding). A search does not count as an access.

With search by meaning on (the ``semantic`` extra, ``retrieval.meaning``), the approved memories
closest in meaning to the query join the text matches (at most ``MEANING_POOL``, each whose cosine
reaches the model's ``related``): a memory that shares no word with the query is found too, and the
scorer ranks them all together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestie_tui.errors import InvalidValueError
from bestie_tui.retrieval.scoring import rank_records
from bestie_tui.store.binding import uses_store
from bestie_tui.store.models import Memory
from bestie_tui.store.query import memory_query
from bestie_tui.store.records import MemoryRecord
from bestie_tui.store.support import to_record
from bestie_tui.text import words as textmod

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore

#: How many text matches ``search`` ranks with the scorer (newest first) before cutting to its limit.
SEARCH_POOL = 2000
#: How many memories close in meaning join the text matches, at most (search by meaning on).
MEANING_POOL = 50


@uses_store
def search(store: MemoryStore, query: str, *, status: str | None = None, limit: int = 50,
           user: str | None = None, with_unbound: bool = False) -> list[MemoryRecord]:
    """Case-, accent- and inflection-tolerant search: every query word must occur as a stemmed
    word prefix ("replies" ~ "reply") or inside the accent-folded text with spaces removed
    ("hanoi" ~ "Hà Nội"). Ranked by approved first, then by the relevance score of
    ``scoring.rank_records``; only the ``SEARCH_POOL`` newest matches are ranked. With search by
    meaning on, the approved memories closest in meaning join them (module docstring), under the
    same filters, whether or not they hold the query's words.

    Args:
        store: the open store.
        query: free text; at least one word. A long query is cut (``text.words.query_words``).
        status: only memories with this status (pending, approved, rejected, forgotten).
        limit: at most this many records.
        user: only memories bound to this user (exactly; ``None`` searches every user's).
        with_unbound: with ``user``, also the memories bound to no user (the owner's general
            memories, which recall injects for the owner).

    Raises:
        InvalidValueError: the query has no words, or an unknown status.
    """
    query = textmod.cut_query(query)
    if not query:
        raise InvalidValueError("search query has no words")
    if status in (None, "all", "approved"):
        _start_embedding(store, query)
    unbound = with_unbound and user is not None
    q = memory_query(status=status, query=query, user=None if unbound else user)
    if unbound:
        q = q.where((Memory.user == user) | Memory.user.is_null())
    q = q.order_by(Memory.updated_at.desc()).limit(SEARCH_POOL)
    pool = [to_record(r) for r in q]
    if status in (None, "all", "approved"):
        pool += _close_in_meaning(store, query, {r.id for r in pool}, user, unbound)
    return [m for m, _ in rank_records(store, query, pool)][:limit]


def _start_embedding(store: MemoryStore, query: str) -> None:
    """With meaning on, the request is embedded in a worker thread while the text matches are read."""
    from bestie_tui.retrieval import meaning
    from bestie_tui.retrieval.scoring import settings_snapshot

    meaning.prefetch(store, query, settings_snapshot(store))


def _close_in_meaning(store: MemoryStore, query: str, have: set[int], user: str | None,
                      unbound: bool) -> list[MemoryRecord]:
    """The approved memories close in meaning to ``query`` (``meaning.nearest``) that ``have`` does not
    hold, under the search's user filter; ``[]`` when meaning is off."""
    from bestie_tui.retrieval import meaning
    from bestie_tui.retrieval.index import get_index
    from bestie_tui.retrieval.scoring import settings_snapshot

    near = meaning.nearest(store, query, settings_snapshot(store), get_index(store).generation(), MEANING_POOL)
    ids = [i for i, _ in near if i not in have]
    if not ids:
        return []
    q = memory_query(status="approved", user=None if unbound else user).where(Memory.id.in_(ids))
    if unbound:
        q = q.where((Memory.user == user) | Memory.user.is_null())
    return [to_record(r) for r in q]
