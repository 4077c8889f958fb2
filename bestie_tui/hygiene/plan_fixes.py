"""Safe metadata fixes for ``hygiene doctor --fix``: each one restores a fact the store already
knows (the event log, the record itself) and never changes what a memory says or whether it exists."""

from __future__ import annotations

from bestie_tui.hygiene.plans import Operation
from bestie_tui.store.binding import uses_store


@uses_store
def metadata_fixes(store, report) -> list[Operation]:
    """``fix`` operations for the report's missing-metadata findings that have a safe repair:

    * kind with stray case/whitespace → stripped lower case;
    * no source → the actor of the event that created the record (``unknown`` if none is logged);
    * ``superseded_by`` pointing at a deleted record → cleared, and the record marked stale so it
      is searchable but not injected until the owner looks at it;
    * ``last_accessed_at`` before ``created_at`` → ``created_at``.

    A generic kind (``note``) has no safe repair and stays in the report.
    """
    from bestie_tui.store.models import Event

    ops = []
    for finding in report.missing_metadata:
        m = finding.memory
        changes = {}
        if m.kind != m.kind.strip().lower() and m.kind.strip():
            changes["kind"] = m.kind.strip().lower()
        if not m.source:
            first = (Event.select(Event.actor).where((Event.memory_id == m.id) & Event.before.is_null())
                     .order_by(Event.id).first())
            changes["source"] = first.actor if first else "unknown"
        if "superseded_by target" in finding.reason:
            changes["superseded_by"] = None
            changes["stale"] = True
        if m.last_accessed_at is not None and m.last_accessed_at < m.created_at:
            changes["last_accessed_at"] = m.created_at
        if changes:
            ops.append(Operation(f"fix:{m.id}", "fix", [m], finding.reason, changes=changes))
    return ops
