"""Forgetting what was said: the chat messages that state a memory, their redaction when the memory
is forgotten, the removal of single messages, and the undo of both.

**States.** A message states a memory when the memory's words — at least ``MIN_WORDS`` of them —
occur in it as one run, read as ``words.normalize`` reads them (case, accents typed or not,
punctuation and spacing aside), and that run is the memory's text written differently
(``words.same_text``: "bơ" is not "bò"). The store keeps no link from a memory to the turn it came
from: a proposal from a turn is that turn's own sentence, an owner's ``add`` the owner's words. So
this is what "the messages that state it" means; a note written in other words ("Ana's therapist
is …" for "My therapist is …") is not found — ``messages search`` finds those turns and
``messages forget ID`` removes them. Messages are looked up in the persisted message index
(``doc_index.documents_with``: the rarest words first), then read.

**Changes.** Redacting replaces each stated run with ``REDACTED``; forgetting a message deletes it.
Each is an event of the message (``memory_id`` null; ``before``/``after`` the message as it was and
is, under ``MESSAGE_KEY`` its id, and ``"memory"`` the memory a redaction was for) in the batch of the
change that made it, so ``undo`` gives the text or the message back (``undo_event``) while
``memory.undoRetentionDays`` lasts; then ``erase.purge_history`` purges the text from the log. They
run with SQLite's ``secure_delete`` on and bring the message index up to date in the same
transaction (the message and the turns beside it, which are indexed with its text), so the old text
is left in neither the index nor the freed pages of the file — only in the event, for undo.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from peewee import DatabaseError, OperationalError

from bestie_tui.errors import InvalidValueError, NotFoundError
from bestie_tui.store import doc_index
from bestie_tui.store.binding import tenant_sql, uses_store
from bestie_tui.store.db import erase_begin
from bestie_tui.store.models import Memory, Message
from bestie_tui.store.records import ForgetResult, MessageRecord, iso
from bestie_tui.store.support import MAX_ID, _message_record, snapshot, to_record
from bestie_tui.text import words as textmod

if TYPE_CHECKING:
    from bestie_tui.store.memory_store import MemoryStore

#: A memory of fewer words states nothing: one or two common words are in too many messages.
MIN_WORDS = 2
#: What a redacted statement reads in the message afterwards.
REDACTED = "[redacted: forgotten]"
#: Event actions of the message changes (undoable; purged after ``memory.undoRetentionDays``).
REDACT, FORGET = "message-redact", "message-forget"
ACTIONS = (REDACT, FORGET)
#: The key of a message snapshot that holds the message's id.
MESSAGE_KEY = "message"
_CHUNK = 500
# A word as ``words.tokens`` reads it: letters and digits, an apostrophe inside joining its parts.
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


# ------------------------------------------------------------------------------------- the text
def _words(text: str) -> list[tuple[str, int, int]]:
    """``(token, start, end)`` of ``text`` (NFC): the tokens of ``words.tokens`` with the span of the
    word each came from."""
    return [(token, m.start(), m.end()) for m in _WORD.finditer(text) for token in textmod.tokens(m.group())]


def stated_spans(text: str, memory_text: str) -> list[tuple[int, int]]:
    """``[start, end)`` spans of ``unicodedata.normalize("NFC", text)`` where ``memory_text`` is
    stated (the module docstring), left to right, not overlapping; ``[]`` when it is not, or when
    the memory has fewer than ``MIN_WORDS`` words. Time linear in ``len(text)`` times the memory's
    words."""
    want = textmod.tokens(memory_text)
    if len(want) < MIN_WORDS or textmod.normalize(memory_text) not in textmod.normalize(text):
        return []
    nfc = unicodedata.normalize("NFC", text)
    words = _words(nfc)
    spans: list[tuple[int, int]] = []
    i, k = 0, len(want)
    while i + k <= len(words):
        if words[i][0] == want[0] and [w[0] for w in words[i:i + k]] == want:
            start, end = words[i][1], words[i + k - 1][2]
            if textmod.same_text(nfc[start:end], memory_text) and (not spans or start >= spans[-1][1]):
                spans.append((start, end))
                i += k
                continue
        i += 1
    return spans


def states(text: str, memory_text: str) -> bool:
    """Whether the message ``text`` states the memory ``memory_text`` (``stated_spans``)."""
    return bool(stated_spans(text, memory_text))


def redact_text(text: str, memory_text: str) -> tuple[str, int]:
    """``text`` (NFC) with every statement of ``memory_text`` replaced by ``REDACTED``, and how many
    were; ``(text, 0)`` unchanged when it states nothing."""
    spans = stated_spans(text, memory_text)
    if not spans:
        return text, 0
    out = unicodedata.normalize("NFC", text)
    for start, end in reversed(spans):
        out = out[:start] + REDACTED + out[end:]
    return out, len(spans)


# ----------------------------------------------------------------------------------- the lookup
def _whose(user: str | None, *, unbound: bool, owner: str | None = None) -> tuple[str, list[Any]]:
    """SQL on ``message``: ``user``'s messages, and those bound to no user when ``unbound``; for
    ``user`` ``None``, the unbound ones and the owner's (``owner``)."""
    if user is None:
        return ('("user" IS NULL OR "user" = ?)', [owner]) if owner is not None else ('"user" IS NULL', [])
    return ('("user" = ? OR "user" IS NULL)' if unbound else '"user" = ?'), [user]


