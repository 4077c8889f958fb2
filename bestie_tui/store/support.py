"""Helpers shared by the ``MemoryStore`` modules: turning Memory/Message rows into plain records and
event snapshots (``to_record``, ``snapshot``, ``row_values``), checking a memory kind
(``check_kind``), clamping ids and limits to SQLite's 64-bit range, and wording storage errors.
``bestie_tui.store.memory_store`` re-exports the public ones.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.binding import tenant_sql
from bestie_tui.store.models import Memory, Message
from bestie_tui.store.records import DATETIME_FIELDS, MEMORY_FIELDS, MemoryRecord, MessageRecord, iso
from bestie_tui.text import words as textmod


def to_record(row: Memory) -> MemoryRecord:
    return MemoryRecord(**{name: getattr(row, name) for name in MEMORY_FIELDS})


def select_records(db: Any, where: str, params: list[Any] | tuple[Any, ...], tail: str = "") -> list[MemoryRecord]:
    """``MemoryRecord`` of the ``memory`` rows (aliased ``t1``) matching the SQL condition ``where``
    (with ``?`` parameters ``params``), followed by ``tail`` (e.g. ``ORDER BY t1.id DESC LIMIT 40``).
    Read with the cursor and converted by each field's own ``python_value`` (what a model row would
    hold), without building model instances (five times cheaper for a request's candidates).
    Under a user-bound store only that user's rows (``binding.tenant_sql``)."""
    mine, own = tenant_sql('t1."user"')  # a user-bound store reaches only its user's rows
    rows = db.execute_sql(f"SELECT {_COLUMNS} FROM memory AS t1 WHERE ({where}) AND {mine} {tail}",
                          [*params, *own]).fetchall()
    convert = _converters()
    return [MemoryRecord(*[v if v is None or f is None else f(v) for f, v in zip(convert, row)]) for row in rows]


_COLUMNS = ", ".join(f"t1.{name}" for name in MEMORY_FIELDS)
_CONVERT: list[Any] = []


def _converters() -> list[Any]:
    """Per column of ``MEMORY_FIELDS``: the function that turns a stored value into what a model row
    would hold, or None where the driver's value already is (text). Datetimes go through
    ``datetime.fromisoformat`` first (the stored form), Peewee's own parser only for another form."""
    if not _CONVERT:
        from peewee import BooleanField, CharField, DateTimeField, TextField

        def stamp(field: Any) -> Any:
            def parse(value: Any) -> Any:
                if isinstance(value, datetime):
                    return value
                try:
                    parsed = datetime.fromisoformat(value)
                except (TypeError, ValueError):
                    return field.python_value(value)
                return parsed if parsed.tzinfo is None else field.python_value(value)
            return parse

        for name in MEMORY_FIELDS:
            field = Memory._meta.fields[name]
            if isinstance(field, DateTimeField):
                _CONVERT.append(stamp(field))
            elif isinstance(field, BooleanField):
                _CONVERT.append(bool)
            elif isinstance(field, (TextField, CharField)):
                _CONVERT.append(None)
            else:
                _CONVERT.append(field.python_value)
    return _CONVERT


def snapshot(row: Memory) -> dict[str, Any]:
    """JSON-ready dict of a memory row: what an event stores as before/after (the same dict as
    ``to_record(row).to_dict()``, built directly: every field is a scalar, and a plan's apply
    snapshots every row it touches twice)."""
    data = {name: getattr(row, name) for name in MEMORY_FIELDS}
    for key in DATETIME_FIELDS:
        data[key] = iso(data[key])
    return data


def _parse_dt(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value)).replace(tzinfo=None)


def row_values(data: dict[str, Any]) -> dict[str, Any]:
    """Model field values from a snapshot/export dict (text indexes recomputed)."""
    values = {k: data[k] for k in MEMORY_FIELDS if k in data}
    for key in DATETIME_FIELDS:
        if key in values:
            values[key] = _parse_dt(values[key])
    words = textmod.tokens(values["text"])  # read once for both: ``normalize`` and ``search_text``
    values["norm"] = " ".join(words)
    values["terms"] = " " + " ".join([textmod.stem(w) for w in words]) + " "
    return values



#: SQLite integers are signed 64-bit; larger ids or limits cannot exist.
MAX_ID = 2**63 - 1
_KIND = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]{0,63}$")


#: The kinds the owner picks from (CLI completion, the console's list), in the order offered.
#: The Python API still takes any identifier-like kind (an integration may have its own).
KNOWN_KINDS = ("preference", "communication_preference", "identity", "decision", "project_context",
               "inside_joke", "event", "fact", "note")


