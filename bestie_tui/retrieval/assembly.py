"""Prompt assembly: ``build_context`` turns a request into a ``ContextPack`` — the memory block.

Order of the block: approved **core** records (pinned first, then by score) within the core token cap
(``memory.coreTokenCap``), then the **standing instructions** (``store.instructions``: how to
answer — reply language, length, tone, format, form of address) that core does not already show,
under their own title (``INSTRUCTIONS_TITLE``) and cap (``memory.instructionsTokenCap``), in every
request whatever it is about (no relevance floor, no evidence of topic; near-duplicates of one shown
are shown once; a core one the core cap had no room for comes here), then the best-scored
**working** records that fit the rest of the token budget. The archive never enters. Candidates
come from one SQL query that already applies
governance and the exclusions (``governance.active_condition``); scoring (``scoring.score``) only
orders what SQL allowed. The manifest says what was left out and why:

* ``budget`` — relevant, but the budget (or the core cap) was spent;
* ``low relevance`` — eligible, but its relevance is under ``score.minRelevance``, or it shows no
  evidence of the request's topic (``retrieval.evidence``: two of the request's content words, its one
  word, a name or a rare word; "0.31, but only 'morn', a word of time, in common");
* ``scope`` — relevant, but bound to another channel or project (governed mode);
* ``state`` — relevant, but stale, superseded, expired or archived;
* ``duplicate`` — a working record whose cosine (``MemoryIndex.similarity``: 0.5 · BM25 word-row
  cosine + 0.5 · character-row cosine) to a record already in the block is at least
  ``score.duplicateCosine`` (default 0.9): it would repeat that record and spend the budget twice.
* ``state`` with ``corrected by #N`` / ``contradicted by #N`` — ``retrieval.conflicts``: a record an
  active newer one corrects never enters (the newer takes its place); two that contradict each other
  go in together, the newer line marked ``conflicts.CONFLICT_MARK``, or the newer alone.

Records of other users are never looked at, not even for the manifest.

With ``history=True`` the block ends with a **recall segment** (``RECALL_TITLE``): a few short
excerpts of the user's past conversations (``retrieval.recall``: same governance), at most
``recall.excerpts`` turns of at most ``RECALL_EXCERPT_CHARS`` characters, within its own share of the
budget (``recall.tokenShare``, taken from what the memories leave), never the current session's
recent turns (``session``: its last ``context.keepRecent`` turns, and any turn whose text the caller
passes in ``exclude_texts``: those are in the prompt's history already). ``pack.recalled`` lists them
with their score parts (the manifest).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any, cast

from bestie_tui.retrieval import cues, meaning, signals
from bestie_tui.retrieval.governance import active_condition, check_mode, scope_condition
from bestie_tui.retrieval.scoring import (
    ScoreParts,
    ScoringConfig,
    describe_weights,
    named_periods,
    score,
    settings_snapshot,
)
from bestie_tui.store.binding import tenant_sql, uses_store
from bestie_tui.store.db import group_concat, one_stamp_per_call
from bestie_tui.store.instructions import INSTRUCTION_KIND
from bestie_tui.store.markers import (
    CORE_TITLE,
    HEADER,
    INSTRUCTIONS_TITLE,
    RECALL_TITLE,
    WORKING_TITLE,
    memory_line,
)
from bestie_tui.store.models import Memory
from bestie_tui.store.records import MemoryRecord, iso
from bestie_tui.store.support import select_records
from bestie_tui.text.clock import owner_day
from bestie_tui.text.tokens import count_tokens

if TYPE_CHECKING:  # pragma: no cover
    from bestie_tui.store.memory_store import MemoryStore

DEFAULT_TOKEN_BUDGET = 600
#: Characters of one recalled turn the segment quotes, at most (longer turns are cut with "…").
RECALL_EXCERPT_CHARS = 240
#: Relevant records left out for scope/state that the manifest lists (the best by relevance).
MANIFEST_LIMIT = 20
#: Candidates left out for want of evidence of the request's topic that the manifest lists.
EVIDENCE_LISTED = 5


@dataclass(frozen=True)
class PackItem:
    """One included record: the record, its score parts, its line in the block and that line's tokens."""

    record: MemoryRecord
    score: ScoreParts
    line: str
    tokens: int
    #: why a working record entered: its evidence of the request's topic ("2 words in common", "close
    #: in meaning (cosine 0.88)", "beside #12 in its session"); empty for core and instructions
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = {"id": self.record.id, "text": self.record.text, "kind": self.record.kind,
               "layer": self.record.layer, "pinned": self.record.pinned, "tokens": self.tokens,
               "score": self.score.to_dict()}
        if self.why:
            out["why"] = self.why
        return out


@dataclass(frozen=True)
class LeftOut:
    """One record the pack did not take. ``reason``: budget, low relevance, scope or state;
    ``detail`` says more (e.g. "needs 40 tokens, 12 left", "stale", "channel telegram:9")."""

    id: int
    text: str
    reason: str
    detail: str
    relevance: float
    score: ScoreParts | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "reason": self.reason, "detail": self.detail,
                "relevance": round(self.relevance, 4), "score": self.score.to_dict() if self.score else None}


