"""The demo database behind ``bestie tui --demo``: about fifty memories of one made-up owner, Linh,
across the three tiers, with pending proposals, near-duplicates, one contradiction and one expired
record, plus a few hundred chat messages over several sessions (``demo_chat``). Written by the team
for a first look; nothing here is real.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from bestie_tui.retrieval.search import search
from bestie_tui.store.binding import uses_store
from bestie_tui.store.memory_store import MemoryStore, utcnow
from bestie_tui.store.models import Memory

USER = "linh"
TG = "telegram:5550001"

# (kind, text, scope, layer, extra fields) — approved records.
APPROVED: list[tuple[str, str, str, str, dict]] = [
    ("communication_preference", "Linh prefers Vietnamese replies with proper diacritics unless she writes in English.", "core", "core", {"pinned": True, "confidence": 1.0}),
    ("communication_preference", "Keep answers short: a few sentences, bullet points for steps.", "core", "core", {"pinned": True}),
    ("identity", "Linh is a backend engineer at a logistics start-up in Hà Nội.", "core", "core", {}),
    ("identity", "Call her Linh, never 'chị' or 'madam'.", "core", "core", {}),
    ("decision", "Never book meetings before 10:00 on weekdays.", "core", "core", {}),
    ("project_context", "Project Sông Hồng: migrating the dispatch service from Flask to FastAPI.", "project", "working", {"project": "song-hong", "access_count": 14}),
    ("project_context", "Sông Hồng uses PostgreSQL 16 with PgBouncer in transaction mode.", "project", "working", {"project": "song-hong", "access_count": 9}),
    ("decision", "Sông Hồng: keep SQLAlchemy 2.0 style queries; no raw SQL in handlers.", "project", "working", {"project": "song-hong"}),
    ("decision", "Deploys go out on Tuesdays and Thursdays only, after 14:00.", "project", "working", {"project": "song-hong"}),
    ("project_context", "The staging cluster is called 'bamboo' and runs on three nodes.", "project", "working", {"project": "song-hong"}),
    ("preference", "Prefers pytest with plain asserts over unittest classes.", "project", "working", {"access_count": 6}),
    ("preference", "Likes type hints everywhere and runs mypy in strict mode.", "project", "working", {}),
    ("preference", "Uses Neovim with a dark theme; share terminal commands, not IDE clicks.", "project", "working", {}),
    ("preference", "Drinks cà phê sữa đá every morning; suggest cafés that serve it.", "project", "working", {"channel": TG}),
    ("preference", "Vegetarian on the first and fifteenth day of the lunar month.", "project", "working", {}),
    ("preference", "Prefers trains to flights for trips under 600 km.", "project", "working", {}),
    ("project_context", "Side project: a Telegram bot that tracks her family's shared groceries.", "project", "working", {"project": "cho-bot"}),
    ("project_context", "cho-bot stores data in SQLite and deploys to a Raspberry Pi at home.", "project", "working", {"project": "cho-bot"}),
    ("decision", "cho-bot will stay free and private: no ads, no analytics.", "project", "working", {"project": "cho-bot"}),
    ("inside_joke", "'The printer is haunted again' means the CI runner is flaky.", "project", "working", {}),
    ("inside_joke", "Calls Kubernetes YAML 'phở broth': it takes hours and nobody knows the recipe.", "project", "working", {}),
    ("preference", "Wants code review comments grouped by severity: blocking, suggestion, nit.", "project", "working", {}),
    ("preference", "Runs on Saturday mornings around Hồ Tây; no calls before 9 on weekends.", "session", "working", {}),
    ("project_context", "Reading 'Designing Data-Intensive Applications', chapter 7 on transactions.", "session", "working", {}),
    ("decision", "Chose Redis Streams over Kafka for the dispatch event bus (team of four).", "project", "working", {"project": "song-hong"}),
    # Near-duplicates of records above, as an assistant might store them weeks apart.
    ("preference", "Prefers pytest with plain assert statements over unittest classes.", "project", "working", {"confidence": 0.6}),
    ("communication_preference", "User wants Vietnamese-first answers.", "project", "working", {"confidence": 0.7}),
    ("preference", "Prefers the train to flights for trips under 600 km!", "project", "working", {"confidence": 0.6}),
    # One contradiction: an earlier record says the opposite of a later one.
    ("preference", "Linh loves durian and wants it suggested at fruit markets.", "project", "working", {"confidence": 0.5}),
    ("preference", "Linh hates durian; never suggest it.", "project", "working", {"confidence": 0.9}),
    # Archive: old, stale, superseded.
    ("project_context", "Sông Hồng ran on Python 3.8 with Flask 1.1.", "project", "archive", {"project": "song-hong", "stale": True}),
    ("decision", "Deploys happen every Friday evening.", "project", "archive", {"project": "song-hong"}),
    ("project_context", "Was preparing for the AWS Solutions Architect exam in March.", "session", "archive", {"stale": True}),
    ("preference", "Used VS Code with the Dracula theme.", "project", "archive", {}),
    ("project_context", "Looked for an apartment near Cầu Giấy in 2025.", "session", "archive", {}),
    ("identity", "Worked at a bank in Đà Nẵng until 2024.", "project", "archive", {}),
    # Expired: a temporary context whose TTL has passed.
    ("project_context", "On call this week for the dispatch service; keep weekend plans light.", "session", "working", {"expired": True}),
    ("project_context", "Travelling to Huế next weekend for her cousin's wedding.", "session", "working", {"ttl_days": 12}),
]

# Pending proposals: what the assistant picked up from recent chats, awaiting review.
PENDING: list[tuple[str, str, dict]] = [
    ("preference", "Linh prefers concise replies in Vietnamese.", {"confidence": 0.8}),
    ("preference", "Allergic to shellfish; avoid recommending seafood restaurants.", {"confidence": 0.9}),
    ("project_context", "Sông Hồng's p95 latency target is 200 ms for the dispatch API.", {"project": "song-hong"}),
    ("decision", "Will move cho-bot from the Raspberry Pi to a small VPS next month.", {"project": "cho-bot"}),
    ("preference", "Linh loves durian smoothies.", {"confidence": 0.4}),
    ("inside_joke", "Refers to the legacy billing module as 'the museum'.", {}),
    ("preference", "Wants weekly summaries on Monday mornings, not Sunday nights.", {"channel": TG}),
    ("project_context", "Mentoring two interns this quarter: An and Bảo.", {}),
    ("preference", "Dislikes emoji in work messages.", {}),
    ("project_context", "Lunch today was bún chả near the office.", {"confidence": 0.3}),
    ("preference", "Keep answers short, with bullet points for steps.", {"confidence": 0.7}),
    ("decision", "Chose Grafana over Datadog for cho-bot monitoring to keep costs at zero.", {"project": "cho-bot"}),
]

CHAT = [
    ("user", "Chào Bestie, nhắc mình deploy Sông Hồng chiều thứ Năm nhé."),
    ("assistant", "Được, mình sẽ nhắc bạn thứ Năm sau 14:00 — đúng lịch deploy."),
    ("user", "Also, I'm allergic to shellfish, so skip seafood places when you suggest lunch."),
    ("assistant", "Noted — I've queued that as a memory for you to approve."),
    ("user", "Lunch today was bún chả near the office, pretty good."),
    ("assistant", "Nice! Want me to remember that place?"),
    ("user", "Không cần đâu. Can you summarise the Redis Streams decision for the interns?"),
    ("assistant", "Sure: Redis Streams was chosen over Kafka because the team is four people…"),
]


@uses_store
def populate(store: MemoryStore, now: datetime | None = None) -> None:
    """Fill ``store`` with the demo content (memories, history, messages). Each memory is written
    with the store's clock set to its own date, so its fields and its history agree."""
    now = now or utcnow()
    real_clock = store.clock
    try:
        _populate(store, now)
    finally:
        store.clock = real_clock


