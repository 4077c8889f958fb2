"""Peewee models: memory, message, event (audit log), setting, hygiene snapshot.

All timestamps are naive UTC ``datetime`` values. The models are declared with
``binding.context_database``, whose target is the store in use in this thread or task (see
``bestie_tui.store.binding``): any number of stores, each with its own file, in one process.
"""

from __future__ import annotations

from typing import Any

from peewee import (
    AutoField,
    BooleanField,
    DateTimeField,
    FloatField,
    IntegerField,
    Model,
    TextField,
)

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.binding import context_database, current_database, current_tenant
from bestie_tui.store.dialect import json_text

#: The name older code knew; it is the per-context database, not a process-wide target.
database_proxy = context_database

STATUSES = ("pending", "approved", "rejected", "forgotten")
SCOPES = ("core", "project", "session")
LAYERS = ("core", "working", "archive")
ROLES = ("user", "assistant", "system")
#: The layer a memory gets by default for each scope (``move --scope`` follows this unless pinned).
SCOPE_DEFAULT_LAYER = {"core": "core", "project": "working", "session": "working"}


class BaseModel(Model):
    class Meta:
        database = context_database


class TenantModel(BaseModel):
    """A table of per-user rows (``user`` column): under a store bound to a user (``binding.Tenant``)
    every select, update and delete gets the tenant's condition and every insert is bound to the
    tenant's user (an insert that names another user is refused). This is the one place tenancy is
    enforced for model queries; ``Model.get``, ``save`` and ``delete_instance`` go through it."""

    @classmethod
    def tenant_condition(cls) -> Any:
        """The bound tenant's condition on this table, or ``None`` (no tenant bound)."""
        tenant = current_tenant()
        return None if tenant is None else tenant.condition(cls._meta.fields["user"])

    @classmethod
    def select(cls, *fields: Any) -> Any:
        query = super().select(*fields)
        condition = cls.tenant_condition()
        return query if condition is None else query.where(condition)

    @classmethod
    def update(cls, __data: Any = None, **update: Any) -> Any:
        query = super().update(__data, **update)
        condition = cls.tenant_condition()
        return query if condition is None else query.where(condition)

    @classmethod
    def delete(cls) -> Any:
        query = super().delete()
        condition = cls.tenant_condition()
        return query if condition is None else query.where(condition)

    def save(self, force_insert: bool = False, only: Any = None) -> Any:
        tenant = current_tenant()
        if tenant is not None and "user" in self._meta.fields and (force_insert or self.get_id() is None):
            if self.__data__.get("user") is None:  # the new row (and the record made from it) is the tenant's
                self.__data__["user"] = tenant.user
        return super().save(force_insert=force_insert, only=only)

    @classmethod
    def insert(cls, __data: Any = None, **insert: Any) -> Any:
        tenant = current_tenant()
        if tenant is not None:
            values = {(k.name if hasattr(k, "name") else k): v for k, v in {**(__data or {}), **insert}.items()}
            named = values.get("user")
            if named is not None and named != tenant.user:
                raise InvalidValueError(f"this store is bound to user {tenant.user!r}; it cannot write a row of user {named!r}")
            values["user"] = tenant.user
            return super().insert(values)
        return super().insert(__data, **insert)


class Memory(TenantModel):
    """One remembered fact. ``id`` is the small integer every command takes."""

    id = AutoField()
    text = TextField()
    kind = TextField(default="note")
    status = TextField(default="pending", index=True)
    scope = TextField(default="project")
    layer = TextField(default="working", index=True)
    pinned = BooleanField(default=False)
    stale = BooleanField(default=False)
    superseded_by = IntegerField(null=True)
    last_accessed_at = DateTimeField(null=True)
    access_count = IntegerField(default=0)
    confidence = FloatField(default=0.8)
    expires_at = DateTimeField(null=True)
    user = TextField(null=True, index=True)
    #: Who the memory is about when it is not the owner ("J", "my brother"): bound to that person,
    #: never core, shown as "(about …)" in the prompt. ``None``: the owner (schema 2).
    about = TextField(null=True)
    channel = TextField(null=True)
    project = TextField(null=True)
    session = TextField(null=True)
    source = TextField(null=True)
    created_at = DateTimeField()
    updated_at = DateTimeField()
    #: ``text.normalize(text)``: equal values mean the same memory written differently.
    norm = TextField(index=True)
    #: ``text.search_text(text)``: stemmed folded terms for search.
    terms = TextField()

    class Meta:
        table_name = "memory"