def _people(store: MemoryStore, user: str | None) -> tuple[str, list[Any]]:
    """The messages of ``user``'s person: their own, and for the owner (``owner.user``, or a memory
    bound to no user) also the messages bound to no user."""
    owner = store.get_setting("owner.user")
    return _whose(user, unbound=user is not None and user == owner, owner=owner)


def _fresh_index(store: MemoryStore) -> None:
    """Bring the message index up to date in the caller's transaction (built when missing): what it
    reads must hold the newest turns, and what a change applies must start from the current mark."""
    doc_index.sync(store.db, doc_index.MESSAGE)


def _stating(store: MemoryStore, memory_text: str, whose: tuple[str, list[Any]]) -> list[tuple[int, str]]:
    """``(id, text)`` of the messages meeting ``whose`` (and the bound tenant) that state
    ``memory_text``, by id: the index's candidates (``doc_index.documents_with``), narrowed in SQL to
    those whose stored stems hold the memory's stems in a row, then read (``states``). Raw SQL: a
    Peewee query per 500 candidates cost more than running it."""
    if len(textmod.tokens(memory_text)) < MIN_WORDS:
        return []
    condition, params = whose
    mine, own = tenant_sql('"user"')
    sql = f"SELECT id, text FROM message WHERE {condition} AND {mine} AND terms LIKE ?"
    params = [*params, *own, f"%{textmod.search_text(memory_text)}%"]
    ids = doc_index.documents_with(store.db, memory_text, doc_index.MESSAGE)
    if ids is None:  # no index (it could not be built): read the person's messages
        rows = store.db.execute_sql(sql + " ORDER BY id", params).fetchall()
    else:
        rows = [row for start in range(0, len(ids), _CHUNK) for row in store.db.execute_sql(
            f"{sql} AND id IN ({','.join('?' * len(ids[start:start + _CHUNK]))}) ORDER BY id",
            [*params, *ids[start:start + _CHUNK]]).fetchall()]
    return [(i, text) for i, text in rows if states(text, memory_text)]


def stating_rows(store: MemoryStore, memory: Memory) -> list[Message]:
    """Inside the caller's transaction: the messages of ``memory``'s person that state it, by id
    (the message index brought up to date first)."""
    _fresh_index(store)
    ids = [i for i, _ in _stating(store, memory.text, _people(store, memory.user))]
    return [r for start in range(0, len(ids), _CHUNK)
            for r in Message.select().where(Message.id.in_(ids[start:start + _CHUNK])).order_by(Message.id)]


@uses_store
def stating_messages(store: MemoryStore, memory_id: int) -> list[MessageRecord]:
    """The chat messages that state memory ``memory_id`` (module docstring), by id.

    Raises:
        NotFoundError: no memory with that id.
    """
    with store.db.atomic():
        return [_message_record(r) for r in stating_rows(store, store._row(memory_id))]


