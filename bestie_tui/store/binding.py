"""Which database file the models talk to: one per ``MemoryStore``, chosen per thread and per task.

The Peewee models are declared once, but a process may hold several stores at once (a runtime that
serves two owners, the MCP server, a test that opens two files). Peewee's own answers do not fit:
``Database.bind_ctx`` and ``Model.bind`` rebind the model *classes*, so two threads that bind two
stores race on one global; a plain ``DatabaseProxy`` has one target for the whole process, so the
first store silently reads and writes the file opened last.

So the models' database is ``context_database``: a ``DatabaseProxy`` whose target is read, on every
use, from a ``contextvars.ContextVar`` — local to a thread and to an asyncio task. A store binds
itself for the length of each of its methods (``bind_store_methods`` wraps them all), and the domain
entry points that take a ``store`` and query the models directly are decorated with ``uses_store``.
Bindings nest (``ContextVar`` tokens restore the outer one), so a method of one store called inside a
function bound to another talks to its own file and hands the outer binding back afterwards.

Code that runs outside any binding (a script or a test that queries a model directly) gets the one
store that is open in the process; when several are open it gets a ``StoreBindingError`` naming the
fix, never a guess: ``with store.bound(): Memory.select()…``.

The same binding carries the store's tenant (``Tenant``): a store bound to a user
(``MemoryStore(path, user=U)``, ``store.for_user(U)``) binds ``Tenant(U)`` beside its database, and
the models (``models.TenantModel``) add its condition to every select, update and delete of a
memory, message or event and bind every new row to that user. Raw SQL over those tables takes the
condition from ``tenant_sql``. A store bound to no user binds ``None``: no condition.
"""

from __future__ import annotations

import functools
import gc
import inspect
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from peewee import Database, DatabaseProxy

from bestie_tui.errors import StorageError


class StoreBindingError(StorageError):
    """Model code ran with no store bound while none, or more than one, store is open."""


@dataclass(frozen=True)
class Tenant:
    """Whose rows a user-bound store reaches: those bound to ``user``, and (``owner``: ``user`` is
    the database's ``owner.user`` when the store was opened) those bound to no user, which are the
    owner's."""

    user: str
    owner: bool = False

    def condition(self, column: Any) -> Any:
        """The Peewee condition on a ``user`` column."""
        mine = column == self.user
        return (mine | column.is_null()) if self.owner else mine

    def sql(self, column: str) -> tuple[str, list[Any]]:
        """The same condition in SQL on ``column`` (quoted as the caller needs), and its parameters."""
        return (f"({column} = ? OR {column} IS NULL)" if self.owner else f"{column} = ?"), [self.user]


_bound: ContextVar[Database | None] = ContextVar("bestie_store_database", default=None)
_tenant: ContextVar[Tenant | None] = ContextVar("bestie_store_tenant", default=None)
_unscoped: ContextVar[bool] = ContextVar("bestie_store_unscoped", default=False)
#: Databases of the stores that are open now (a store that is closed or collected leaves).
_open: weakref.WeakSet[Database] = weakref.WeakSet()
#: The tenant of each open user-bound store, for model code that runs outside any binding.
_open_tenants: weakref.WeakKeyDictionary[Database, Tenant] = weakref.WeakKeyDictionary()
_open_lock = threading.Lock()


def register_open(db: Database, tenant: Tenant | None = None) -> None:
    """Count ``db`` among the open stores (``MemoryStore.__init__`` calls it), bound to ``tenant``."""
    with _open_lock:
        _open.add(db)
        if tenant is not None:
            _open_tenants[db] = tenant
        else:
            _open_tenants.pop(db, None)


def unregister_open(db: Database) -> None:
    """``db``'s store was closed: unbound code no longer falls back to it."""
    with _open_lock:
        _open.discard(db)
        _open_tenants.pop(db, None)


def bound_database() -> Database | None:
    """The database bound in this thread/task, or ``None`` outside every binding."""
    return _bound.get()


def current_tenant() -> Tenant | None:
    """The tenant model code is bound to now: the bound store's (``None`` for a store bound to no
    user); outside every binding, the tenant of the one open store model code falls back to, so
    unbound code on a user-bound store is still filtered; ``None`` inside ``unscoped()``."""
    if _unscoped.get():
        return None
    if _bound.get() is not None:
        return _tenant.get()
    with _open_lock:
        if not _open_tenants:
            return None
    try:
        db = current_database()
    except StoreBindingError:
        return None
    with _open_lock:
        return _open_tenants.get(db)


def tenant_sql(column: str) -> tuple[str, list[Any]]:
    """SQL for raw queries: the bound tenant's condition on ``column``, or ``("1 = 1", [])``."""
    tenant = current_tenant()
    return tenant.sql(column) if tenant is not None else ("1 = 1", [])


@contextmanager
def unscoped() -> Iterator[None]:
    """No tenant condition until the block ends: for the few reads that must see every row whatever
    the tenant (the next free memory id), never for what a caller is shown."""
    token = _unscoped.set(True)
    try:
        yield
    finally:
        _unscoped.reset(token)


