"""Mem0's ``Memory.get_all`` output: ``{"results": [{"id", "memory", "user_id", "metadata",
"categories", "created_at", "updated_at", …}]}`` (or, from older releases, the bare list)."""

from __future__ import annotations

from typing import Any

from bestie_tui.errors import ImportFormatError
from bestie_tui.importers.common import envelope, kind_of, proposal, utc_iso


def records(data: Any) -> list[Any] | None:
    """The memory entries of a ``get_all`` answer, or ``None`` when ``data`` is not one."""
    items = data.get("results") if isinstance(data, dict) else data
    if isinstance(items, list) and items and all(isinstance(i, dict) and "memory" in i for i in items):
        return items
    if isinstance(data, dict) and data.get("results") == []:
        return []
    return None


def _owner(value: Any, default: str | None, where: str) -> str | None:
    """A Mem0 ``user_id`` as this store's user: text as it is, a whole number (some deployments key
    users by number) as its decimal text, missing or null as ``default``.

    Raises:
        ImportFormatError: any other value (a list, an object, true/false, a fraction).
    """
    if value is None:
        return default
    if isinstance(value, str):
        return value if value.strip() else default
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise ImportFormatError(f"{where} is not a user name or number")


def convert(data: Any, user: str | None = None, where: str = "mem0 file") -> dict[str, Any]:
    """Each memory as a pending proposal of its ``user_id`` (``user`` when it has none); the kind is
    its first category (``metadata.category`` or ``categories[0]``), else ``note``.

    Raises:
        ImportFormatError: not a ``get_all`` answer, or an entry without text.
    """
    items = records(data)
    if items is None:
        raise ImportFormatError(f"{where} is not a Mem0 get_all answer (a \"results\" list of memories)")
    memories = []
    for i, item in enumerate(items):
        text = item.get("memory")
        if not isinstance(text, str) or not text.strip():
            raise ImportFormatError(f"{where}: results[{i}] has no memory text")
        metadata = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
        categories = item.get("categories") if isinstance(item.get("categories"), list) else []
        label = metadata.get("category") or (categories[0] if categories else None)
        owner = _owner(item.get("user_id"), user, f"{where}: results[{i}].user_id")
        memories.append(proposal(text, kind_of(label), source="import:mem0", user=owner,
                                 created_at=utc_iso(item.get("created_at"), f"{where}: results[{i}].created_at")))
    return envelope(memories, [])