@uses_store
def forgotten_statements(store: MemoryStore, user: str | None) -> list[str]:
    """The texts of the messages a request of ``user`` may recall (``user``'s and those bound to no
    user) that state a memory the owner forgot (``user``'s, or one bound to no user): what the recall
    segment is told to leave out (``build_context(…, exclude_texts=…)``), so a forgotten memory's
    text is never quoted back. A database that cannot be written answers from the index it has."""
    reach = Memory.user.is_null() if user is None else (Memory.user == user) | Memory.user.is_null()
    forgotten = [m.text for m in Memory.select(Memory.text).where((Memory.status == "forgotten") & reach)]
    if not forgotten:
        return []
    try:
        with store.db.atomic():
            _fresh_index(store)
    except (OperationalError, DatabaseError):
        pass  # read-only or busy: the index as it is (recall itself does the same)
    seen = _whose(user, unbound=True)
    return list(dict.fromkeys(said for text in forgotten for _, said in _stating(store, text, seen)))


# ---------------------------------------------------------------------------------- the changes
def message_snapshot(row: Message, memory_id: int | None = None) -> dict[str, Any]:
    """What a message event stores as ``before``/``after``: the message's fields, its id under
    ``MESSAGE_KEY``, and the memory a redaction was for."""
    data: dict[str, Any] = {MESSAGE_KEY: row.id, "role": row.role, "text": row.text, "user": row.user,
                            "channel": row.channel, "session": row.session, "created_at": iso(row.created_at)}
    if memory_id is not None:
        data["memory"] = memory_id
    return data


def redact(store: MemoryStore, batch: str, memory: Memory, rows: Iterable[Message], actor: str, *,
           purged_note: str | None = None) -> list[int]:
    """Inside ``batch``'s transaction: replace the statements of ``memory`` in ``rows`` with
    ``REDACTED``, one ``REDACT`` event per message (or, with ``purged_note``, a ``purge`` event that
    keeps no text: a purge is not undone), and re-index them and the turns beside them. Returns the
    ids of the messages changed."""
    erase_begin(store.db)
    done: list[int] = []
    for row in rows:
        text, count = redact_text(row.text, memory.text)
        if not count:
            continue
        before = message_snapshot(row, memory.id)
        row.text, row.terms = text, textmod.search_text(text)
        row.save()
        if purged_note is None:
            store.record_event(batch, REDACT, None, before, message_snapshot(row, memory.id), actor,
                               note=f"redacted what #{memory.id} says")
        else:
            stub = {MESSAGE_KEY: row.id, "user": row.user, "memory": memory.id, "purged": True}
            store.record_event(batch, "purge", None, stub, None, actor, note=purged_note)
        done.append(row.id)
    _reindex(store, done)
    return done


def _reindex(store: MemoryStore, ids: list[int]) -> None:
    """Index messages ``ids`` as they are now, with the turns beside them in their sessions (indexed
    with their text). After a deletion the neighbours are gone from the table: ``forget_messages``
    reads them first (``doc_index.neighbours_outside``)."""
    if ids:
        beside = [n for pair in doc_index.session_neighbours(store.db, ids).values() for n in pair if n is not None]
        doc_index.drop_documents(store.db, sorted({*ids, *beside}), doc_index.MESSAGE)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _ids(ids: Iterable[int]) -> str:
    return ", ".join(f"#{i}" for i in ids)


@uses_store
def forget_memory(store: MemoryStore, memory_id: int, *, actor: str = "owner",
                  messages: bool | None = None) -> ForgetResult:
    """Forget a memory (status ``forgotten``: never injected; ``restore`` or ``undo`` brings it back)
    and, with ``messages``, redact it from the chat messages that state it — one undo step.

    Args:
        messages: redact the messages (``True``), leave them (``False``: the result lists them, for
            the offer), or do what ``memory.deletePolicy`` says (``None``: redact under ``allow``).
            ``True`` on a memory already forgotten redacts its messages alone.

    Raises:
        NotFoundError: no such memory. InvalidValueError: it is already forgotten (and, with
        ``messages``, no message states it); nothing is changed.
    """
    redacting = store.get_setting("memory.deletePolicy") == "allow" if messages is None else messages
    with store.change("forget", actor) as batch:
        row = store._row(memory_id)
        again = row.status == "forgotten"
        if again and not messages:
            raise InvalidValueError(f"memory #{row.id} is already forgotten")
        found = stating_rows(store, row)
        if again and not found:
            raise InvalidValueError(f"memory #{row.id} is already forgotten and no message states it; nothing changed")
        if not again:
            before = snapshot(row)
            row.status = "forgotten"
            row.updated_at = store.clock()
            row.save()
            store.record_event(batch, "forget", row.id, before, snapshot(row), actor)
        redacted = redact(store, batch, row, found, actor) if redacting else []
    stating = tuple(r.id for r in found if r.id not in redacted)
    message = f"#{row.id} was already forgotten" if again else f"forgot #{row.id}"
    if redacted:
        message += f"; redacted it from {_plural(len(redacted), 'message')} ({_ids(redacted)})"
    elif stating:
        message += (f"; {_plural(len(stating), 'message')} ({_ids(stating)}) "
                    f"{'states' if len(stating) == 1 else 'state'} it and {'was' if len(stating) == 1 else 'were'} "
                    "left as written")
    return ForgetResult(to_record(row), tuple(redacted), stating, message, again)


