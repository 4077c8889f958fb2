"""What the format readers share: times to naive UTC, kinds from headings, the export envelope."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from bestie_tui.errors import ImportFormatError
from bestie_tui.transfer import exchange as transfer

_NOT_WORD = re.compile(r"[^a-z0-9]+")


def utc_iso(value: Any, where: str) -> str | None:
    """An ISO date-time (any offset) or a Unix time in seconds → naive UTC ISO text; ``None`` stays.

    Raises:
        ImportFormatError: neither an ISO date-time nor a number.
    """
    if value is None or value == "":
        return None
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            moment = datetime.fromtimestamp(float(value), UTC)
        else:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        raise ImportFormatError(f"{where} is not a date-time: {value!r}") from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="seconds")


def kind_of(label: Any, default: str = "note") -> str:
    """A memory kind from a heading or a category: ``"Communication preferences"`` →
    ``communication_preferences``; ``default`` when nothing word-like is left."""
    slug = _NOT_WORD.sub("_", str(label or "").lower()).strip("_")[:64].rstrip("_")
    return slug if slug and slug[0].isalpha() else default


def envelope(memories: list[dict[str, Any]], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The bestie export shape around converted records (``transfer.validate`` checks it)."""
    return {"format": transfer.FORMAT, "version": transfer.VERSION, "memories": memories, "messages": messages}


def proposal(text: str, kind: str, *, source: str, user: str | None, created_at: str | None,
             scope: str = "project") -> dict[str, Any]:
    """One imported memory as a pending proposal (the owner approves it in triage)."""
    return {"text": " ".join(text.split()), "kind": kind, "status": "pending", "scope": scope, "user": user,
            "source": source, "confidence": 0.7, "created_at": created_at, "updated_at": created_at}