def current_database() -> Database:
    """The database model code uses now: the bound one, else the only open store's.

    Raises:
        StoreBindingError: nothing is bound and no store, or several stores, are open.
    """
    db = _bound.get()
    if db is not None:
        return db
    with _open_lock:
        candidates = list(_open)
    if len(candidates) > 1:
        gc.collect()  # stores dropped without close() but still in a reference cycle
        with _open_lock:
            candidates = list(_open)
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise StoreBindingError("no memory store is open: open one with MemoryStore(path)")
    raise StoreBindingError(
        f"{len(candidates)} memory stores are open in this process and this code did not say which one "
        "it means; run it inside `with store.bound():` (or call it through the store's methods)"
    )


@contextmanager
def binding(db: Database, tenant: Tenant | None = None) -> Iterator[Database]:
    """Make ``db`` the models' database, and ``tenant`` whose rows they reach, in this thread/task
    until the block ends (nests)."""
    token, tenant_token, scoped_token = _bound.set(db), _tenant.set(tenant), _unscoped.set(False)
    try:
        yield db
    finally:
        _unscoped.reset(scoped_token)
        _tenant.reset(tenant_token)
        _bound.reset(token)


class ContextDatabase(DatabaseProxy):
    """A ``DatabaseProxy`` whose target is ``current_database()`` at the moment of each use, so the
    same model classes serve any number of databases, each thread and task seeing its own."""

    __slots__ = ()

    def __init__(self) -> None:
        object.__setattr__(self, "_callbacks", [])

    @property  # a read-only view of the binding instead of a slot
    def obj(self) -> Database | None:
        """The bound database, or ``None`` when the choice would be ambiguous (Peewee asks this
        while declaring fields, before any store exists)."""
        try:
            return current_database()
        except StoreBindingError:
            return None

    def initialize(self, obj: Any) -> None:
        raise TypeError("the models follow the store in use; bind one with `with store.bound():`")

    def __getattr__(self, attr: str) -> Any:
        return getattr(current_database(), attr)

    def __enter__(self) -> Any:
        return current_database().__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return current_database().__exit__(*exc)


#: The database every model is declared with (``models.BaseModel.Meta.database``).
context_database = ContextDatabase()

F = TypeVar("F", bound=Callable[..., Any])


def _with_binding(func: F, get_store: Callable[[tuple, dict], Any]) -> F:
    if inspect.isgeneratorfunction(func) or inspect.iscoroutinefunction(func):
        raise TypeError(f"{func.__qualname__}: a generator or coroutine cannot hold a store binding")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        store = get_store(args, kwargs)
        db = _store_db(store)
        tenant = getattr(store, "tenant", None)
        if db is None or (_bound.get() is db and _tenant.get() == tenant and not _unscoped.get()):
            return func(*args, **kwargs)
        token, tenant_token, scoped_token = _bound.set(db), _tenant.set(tenant), _unscoped.set(False)
        try:
            return func(*args, **kwargs)
        finally:
            _unscoped.reset(scoped_token)
            _tenant.reset(tenant_token)
            _bound.reset(token)

    wrapper.__bestie_bound__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def _store_db(store: Any) -> Database | None:
    db = getattr(store, "db", None)
    return db if isinstance(db, Database) else None


def uses_store(func: F) -> F:
    """Decorate a function whose first argument (or ``store=`` keyword) is a ``MemoryStore``: the
    models talk to that store's file for the length of the call. Other arguments pass untouched; a
    ``None`` store binds nothing."""

    def get_store(args: tuple, kwargs: dict) -> Any:
        return kwargs["store"] if "store" in kwargs else (args[0] if args else None)

    return _with_binding(func, get_store)


def bind_methods(store_of: Callable[[Any], Any]) -> Callable[[type], type]:
    """Class decorator factory: every method and property of the class (its bases' included) binds
    the database of ``store_of(self)`` for its length. Static methods and dunders are left alone. A
    method that returns a context manager is bound only while it builds it, so its body must bind
    itself for the block (``MemoryStore.change`` does); a generator method is refused, since it runs
    after the call has returned."""

    def get_store(args: tuple, kwargs: dict) -> Any:
        return store_of(args[0]) if args else None

    def decorate(cls: type) -> type:
        seen: set[str] = set()
        for klass in cls.__mro__:
            if klass is object:
                continue
            for name, attr in vars(klass).items():
                if name in seen or (name.startswith("__") and name.endswith("__")):
                    continue
                seen.add(name)
                if getattr(attr, "__bestie_bound__", False):
                    continue
                if isinstance(attr, property) and attr.fget is not None:
                    setattr(cls, name, property(_with_binding(attr.fget, get_store), attr.fset, attr.fdel, attr.__doc__))
                elif inspect.isfunction(attr):
                    setattr(cls, name, _with_binding(attr, get_store))
        return cls

    return decorate


#: For ``MemoryStore`` itself: each method binds ``self.db``.
bind_store_methods = bind_methods(lambda store: store)
