"""Backups taken before a change that undo cannot take back (``clear``, here; ``erase``).

SQLite: a consistent copy of the file (``VACUUM INTO``, ``db.backup_database``), ``NAME-LABEL-STAMP.db``
beside it under ``backups/``. PostgreSQL: the server's own backups (``pg_dump``, replicas) are the
deployment's; bestie writes the full export (``export --full``: memories, messages, events,
settings) of the store as JSON, ``NAME-LABEL-STAMP.json`` under the data directory's ``backups/``,
which ``bestie memory import`` reads back on either engine.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from bestie_tui.paths import backup_dir, create_private_file, make_private_dirs
from bestie_tui.store.db import backup_database, is_postgres
from bestie_tui.store.models import Event, Memory, Message
from bestie_tui.transfer.full_export import export_full

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore


def _stem(store: MemoryStore) -> str:
    if isinstance(store.path, Path):
        return store.path.stem
    parts = urlsplit(str(store.path))
    name = (parts.path or "/").strip("/") or "postgres"
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in f"{parts.hostname or 'local'}-{name}")


def take_backup(store: MemoryStore, label: str | None = None) -> Path:
    """Back up ``store`` now; returns the new backup's path (never one that existed).

    Args:
        store: the open store.
        label: a word in the file name (``before-erase``), or none.

    Raises:
        OSError: the backup directory or file cannot be written.
    """
    stamp = store.clock().strftime("%Y%m%dT%H%M%S")
    postgres = is_postgres(store.db)
    suffix = ".json" if postgres else ".db"
    base = "-".join(p for p in (_stem(store), label, stamp) if p)
    target = backup_dir(store.path) / f"{base}{suffix}"
    n = 1
    while target.exists():
        n += 1
        target = target.with_name(f"{base}-{n}{suffix}")
    if not postgres:
        return backup_database(store.db, target)
    make_private_dirs(target.parent)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    partial.unlink(missing_ok=True)
    try:
        create_private_file(partial)
        partial.write_text(json.dumps(_whole_export(store), ensure_ascii=False, default=str), encoding="utf-8")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def _whole_export(store: MemoryStore) -> dict:
    """The full export of the whole database, as a file copy is on SQLite: through ``store``, or
    through a store of its own when ``store`` is bound to a user (a backup is the operator's)."""
    if store.tenant is None:
        return export_full(store)
    from bestie_tui.store.memory_store import MemoryStore

    whole = MemoryStore(store.path, store.clock, create_dirs=False)
    try:
        return export_full(whole)
    finally:
        whole.close()


def clear(store: MemoryStore, actor: str = "owner") -> Path:
    """Back up the database (``take_backup``: a copy of the file, or the full export on
    PostgreSQL), then delete every memory, message and event. Settings stay. Returns the backup
    path; the backup is how a clear is undone (``bestie memory import`` reads a JSON one).

    Raises:
        OSError: the backup cannot be written (nothing is deleted then).
    """
    store.require_unbound("clearing every memory")
    target = take_backup(store)
    stamp = store.clock().strftime("%Y%m%dT%H%M%S")
    with store.bound(), store.db.atomic():
        Memory.delete().execute()
        Message.delete().execute()
        Event.delete().execute()
        store.db.execute_sql("DELETE FROM memory_vector")  # the meaning vectors of the memories cleared
        store.record_event("clear-" + stamp, "clear", None, None, None, actor, note=f"backup at {target}")
    return target
