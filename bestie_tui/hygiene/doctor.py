"""The memory doctor: one read-only pass over the active memories that finds what rots a store.

``run_doctor(store, mode=None, user=None)`` returns a ``DoctorReport`` (plain data; the CLI prints
it, the console draws it, the cleanup/hygiene plans are built from it, the digest summarises it).
Nothing is written; recording a hygiene snapshot is ``hygiene.record_snapshot``'s job.

Sections (SPEC "Doctor"): duplicate groups, corrections (a newer record states a new value of the
same fact), contradiction candidates, stale memories, low-value noisy memories, pinned/core memories
with the core's token size against its cap, memories missing metadata. ``mode`` narrows it:
``duplicates``, ``stale`` or ``conflicts`` (corrections and contradictions).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import combinations

from bestie_tui.errors import InvalidValueError
from bestie_tui.hygiene.contradictions import Contradiction
from bestie_tui.hygiene.corrections import Correction
from bestie_tui.hygiene.duplicates import DuplicateGroup
from bestie_tui.hygiene.related import RelatedPair
from bestie_tui.store.binding import uses_store
from bestie_tui.store.records import DATETIME_FIELDS, MEMORY_FIELDS, MemoryRecord, iso
from bestie_tui.store.support import to_record

MODES = ("duplicates", "stale", "conflicts")
#: A working memory not used (opened or injected) for this many days is stale.
STALE_DAYS = 90
#: Below this confidence an unused memory is low-value.
LOW_CONFIDENCE = 0.4
#: Longer than this many characters, an unused memory is noise rather than a fact.
LONG_TEXT = 600
GENERIC_KINDS = frozenset({"", "note", "misc", "other", "unknown"})
#: Kinds a plan never pre-selects for archiving: what the owner decided, who they are, how to talk
#: to them. Such an archive operation is shown, unselected, for the owner to turn on.
PROTECTED_KINDS = frozenset({"decision", "identity", "communication_preference"})


@dataclass(slots=True)
class Finding:
    """One memory and why it is listed (slots: a store can list every memory, issue 31)."""

    memory: MemoryRecord
    reason: str
    #: the time the reason is about (an expiry), shown as "2 days ago" by ``wording.finding_reason``
    at: datetime | None = None

    def to_dict(self) -> dict:
        return {"id": self.memory.id, "text": self.memory.text, "reason": self.reason}


@dataclass
class CoreUsage:
    """The core layer's size: ``tokens`` (chars4 estimate) against ``cap`` (memory.coreTokenCap)."""

    tokens: int
    cap: int
    records: int

    @property
    def over(self) -> int:
        return max(0, self.tokens - self.cap)

    def to_dict(self) -> dict:
        return {"tokens": self.tokens, "cap": self.cap, "records": self.records, "over": self.over}