@dataclass(frozen=True)
class RecalledTurn:
    """One excerpt of the recall segment: the message, its line in the block, that line's tokens,
    the recall score and its parts (``retrieval.recall``)."""

    message_id: int
    session: str | None
    line: str
    tokens: int
    score: float
    parts: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"message_id": self.message_id, "session": self.session, "line": self.line, "tokens": self.tokens,
                "score": round(self.score, 4), "parts": {k: round(v, 4) for k, v in self.parts.items()}}


@dataclass
class ContextPack:
    """The memory block for one request and the manifest that explains it.

    Attributes:
        core / working: included records in block order.
        left_out: records not included, with the reason (budget, low relevance, scope, state).
        low_relevance_count: every eligible working record under the relevance floor (only the best
            few are listed in ``left_out``).
        tokens: estimate of ``text`` in ``token_mode`` (``tokens.count_tokens``).
        paused: memory is paused, so the block is empty.
        named_dates: the periods the query names (``scoring.named_periods``), ``[start, end)`` ISO
            pairs; when any, the ``when`` part of each score counts (see ``scoring``).
    """

    query: str
    user: str | None
    channel: str | None
    project: str | None
    governance: str
    token_budget: int
    token_mode: str
    core_cap: int
    paused: bool = False
    core: list[PackItem] = field(default_factory=list)
    working: list[PackItem] = field(default_factory=list)
    #: the standing instructions (``store.instructions``) not already in ``core``: "How to answer:"
    instructions: list[PackItem] = field(default_factory=list)
    #: tokens the instructions' section may take (``memory.instructionsTokenCap``)
    instructions_cap: int = 0
    left_out: list[LeftOut] = field(default_factory=list)
    low_relevance_count: int = 0
    tokens: int = 0
    weights: dict[str, Any] = field(default_factory=dict)
    built_at: datetime | None = None
    named_dates: list[tuple[str, str]] = field(default_factory=list)
    recalled: list[RecalledTurn] = field(default_factory=list)
    #: Recalled turns the segment's token share had no room for.
    recall_left_out: int = 0

    @property
    def items(self) -> list[PackItem]:
        """Every included record in block order: core, the standing instructions, working."""
        return self.core + self.instructions + self.working

    @property
    def unlisted_low_relevance(self) -> int:
        """Records under the relevance floor that ``left_out`` does not list (it shows the nearest few)."""
        listed = sum(1 for x in self.left_out if x.reason == "low relevance")
        return max(0, self.low_relevance_count - listed)

    def render(self) -> str:
        """The memory block exactly as it goes into the prompt; ``""`` when nothing is included."""
        if not self.items and not self.recalled:
            return ""
        lines = [HEADER]
        if self.core:
            lines += [CORE_TITLE] + [i.line for i in self.core]
        if self.instructions:
            lines += [INSTRUCTIONS_TITLE] + [i.line for i in self.instructions]
        if self.working:
            lines += [WORKING_TITLE] + [i.line for i in self.working]
        if self.recalled:
            lines += [RECALL_TITLE] + [r.line for r in self.recalled]
        return "\n".join(lines)

    @property
    def text(self) -> str:
        return self.render()

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query, "user": self.user, "channel": self.channel, "project": self.project,
            "governance": self.governance, "paused": self.paused, "token_budget": self.token_budget,
            "token_mode": self.token_mode, "core_cap": self.core_cap, "tokens": self.tokens,
            "core": [i.to_dict() for i in self.core], "working": [i.to_dict() for i in self.working],
            "instructions": [i.to_dict() for i in self.instructions], "instructions_cap": self.instructions_cap,
            "left_out": [x.to_dict() for x in self.left_out], "low_relevance_count": self.low_relevance_count,
            "weights": self.weights, "built_at": iso(self.built_at), "text": self.render(),
            "named_dates": [list(p) for p in self.named_dates],
            "recalled": [r.to_dict() for r in self.recalled], "recall_left_out": self.recall_left_out,
        }