def known_kind(kind: str) -> str:
    """``kind`` as one of ``KNOWN_KINDS``, matched case-insensitively (``Preference`` → ``preference``,
    spaces or dashes for underscores). Raises InvalidValueError naming the known kinds."""
    key = (kind or "").strip().lower().replace(" ", "_").replace("-", "_") if isinstance(kind, str) else ""
    if key not in KNOWN_KINDS:
        raise InvalidValueError(f"unknown memory kind {kind!r}; use one of {', '.join(KNOWN_KINDS)}")
    return key


#: Kinds the store itself gives (a venting note kept with ``add --keep-venting``); never offered.
INTERNAL_KINDS = ("venting",)


def _singular(word: str) -> str:
    """An English plural's singular by its ending (``preferences`` → ``preference``, ``identities`` →
    ``identity``); other words as they are."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def settle_kind(kind: str) -> tuple[str, str | None]:
    """``_settle_kind`` of ``kind``, remembered for the last 4,096 kinds given as text (an import
    of 100,000 records names a handful)."""
    return _settle_known(kind) if isinstance(kind, str) else _settle_kind(kind)


@lru_cache(maxsize=4096)
def _settle_known(kind: str) -> tuple[str, str | None]:
    return _settle_kind(kind)


def _settle_kind(kind: str) -> tuple[str, str | None]:
    """One rule for a kind on every write path (``propose``, ``add``, MCP ``remember``, every import):
    ``(kind, original)``. A known kind (``KNOWN_KINDS``, ``INTERNAL_KINDS``) in any case, spacing or
    number (``Preferences``, ``communication-preference``) is itself and ``original`` is ``None``; a
    label that ends in a known kind (``user_preferences``, ``daily_note``) is that kind; any other
    (``bogus``, ``travel``) is ``note``. ``original`` is the label as given whenever it was more than
    a spelling of the kind, so the caller keeps it (in the memory's source) and nothing is lost.

    Raises:
        InvalidValueError: not identifier-like, or it looks like a secret (``check_kind``).
    """
    given = check_kind("_".join(kind.split()) if isinstance(kind, str) else kind)
    words = [_singular(w) for w in re.split(r"[\s_.\-]+", given.lower()) if w]
    key = "_".join(words)
    if key in KNOWN_KINDS or key in INTERNAL_KINDS:
        return key, None
    for n in range(len(words) - 1, 0, -1):  # the longest known kind the label ends in
        if "_".join(words[-n:]) in KNOWN_KINDS:
            return "_".join(words[-n:]), given
    return "note", given


def kept_kind_source(source: str | None, original: str | None) -> str | None:
    """``source`` with the original kind appended (``"import:mem0 (kind: travel)"``) when
    ``settle_kind`` changed it; ``source`` unchanged otherwise."""
    if original is None:
        return source
    return f"{source} (kind: {original})" if source else f"kind: {original}"


def kind_note(given: str, source: str | None) -> str:
    """The note a write adds to its answer when it stored ``given`` as another kind
    (``settle_kind``) and kept ``given`` in the record's ``source``; ``""`` otherwise (a known
    kind, or a restatement that kept an older record as it was)."""
    try:
        kind, original = settle_kind(given)
    except InvalidValueError:
        return ""
    kept = original is not None and (source == kept_kind_source(None, original)
                                     or (source or "").endswith(f" (kind: {original})"))
    if not kept:
        return ""
    return (f"kind {original!r} is not one of {', '.join(KNOWN_KINDS)}: stored as {kind}, "
            "the kind given kept in its source")


def check_kind(kind: str) -> str:
    """A memory kind is an identifier such as ``communication_preference`` (letters, digits, ``_.-``,
    at most 64 characters) that is not a secret. Returns it stripped; raises InvalidValueError
    otherwise (without echoing a secret)."""
    kind = (kind or "").strip() if isinstance(kind, str) else kind
    if isinstance(kind, str) and kind:
        from bestie_tui.store.gate.secrets import detect_secret

        found = detect_secret(kind)
        if found:  # never stored, never echoed: a model or a foreign file may put a token here
            raise InvalidValueError(f"refused: the memory kind looks like {found}; secrets are never stored")
    if not isinstance(kind, str) or not _KIND.match(kind):
        raise InvalidValueError(
            f"memory kind must be a word such as preference or project_context, not {kind!r}"
        )
    return kind


def _clamp(n: int | None) -> int | None:
    return None if n is None else max(0, min(int(n), MAX_ID))


def _storage_message(path: str | Path, exc: Exception) -> str:
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return f"{path} is read-only; nothing was changed"
    if "locked" in text or "busy" in text:
        return f"{path} is busy (another process holds the write lock); nothing was changed, try again"
    return f"database error on {path}: {text}; nothing was changed"


def _message_record(row: Message) -> MessageRecord:
    return MessageRecord(id=row.id, role=row.role, text=row.text, user=row.user, channel=row.channel,
                         session=row.session, created_at=row.created_at)