@dataclass
class DoctorReport:
    """What the doctor found. Lists are empty for sections outside ``mode``.

    Attributes:
        generated_at: naive UTC time of the run.
        mode: ``None`` (all sections) or one of ``MODES``.
        user: the user it was limited to, or ``None`` for every user.
        total: active approved memories examined.
        duplicates: groups of 2+ records saying the same thing (see ``duplicates``).
        corrections: pairs where the newer record replaces the older (see ``corrections``).
        contradictions: candidate pairs for the owner (see ``contradictions``).
        related: pairs close enough to matter that the doctor cannot place, for review (``related``).
        stale: stale-flagged, expired or long-unused records.
        noisy: low-value records (never used and low confidence, no content, or rambling).
        pinned: pinned records and the core layer; ``core`` is its token size against the cap.
        missing_metadata: records lacking a kind, a source, or with a broken ``superseded_by``.
        negation_pairs: near-identical pairs kept out of duplicate groups because one negates the other.
        timings: seconds spent per stage.
    """

    generated_at: datetime
    mode: str | None = None
    user: str | None = None
    total: int = 0
    duplicates: list[DuplicateGroup] = field(default_factory=list)
    corrections: list[Correction] = field(default_factory=list)
    contradictions: list[Contradiction] = field(default_factory=list)
    related: list[RelatedPair] = field(default_factory=list)
    stale: list[Finding] = field(default_factory=list)
    noisy: list[Finding] = field(default_factory=list)
    pinned: list[MemoryRecord] = field(default_factory=list)
    core: CoreUsage = field(default_factory=lambda: CoreUsage(0, 0, 0))
    missing_metadata: list[Finding] = field(default_factory=list)
    negation_pairs: int = 0
    #: one line when the owner's judge (``doctor.judgeUrl``) failed or ran out of time, else ``None``
    judge_note: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    #: how many records miss metadata when ``missing_metadata`` holds only the first of them
    #: (``trimmed``), else ``None``
    missing_metadata_total: int | None = None

    @property
    def missing_metadata_count(self) -> int:
        """Records missing metadata, also when the list was trimmed (``trimmed``)."""
        if self.missing_metadata_total is not None:
            return self.missing_metadata_total
        return len(self.missing_metadata)

    def trimmed(self, findings: int) -> DoctorReport:
        """This report with only the first ``findings`` missing-metadata findings (their count kept
        in ``missing_metadata_total``): what the console shows of that section, without holding a
        record per memory of a store whose memories all lack a source (issue 31). Nothing else
        changes: cleanup plans do not use that section (only the CLI's hygiene plan, from a full
        report)."""
        from dataclasses import replace

        if len(self.missing_metadata) <= findings:
            return self
        return replace(self, missing_metadata=self.missing_metadata[:findings],
                       missing_metadata_total=self.missing_metadata_count)

    def counts(self) -> dict[str, int]:
        """Section sizes: what a hygiene snapshot stores and the Doctor view's headings show."""
        return {
            "total": self.total,
            "duplicate_groups": len(self.duplicates),
            "duplicate_records": sum(len(g.members) for g in self.duplicates),
            "redundant": sum(len(g.members) - 1 for g in self.duplicates),
            "corrections": len(self.corrections),
            "contradictions": len(self.contradictions),
            "related": len(self.related),
            "stale": len(self.stale),
            "noisy": len(self.noisy),
            "pinned": len(self.pinned),
            "missing_metadata": self.missing_metadata_count,
            "core_tokens": self.core.tokens,
            "core_cap": self.core.cap,
            "negation_pairs": self.negation_pairs,
        }

    def to_dict(self) -> dict:
        return {
            "generated_at": iso(self.generated_at), "mode": self.mode, "user": self.user,
            "counts": self.counts(),
            "duplicates": [g.to_dict() for g in self.duplicates],
            "corrections": [c.to_dict() for c in self.corrections],
            "contradictions": [c.to_dict() for c in self.contradictions],
            "related": [r.to_dict() for r in self.related],
            "stale": [f.to_dict() for f in self.stale],
            "noisy": [f.to_dict() for f in self.noisy],
            "pinned": [{"id": m.id, "text": m.text, "layer": m.layer, "pinned": m.pinned} for m in self.pinned],
            "core": self.core.to_dict(),
            "missing_metadata": [f.to_dict() for f in self.missing_metadata],
            "judge_note": self.judge_note,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }


ProgressFn = Callable[[str, float], None]


@uses_store
def load_active(store, user: str | None = None) -> tuple[list[MemoryRecord], dict[int, str]]:
    """Active approved memories (not superseded) as records, and ``{id: normalised text}``.

    Rows are read with one cursor and converted here (``datetime.fromisoformat``): at 65,000 rows
    Peewee's per-value conversion costs more than the rest of the load."""
    from bestie_tui.store.models import Memory

    q = Memory.select().where((Memory.status == "approved") & Memory.superseded_by.is_null())
    if user is not None:
        q = q.where(Memory.user == user)
    columns = [getattr(Memory, name) for name in MEMORY_FIELDS] + [Memory.norm]
    sql, params = q.select(*columns).order_by(Memory.id).sql()
    at = {MEMORY_FIELDS.index(name) for name in DATETIME_FIELDS}
    flags = {MEMORY_FIELDS.index(name) for name in ("pinned", "stale")}
    records, norms = [], {}
    for row in store.db.execute_sql(sql, params):
        values = list(row[:-1])
        for i in at:
            if values[i] is not None and not isinstance(values[i], datetime):
                values[i] = datetime.fromisoformat(values[i])
        for i in flags:
            values[i] = bool(values[i])
        records.append(MemoryRecord(*values))
        norms[row[0]] = row[-1]
    return records, norms