@one_stamp_per_call  # PostgreSQL: one change-mark round trip a request, not four
@uses_store
def build_context(store: MemoryStore, query: str, user: str | None, channel: str | None = None,
                  project: str | None = None, token_budget: int = DEFAULT_TOKEN_BUDGET, *,
                  governance: str | None = None, token_mode: str | None = None,
                  record_access: bool = True, history: bool = False, session: str | None = None,
                  exclude_texts: Iterable[str] = ()) -> ContextPack:
    """Assemble the memory block for one request.

    Args:
        store: the open ``MemoryStore``.
        query: the request text the working records are scored against.
        user / channel / project: the request's binding (see ``governance``).
        token_budget: tokens for the whole block (core included), estimated with ``token_mode``
            (setting ``context.tokenMode``, default ``chars4``).
        governance: override ``memory.governance`` (``governed``/``full``) for this call.
        record_access: bump ``last_accessed_at``/``access_count`` of the included records (what a
            real prompt does); previews (CLI ``memory context``, the Context view) pass False.
        history: add the recall segment (module docstring) unless the ``recall.segment`` setting is
            off; ``session`` is the request's current session, ``exclude_texts`` the texts of the
            turns the prompt already carries.

    Returns:
        A ``ContextPack``; empty (``paused=True``) while memory is paused.

    Raises:
        InvalidValueError: a negative budget, an unknown governance or token mode, a bad score setting.
        MissingExtraError: token mode ``tiktoken_cl100k`` without the ``tokens`` extra.
    """
    import numpy as np

    from bestie_tui.errors import InvalidValueError
    from bestie_tui.retrieval.index import get_index

    if token_budget < 0:
        raise InvalidValueError("token budget must be zero or more")
    settings = settings_snapshot(store)  # one query for every setting this request reads
    # settings_snapshot starts from settings.DEFAULTS, so every key read here has a value
    mode = check_mode(governance or cast(str, settings.get("memory.governance")))
    token_mode = token_mode or settings.get("context.tokenMode") or "chars4"
    count_tokens("", token_mode)  # validates the mode before any work
    config = ScoringConfig.from_store(store, settings)
    now = store.clock()
    periods = named_periods(query)
    pack = ContextPack(query=query, user=user, channel=channel, project=project, governance=mode,
                       token_budget=token_budget, token_mode=token_mode,
                       core_cap=int(cast(int, settings.get("memory.coreTokenCap"))),
                       instructions_cap=int(cast(int, settings.get("memory.instructionsTokenCap"))),
                       weights=describe_weights(config), built_at=now,
                       named_dates=[(iso(a), iso(b)) for a, b in periods])
    if settings.get("memory.paused"):
        pack.paused = True
        return pack

    meaning.prefetch(store, query, settings)  # the model embeds the request while the words are looked up
    compiled = _compiled_allowed(now, mode, user, channel, project)
    index = get_index(store)
    core_ids, w_ids, instruction_ids = _eligible_ids(store, compiled, now, (mode, user, channel, project),
                                                     index.generation())
    eligible = np.concatenate([core_ids, w_ids])
    rel, top = index.lookup(query, eligible, k=MANIFEST_LIMIT * 5)
    fused = meaning.fuse(store, query, eligible, rel, settings, index.generation())  # None: words alone
    if fused is not None:
        rel = fused.relevance
    core_rel, w_rel = rel[: len(core_ids)], rel[len(core_ids):]
    # standing instructions are no topic memories: no relevance floor, their own section and cap
    standing = np.isin(w_ids, instruction_ids)
    above = (w_rel >= config.min_relevance) & ~standing
    pack.low_relevance_count = int((~above & ~standing).sum())
    # the best candidates by relevance, ties by the older id: a partial sort, since a user may own
    # every row and only ``candidates`` of them are ever scored in full
    picked = _best(np.flatnonzero(above), w_rel, w_ids, config.candidates)
    relevant = w_ids[picked].tolist()
    near = _best(np.flatnonzero(~above & ~standing & (w_rel > 0)), w_rel, w_ids, 5)
    near = list(zip(w_rel[near].tolist(), w_ids[near].tolist()))
    rel_of = dict(zip(core_ids.tolist(), core_rel.tolist()))
    rel_of.update(zip(relevant, w_rel[picked].tolist()))
    rel_of.update(zip(w_ids[standing].tolist(), w_rel[standing].tolist()))
    core_ids = core_ids.tolist()
    instructions = instruction_ids.tolist()
    lift, lifted = _neighbour_lift(store, config, compiled, core_ids + relevant, eligible, rel, len(core_ids))
    lifted = [i for i in lifted if i not in set(instructions)]
    relevant += lifted
    rel_of.update((i, lift.own[i]) for i in lifted)
    pack.low_relevance_count -= sum(1 for i in lifted if rel_of[i] < config.min_relevance)
    # one read for the candidates and for what the conflict pass and the manifest look at beside
    # them: the closest misses and the eligible records of the index's top
    outside = _not_eligible(top, eligible)
    beside = [i for _, i in near] + [i for i, _ in top if i not in outside]
    fetched = _fetch(list(dict.fromkeys(core_ids + instructions + relevant + beside)), compiled)
    records = {i: fetched[i] for i in dict.fromkeys(core_ids + instructions + relevant) if i in fetched}
    person = signals.named_person(query, records.values()) if config.person > 0 else None
    time_question = config.time_question > 0 and cues.is_time_question(query)
    scored = {i: score(m, rel_of[i], user=user, channel=channel, project=project, now=now, config=config,
                       periods=periods, neighbour=lift.best.get(i, 0.0),
                       person=person is not None and person in signals.people_of(m),
                       time=time_question and signals.says_when(m))
              for i, m in records.items()}
    if fused is not None:
        scored = fused.annotate(scored)
    unfounded, steady, why_of = _without_evidence(index, query, records, relevant, lift.neighbours, config.rare_share)
    if fused is not None:
        unfounded = _by_meaning(fused, query, records, [i for i in relevant if i not in steady], unfounded, why_of)
    for i in sorted(unfounded, key=lambda i: (-scored[i].relevance, i))[:EVIDENCE_LISTED]:
        pack.left_out.append(LeftOut(i, records[i].text, "low relevance",
                                     f"{scored[i].relevance:.2f}, but {unfounded[i].why}", scored[i].relevance,
                                     scored[i]))
    pack.low_relevance_count += len(unfounded)
    header = count_tokens(HEADER + "\n", token_mode)
    left = token_budget - header
    core_left: int | None = min(pack.core_cap, left)
    core_order = sorted((i for i in core_ids if i in records),
                        key=lambda i: (not records[i].pinned, -scored[i].total, i))
    for i in core_order:
        core_left, left = _place(pack, pack.core, records[i], scored[i], core_left, left, token_mode, "core cap")
    left = _place_instructions(pack, index, records, scored, instructions, left, token_mode, config.duplicate_cosine)
    order = sorted((i for i in relevant if i in records and i not in unfounded), key=lambda i: (-scored[i].total, i))
    twin_of = _near_duplicates(index, [it.record.id for it in pack.core + pack.instructions], order,
                               config.duplicate_cosine)
    for i in order:
        twin = twin_of(i, [it.record.id for it in pack.working])
        if twin is not None:
            pack.left_out.append(LeftOut(i, records[i].text, "duplicate",
                                         f"near-duplicate of #{twin[0]} (cosine {twin[1]:.2f})",
                                         scored[i].relevance, scored[i]))
            continue
        _, left = _place(pack, pack.working, records[i], scored[i], None, left, token_mode, "token budget")
    pack.working = [replace(it, why=why_of.get(it.record.id, "")) for it in pack.working]
    _settle_conflicts(pack, compiled, records, fetched, rel_of, beside, token_budget, token_mode,
                      lambda m, r: score(m, r, user=user, channel=channel, project=project, now=now,
                                         config=config, periods=periods))
    _left_out_low_relevance(pack, near, fetched, config.min_relevance, now, user, channel, project, config, periods)
    _left_out_scope_state(pack, top, user, outside, config.min_relevance, now)
    if history and settings.get("recall.segment", True):
        keep = int(cast(int, settings.get("context.keepRecent", 10)))
        from bestie_tui.store.message_forget import forgotten_statements

        # a forgotten memory's words are never quoted back, whoever calls (not only ``recall``)
        exclude_texts = [*(exclude_texts or ()), *forgotten_statements(store, user)]
        _recall_segment(store, pack, token_budget, token_mode, mode, session, keep, exclude_texts)
    pack.tokens = count_tokens(pack.render(), token_mode)
    if record_access and pack.items:
        Memory.update(last_accessed_at=now, access_count=Memory.access_count + 1).where(
            Memory.id.in_([i.record.id for i in pack.items])).execute()
    return pack


