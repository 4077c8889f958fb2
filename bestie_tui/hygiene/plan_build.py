"""The plan builders: ``build_cleanup_plan`` (merge duplicates, resolve contradictions the owner
accepts, archive stale and expired records, purge old forgotten/rejected ones),
``build_rebalance_plan`` (move records between layers by use and the core token cap) and
``build_hygiene_plan`` (safe metadata fixes), with their default thresholds and ``best_text`` (the
proposed merged text). They make the ``Plan``/``Operation`` objects of ``plans``, which re-exports
every name here; the rules every builder keeps are in the ``plans`` module docstring.
"""

from __future__ import annotations

from datetime import timedelta

from bestie_tui.hygiene.plans import Operation, Plan, merged_binding
from bestie_tui.hygiene.wording import contradiction_heading, finding_reason
from bestie_tui.store.binding import uses_store
from bestie_tui.store.records import MemoryRecord
from bestie_tui.text import words as textmod

#: Forgotten/rejected records become eligible for a hard delete this many days after their last change.
PURGE_AFTER_DAYS = 30
#: Rebalance: a working memory unused this long is archived; an archived one used this recently,
#: at least ``ACTIVE_USES`` times, comes back to working.
UNUSED_DAYS = 60
ACTIVE_DAYS = 14
ACTIVE_USES = 3


def best_member(records: list[MemoryRecord]) -> MemoryRecord:
    """The member a merge keeps: a pinned one if any, else the most complete well-formed member —
    most distinct content terms, then well-formed (a capital first letter, a full stop at the end),
    then the longest, then the most used, then the newest. The digest advises the same one."""
    from bestie_tui.facts.reader import read

    def weight(r: MemoryRecord):
        text = r.text.strip()
        formed = int(text[:1].isupper()) + int(text.endswith("."))
        return (r.pinned, len(read(r.text).content), formed, len(text), r.access_count, r.updated_at, r.id)

    return max(records, key=weight)


def best_text(records: list[MemoryRecord]) -> str:
    """The proposed merged text: ``best_member``'s text. The owner may edit it."""
    return best_member(records).text


@uses_store
def build_cleanup_plan(store, report=None, *, user: str | None = None,
                       purge_after_days: int = PURGE_AFTER_DAYS) -> Plan:
    """The cleanup plan: merge duplicate groups, supersede corrected records by their newest
    correction (selected), propose contradiction resolutions (unselected: the owner decides),
    archive stale and expired records, hard-delete old forgotten/rejected ones (deletePolicy allow).

    Args:
        store: the open ``MemoryStore``.
        report: a full ``DoctorReport`` to build from; run here when omitted.
        user: limit to one user's memories.
    """
    from bestie_tui.hygiene.doctor import run_doctor

    report = report or run_doctor(store, user=user)
    plan = Plan("cleanup", store.clock(), store.get_setting("memory.deletePolicy"), active=report.total)
    for g in report.duplicates:
        _add_merge(plan, g)
    _add_corrections(plan, getattr(report, "corrections", []))
    _add_resolutions(plan, report.contradictions)
    low_value = {f.memory.id for f in report.noisy}
    for f in report.stale:
        action = "expire" if f.reason.startswith("expired") else "archive"
        if f.memory.layer != "archive":
            op = Operation(f"{action}:{f.memory.id}", action, [f.memory], finding_reason(f, plan.created_at),
                           changes={"layer": "archive"})
            if action == "archive":
                _preselect_archive(op, f.memory, also_stale=f.reason == "marked stale", low_value=low_value)
            plan.operations.append(op)
    _add_purges(store, plan, purge_after_days)
    return plan


def _preselect_archive(op: Operation, m: MemoryRecord, *, also_stale: bool, low_value: set[int]) -> None:
    """Archive operations start selected only for a record that is marked stale or low-value (the
    doctor's "noisy"), and never for a protected kind (``doctor.PROTECTED_KINDS``); being unused
    alone shows the operation, unselected, with the reason."""
    from bestie_tui.hygiene.doctor import PROTECTED_KINDS

    kind = (m.kind or "").strip().lower()
    if kind in PROTECTED_KINDS:
        op.selected = False
        named = kind.replace("_", " ")
        op.reason += f" — not selected: {'an' if named[:1] in 'aeiou' else 'a'} {named} is kept unless you choose"
    elif not (also_stale or m.stale or m.id in low_value):
        op.selected = False
        op.reason += " — not selected: unused only (turn it on to archive)"