@uses_store
def run_doctor(store, mode: str | None = None, user: str | None = None, *,
               progress: ProgressFn | None = None, threshold: float | None = None,
               stale_days: int = STALE_DAYS, judge: bool = False) -> DoctorReport:
    """Examine the active memories of ``store`` (a ``MemoryStore``) and report. Read-only.

    Args:
        store: the open store (its clock is "now"; its settings give the core token cap).
        mode: ``None`` for every section, or ``duplicates`` / ``stale`` / ``conflicts``.
        user: limit to memories bound to this user; ``None`` examines all (still compared per user).
        progress: called as ``progress(stage, fraction 0..1)`` from the calling thread.
        threshold: TF-IDF cosine from which two texts the reader cannot frame are duplicates (the
            "similar" rung; default ``duplicates.DEFAULT_THRESHOLD``).
        stale_days: days without use after which a working memory is stale.
        judge: ask the owner's language model about the related pairs (``doctor.judgeUrl``), for a
            report the owner reads (``analyze``, the Doctor view); plans and scores never wait on it.

    Returns:
        A ``DoctorReport``.

    Raises:
        InvalidValueError: an unknown mode.
    """
    from bestie_tui.hygiene.contradictions import find_contradictions
    from bestie_tui.hygiene.corrections import find_corrections
    from bestie_tui.hygiene.duplicates import DEFAULT_THRESHOLD, find_duplicates
    from bestie_tui.hygiene.related import find_related

    if mode is not None and mode not in MODES:
        raise InvalidValueError(f"unknown doctor mode {mode!r}; use one of {', '.join(MODES)}")
    report_progress = progress or (lambda stage, fraction: None)
    now = store.clock()
    report = DoctorReport(generated_at=now, mode=mode, user=user)
    started = time.perf_counter()
    report_progress("loading", 0.0)
    records, norms = load_active(store, user)
    report.total = len(records)
    report.timings["load"] = time.perf_counter() - started

    if mode in (None, "duplicates", "conflicts"):
        t = time.perf_counter()
        # pinned records are compared too (reported, marked pinned); plans never change them
        analysis = find_duplicates(records, threshold=threshold or DEFAULT_THRESHOLD, norms=norms,
                                   progress=lambda f: report_progress("duplicates", 0.1 + 0.7 * f))
        report.negation_pairs = len(analysis.opposite_pairs)
        kept = _kept(store, user)  # pairs the owner chose to keep apart: never asked again
        if mode != "conflicts":
            report.duplicates = [g for g in analysis.groups
                                 if not any(frozenset(p) in kept for p in combinations(g.ids, 2))]
        report.timings["duplicates"] = time.perf_counter() - t
        if mode in (None, "conflicts"):
            t = time.perf_counter()
            report_progress("contradictions", 0.85)
            report.contradictions = [c for c in find_contradictions(records, analysis)
                                     if frozenset(c.ids) not in kept]
            report.corrections = [c for c in find_corrections(analysis) if frozenset(c.ids) not in kept]
            report.related = find_related(analysis, kept)
            report.judge_note = _ask_judge(store, report.related) if judge else None
            report.timings["contradictions"] = time.perf_counter() - t
    if mode in (None, "stale"):
        report_progress("stale", 0.9)
        report.stale = _stale(records, now, stale_days, import_times(store))
    if mode is None:
        report.noisy = _noisy(records)
        report.pinned, report.core = _pinned_and_core(store, records)
        report.missing_metadata = _missing_metadata(store, records)
    report.timings["total"] = time.perf_counter() - started
    report_progress("done", 1.0)
    return report


def _ask_judge(store, related: list[RelatedPair]) -> str | None:
    """The owner's language model's suggestion for each related pair, when ``doctor.judgeUrl`` and
    ``doctor.judgeModel`` are set (``hygiene.judge``: texts only, secrets redacted, bounded count and
    time). Suggestions are shown, never applied. Returns the one-line error, if any."""
    if not related:
        return None
    from bestie_tui.hygiene.judge import suggest_for

    suggestions, error = suggest_for(store, [(r.older.text, r.newer.text) for r in related])
    for r, s in zip(related, suggestions):
        if s is not None:
            r.suggestion = s.line()
    return error


def _kept(store, user: str | None) -> set[frozenset[int]]:
    """Pairs the owner chose to keep apart (``keep both``), when the store records them."""
    try:
        from bestie_tui.store.history.pair_decisions import kept_pairs
    except ImportError:
        return set()
    return kept_pairs(store, user)