@dataclass(frozen=True)
class _Lift:
    """Session neighbours' part of a request (``retrieval.signals``): ``best`` — memory id → the better
    relevance of its two neighbours; ``own`` — the relevance of every memory of those sessions."""

    best: dict[int, float] = field(default_factory=dict)
    own: dict[int, float] = field(default_factory=dict)
    #: memory id → (previous, next) in its session (``signals.session_neighbours``)
    neighbours: dict[int, tuple[int | None, int | None]] = field(default_factory=dict)


def _without_evidence(index: Any, query: str, records: dict[int, MemoryRecord], working: list[int],
                      neighbours: dict[int, tuple[int | None, int | None]],
                      rare_share: float) -> tuple[dict[int, Any], set[int], dict[int, str]]:
    """The working candidates without evidence of the request's topic (``retrieval.evidence``), with
    why: ``id → Evidence``; the ids whose evidence meaning cannot overrule (``whole``: the request's
    one word, a name, three words; or a session neighbour's); and why each of the others may enter
    (``id → text``). A memory just beside one with evidence in its session shares its topic."""
    from bestie_tui.retrieval.evidence import judge_all

    judged = judge_all(query, ((i, records[i].text, records[i].about) for i in working if i in records),
                       index.document_frequencies, rare_share)
    own = {i for i, e in judged.items() if e.enough}
    why_of = {i: e.why + (": " + ", ".join(e.plain) if e.plain else "") for i, e in judged.items() if e.enough}
    steady = {i for i, e in judged.items() if e.whole}
    for i in judged:
        beside = [n for n in neighbours.get(i, (None, None)) if n is not None and n in own]
        if i not in own and beside:
            why_of[i] = f"beside #{beside[0]} in its session"
            steady.add(i)
    return {i: e for i, e in judged.items() if i not in why_of}, steady, why_of


def _by_meaning(fused: Any, query: str, records: dict[int, MemoryRecord], working: list[int],
               unfounded: dict[int, Any], why_of: dict[int, str]) -> dict[int, Any]:
    """``unfounded`` (``id → Evidence``) after meaning has its say (``meaning.Gate``): a memory close
    enough in meaning is on the request's topic without a shared word, and so is one of the nearest
    in meaning that names the same broad topic of life (``Gate.on_topic``); one that shares words
    but is far in meaning is not (a word met by chance: "how *far* is the Moon" / "so *far*").
    ``why_of`` (``id → why it may enter``) gains the reasons meaning gives."""
    from bestie_tui.retrieval.evidence import Evidence
    from bestie_tui.retrieval.meaning import NEAREST

    out = dict(unfounded)
    nearest = fused.nearest(NEAREST)
    cosines = fused.cosines_of([i for i in working if i in records])
    for i in working:
        cosine = cosines.get(i)
        if cosine is None:
            continue
        related, supported = fused.gate.judge(cosine, query, records[i].text)
        if related or i in out and i in nearest and fused.gate.on_topic(cosine, query, records[i].text):
            if i in out:
                out.pop(i)
                why_of[i] = (f"close in meaning (cosine {cosine:.2f})" if related
                             else f"nearest in meaning, on the same topic (cosine {cosine:.2f})")
        elif not supported and i not in out:
            out[i] = Evidence((), False, f"far in meaning (cosine {cosine:.2f}) for the words it shares")
            why_of.pop(i, None)
    return out