@uses_store
def forget_messages(store: MemoryStore, ids: Iterable[int], *, actor: str = "owner") -> list[int]:
    """Remove chat messages ``ids`` from the history and the message index — one undo step, undone
    while ``memory.undoRetentionDays`` lasts (the text stays in the event until then).

    Raises:
        InvalidValueError: no id given. NotFoundError: an id names no message this store reaches;
        nothing is removed.
    """
    wanted = sorted({int(i) for i in ids})
    if not wanted:
        raise InvalidValueError("name the id of at least one message (bestie memory messages shows them)")
    if not (0 < wanted[0] and wanted[-1] <= MAX_ID):  # no row has such an id (SQLite integers are 64-bit)
        raise NotFoundError(f"no message with id {wanted[0] if wanted[0] < 1 else wanted[-1]}; nothing was forgotten")
    erase_begin(store.db)
    with store.change(FORGET, actor) as batch:
        rows = [r for start in range(0, len(wanted), _CHUNK)
                for r in Message.select().where(Message.id.in_(wanted[start:start + _CHUNK])).order_by(Message.id)]
        missing = sorted(set(wanted) - {r.id for r in rows})
        if missing:
            raise NotFoundError(f"no message with id {missing[0]}; nothing was forgotten")
        _fresh_index(store)
        around = doc_index.neighbours_outside(store.db, wanted)
        for row in rows:
            store.record_event(batch, FORGET, None, message_snapshot(row), None, actor)
        for start in range(0, len(wanted), _CHUNK):
            Message.delete().where(Message.id.in_(wanted[start:start + _CHUNK])).execute()
        doc_index.drop_documents(store.db, sorted({*wanted, *around}), doc_index.MESSAGE)
    return wanted


def undo_event(store: MemoryStore, batch: str, action: str, before: dict[str, Any] | None,
               after: dict[str, Any] | None, actor: str) -> int:
    """Revert one message event of a batch being undone (``history.undo_last``), inside ``batch``:
    a redaction gets its text back, a forgotten message comes back (under its old id when that is
    free). Returns the message's id.

    Raises:
        InvalidValueError: the message was changed or removed since; nothing is written (the
            caller's transaction rolls back).
    """
    assert before is not None  # both actions keep the message as it was
    message_id = int(before[MESSAGE_KEY])
    _fresh_index(store)
    if action == REDACT:
        row = Message.get_or_none(Message.id == message_id)
        if row is None or after is None or row.text != after.get("text"):
            what = "it was removed" if row is None else "its text changed"
            raise InvalidValueError(f"cannot undo {action} of message #{message_id}: {what} since; undo that first "
                                    "(bestie memory undo --any), nothing was changed")
        row.text, row.terms = before["text"], textmod.search_text(before["text"])
        row.save()
    else:
        values = {"role": before["role"], "text": before["text"], "user": before.get("user"),
                  "channel": before.get("channel"), "session": before.get("session"),
                  "created_at": datetime.fromisoformat(before["created_at"]),
                  "terms": textmod.search_text(before["text"])}
        if Message.get_or_none(Message.id == message_id) is None:
            values["id"] = message_id
        message_id = int(Message.insert(**values).execute())
        row = Message.get_by_id(message_id)
    _reindex(store, [message_id])
    store.record_event(batch, "undo", None, after, message_snapshot(row, before.get("memory")), actor,
                       note=f"undo {action}")
    return message_id


__all__ = ["MIN_WORDS", "REDACTED", "REDACT", "FORGET", "ACTIONS", "MESSAGE_KEY", "stated_spans", "states",
           "redact_text", "stating_rows", "stating_messages", "forgotten_statements", "message_snapshot", "redact",
           "forget_memory", "forget_messages", "undo_event"]
