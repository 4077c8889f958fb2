"""The SQL spellings that differ between SQLite and PostgreSQL and that the models need too.

They live apart from ``store.db`` (which opens, checks and migrates databases and imports the models)
so that ``store.models`` can use them without importing ``store.db`` back; ``store.db`` re-exports
them, and every other engine-specific construct stays there.
"""

from __future__ import annotations

from peewee import Database, Field, Node, PostgresqlDatabase, fn


def is_postgres(db: Database) -> bool:
    """True for a database opened on a PostgreSQL server."""
    return isinstance(db, PostgresqlDatabase)


def json_text(db: Database, field: Field | Node, key: str) -> Node:
    """The text value at top-level ``key`` of the JSON text in ``field`` (NULL when absent)."""
    if is_postgres(db):
        return fn.json_extract_path_text(field.cast("json"), key)  # type: ignore[union-attr]
    return fn.json_extract(field, f"$.{key}")