def _neighbour_lift(store: MemoryStore, config: ScoringConfig, compiled: tuple[str, list[Any]], found: list[int],
                    eligible: Any, rel: Any, n_core: int) -> tuple[_Lift, list[int]]:
    """The neighbour signal of ``found`` (core ids, then the working candidates) and the working
    memories just beside them that it lifts to ``score.minRelevance`` (new candidates, best first).
    ``eligible`` / ``rel``: every eligible id (core first) and its relevance. Nothing without
    ``score.neighbour`` or a memory with a session."""
    import numpy as np

    if config.neighbour <= 0 or not found:
        return _Lift(), []
    neighbours = signals.session_neighbours(store.db, found, compiled)
    if not neighbours:
        return _Lift(), []
    ids = np.asarray(sorted(neighbours), dtype=np.int64)
    order = np.argsort(eligible, kind="stable")
    at = np.minimum(np.searchsorted(eligible[order], ids), len(eligible) - 1)
    positions = order[at]
    inside = eligible[positions] == ids
    own = dict(zip(ids[inside].tolist(), rel[positions[inside]].tolist()))
    best = {i: signals.best_neighbour(i, neighbours, own) for i in own}
    taken = set(found)
    working = set(eligible[n_core:][np.isin(eligible[n_core:], ids)].tolist())
    beside = {n for i in found for n in neighbours.get(i, (None, None)) if n is not None}  # direct neighbours only
    lifted = [i for i in beside if i not in taken and i in working and i in own
              and own[i] + config.neighbour * best[i] >= max(config.min_relevance, 1e-12)]
    lifted.sort(key=lambda i: (-(own[i] + config.neighbour * best[i]), i))
    return _Lift(best, own, neighbours), lifted


def _recall_segment(store: MemoryStore, pack: ContextPack, token_budget: int, token_mode: str, mode: str,
                    session: str | None, keep: int, exclude_texts: Iterable[str]) -> None:
    """Fill ``pack.recalled`` within ``recall.tokenShare`` of the budget and what the memories left."""
    from bestie_tui.retrieval.recall import Knobs, recall, recall_settings
    from bestie_tui.store.markers import injected_marker
    from bestie_tui.store.models import Message

    values = recall_settings(store)
    wanted = int(values["recall.excerpts"])
    if wanted <= 0 or not pack.query.strip():
        return
    used = count_tokens(pack.render() + "\n", token_mode) if pack.items else count_tokens(HEADER + "\n", token_mode)
    room = min(int(float(values["recall.tokenShare"]) * token_budget), token_budget - used)
    room -= count_tokens(RECALL_TITLE + "\n", token_mode)
    if room <= 0:
        return
    exclude: set[int] = set()
    if session is not None:
        recent = (Message.select(Message.id).where((Message.session == session) & (
            (Message.user == pack.user) if pack.user is not None else Message.user.is_null()))
            .order_by(Message.created_at.desc(), Message.id.desc()).limit(keep))
        exclude = {r.id for r in recent}
    texts = {" ".join(t.split()) for t in exclude_texts if t}
    hits = recall(store, pack.query, pack.user, channel=pack.channel, limit=wanted + len(exclude) + len(texts),
                  context=False, exclude=exclude, governance=mode, knobs=Knobs.of(store))
    for hit in hits:
        if " ".join(hit.message.text.split()) in texts or injected_marker(hit.message.text):
            continue  # already in the prompt's history; or it would read as a block of machine text
        if len(pack.recalled) >= wanted:
            break
        line = _recall_line(hit, store.owner_zone)
        cost = count_tokens(line + "\n", token_mode)
        if cost > room:
            pack.recall_left_out += 1
            continue
        room -= cost
        pack.recalled.append(RecalledTurn(hit.message.id, hit.message.session, line, count_tokens(line, token_mode),
                                          hit.score, hit.parts))


def _recall_line(hit: Any, zone: tzinfo) -> str:
    """``- [2026-05-08] text`` with whitespace collapsed and the text cut to ``RECALL_EXCERPT_CHARS``;
    the day is the owner's (``zone``), not the database's UTC."""
    text = " ".join(hit.message.text.split())
    if len(text) > RECALL_EXCERPT_CHARS:
        text = text[:RECALL_EXCERPT_CHARS - 1].rstrip() + "…"
    return f"- [{owner_day(hit.message.created_at, zone)}] {text}"


