"""Plain objects that cross the border between the store and its callers (CLI, TUI, runtime)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, overload

#: Memory fields in a snapshot/export, in display order.
MEMORY_FIELDS = (
    "id", "text", "kind", "status", "scope", "layer", "pinned", "stale", "superseded_by",
    "last_accessed_at", "access_count", "confidence", "expires_at", "user", "about", "channel", "project",
    "session", "source", "created_at", "updated_at",
)
DATETIME_FIELDS = ("last_accessed_at", "expires_at", "created_at", "updated_at")


@overload
def iso(value: datetime) -> str: ...
@overload
def iso(value: None) -> None: ...
@overload
def iso(value: datetime | None) -> str | None: ...
def iso(value: datetime | None) -> str | None:
    """ISO-8601 text of a naive UTC datetime (seconds precision), or ``None``."""
    return value.replace(microsecond=0).isoformat() if value else None


@dataclass(frozen=True)
class MemoryRecord:
    """One memory as callers see it. Datetimes are naive UTC."""

    id: int
    text: str
    kind: str
    status: str
    scope: str
    layer: str
    pinned: bool
    stale: bool
    superseded_by: int | None
    last_accessed_at: datetime | None
    access_count: int
    confidence: float
    expires_at: datetime | None
    user: str | None
    #: who the memory is about when not the owner (see ``models.Memory.about``)
    about: str | None
    channel: str | None
    project: str | None
    session: str | None
    source: str | None
    created_at: datetime
    updated_at: datetime

    def is_expired(self, now: datetime) -> bool:
        """True when ``expires_at`` is set and not after ``now``."""
        return self.expires_at is not None and self.expires_at <= now

    @property
    def tier(self) -> str:
        """Where the console shows it: ``pending`` for a proposal awaiting review, its layer while
        approved and active, else ``archive`` (forgotten, rejected or superseded records)."""
        if self.status == "pending":
            return "pending"
        if self.status == "approved" and self.superseded_by is None:
            return self.layer
        return "archive"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every field (datetimes as ISO text)."""
        data = asdict(self)
        for key in DATETIME_FIELDS:
            data[key] = iso(data[key])
        return data


@dataclass(frozen=True)
class MessageRecord:
    id: int
    role: str
    text: str
    user: str | None
    channel: str | None
    session: str | None
    created_at: datetime

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["created_at"] = iso(self.created_at)
        return data


@dataclass(frozen=True)
class EventRecord:
    id: int
    batch: str
    memory_id: int | None
    action: str
    actor: str
    at: datetime
    before: dict | None
    after: dict | None
    note: str | None
    undone: bool

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["at"] = iso(self.at)
        return data


@dataclass(frozen=True)
class ProposalResult:
    """What ``propose`` or ``add_result`` did. ``outcome`` is ``pending`` (queued for the owner),
    ``approved`` (stored), ``duplicate`` (an existing record was reinforced; nothing new) or
    ``revived`` (an expired, superseded, forgotten or rejected record came back). ``message`` says
    it in one line; ``decision`` is the write gate's (``store.gate.WriteDecision``), when one ran.
    ``replaces``: approved memories the proposal corrects (superseded already when it was stored
    under ``memory.correctionPolicy`` auto, else when the owner approves it); ``conflicts``:
    approved memories it contradicts (the owner decides)."""

    outcome: str
    memory: MemoryRecord
    message: str
    decision: Any = None
    replaces: tuple[int, ...] = ()
    conflicts: tuple[int, ...] = ()


@dataclass(frozen=True)
class ForgetResult:
    """What a forget did (``MemoryStore.forget_result``): the memory as it is now, the chat messages
    whose statement of it was redacted (``redacted``), and those that state it and were left as they
    are (``stating``: what the owner is offered to redact). ``message`` says it in one line;
    ``already``: the memory was forgotten before (only its messages were redacted now)."""

    memory: MemoryRecord
    redacted: tuple[int, ...]
    stating: tuple[int, ...]
    message: str
    already: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"memory": self.memory.to_dict(), "redacted_messages": list(self.redacted),
                "stating_messages": list(self.stating), "message": self.message}


@dataclass(frozen=True)
class UserCounts:
    """One user of the database (``MemoryStore.users``): ``user`` (``None``: rows bound to no user,
    the owner's), memories by status, messages and the time of the newest message (naive UTC)."""

    user: str | None
    memories: int
    approved: int
    pending: int
    messages: int
    last_message_at: datetime | None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["last_message_at"] = iso(self.last_message_at)
        return data


@dataclass(frozen=True)
class UndoResult:
    """What ``undo`` reverted: the original action, its actor and the memory ids restored."""

    action: str
    actor: str
    memory_ids: list[int]
    message: str


@dataclass(frozen=True)
class StoreStatus:
    db_path: str
    schema_version: int
    write_policy: str
    delete_policy: str
    paused: bool
    governance: str
    counts: dict[str, int]
    tiers: dict[str, int]
    messages: int
    events: int
    #: Memories the assistant asked to forget, awaiting the owner (``bestie memory forget-requests``).
    forget_requests: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ImportResult:
    memories_added: int
    memories_skipped: int
    messages_added: int
    messages_skipped: int
    #: memories not written because their text looks like a secret
    secrets_refused: int = 0
    #: memories the write gate refused, by rule (``secret``, ``injected``, ``venting``)
    refused: dict[str, int] = field(default_factory=dict)
    #: core records that came in as working (about someone else, or the core was full)
    moved_to_working: int = 0
    #: why each of them moved, one line each naming its place in the file (the core cap's limit and
    #: sizes in tokens when the cap moved it)
    moved_why: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Summary:
    """A short overview: counts by status, tier, kind and scope, with the newest approved memories."""

    by_status: dict[str, int] = field(default_factory=dict)
    by_tier: dict[str, int] = field(default_factory=dict)
    by_kind: dict[str, int] = field(default_factory=dict)
    by_scope: dict[str, int] = field(default_factory=dict)
    expired: int = 0
    stale: int = 0
    pinned: int = 0
    recent: list[MemoryRecord] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["recent"] = [m.to_dict() for m in self.recent]
        return data
