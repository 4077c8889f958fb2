"""The maintenance digest: a short report on the health of the memory store, with the commands that
fix each finding. ``build_digest`` makes the ``Digest`` data object; the CLI prints it (text,
Markdown, ``--json``), the senders deliver its text, the Health view draws it.

Records of past digests (when, where to, sent or failed, the health figure, and the text itself so
that a failed delivery loses nothing) are kept in the ``digest.log`` setting, newest first. They
are written without an event batch on purpose: a digest changes no memory and no policy, and the
owner's ``undo`` must not be spent on one.

The doctor summary and the health score come from ``hygiene.hygiene_status`` (one doctor run and
its score; a snapshot only for a digest that is sent or kept, never for a preview), imported lazily
so that ``bestie memory status`` stays fast.

Rendering (plain text and Markdown, with the escaping of memory text) lives in ``digest_render``;
this module re-exports its names.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bestie_tui.maintenance.digest_render import (  # noqa: F401  (re-exported)
    SECTION_TITLES,
    SNIPPET,
    health_line,
    md_code,
    md_escape,
    render,
    snippet,
)
from bestie_tui.store.binding import uses_store
from bestie_tui.store.records import iso
from bestie_tui.text.clock import ago

#: Items listed per section; the totals are always given.
TOP = 5
PENDING_TOP = 10
#: Digest records kept in ``digest.log``.
LOG_SIZE = 20


@dataclass
class Fix:
    """A command that fixes (part of) a finding, and when to use it."""

    command: str
    note: str = ""


@dataclass
class Finding:
    """One thing worth the owner's attention and the commands that fix it.

    ``section`` is pending | forget | duplicates | contradictions | stale; ``ids`` the memories involved.
    """

    section: str
    summary: str
    ids: list[int]
    fixes: list[Fix]


@dataclass
class PendingItem:
    id: int
    kind: str
    text: str
    created_at: datetime
    age_days: int


@dataclass
class DoctorSummary:
    """What the digest needs from a doctor report: the largest duplicate groups (member ids and
    texts, canonical candidate last), contradiction candidates (pairs) and stale records, with the
    section totals. ``error`` is set when the doctor could not run (the digest is still made)."""

    duplicate_groups: list[list[tuple[int, str]]] = field(default_factory=list)
    #: ``((older id, text), (newer id, text), reason, resolvable)``; resolvable: superseding the
    #: older by the newer is a sensible fix (a changed value), not an event against a state.
    contradictions: list[tuple[tuple[int, str], tuple[int, str], str, bool]] = field(default_factory=list)
    stale: list[tuple[int, str]] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    error: str | None = None


@dataclass
class Digest:
    """The report. Datetimes are naive UTC; health scores are 0–100 (the hygiene formula)."""

    generated_at: datetime
    db_path: str
    paused: bool
    tiers: dict[str, int]
    statuses: dict[str, int]
    pending_total: int
    pending: list[PendingItem]
    doctor: DoctorSummary
    health: float | None
    health_previous: float | None
    previous_at: datetime | None
    findings: list[Finding]
    #: The memories the assistant asked to forget, awaiting the owner (ids, oldest request first).
    forget_requests: list[int] = field(default_factory=list)

    @property
    def health_change(self) -> float | None:
        """Health now minus health at the last digest sent, or ``None`` if either is unknown."""
        if self.health is None or self.health_previous is None:
            return None
        return round(self.health - self.health_previous, 1)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["generated_at"] = iso(self.generated_at)
        data["previous_at"] = iso(self.previous_at)
        data["health_change"] = self.health_change
        for item in data["pending"]:
            item["created_at"] = iso(item["created_at"])
        return data

    def render_text(self) -> str:
        """Plain text (what the chat channels receive): no markup, control characters escaped."""
        return render(self, markdown=False)

    def render_markdown(self) -> str:
        """Markdown: headings, lists, commands in code spans; memory text escaped, never markup."""
        return render(self, markdown=True)


def fix_prefix(db_path: str | Path, command: str = "memory") -> str:
    """``bestie <command>`` (``memory`` or ``tui``) plus ``--db PATH`` when the database is not the
    default one, so every fix command in a chat message acts on the database the digest was made from."""
    from bestie_tui.paths import default_db_path, is_database_url

    if is_database_url(db_path) or is_database_url(default_db_path()):
        return f"bestie {command}" if db_path == default_db_path() else f"bestie {command} --db {shlex.quote(str(db_path))}"
    if Path(db_path).expanduser().absolute() == Path(default_db_path()).expanduser().absolute():
        return f"bestie {command}"
    return f"bestie {command} --db {shlex.quote(str(Path(db_path).absolute()))}"


@uses_store
def build_digest(store, *, snapshot: bool = False,
                 analyser: Callable[[Any], tuple[DoctorSummary, float | None]] | None = None) -> Digest:
    """Build the digest of ``store`` now (``store.clock()``).

    Args:
        snapshot: also write one hygiene snapshot (the health trend). Only a digest that will be
            recorded (sent, or kept as failed) does so: previews — ``bestie memory digest`` without
            ``--channel``, the Health view's ``r`` — leave the trend alone, so looking at the
            report never fills the trend with duplicate points. ``hygiene status`` and the doctor
            write their own snapshots.
        analyser: returns ``(DoctorSummary, health 0–100 or None)``; default ``analyse`` (the doctor).
    Returns:
        A ``Digest``; a doctor failure is reported inside it (``doctor.error``), never raised.
    """
    now = store.clock()
    status = store.status()
    pending = [PendingItem(m.id, m.kind, m.text, m.created_at, max(0, (now - m.created_at).days))
               for m in store.pending(limit=PENDING_TOP)]
    summary, score = analyser(store) if analyser else analyse(store, record=snapshot)
    previous = last_sent_record(store)
    prefix = fix_prefix(store.path)
    digest = Digest(
        generated_at=now, db_path=str(store.path), paused=status.paused, tiers=dict(status.tiers),
        statuses=dict(status.counts), pending_total=status.counts.get("pending", 0), pending=pending,
        doctor=summary, health=None if score is None else round(float(score), 1),
        health_previous=previous.get("health") if previous else None,
        previous_at=datetime.fromisoformat(previous["at"]) if previous else None, findings=[],
        forget_requests=store.forget_requested(),
    )
    digest.findings = list(findings_for(digest, prefix))
    return digest


def findings_for(digest: Digest, prefix: str) -> Iterable[Finding]:
    """The findings of a digest, each with its fix commands (``prefix`` is ``fix_prefix``)."""
    console = fix_prefix(digest.db_path, "tui")
    if digest.pending_total:
        oldest = digest.pending[0]
        yield Finding("pending", f"{digest.pending_total} proposal(s) await review, the oldest proposed "
                      f"{ago(oldest.created_at, digest.generated_at)}", [p.id for p in digest.pending],
                      [Fix(f"{prefix} pending", "list them"), Fix(f"{prefix} approve {oldest.id}"),
                       Fix(f"{prefix} reject {oldest.id}"), Fix(console, "key 2: triage by keys")])
    if digest.forget_requests:
        asked = digest.forget_requests[0]
        yield Finding("forget", f"the assistant asked to forget {len(digest.forget_requests)} memory(ies); "
                      "nothing is forgotten until you confirm", list(digest.forget_requests),
                      [Fix(f"{prefix} forget-requests", "list them with the reasons"),
                       Fix(f"{prefix} forget-requests confirm {asked}", "forget it (undoable)"),
                       Fix(f"{prefix} forget-requests dismiss {asked}", "keep it")])
    for group in digest.doctor.duplicate_groups:
        keep, others = group[-1][0], [i for i, _ in group[:-1]]
        fixes = [Fix(f"{prefix} supersede {old} {keep}", f"keep #{keep}") for old in others]
        yield Finding("duplicates", f"{len(group)} records say the same: \"{snippet(group[-1][1], 60)}\"",
                      [i for i, _ in group], fixes + [Fix(f"{prefix} cleanup --dry-run", "merge them all")])
    for (a, a_text), (b, b_text), reason, resolvable in digest.doctor.contradictions:
        if resolvable:
            fixes = [Fix(f"{prefix} supersede {a} {b}", f"if the newer #{b} is true"),
                     Fix(f"{prefix} supersede {b} {a}", f"if #{a} is true")]
        else:  # both may be true (an event beside a state): look before superseding anything
            fixes = [Fix(f"{prefix} inspect {a}"), Fix(f"{prefix} inspect {b}"),
                     Fix(f"{prefix} supersede {a} {b}", f"only if #{a} is no longer true")]
        yield Finding("contradictions", f"\"{snippet(a_text, 40)}\" vs \"{snippet(b_text, 40)}\""
                      + (f": {reason}" if reason else ""), [a, b], fixes)
    if digest.doctor.stale:
        ids = [i for i, _ in digest.doctor.stale]
        total = digest.doctor.totals.get("stale", len(ids))
        first = snippet(digest.doctor.stale[0][1], 50)
        yield Finding("stale", f"{total} stale record(s), the oldest \"{first}\"", ids,
                      [Fix(f"{prefix} cleanup --dry-run", "archive them"), Fix(f"{prefix} forget {ids[0]}")])


# ------------------------------------------------------------------ the doctor and the health score
@uses_store
def analyse(store, record: bool = False) -> tuple[DoctorSummary, float | None]:
    """Run the doctor through ``hygiene.hygiene_status(store, record=record)`` — one doctor pass and
    its health score; with ``record`` one hygiene snapshot is written, so a recorded digest and
    ``hygiene trend`` read the same series. Any failure becomes ``DoctorSummary(error=…)`` and no
    score: the digest is still made."""
    try:
        from bestie_tui.hygiene.health import hygiene_status

        status = hygiene_status(store, record=record)
    except Exception as exc:  # a digest with the counts beats no digest at all  # noqa: BLE001
        return DoctorSummary(error=f"doctor failed: {exc}"), None
    return summarize_report(status.report), status.health.score


def summarize_report(report) -> DoctorSummary:
    """Read a ``doctor.DoctorReport`` into a ``DoctorSummary``: the ``TOP`` largest duplicate groups
    (members oldest first, then the one a cleanup merge would keep), the first ``TOP``
    contradiction candidates (older, newer, reason) and the ``TOP`` longest-stale records."""
    summary = DoctorSummary(totals={"duplicates": len(report.duplicates),
                                    "contradictions": len(report.contradictions),
                                    "stale": len(report.stale), "noisy": len(report.noisy),
                                    "missing_metadata": len(report.missing_metadata)})
    for group in sorted(report.duplicates, key=lambda g: -len(g.members))[:TOP]:
        # the one to keep goes last: the member a cleanup merge would keep (plan_build.best_member)
        from bestie_tui.hygiene.plan_build import best_member

        keep = best_member(group.members)
        members = sorted((m for m in group.members if m.id != keep.id), key=lambda m: (m.created_at, m.id)) + [keep]
        summary.duplicate_groups.append([(m.id, m.text) for m in members])
    for c in report.contradictions[:TOP]:
        summary.contradictions.append(((c.older.id, c.older.text), (c.newer.id, c.newer.text), c.reason,
                                       bool(getattr(c, "resolvable", True))))
    stale = sorted(report.stale, key=lambda f: (f.memory.last_accessed_at or f.memory.created_at, f.memory.id))[:TOP]
    summary.stale = [(f.memory.id, f.memory.text) for f in stale]
    return summary


@uses_store
def health_trend(store, limit: int = 26) -> list[tuple[datetime, float]]:
    """``(at, health)`` of the newest ``limit`` hygiene snapshots, oldest first (``hygiene.trend``)."""
    from bestie_tui.hygiene.health import trend

    return [(snap.at, snap.health) for snap in trend(store, limit)]


# ------------------------------------------------------------------ digest records in the database
@uses_store
def digest_log(store) -> list[dict[str, Any]]:
    """Recorded digests, newest first: ``{"at", "channel", "outcome" (sent|failed), "error",
    "parts" (messages delivered), "total_parts" (messages the text was split into; 0 when the
    send failed before splitting, absent in older records), "health", "text"}`` (and ``"user"``
    for a digest of a user-bound store, which sees only its own: ``MemoryStore.owns``)."""
    return [r for r in (store.get_setting("digest.log") or []) if store.owns(r.get("user"))]


@uses_store
def last_digest_record(store) -> dict[str, Any] | None:
    log = digest_log(store)
    return log[0] if log else None


@uses_store
def last_sent_record(store) -> dict[str, Any] | None:
    return next((r for r in digest_log(store) if r.get("outcome") == "sent"), None)


@uses_store
def record_delivery(store, digest: Digest, channel: str, text: str, *, outcome: str,
                    error: str | None = None, parts: int = 0, total_parts: int | None = None) -> dict[str, Any]:
    """Keep a digest and what happened to it (``outcome`` sent | failed) at the head of
    ``digest.log``; the text is kept so a failed delivery loses nothing. ``total_parts`` defaults
    to ``parts``. Returns the record."""
    record = {"at": iso(digest.generated_at), "channel": channel, "outcome": outcome, "error": error,
              "parts": parts, "total_parts": parts if total_parts is None else total_parts,
              "health": digest.health, "text": text}
    if store.user is not None:
        record["user"] = store.user
    every = list(store.get_setting("digest.log") or [])  # the other users' records stay
    put_record(store, "digest.log", [record] + every[: LOG_SIZE - 1])
    return record


@uses_store
def put_record(store, key: str, value: Any) -> None:
    """Store a ``digest.``/``maintenance.`` bookkeeping value (JSON) without an event batch: it is a
    record of what the maintenance job did, not a change the owner would undo. ``None`` deletes it.

    Raises:
        InvalidValueError: a key that is not one of ``settings.INTERNAL``.
    """
    from bestie_tui.store import settings as settings_mod
    from bestie_tui.store.models import Setting

    settings_mod.check_internal(key)
    with store.db.atomic():
        if value is None:
            Setting.delete().where(Setting.key == key).execute()
        else:
            Setting.put(key, json.dumps(value, ensure_ascii=False))


@uses_store
def send_digest(store, digest: Digest, channel: str, *, text: str | None = None, env=None,
                retry=None) -> dict[str, Any]:
    """Deliver ``digest`` (its plain text unless ``text`` is given) to ``channel`` and record the
    outcome in ``digest.log`` either way.

    Returns:
        The ``sent`` record (with ``parts``).
    Raises:
        InvalidValueError: a malformed channel (nothing sent, nothing recorded).
        DeliveryError: the send failed; the digest and the error are recorded first.
    """
    from bestie_tui.maintenance.delivery import DeliveryError, deliver, parse_channel

    channel = str(parse_channel(channel))
    text = text if text is not None else digest.render_text()
    try:
        result = deliver(channel, text, store, env=env, retry=retry)
    except DeliveryError as exc:
        record_delivery(store, digest, channel, text, outcome="failed", error=str(exc), parts=exc.sent_parts,
                        total_parts=exc.total_parts)
        raise
    return record_delivery(store, digest, channel, text, outcome="sent", parts=result.parts)