def _settle_conflicts(pack: ContextPack, compiled: tuple[str, list[Any]], records: dict[int, MemoryRecord],
                      fetched: dict[int, MemoryRecord], rel_of: dict[int, float], beside: list[int],
                      token_budget: int, token_mode: str, score_of) -> None:
    """Corrected records out (their correction in), both sides of a contradiction in with a marker
    (``retrieval.conflicts``). Partners: the records this request's search found (the candidates
    ``records`` and the eligible ``beside`` them, all read into ``fetched``), and the eligible
    records with the words of the included records' attributes."""
    from bestie_tui.retrieval.conflicts import find_conflicts, partners_by_attribute, settle

    included = [it.record for it in pack.items]
    if not included:
        return
    inside = {m.id for m in included}
    more = sorted(set(beside) - set(records) - inside)
    partners = [m for i, m in records.items() if i not in inside] + [fetched[i] for i in more if i in fetched]
    partners += partners_by_attribute(included, compiled, {m.id for m in included} | {m.id for m in partners})
    conflicts = find_conflicts(included, partners)
    if not conflicts.corrected and not conflicts.contradicted:
        return
    relevance = {m.id: rel_of.get(m.id, 0.0) for m in partners + included}

    def used() -> int:
        return count_tokens(pack.render() + "\n", token_mode) if pack.items else count_tokens(HEADER + "\n", token_mode)

    def place(section: list[PackItem], index: int, m: MemoryRecord) -> bool:
        line = _line(m)
        title = 0 if section else count_tokens(_title(section, pack) + "\n", token_mode)
        if used() + title + count_tokens(line + "\n", token_mode) > token_budget:
            return False
        parts = score_of(m, relevance.get(m.id, 0.0))
        section.insert(index, PackItem(m, parts, line, count_tokens(line, token_mode)))
        pack.left_out[:] = [x for x in pack.left_out if x.id != m.id]
        return True

    def leave_out(m: MemoryRecord, detail: str) -> None:
        pack.left_out[:] = [x for x in pack.left_out if x.id != m.id]  # one reason per record: this one
        pack.left_out.append(LeftOut(m.id, m.text, "state", detail, relevance.get(m.id, 0.0)))

    settle(pack, conflicts, place=place, leave_out=leave_out, count=lambda line: count_tokens(line, token_mode))


def _eligible_ids(store: MemoryStore, allowed: tuple[str, list[Any]], now: datetime | None = None,
                  request: tuple | None = None, generation: Any = None) -> tuple[Any, Any, Any]:
    """(core ids, working ids, standing instruction ids) that governance and the exclusions (the
    compiled condition ``allowed``) allow, as read-only int64 numpy arrays; the instruction ids
    (``store.instructions``: kind ``communication_preference``, about the owner) are of both layers
    and are in the first two arrays too.

    One comma-joined string per layer (and instruction or not): a user may own every row, and reading
    100,000 one-int tuples through the cursor costs more than the rest of a request. Given ``now``,
    ``request`` (the binding the condition was compiled from) and ``generation``
    (``MemoryIndex.generation``: it moves with every change to a memory, and a record access is
    none), the answer is kept until the generation moves or the first of its records expires: time
    alone changes nothing else."""
    import numpy as np

    where, params = allowed
    mine, own = tenant_sql('t1."user"')  # a user-bound store reaches only its user's rows
    key = None if request is None or now is None or generation is None else (*request, *own)
    kept = _ELIGIBLE.setdefault(store, {})
    hit = kept.get(key) if key is not None else None
    if hit is not None and hit[0] == generation and hit[1] <= now < hit[2]:
        return hit[3], hit[4], hit[5]
    standing = (f"CASE WHEN t1.kind = '{INSTRUCTION_KIND}' AND (t1.about IS NULL OR t1.about = '') "
                "THEN 1 ELSE 0 END")
    sql = (f"SELECT t1.layer, {standing}, {group_concat(store.db, 't1.id')}, MIN(t1.expires_at) FROM memory AS t1 "
           f"WHERE ({where}) AND {mine} AND t1.layer IN ('core', 'working') GROUP BY t1.layer, {standing}")
    found: dict[tuple[str, bool], Any] = {}
    until = datetime.max
    for layer, instruction, joined, first_expiry in store.db.execute_sql(sql, [*params, *own]).fetchall():
        if joined:
            found[layer, bool(instruction)] = np.fromstring(joined, dtype=np.int64, sep=",")
        if first_expiry is not None:
            until = min(until, first_expiry if isinstance(first_expiry, datetime)
                        else datetime.fromisoformat(str(first_expiry)).replace(tzinfo=None))
    empty = np.zeros(0, dtype=np.int64)

    def joined_ids(*keys: tuple[str, bool]) -> Any:
        parts = [found[k] for k in keys if k in found]
        ids = empty if not parts else parts[0] if len(parts) == 1 else np.sort(np.concatenate(parts))
        ids.setflags(write=False)  # shared by later requests
        return ids

    core = joined_ids(("core", False), ("core", True))
    working = joined_ids(("working", False), ("working", True))
    instructions = joined_ids(("core", True), ("working", True))
    if key is not None and now is not None:
        if len(kept) >= 16:
            kept.pop(next(iter(kept)))
        kept[key] = (generation, now, until, core, working, instructions)
    return core, working, instructions


