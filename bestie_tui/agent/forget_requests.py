"""Forgets the assistant asked for, queued for the owner: the model never deletes.

The queue is an internal record (setting ``agent.forgetRequests``, a JSON list, newest last), not an
undo step: asking changes no memory. The owner confirms one (``bestie memory forget-requests
confirm ID``), which forgets the memory as the owner's own, undoable change, or dismisses it.
"""

from __future__ import annotations

import json
from typing import Any

from bestie_tui.errors import InvalidValueError, NotFoundError
from bestie_tui.store.binding import uses_store

#: The internal setting that holds the queue (listed in ``store.settings.INTERNAL``).
KEY = "agent.forgetRequests"
#: Longest reason kept with a request, in characters.
MAX_REASON = 500


def _mine(store, item: dict[str, Any]) -> bool:
    """Whether a queued request is the store's to see (``MemoryStore.owns``)."""
    return bool(store.owns(item.get("user")))


def _put(store, value: list[dict[str, Any]]) -> None:
    """Store ``value`` as the store's part of the queue; the other users' requests stay."""
    from bestie_tui.store.models import Setting

    with store.db.atomic():
        others = [i for i in (store.get_setting(KEY) or []) if not _mine(store, i)]
        value = sorted([*others, *value], key=lambda i: str(i.get("at", "")))  # oldest first, as asked
        if value:
            Setting.put(KEY, json.dumps(value, ensure_ascii=False))
        else:
            Setting.delete().where(Setting.key == KEY).execute()


@uses_store
def pending_forgets(store) -> list[dict[str, Any]]:
    """The queued requests, oldest first: ``{"memory_id", "reason", "user", "at"}`` (a user-bound
    store's: that user's only)."""
    return [i for i in (store.get_setting(KEY) or []) if _mine(store, i)]


@uses_store
def request_forget(store, memory_id: Any, reason: str = "", *, user: str | None) -> dict[str, Any]:
    """Queue a forget of ``memory_id`` for the owner to confirm; nothing is forgotten.

    Only an active approved memory that ``user`` may see (bound to them, or to no user) can be asked
    for; asking twice keeps one request.

    Raises:
        NotFoundError: no such memory, or not one of this user's active memories.
        InvalidValueError: the id is not a whole number ≥ 1.
    """
    if isinstance(memory_id, bool) or not isinstance(memory_id, int) or memory_id < 1:
        raise InvalidValueError(f"a memory id is a whole number such as 12, not {memory_id!r}")
    try:
        record = store.get(memory_id)
    except NotFoundError:
        record = None
    if (record is None or record.status != "approved" or record.superseded_by is not None
            or record.user not in (None, user)):
        raise NotFoundError(f"no active memory #{memory_id} for this user")
    queue = pending_forgets(store)
    for item in queue:
        if item["memory_id"] == memory_id:
            return item
    item = {"memory_id": memory_id, "reason": str(reason or "")[:MAX_REASON], "user": user,
            "at": store.clock().isoformat(timespec="seconds")}
    _put(store, [*queue, item])
    return item


@uses_store
def confirm_forget(store, memory_id: int, *, actor: str = "owner"):
    """Forget the memory a request names (the owner's change: ``undo`` brings it back) and drop the
    request. Returns the forgotten ``MemoryRecord``.

    Raises:
        NotFoundError: no request for that memory.
    """
    queue = pending_forgets(store)
    if not any(i["memory_id"] == memory_id for i in queue):
        raise NotFoundError(f"no forget request for memory #{memory_id}")
    record = store.get(memory_id)
    if record.status != "forgotten":
        record = store.forget(memory_id, actor=actor)
    _put(store, [i for i in queue if i["memory_id"] != memory_id])
    return record


@uses_store
def dismiss_forget(store, memory_id: int) -> None:
    """Drop the request for ``memory_id``; the memory stays. Raises NotFoundError (no request)."""
    queue = pending_forgets(store)
    if not any(i["memory_id"] == memory_id for i in queue):
        raise NotFoundError(f"no forget request for memory #{memory_id}")
    _put(store, [i for i in queue if i["memory_id"] != memory_id])