def _at(store: MemoryStore, when: datetime) -> None:
    store.clock = lambda: when


def _populate(store: MemoryStore, now: datetime) -> None:
    store.set_setting("owner.user", USER)  # the demo's owner: memory context, recall need no --user
    for i, (kind, text, scope, layer, extra) in enumerate(APPROVED):
        extra = dict(extra)
        expired = extra.pop("expired", False)
        ttl_days = extra.pop("ttl_days", None)
        created = now - timedelta(days=90 - i * 2)
        _at(store, created)
        record = store.add(kind, text, user=USER, scope=scope, project=extra.pop("project", None),
                           channel=extra.pop("channel", None), confidence=extra.pop("confidence", 0.9),
                           pinned=extra.pop("pinned", False), actor="demo")
        # Lifecycle state the demo starts in (layer, stale, usage, expiry): set directly, as a
        # database that has lived for three months would hold it, not as owner changes to undo.
        values = {"layer": layer, **extra}
        if expired:
            values["expires_at"] = now - timedelta(days=2)
        if ttl_days:
            values["expires_at"] = now + timedelta(days=ttl_days)
        if values.get("access_count"):
            values["last_accessed_at"] = now - timedelta(days=1)
        Memory.update(**values).where(Memory.id == record.id).execute()
    _at(store, now - timedelta(days=3))
    fridays = search(store, "every friday evening", status="approved", limit=1)
    tuesdays = search(store, "tuesdays thursdays", status="approved", limit=1)
    if fridays and tuesdays:
        store.supersede(fridays[0].id, tuesdays[0].id, actor="demo")
    for i, (kind, text, extra) in enumerate(PENDING):
        _at(store, now - timedelta(hours=len(PENDING) - i))
        store.propose(text, kind, user=USER, source="telegram chat", actor="assistant", **extra)
    from bestie_tui.cli.demo_chat import session_messages

    for session, role, text, minutes in session_messages():
        store.log_message(role, text, user=USER, channel=TG, session=session, at=now - timedelta(minutes=minutes))
    for i, (role, text) in enumerate(CHAT):
        store.log_message(role, text, user=USER, channel=TG, session="demo-1",
                          at=now - timedelta(minutes=(len(CHAT) - i) * 3))


def ensure_demo_db(path: Path, reset: bool = False) -> Path:
    """Create the demo database at ``path`` if it is missing (or ``reset``); return its path."""
    path = Path(path)
    if reset:
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
    fresh = not path.exists()
    store = MemoryStore(path)
    try:
        if fresh or store.count() == 0:
            populate(store)
    finally:
        store.close()
    return path