#: store → {request binding → (index generation, read at, first expiry, core, working and instruction ids)}
_ELIGIBLE: weakref.WeakKeyDictionary[Any, dict[Any, tuple]] = weakref.WeakKeyDictionary()


def _near_duplicates(index, core: list[int], order: list[int], threshold: float):
    """A function ``(id, included working ids) → (twin id, cosine) | None``: the included record
    (core, or working so far) most similar to ``id`` when that cosine reaches ``threshold``."""
    if threshold > 1 or not order:
        return lambda i, included: None
    ids = core + order
    sims = index.similarity(ids)
    at = {i: n for n, i in enumerate(ids)}

    def twin(i: int, included: list[int]):
        others = [at[j] for j in core + included]
        if not others:
            return None
        row = sims[at[i], others]
        best = int(row.argmax())
        return (ids[others[best]], float(row[best])) if row[best] >= threshold else None
    return twin


def _best(positions, relevance, ids, k: int):
    """The ``k`` of ``positions`` with the highest ``relevance`` (ties: lower id), best first."""
    import numpy as np

    if len(positions) > k:
        positions = positions[np.argpartition(-relevance[positions], k - 1)[:k]]
    return positions[np.lexsort((ids[positions], -relevance[positions]))]


def _compiled(condition) -> tuple[str, list[Any]]:
    """``(sql, params)`` of a Peewee condition on ``memory`` (aliased ``t1``): compiled once per
    request, since building the SQL of the governance condition cost more than running it."""
    return Memory._meta.database.get_sql_context().sql(condition).query()


#: Stand-ins compiled in place of a request's values (``_compiled_allowed``): no real value is NUL-framed.
_NOW, _USER, _CHANNEL, _PROJECT = datetime(1, 1, 1), "\0user\0", "\0channel\0", "\0project\0"
_ALLOWED_SQL: dict[tuple, tuple[str, list[Any]]] = {}


def _compiled_allowed(now: datetime, mode: str, user: str | None, channel: str | None,
                      project: str | None) -> tuple[str, list[Any]]:
    """``_compiled(active_condition(now) & scope_condition(mode, user, channel, project))``, with
    the SQL compiled once per shape (mode, and which of user/channel/project are given) and the
    request's values put in place of stand-ins: Peewee's compiler costs about 1 ms a call."""
    shape = (mode, user is None, channel is None, project is None)
    template = _ALLOWED_SQL.get(shape)
    if template is None:
        template = _ALLOWED_SQL[shape] = _compiled(
            active_condition(_NOW) & scope_condition(mode, None if user is None else _USER,
                                                     None if channel is None else _CHANNEL,
                                                     None if project is None else _PROJECT))
    sql, params = template
    actual: dict[Any, Any] = {_NOW: now, _USER: user, _CHANNEL: channel, _PROJECT: project}
    return sql, [actual.get(p, p) if isinstance(p, (str, datetime)) else p for p in params]


def _fetch(ids: list[int], allowed: tuple[str, list[Any]]) -> dict[int, MemoryRecord]:
    """The records among ``ids`` that the compiled condition ``allowed`` admits, by id."""
    where, params = allowed
    db = Memory._meta.database
    out: dict[int, MemoryRecord] = {}
    for start in range(0, len(ids), 500):  # SQLite's bound-parameter limit
        chunk = ids[start:start + 500]
        for m in select_records(db, f"({where}) AND t1.id IN ({','.join('?' * len(chunk))})", [*params, *chunk]):
            out[m.id] = m
    return out


def _line(m: MemoryRecord) -> str:
    return memory_line(m.text, m.about)


def _place(pack: ContextPack, target: list[PackItem], m: MemoryRecord, parts: ScoreParts,
           cap_left: int | None, left: int, mode: str, what: str) -> tuple[int | None, int]:
    """Add ``m`` to ``target`` if its line fits ``left`` (and ``cap_left`` for core); else record why."""
    line = _line(m)
    cost = count_tokens(line + "\n", mode) + (count_tokens(_title(target, pack) + "\n", mode) if not target else 0)
    limit = left if cap_left is None else min(left, cap_left)
    if cost > limit:
        by = what if cap_left is not None and cap_left < left else "token budget"  # what ran out first
        pack.left_out.append(LeftOut(m.id, m.text, "budget", f"{by}: needs {cost} tokens, {max(limit, 0)} left",
                                     parts.relevance, parts))
        return cap_left, left
    target.append(PackItem(m, parts, line, count_tokens(line, mode)))
    return (None if cap_left is None else cap_left - cost), left - cost


