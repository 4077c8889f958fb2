"""Conflicts in a context pack: which included records an active record corrects or contradicts.

``find_conflicts(included, partners)`` relates every included record to every partner (and to the
other included records) with ``facts.relate``:

* a **correction** of an included record ("lives in Hanoi" / later "moved to Da Nang") means the
  included one is out of date: it leaves the pack, listed as ``corrected by #N``, and the newer
  record takes its place;
* a **contradiction** means the owner has not decided: both sides go in, next to each other, the
  newer line marked ``CONFLICT_MARK``; when the budget holds only one, the newer goes in and the
  older is listed as ``contradicted by #N``. Never one side silently.

Only two records **about one thing** act on the pack (``_same_topic``): a verdict that compares
two values of a stance ("prefers", "likes", "is", "has"), which names no topic itself, counts only
when the values meet (a word, a stem or a category in common: "green tea" / "black tea"). Two of the
owner's preferences about different things ("I prefer self-paced courses" / "I much prefer a private
driver when visiting a new city", which the reader compares as one "prefer" value and reads as a
change) neither take each other's place nor pull each other into the pack.

Partners are what the request's relevance search already found (eligible records, relevant or
not) and the eligible records that contain the words of the included records' attributes
(``facts.attribute_words``: "moved" for a residence), so a correction with no word in common with
the query is still seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bestie_tui.facts.knowledge import categories_of
from bestie_tui.facts.reader import attribute_words, read
from bestie_tui.facts.relations import disagreement_keys, relate
from bestie_tui.store.models import Memory
from bestie_tui.store.records import MemoryRecord
from bestie_tui.store.support import select_records

#: Appended to the newer line of two that contradict each other.
CONFLICT_MARK = "(conflicts with the line above; the user has not said which holds: ask before relying on either)"
#: Records found by attribute words, newest first.
BY_ATTRIBUTE = 40


@dataclass
class Conflicts:
    """``corrected``: included id → the newer record that corrects it; ``contradicted``: pairs
    ``(older, newer)`` of which at least one side is included."""

    corrected: dict[int, MemoryRecord] = field(default_factory=dict)
    contradicted: list[tuple[MemoryRecord, MemoryRecord]] = field(default_factory=list)


def partners_by_attribute(included: list[MemoryRecord], allowed: tuple[str, list[Any]],
                          exclude: set[int]) -> list[MemoryRecord]:
    """Eligible records (the compiled SQL condition ``allowed`` on ``memory`` aliased ``t1``, with its
    parameters) containing the attribute words of ``included``, newest first, at most ``BY_ATTRIBUTE``."""
    words: set[str] = set()
    for m in included:
        words |= attribute_words(read(m.text))
    if not words:
        return []
    chosen = sorted(words)[:60]
    where, params = allowed
    sql = f"({where}) AND ({' OR '.join(['t1.terms LIKE ?'] * len(chosen))})"
    params = [*params, *(f"% {w} %" for w in chosen)]
    if exclude:
        sql += f" AND t1.id NOT IN ({','.join('?' * len(exclude))})"
        params += sorted(exclude)
    return select_records(Memory._meta.database, sql, params, f"ORDER BY t1.id DESC LIMIT {BY_ATTRIBUTE}")


#: The parts of ``facts.Keys`` a partner is indexed by: its keys, what it rules out, what it names.
_PARTS = ("keys", "excludes", "mentions")


def find_conflicts(included: list[MemoryRecord], partners: list[MemoryRecord]) -> Conflicts:
    """Relate each included record to the partners and to each other (see the module docstring).

    Only pairs that ``facts.may_disagree`` lets through are related; they are found by key
    (``facts.disagreement_keys``: an attribute key, an unframed text's word or a category in common, a
    state or denial and what it rules out, or a text that can disagree with anything), not by testing
    every pair, which cost most of a pack when one user owns every record."""
    out = Conflicts()
    seen: set[tuple[int, int]] = set()
    pool = {m.id: m for m in partners}
    pool.update({m.id: m for m in included})
    order = {i: n for n, i in enumerate(pool)}
    keys = {i: disagreement_keys(m.text) for i, m in pool.items()}
    # what the included records look for, so that only the partners that meet one are indexed below
    wanted = [frozenset().union(*(getattr(keys[m.id], part) for m in included)) for part in _PARTS]
    anything: dict[str | None, list[int]] = {}  # user → ids of texts that may disagree with any other
    tables: list[dict[tuple[str | None, str], list[int]]] = [{}, {}, {}]  # per part: (user, word) → ids
    same_user: dict[str | None, list[int]] = {}
    for i, m in pool.items():
        k = keys[i]
        same_user.setdefault(m.user, []).append(i)
        if k.exclusive:
            anything.setdefault(m.user, []).append(i)
        for table, part, looked_for in zip(tables, _PARTS, (wanted[0], wanted[2], wanted[1])):
            for w in getattr(k, part) & looked_for:
                table.setdefault((m.user, w), []).append(i)
    for m in included:
        k = keys[m.id]
        if k.exclusive:
            others = same_user[m.user]
        else:
            found = set(anything.get(m.user, ()))
            # keys meet keys; what a text rules out meets what another names, and the other way round
            for table, words in zip(tables, (k.keys, k.mentions, k.excludes)):
                for w in words:
                    found.update(table.get((m.user, w), ()))
            others = sorted(found, key=order.__getitem__)
        for oid in others:
            if oid == m.id:
                continue
            pair = (min(m.id, oid), max(m.id, oid))
            if pair in seen:
                continue
            seen.add(pair)
            other = pool[oid]
            older, newer = (m, other) if (m.created_at, m.id) <= (other.created_at, other.id) else (other, m)
            rel = relate(older.text, newer.text)
            if rel.basis == "model":
                continue  # the model's guess is for the owner's review, not for the prompt
            if rel.kind in ("correction", "contradiction") and not _same_topic(older.text, newer.text, rel):
                continue
            if rel.kind == "correction" and not rel.strong:
                out.contradicted.append((older, newer))  # not sure it replaces: both go in, marked
            elif rel.kind == "correction":
                current = out.corrected.get(older.id)
                if current is None or (newer.created_at, newer.id) > (current.created_at, current.id):
                    out.corrected[older.id] = newer
            elif rel.kind == "contradiction":
                out.contradicted.append((older, newer))
    return out


def _same_topic(older: str, newer: str, rel) -> bool:
    """Whether the verdict ``rel`` of two texts is about one thing (module docstring).

    A verdict that is not a comparison of two values stands (what one rules out, a negation or an
    opposite of the same value, an explicit end or fix). Two values of one frame are about one thing
    when the frame names it (an attribute such as a residence, the languages one speaks or an allergy;
    a frame with a key: "my phone is …"), or else, for a stance ("prefers", "likes", "is", "has"), when
    the values themselves meet: a word, a stem or a category in common ("green tea" / "black tea",
    "wine" / "beer" are alcohol)."""
    if rel.attribute is None or rel.basis != "value":
        return True
    fa = [f for f in read(older).facts if f.label() == rel.attribute]
    fb = [f for f in read(newer).facts if f.label() == rel.attribute]
    if not fa or not fb:
        return True  # a verdict this function cannot trace to two facts is the reader's to answer for
    if all(f.key or f.attribute not in STANCES for f in fa + fb):
        return True
    return bool(_kinds(fa) & _kinds(fb))


#: Frames that say how the owner stands, not about what ("prefers", "likes", "is", "has", "does"):
#: two of their values are one topic only when the values meet.
STANCES = frozenset({"is", "have", "do", "of", "switch", "like", "prefer"})


def _kinds(facts) -> set[str]:
    """The value words of ``facts`` with the categories each belongs to (``knowledge.categories_of``);
    quantities (``kind:value``) as they are."""
    out: set[str] = set()
    for f in facts:
        for v in f.value:
            out |= {v} if ":" in v else categories_of(v)
    return out


__all__ = ["Conflicts", "find_conflicts", "partners_by_attribute", "CONFLICT_MARK"]


def settle(pack, conflicts: Conflicts, *, place, leave_out, count) -> None:
    """Apply ``conflicts`` to ``pack`` (a ``ContextPack``) as the module docstring says.

    Args:
        place: ``place(section, index, record) -> bool``: insert ``record`` into ``section`` (the
            pack's ``core`` or ``working`` list) at ``index`` if the budget holds it.
        leave_out: ``leave_out(record, detail)``: list a record in the manifest (reason ``state``).
        count: ``count(line) -> int``: tokens of a line in the pack's token mode.
    """
    import dataclasses

    def where(memory_id: int):
        for section in (pack.core, pack.instructions, pack.working):
            for n, item in enumerate(section):
                if item.record.id == memory_id:
                    return section, n
        return None, None

    for old_id, newer in conflicts.corrected.items():
        section, n = where(old_id)
        if section is None:
            continue
        item = section.pop(n)
        leave_out(item.record, f"corrected by #{newer.id}")
        if where(newer.id)[0] is None:
            place(section, n, newer)
    for older, newer in conflicts.contradicted:
        if older.id in conflicts.corrected or newer.id in conflicts.corrected:
            continue
        s_old, n_old = where(older.id)
        s_new, n_new = where(newer.id)
        if s_old is None and s_new is None:
            continue
        if s_old is None:
            assert s_new is not None and n_new is not None
            if not place(s_new, n_new, older):  # the older one does not fit: the newer stays, the older is listed
                leave_out(older, f"contradicted by #{newer.id}")
                continue
            s_old, n_old = where(older.id)
        elif s_new is None:
            assert n_old is not None
            if not place(s_old, n_old + 1, newer):
                s_old.pop(n_old)
                leave_out(older, f"contradicted by #{newer.id}")
                if not place(s_old, n_old, newer):
                    leave_out(newer, f"contradicts #{older.id}; no room for either")
                continue
        s_old, n_old = where(older.id)
        s_new, n_new = where(newer.id)
        assert s_old is not None and s_new is not None and n_old is not None and n_new is not None
        item = s_new.pop(n_new)
        s_old, n_old = where(older.id)
        assert s_old is not None and n_old is not None
        line = item.line if item.line.endswith(CONFLICT_MARK) else f"{item.line} {CONFLICT_MARK}"
        s_old.insert(n_old + 1, dataclasses.replace(item, line=line, tokens=count(line)))
