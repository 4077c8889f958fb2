"""Memory health: a 0–100 score from a doctor report, one snapshot per run, and the trend.

Health score (ours; a weighted share of problem records, so it reads like a percentage):

    health = 100 − Σ_i w_i · min(1, r_i)

with r_i over the active memories N (r_i = 0 when N = 0):

| part | r_i | w_i |
|---|---|---|
| duplicates | redundant records (group size − 1, summed) / N | 30 |
| contradictions | records in a contradiction candidate, or corrected by a newer record / N | 25 |
| stale | stale, expired or long-unused records / N | 20 |
| noisy | low-value records / N | 10 |
| metadata | records missing metadata / N | 10 |
| core | core tokens over the cap / cap | 5 |

The weights sum to 100, so a store with every problem at its worst scores 0 and an empty or clean
store scores 100.

Public API (stable; the digest calls it): ``health_score(report) -> HealthScore``,
``record_snapshot(store, report) -> Snapshot``, ``trend(store, limit=30) -> list[Snapshot]``,
``hygiene_status(store, user=None, record=True) -> HygieneStatus``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from bestie_tui.store.binding import uses_store
from bestie_tui.store.records import iso

if TYPE_CHECKING:  # pragma: no cover
    from bestie_tui.hygiene.doctor import DoctorReport

WEIGHTS = {"duplicates": 30.0, "contradictions": 25.0, "stale": 20.0, "noisy": 10.0, "metadata": 10.0,
           "core": 5.0}
FORMULA = ("health = 100 − Σ w·min(1, r): duplicates 30 × redundant/N, contradictions 25 × conflicting/N, "
           "stale 20 × stale/N, noisy 10 × noisy/N, metadata 10 × missing/N, core 5 × over-cap tokens/cap")


@dataclass
class HealthScore:
    """``score`` 0–100 (higher is healthier); ``penalties`` are the points each part took off."""

    score: float
    penalties: dict[str, float]
    formula: str = FORMULA

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Snapshot:
    """One hygiene snapshot row: when, the report's counts and the health score."""

    id: int
    at: datetime
    counts: dict[str, int]
    health: float

    def to_dict(self) -> dict:
        return {"id": self.id, "at": iso(self.at), "counts": self.counts, "health": self.health}


@dataclass
class HygieneStatus:
    """What ``hygiene status`` shows: the report, its score, the snapshot written (if any) and the
    previous one (for the change since last time)."""

    report: DoctorReport
    health: HealthScore
    snapshot: Snapshot | None = None
    previous: Snapshot | None = None
    extra: dict = field(default_factory=dict)

    @property
    def change(self) -> float | None:
        """Health points gained (+) or lost (−) since the previous snapshot, or ``None``."""
        return None if self.previous is None else round(self.health.score - self.previous.health, 1)

    def to_dict(self) -> dict:
        return {"health": self.health.to_dict(), "counts": self.report.counts(),
                "snapshot": self.snapshot.to_dict() if self.snapshot else None,
                "previous": self.previous.to_dict() if self.previous else None, "change": self.change}


def health_score(report) -> HealthScore:
    """Score a ``DoctorReport`` with the formula in the module docstring. Pure."""
    n = report.total
    conflicting = {i for c in report.contradictions for i in c.ids}
    conflicting |= {c.older.id for c in getattr(report, "corrections", [])}
    ratios = {
        "duplicates": sum(len(g.members) - 1 for g in report.duplicates) / n if n else 0.0,
        "contradictions": len(conflicting) / n if n else 0.0,
        "stale": len(report.stale) / n if n else 0.0,
        "noisy": len(report.noisy) / n if n else 0.0,
        "metadata": report.missing_metadata_count / n if n else 0.0,
        "core": report.core.over / report.core.cap if report.core.cap else 0.0,
    }
    penalties = {k: round(WEIGHTS[k] * min(1.0, r), 2) for k, r in ratios.items()}
    return HealthScore(round(max(0.0, 100.0 - sum(penalties.values())), 1), penalties)


def _snapshot(row) -> Snapshot:
    return Snapshot(row.id, row.at, json.loads(row.counts), row.health)


@uses_store
def record_snapshot(store, report, health: HealthScore | None = None) -> Snapshot:
    """Write one ``HygieneSnapshot`` row for ``report`` (at the store's clock) and return it.

    Snapshots are statistics, not memory changes: they are not in the event log and undo keeps them.
    """
    from bestie_tui.store.models import HygieneSnapshot

    health = health or health_score(report)
    counts = report.counts()
    counts["mode"] = report.mode or "full"
    if store.user is not None:  # a user-bound run is that user's (``models.HygieneSnapshot``)
        counts["user"] = store.user
    row = HygieneSnapshot.create(at=store.clock(), counts=json.dumps(counts), health=health.score)
    return _snapshot(row)


@uses_store
def trend(store, limit: int = 30) -> list[Snapshot]:
    """The newest ``limit`` snapshots, oldest first (what ``hygiene trend`` draws)."""
    from bestie_tui.store.models import HygieneSnapshot
    from bestie_tui.store.support import MAX_ID

    rows = list(HygieneSnapshot.select().order_by(HygieneSnapshot.id.desc()).limit(max(0, min(int(limit), MAX_ID))))
    return [_snapshot(r) for r in reversed(rows)]


@uses_store
def hygiene_status(store, user: str | None = None, record: bool = True, progress=None,
                   report=None, judge: bool = False) -> HygieneStatus:
    """Run the full doctor, score it and (unless ``record`` is False) write one snapshot. ``report``:
    a full ``DoctorReport`` of ``user`` already made for the store as it is now (the console's
    Cleanup view made one), scored instead of running the doctor again. ``judge``: ask the owner's
    language model about related pairs (``run_doctor``)."""
    from bestie_tui.hygiene.doctor import run_doctor

    previous = trend(store, 1)
    if report is None or report.mode is not None or report.user != user:
        report = run_doctor(store, user=user, progress=progress, judge=judge)
    health = health_score(report)
    snap = record_snapshot(store, report, health) if record else None
    return HygieneStatus(report, health, snap, previous[0] if previous else None)


__all__ = ["HealthScore", "Snapshot", "HygieneStatus", "health_score", "record_snapshot", "trend",
           "hygiene_status", "WEIGHTS", "FORMULA"]