def _place_instructions(pack: ContextPack, index: Any, records: dict[int, MemoryRecord], scored: dict[int, ScoreParts],
                        ids: list[int], left: int, mode: str, duplicate_cosine: float) -> int:
    """Fill "How to answer:" with the standing instructions ``ids`` that core does not show (a core
    one the core cap had no room for gets its chance here), pinned first, then the newest, within
    ``memory.instructionsTokenCap`` and the ``left`` tokens of the budget; no relevance floor.
    A near-duplicate of one already shown (``score.duplicateCosine``, or a strong duplicate by the
    fact reader) is left out (``duplicate``). Returns the tokens left."""
    in_core = [it.record.id for it in pack.core]
    shown = set(in_core)
    order = sorted((i for i in ids if i in records and i not in shown),
                   key=lambda i: (not records[i].pinned, -records[i].updated_at.timestamp(), -i))
    twin_of = _near_duplicates(index, in_core, order, duplicate_cosine)
    cap_left: int | None = min(pack.instructions_cap, left)
    for i in order:
        pack.left_out[:] = [x for x in pack.left_out if x.id != i]  # one reason per record: this section's
        twin = twin_of(i, [it.record.id for it in pack.instructions])
        said = None if twin is not None else next((it.record for it in pack.core + pack.instructions
                                                   if it.record.kind == INSTRUCTION_KIND
                                                   and _says_the_same(it.record, records[i])), None)
        if twin is not None or said is not None:
            detail = (f"near-duplicate of #{twin[0]} (cosine {twin[1]:.2f})" if twin is not None
                      else f"says what #{said.id} says" if said is not None else "")
            pack.left_out.append(LeftOut(i, records[i].text, "duplicate", detail, scored[i].relevance, scored[i]))
            continue
        cap_left, left = _place(pack, pack.instructions, records[i], scored[i], cap_left, left, mode,
                                "instructions cap")
    return left


def _says_the_same(shown: MemoryRecord, other: MemoryRecord) -> bool:
    """Whether the fact reader finds ``other`` a strong duplicate of ``shown`` (``facts.relate``): the
    same instruction reworded ("Wants short answers in English" / "… , in English please")."""
    from bestie_tui.facts.relations import relate

    older, newer = (shown, other) if shown.created_at <= other.created_at else (other, shown)
    found = relate(older.text, newer.text)
    return found.kind == "duplicate" and found.strong


def _title(target: list[PackItem], pack: ContextPack) -> str:
    return CORE_TITLE if target is pack.core else INSTRUCTIONS_TITLE if target is pack.instructions else WORKING_TITLE


def _left_out_low_relevance(pack, near, fetched, floor, now, user, channel, project, config, periods) -> None:
    """List the best few under the relevance floor (the closest misses, ``[(relevance, id)]``, read
    into ``fetched``); a record the conflict pass put in the pack is not a miss."""
    inside = {it.record.id for it in pack.items} | {x.id for x in pack.left_out}
    relevance = {j: r for r, j in near}
    for i in sorted(i for _, i in near if i not in inside and i in fetched):
        m = fetched[i]
        parts = score(m, relevance[i], user=user, channel=channel, project=project,
                      now=now, config=config, periods=periods)
        pack.left_out.append(LeftOut(i, m.text, "low relevance",
                                     f"{parts.relevance:.2f}, under the floor {floor:.2f}", parts.relevance, parts))


def _not_eligible(top: list[tuple[int, float]], eligible) -> set[int]:
    """Ids of ``top`` that are not in the ``eligible`` array: a sorted lookup, so the memory it
    takes follows the number of ids, never the largest id."""
    import numpy as np

    ids = np.asarray([i for i, _ in top], dtype=np.int64)
    if not len(ids):
        return set()
    return set(ids[~np.isin(ids, np.asarray(eligible, dtype=np.int64))].tolist())


def _left_out_scope_state(pack, top, user, outside: set[int], floor: float, now) -> None:
    """Relevant records of this user (or unbound) that SQL kept out: say whether scope or state.
    ``top``: the index's best ``(id, relevance)`` over every approved memory; ``outside``: those
    SQL did not allow."""
    top = [(i, r) for i, r in top if r >= floor and i in outside]
    if not top:
        return
    relevance = dict(top)
    ids = list(relevance)
    # user_condition in plain SQL: this user's records and unbound ones, never another user's
    mine = "t1.user IS NULL" if user is None else "(t1.user = ? OR t1.user IS NULL)"
    rows = select_records(Memory._meta.database, f"t1.id IN ({','.join('?' * len(ids))}) AND {mine}",
                          [*ids, *([] if user is None else [user])])
    found = []
    for m in rows:
        reason, detail = _why_not(m, pack, now)
        found.append(LeftOut(m.id, m.text, reason, detail, relevance[m.id]))
    found.sort(key=lambda x: -x.relevance)
    pack.left_out.extend(found[:MANIFEST_LIMIT])


def _why_not(m: MemoryRecord, pack: ContextPack, now: datetime) -> tuple[str, str]:
    if m.stale:
        return "state", "stale"
    if m.superseded_by is not None:
        return "state", f"superseded by #{m.superseded_by}"
    if m.expires_at is not None and m.expires_at <= now:
        return "state", f"expired {iso(m.expires_at)}"
    if m.layer == "archive":
        return "state", "archive layer"
    wrong = [f"{name} {value}" for name, value, wanted in (("channel", m.channel, pack.channel),
                                                           ("project", m.project, pack.project))
             if value is not None and value != wanted]
    return "scope", ", ".join(wrong) + " (governed)" if wrong else "not in scope"