def _add_merge(plan: Plan, g) -> None:
    """One ``merge`` for a duplicate group. With one pinned member the others are folded into it
    (it stays exactly as it is) if that narrows no one's view of them (its binding is already the
    widest of the group's); otherwise, or with two or more pinned members, the group is a note."""
    members, pinned = g.members, [m for m in g.members if m.pinned]
    key = f"merge:{','.join(str(m.id) for m in members)}"
    label = f"{len(members)} memories say the same"
    # "dị ứng bơ" / "dị ứng bò": one accent apart, and another food; the folded text cannot tell
    spelled = ", ".join(f"'{x}' / '{y}'" for i, a in enumerate(members) for b in members[i + 1:]
                        for x, y in textmod.spelling_differences(a.text, b.text)[:3])
    if not pinned:
        op = Operation(key, "merge", members, label, text=best_text(members))
        plan.operations.append(op)
        if spelled:
            op.selected = False
            op.reason += f" — off until you choose it: written differently: {spelled}"
            return
        differ = _differing_words(members) if g.level not in ("exact", "normalized") else []
        if not getattr(g, "strong", True):
            op.selected = False
            op.reason += " — off until you choose it: the doctor is not sure they are one fact"
        elif differ:
            # the reader read one fact in both, but the words say more: the owner looks first
            op.selected = False
            op.reason += f" — off until you choose it: they differ in {', '.join(repr(w) for w in differ[:4])}"
        return
    ids = " ".join(f"#{m.id}" + (" (pinned)" if m.pinned else "") for m in members)
    if len(pinned) > 1:
        plan.notes.append(f"duplicates with {len(pinned)} pinned records, not changed: {ids}; "
                          "unpin all but one to fold the others into it")
        return
    keep = pinned[0]
    if spelled:
        plan.notes.append(f"duplicates, not changed: {ids}; written differently ({spelled}), so folding "
                          f"them into the pinned #{keep.id} could lose one: merge them yourself if they are one")
        return
    widest = merged_binding(members)
    if keep.is_expired(plan.created_at):
        plan.notes.append(f"duplicates, not changed: {ids}; the pinned #{keep.id} has expired")
        return
    if any(widest[name] != getattr(keep, name) for name in widest):
        plan.notes.append(f"duplicates, not changed: {ids}; the pinned #{keep.id} is seen in fewer places than "
                          "the others (scope, layer or binding), so folding them into it would hide them")
        return
    extra = _words_not_in(keep, [m for m in members if m is not keep])
    if extra:
        # The pinned text cannot change, so folding would drop what only the others say.
        plan.notes.append(f"duplicates, not changed: {ids}; the others say more than the pinned #{keep.id} "
                          f"({', '.join(extra[:4])}): unpin it to merge them into one clearer record")
        return
    plan.operations.append(Operation(key, "merge", members,
                                     f"{label}; folded into the pinned #{keep.id}",
                                     text=keep.text, into=keep))


#: Stems that frame a preference rather than add to it ("User wants …", "Always answer …", "User
#: mentioned …").
_FRAMING = frozenset({"user", "owner", "want", "prefer", "like", "alway", "answer", "repli", "respond",
                      "respons", "first", "pleas", "use", "speak", "write", "languag", "mention", "said", "say",
                      "tell", "told", "note"})


def _differing_words(members) -> list[str]:
    """Content words (as written) that only one member of a duplicate group has, when two or more
    members have such words of their own: the texts then say different things in the same frame
    ("the spare kettle key lives in the blue drawer" / "the spare fan key …" → kettle, fan). Empty
    when at most one member adds words (the merged text can carry them: "… with diacritics") or
    the others differ only in words that frame a preference (``_FRAMING``). Numbers and dates are
    one value written two ways only where every member names one and they agree (``dates.agree``:
    "8/7" / "the 8th of July"); otherwise the quantities themselves are returned ("2am" / "4am")."""
    from bestie_tui.facts import dates

    found = [dates.quantities(m.text) for m in members]
    # numbers and dates are one value written two ways only when every member names one and they agree
    same_values = all(found) and all(dates.agree(a, b) for a in found for b in found if a is not b)
    if any(found) and not same_values:  # "at 2am" / "at 4am", "in June" / "in May": other values
        return sorted({dates.show(q) for quantities in found for q in quantities})
    own = []
    for o in members:
        others = [m for m in members if m is not o]
        lacking = [{w.lower() for w in _words_not_in(m, [o])} for m in others]  # o's words m lacks
        own.append([w for w in _words_not_in(others[0], [o]) if all(w.lower() in x for x in lacking)
                    and not (same_values and _date_word(w))])
    adding = [words for words in own if words]
    if len(adding) < 2:
        return []
    out: list[str] = []
    for words in adding:
        out += [w for w in words if w.lower() not in (x.lower() for x in out)]
    return out