class Message(TenantModel):
    """One chat message of the raw history."""

    id = AutoField()
    role = TextField(index=True)
    text = TextField()
    user = TextField(null=True)
    channel = TextField(null=True)
    session = TextField(null=True)
    created_at = DateTimeField(index=True)
    terms = TextField()

    class Meta:
        table_name = "message"


class Event(TenantModel):
    """Audit log: one row per change to one memory. ``before``/``after`` are JSON snapshots of the row
    (``null`` when the memory did not exist before / after). Events of one action share ``batch``;
    undo reverts a whole batch. Under a tenant an event is the tenant's when a snapshot names its
    user (for the owner: or names no user, as a setting's change does)."""

    @classmethod
    def tenant_condition(cls) -> Any:
        tenant = current_tenant()
        if tenant is None:
            return None
        db = current_database()  # the engine itself (JSON functions differ), not the context proxy

        def names_tenant(snapshot: Any) -> Any:  # a snapshot that is there and is the tenant's
            return snapshot.is_null(False) & tenant.condition(json_text(db, snapshot, "user"))

        return names_tenant(cls.before) | names_tenant(cls.after)

    @classmethod
    def insert(cls, __data: Any = None, **insert: Any) -> Any:
        return super(TenantModel, cls).insert(__data, **insert)

    id = AutoField()
    batch = TextField(index=True)
    memory_id = IntegerField(null=True, index=True)
    action = TextField()
    actor = TextField()
    at = DateTimeField()
    before = TextField(null=True)
    after = TextField(null=True)
    note = TextField(null=True)
    undone = BooleanField(default=False)
    #: The store object (one console session, one CLI command) that made the change: the console's
    #: ``u`` undoes only its own session's batches. ``None`` for events older than schema 2.
    origin = TextField(null=True, index=True)

    class Meta:
        table_name = "event"


class Setting(BaseModel):
    """A policy or switch, stored as JSON so it travels with the database."""

    key = TextField(primary_key=True)
    value = TextField()

    class Meta:
        table_name = "setting"

    @classmethod
    def put(cls, key: str, value: str) -> None:
        """Store ``value`` (JSON text) under ``key``, replacing what was there: an upsert (``INSERT …
        ON CONFLICT (key) DO UPDATE``) that both engines take, where ``replace`` is SQLite's alone."""
        cls.insert(key=key, value=value).on_conflict(conflict_target=[cls.key], update={cls.value: value}).execute()


class HygieneSnapshot(TenantModel):
    """One row per doctor/hygiene run: counts (JSON) and the health score (0–100). A run of a
    user-bound store is that user's (``counts["user"]``); under a tenant only its runs are seen."""

    @classmethod
    def tenant_condition(cls) -> Any:
        tenant = current_tenant()
        if tenant is None:
            return None
        return tenant.condition(json_text(current_database(), cls.counts, "user"))

    @classmethod
    def insert(cls, __data: Any = None, **insert: Any) -> Any:
        return super(TenantModel, cls).insert(__data, **insert)

    id = AutoField()
    at = DateTimeField()
    counts = TextField()
    health = FloatField()

    class Meta:
        table_name = "hygiene_snapshot"


ALL_MODELS = [Memory, Message, Event, Setting, HygieneSnapshot]