@uses_store
def import_times(store) -> dict[int, datetime]:
    """``{memory id: when it was last imported}`` from the audit log (``import`` events not undone).
    An imported record keeps its file's ``created_at``; this is when it arrived in this database."""
    from bestie_tui.store.models import Event

    rows = store.db.execute_sql(
        f"SELECT memory_id, MAX(at) FROM {Event._meta.table_name} "
        "WHERE action = 'import' AND NOT undone AND memory_id IS NOT NULL GROUP BY memory_id")
    out = {}
    for memory_id, at in rows:
        out[memory_id] = at if isinstance(at, datetime) else datetime.fromisoformat(str(at))
    return out


def last_use(m: MemoryRecord, imported: dict[int, datetime] | None = None) -> datetime:
    """The later of creation, import (``imported``, from ``import_times``) and last access (opened or
    injected): "unused" counts from here, so a fresh import is not idle however old its records are."""
    times = [m.created_at, m.last_accessed_at, (imported or {}).get(m.id)]
    return max(t for t in times if t is not None)


def _stale(records: list[MemoryRecord], now: datetime, stale_days: int,
           imported: dict[int, datetime] | None = None) -> list[Finding]:
    out = []
    cutoff = now - timedelta(days=stale_days)
    for m in records:
        if m.pinned:
            continue
        if m.is_expired(now):
            if m.layer != "archive":  # an expired record already archived is dealt with
                out.append(Finding(m, f"expired {iso(m.expires_at)}", at=m.expires_at))
        elif m.stale and m.layer != "archive":
            out.append(Finding(m, "marked stale"))
        elif m.layer == "working" and last_use(m, imported) < cutoff:
            out.append(Finding(m, f"unused for {(now - last_use(m, imported)).days} days"))
    return out


def _noisy(records: list[MemoryRecord]) -> list[Finding]:
    from bestie_tui.facts.reader import read

    out = []
    for m in records:
        if m.pinned or m.access_count > 0 or m.layer == "archive":
            continue
        if m.confidence < LOW_CONFIDENCE:
            out.append(Finding(m, f"never used, confidence {m.confidence:.2f}"))
        elif not read(m.text, keep=False).content and not _names(m.text):
            out.append(Finding(m, "never used, no content words"))
        elif len(m.text) > LONG_TEXT:
            out.append(Finding(m, f"never used, {len(m.text)} characters long"))
    return out


def _names(text: str) -> list[str]:
    """Capitalised words after the first ("Name is An" → ["An"]): names, whatever a stop-word list
    says about "An", "Will" or "May"."""
    words = [w.strip(".,;:!?\"'()") for w in text.split()]
    return [w for w in words[1:] if w[:1].isupper()]


def _pinned_and_core(store, records: list[MemoryRecord]) -> tuple[list[MemoryRecord], CoreUsage]:
    from bestie_tui.text.tokens import chars4

    shown = [m for m in records if m.pinned or m.layer == "core"]
    core = [m for m in records if m.layer == "core"]
    cap = int(store.get_setting("memory.coreTokenCap"))
    return shown, CoreUsage(sum(chars4(m.text) for m in core), cap, len(core))


def _missing_metadata(store, records: list[MemoryRecord]) -> list[Finding]:
    from bestie_tui.store.models import Memory

    out = []
    # A superseded record whose replacement no longer exists is hidden for no reason.
    missing_target = Memory.alias()
    dangling = Memory.select().where(Memory.superseded_by.is_null(False) & Memory.superseded_by.not_in(
        missing_target.select(missing_target.id)))

    for row in dangling:
        out.append(Finding(to_record(row), f"missing superseded_by target #{row.superseded_by}"))
    reasons: dict[str, str] = {}
    for m in records:
        missing = []
        kind = m.kind.strip().lower()
        if not kind:
            missing.append("kind")
        if not m.source:
            missing.append("source")
        problems = ["missing " + ", ".join(missing)] if missing else []
        if kind in GENERIC_KINDS - {""}:
            # a known kind, but one that says nothing of what the memory is: cleanup protects by kind
            problems.append(f"generic kind {kind!r}: a specific one (fact, preference, decision…) guides cleanup")
        elif kind and m.kind != kind:
            problems.append("kind not normalised")
        if m.last_accessed_at is not None and m.last_accessed_at < m.created_at:
            problems.append("last_accessed_at before created_at")
        if problems:
            reason = "; ".join(problems)
            out.append(Finding(m, reasons.setdefault(reason, reason)))  # one string per distinct reason
    return out


__all__ = ["DoctorReport", "Finding", "CoreUsage", "run_doctor", "load_active", "import_times", "last_use",
           "MODES", "STALE_DAYS", "PROTECTED_KINDS"]