#: Month and day names (not "may", "sun", "sat", "wed": words of their own too).
_MONTHS_AND_DAYS = frozenset(
    "january february march april june july august september october november december jan feb apr jun jul "
    "aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday mon tue thu fri".split())


def _date_word(word: str) -> bool:
    """A number or a date's word ("8", "8th", "July"): where the members' quantities agree, "8/7" and
    "the 8th of July" are one value written two ways; "2am" and "4am" are not."""
    return any(c.isdigit() for c in word) or word.lower() in _MONTHS_AND_DAYS


def _words_not_in(keep, others) -> list[str]:
    """Content words of ``others`` that ``keep`` lacks (compared as ``analysis.analyze_words``
    stems them), as written and in first-seen order, leaving out words that only frame a
    preference (``_FRAMING``): "concise", not the stem "concis"."""
    import re

    from bestie_tui.text.analysis import analyze_words

    kept = set(analyze_words(keep.text)) | _FRAMING
    missing: list[str] = []
    seen: set[str] = set()
    for m in others:
        for token in re.findall(r"\w+", m.text):
            for w in analyze_words(token):
                if w not in kept and not w.startswith("neg_") and w not in seen:
                    seen.add(w)
                    missing.append(token)
    return missing


def _add_corrections(plan: Plan, corrections) -> None:
    """One selected ``supersede`` per corrected record, aimed at the newest record that corrects
    it (through chains: A → B → C supersedes A and B by C). A side a merge of the same plan folds
    is that merge's record, as for contradictions; a pinned corrected record is blocked."""
    from bestie_tui.hygiene.corrections import latest_replacements

    newest = latest_replacements(list(corrections))
    reason_of = {c.older.id: c for c in corrections}
    merge_of = {r.id: o for o in plan.operations if o.action == "merge" for r in o.records}
    made: set[str] = set()
    for old_id, target in sorted(newest.items()):
        c = reason_of[old_id]
        old_merge, new_merge = merge_of.get(old_id), merge_of.get(target.id)
        if old_merge is not None and old_merge is new_merge:
            plan.notes.append(f"not changed: {old_merge.key} would merge #{old_id} and #{target.id}, but the newer "
                              f"corrects the older ({c.reason}); review that merge")
            continue
        old = list(old_merge.records) if old_merge else [c.older]
        key = f"supersede:{','.join(str(r.id) for r in old)}>{target.id}"
        if key in made:
            continue
        made.add(key)
        what = f"{c.attribute}: {c.old_value} → {c.new_value}" if c.attribute else c.reason
        op = Operation(key, "supersede", old, f"corrected ({what}): the newer #{target.id} replaces it",
                       target=target, source_merge=old_merge.key if old_merge else None,
                       target_merge=new_merge.key if new_merge else None)
        if any(r.pinned for r in old):
            op.blocked = "pinned"
            op.selected = False
        elif not all(x.strong for x in corrections if x.older.id == old_id):
            op.selected = False  # harm first: only strong evidence retires a record by default
            op.reason += " — off until you choose it: no explicit change, the doctor is not sure"
        plan.operations.append(op)


def _add_resolutions(plan: Plan, contradictions) -> None:
    """One unselected ``supersede`` per contradiction the owner may accept. A side that a merge of
    the same plan folds into one record is that whole group: the pairs "member i vs X" become one
    resolution between the merged record and X (key ``supersede:1,2,3>7``), so accepting it never
    fights the merge."""
    merge_of = {r.id: o for o in plan.operations if o.action == "merge" for r in o.records}
    made: set[str] = set()
    for c in contradictions:
        if not c.resolvable:
            plan.notes.append(f"flagged for you, not changed: #{c.older.id} “{c.older.text}” / "
                              f"#{c.newer.id} “{c.newer.text}” — {c.reason}")
            continue
        a_merge, b_merge = merge_of.get(c.older.id), merge_of.get(c.newer.id)
        if a_merge is not None and a_merge is b_merge:
            plan.notes.append(f"clash, not changed: {a_merge.key} would merge #{c.older.id} and #{c.newer.id}, "
                              f"which contradict each other ({c.kind}); review that merge")
            continue
        sides = [(a_merge.records if a_merge else [c.older], a_merge), (b_merge.records if b_merge else [c.newer], b_merge)]
        # the newer side is the one holding the newest statement
        sides.sort(key=lambda side: max((r.created_at, r.id) for r in side[0]))
        (old, old_merge), (new, new_merge) = sides
        key = f"supersede:{','.join(str(r.id) for r in old)}>{','.join(str(r.id) for r in new)}"
        if key in made:
            continue
        made.add(key)
        target = max(new, key=lambda r: (r.created_at, r.id))
        newer = f"the merged record of {new_merge.key}" if new_merge else f"the newer #{target.id}"
        op = Operation(key, "supersede", list(old), f"they disagree ({contradiction_heading(c)}): {newer} replaces it",
                       target=target, source_merge=old_merge.key if old_merge else None,
                       target_merge=new_merge.key if new_merge else None, selected=False, needs_acceptance=True)
        if any(r.pinned for r in old):
            op.blocked = "pinned"
        plan.operations.append(op)


def _add_purges(store, plan: Plan, purge_after_days: int) -> None:
    cutoff = store.clock() - timedelta(days=purge_after_days)
    old = [m for status in ("forgotten", "rejected") for m in store.list(status=status)
           if m.updated_at <= cutoff and not m.pinned]
    for m in sorted(old, key=lambda r: r.id):
        op = Operation(f"delete:{m.id}", "delete", [m], f"{m.status} for more than {purge_after_days} days")
        if plan.delete_policy != "allow":
            op.blocked = f"memory.deletePolicy is {plan.delete_policy}; only allow hard-deletes"
            op.selected = False
        plan.operations.append(op)


@uses_store
def build_rebalance_plan(store, *, unused_days: int = UNUSED_DAYS, active_days: int = ACTIVE_DAYS,
                         active_uses: int = ACTIVE_USES) -> Plan:
    """Move records between layers: core over its token cap → working (least used first); working
    unused for ``unused_days`` → archive; archived but used ``active_uses``+ times within
    ``active_days`` → working. Pinned records never move."""
    from bestie_tui.hygiene.doctor import _noisy, import_times, last_use, load_active
    from bestie_tui.text.tokens import chars4

    now = store.clock()
    plan = Plan("rebalance", now, store.get_setting("memory.deletePolicy"))
    records, _ = load_active(store)
    plan.active = len(records)
    imported = import_times(store)
    low_value = {f.memory.id for f in _noisy(records)}
    cap = int(store.get_setting("memory.coreTokenCap"))
    core = [m for m in records if m.layer == "core"]
    tokens = sum(chars4(m.text) for m in core)
    movable = sorted((m for m in core if not m.pinned), key=lambda m: (m.access_count, last_use(m, imported), m.id))
    for m in movable:
        if tokens <= cap:
            break
        tokens -= chars4(m.text)
        plan.operations.append(Operation(f"layer:{m.id}", "layer", [m],
                                         f"core over its cap ({cap} tokens); used {m.access_count}×",
                                         changes={"layer": "working"}))
    if tokens > cap:
        plan.notes.append(f"core is still {tokens} tokens over a cap of {cap}: the rest is pinned")
    for m in records:
        if m.pinned:
            continue
        idle = (now - last_use(m, imported)).days
        if m.layer == "working" and idle >= unused_days:
            op = Operation(f"archive:{m.id}", "archive", [m], f"unused for {idle} days", changes={"layer": "archive"})
            _preselect_archive(op, m, also_stale=False, low_value=low_value)
            plan.operations.append(op)
        elif (m.layer == "archive" and m.access_count >= active_uses and m.last_accessed_at
              and (now - m.last_accessed_at).days <= active_days):
            plan.operations.append(Operation(f"layer:{m.id}", "layer", [m],
                                             f"archived but used {m.access_count}×, last {idle} days ago",
                                             changes={"layer": "working"}))
    return plan


@uses_store
def build_hygiene_plan(store, report=None, *, fixes_only: bool = False) -> Plan:
    """Safe metadata fixes (kind normalised, source recovered from the event log, a dangling
    ``superseded_by`` cleared and the record marked stale, an impossible ``last_accessed_at``
    reset) and, unless ``fixes_only``, archiving of expired records."""
    from bestie_tui.hygiene.doctor import run_doctor
    from bestie_tui.hygiene.plan_fixes import metadata_fixes

    report = report or run_doctor(store)
    plan = Plan("hygiene", store.clock(), store.get_setting("memory.deletePolicy"), active=report.total)
    plan.operations.extend(metadata_fixes(store, report))
    if not fixes_only:
        for f in report.stale:
            if f.reason.startswith("expired") and f.memory.layer != "archive":
                plan.operations.append(Operation(f"expire:{f.memory.id}", "expire", [f.memory], f.reason,
                                                 changes={"layer": "archive"}))
    return plan

