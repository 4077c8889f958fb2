"""The prompt pack: everything a worker receives for one request, with a manifest.

Order (the second seed's ContextPack): pins (user info, project context, the memory block from
``assembly.build_context``, build state, resource digest), excerpts of on-disk artifacts (plan and
state files, the source of truth between turns — each read under its own character cap, with a visible
marker where it was cut), the compressed history, then the task as the last ``user`` message.

The manifest lists every segment applied with its size in characters and tokens, what was cut and
which artifact files were left out (``missing``; ``skipped`` with the reason: missing, not a
regular file (a FIFO, socket, device or directory is never opened), unreadable, binary). With a
token ``budget`` the pack is fitted (``pack_fit``), giving things up in this order:
verbatim history turns (they move into the summary), the summary body line by line down to its
header (oldest ``- `` lines first, then ``Dates:``, then ``Names:``), then artifact text down to the
cut marker. The task, the pins, the memory block, the history's system prompt and the newest user turn
(with what follows it) are never cut. When the memory block's budget was not given, it is
``min(600, budget // 4)`` and is lowered if the rest of the pack at its smallest would not fit
beside it. So whether a budget works is monotone: a pack that fits one budget fits every larger one;
when even the smallest pack does not fit, ``BudgetError`` gives its size part by part.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bestie_tui.conversation.artifacts import (
    DEFAULT_ARTIFACT_CHARS,
    MAX_ARTIFACT_CHARS,
    READ_LIMIT_CHARS,
    ArtifactSpec,
    Excerpt,
    check_confined,
    project_root,
    read_artifact,
    segment_name,
    total_text,
)
from bestie_tui.conversation.compress import (
    REPLY_PRIMING_TOKENS,
    CompressionResult,
    Summarizer,
    compress,
    message_tokens,
    normalize_messages,
)
from bestie_tui.conversation.config import context_settings, log_prompt_resolution
from bestie_tui.conversation.injected import clean_history
from bestie_tui.conversation.pack_fit import (
    artifact_message,
    fit_pack,
    floor_parts,
    smallest_excerpt,
    smallest_history,
)
from bestie_tui.conversation.pins import (
    ARTIFACT,
    MEMORY_BLOCK,
    PIN_KINDS,
    PIN_PREFIXES,
    is_summary,
    make_pin,
    pin_kind,
    pin_prefix,
    split_pins,
)
from bestie_tui.conversation.summarize import ExtractiveSummarizer, message_text
from bestie_tui.errors import InvalidValueError
from bestie_tui.store.binding import uses_store
from bestie_tui.store.message_forget import forgotten_statements
from bestie_tui.text.tokens import count_tokens

__all__ = ["DEFAULT_ARTIFACT_CHARS", "MAX_ARTIFACT_CHARS", "READ_LIMIT_CHARS", "ArtifactSpec", "BudgetError",
           "Excerpt", "PackManifest", "PromptPack", "Segment", "build_pack", "memory_block", "read_artifact"]

#: Memory block budget when the pack has none of its own: ``build_context``'s default.
DEFAULT_MEMORY_TOKENS = 600


class BudgetError(InvalidValueError):
    """Even the smallest form of the pack (see ``build_pack``) exceeds the budget."""


@dataclass
class Segment:
    """One manifest row: ``kind`` is system, pin, memory, artifact, summary, history or task; sizes of the
    messages it contributed (characters of their text; tokens with chat framing)."""

    name: str
    kind: str
    chars: int
    tokens: int
    messages: int = 1
    cut: bool = False
    note: str = ""


@dataclass
class PackManifest:
    """``missing``: artifact paths not found; ``skipped``: every artifact left out → the reason
    (``missing``, ``not a regular file (…)``, ``unreadable: …``, ``binary file (…)``); ``dropped``:
    what the stripping step and the budget gave up, one line per step, in order; ``warnings``:
    what the chat API will refuse in the verbatim history (``CompressionResult.warnings``)."""

    token_mode: str
    budget: int | None
    segments: list[Segment] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    cut: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    total_chars: int = 0
    total_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PromptPack:
    """The messages to send (OpenAI shape, in order) and the manifest that explains them."""

    messages: list[dict[str, Any]]
    manifest: PackManifest
    compression: CompressionResult | None = None
    memory: Any = None  # assembly.ContextPack of the memory block, when a store was given

    def to_dict(self) -> dict[str, Any]:
        return {"manifest": self.manifest.to_dict(), "messages": self.messages}


def _segment(name: str, kind: str, msgs: list[dict[str, Any]], mode: str, cut: bool = False,
             note: str = "") -> Segment:
    return Segment(name, kind, sum(len(message_text(m)) for m in msgs),
                   sum(message_tokens(m, mode) for m in msgs), len(msgs), cut, note)


def _normalize_pins(pins: dict[str, str] | Iterable[tuple[str, str]] | None) -> list[tuple[str, str]]:
    items = list(pins.items()) if isinstance(pins, dict) else list(pins or [])
    out = []
    for key, body in items:
        prefix = pin_kind(key)
        if prefix is None or prefix in (MEMORY_BLOCK, ARTIFACT):
            usable = ", ".join(k for k, p in PIN_KINDS.items() if p not in (MEMORY_BLOCK, ARTIFACT))
            raise InvalidValueError(f"unknown pin {key!r}; use one of {usable} "
                                    "(the memory block and artifacts are added by the pack itself)")
        out.append((prefix, body))
    order = {p: i for i, p in enumerate(PIN_PREFIXES)}
    return sorted(out, key=lambda kv: order[kv[0]])


@uses_store
def memory_block(store, query: str, user: str | None, channel: str | None, project: str | None,
                 token_budget: int, token_mode: str, record_access: bool = True, exclude_texts: Iterable[str] = ()):
    """``assembly.build_context`` (imported lazily) → ``(ContextPack, rendered block text)``, with the
    recall segment of past conversations (unless ``recall.segment`` is off), never quoting a turn
    whose text is in ``exclude_texts`` (the pack's own history) nor one that states a memory the
    owner forgot (``message_forget.forgotten_statements``)."""
    from bestie_tui.retrieval.assembly import build_context

    exclude = [*exclude_texts, *forgotten_statements(store, user)]
    pack = build_context(store, query, user, channel, project, token_budget, token_mode=token_mode,
                         record_access=record_access, history=True, exclude_texts=exclude)
    return pack, pack.render()


@uses_store
def build_pack(task: str | None, history: Iterable[dict[str, Any]] = (), *,
               pins: dict[str, str] | Iterable[tuple[str, str]] | None = None,
               artifacts: Iterable[ArtifactSpec | str] = (), store=None, query: str | None = None,
               user: str | None = None, channel: str | None = None, project: str | None = None,
               token_mode: str | None = None, budget: int | None = None, threshold: int | None = None,
               keep_recent: int | None = None, summarizer: Summarizer | None = None,
               memory_tokens: int | None = None, record_access: bool = True,
               memory_fn: Callable | None = None, settings: dict[str, Any] | None = None,
               artifact_root: str | Path | None = None) -> PromptPack:
    """Assemble the prompt pack (see the module docstring).

    Args:
        task: the request; ``None`` takes the history's last message, which must be a ``user`` one.
        history: OpenAI-shaped messages, oldest first (compressed with ``threshold``/``keep_recent``).
        pins: ``{"user_info": text, …}`` or ``[(prefix, text)]``; keys are ``pins.PIN_KINDS`` names
            or prefixes (not ``memory_block``/``artifact``: the pack adds those).
        artifacts: ``ArtifactSpec`` or ``"PATH[:MAXCHARS]"`` strings, each inside ``artifact_root``.
        artifact_root: the directory artifacts must resolve into (symlinks followed); default: the
            project root (``artifacts.project_root``: the nearest ``.git``/``pyproject.toml``… above
            the working directory).
        store: when given, the memory block is ``build_context(store, query or task, user, …)``.
        token_mode / budget: tokens of the whole pack (message framing included); ``None`` = no limit.
        threshold / keep_recent / token_mode: ``None`` takes ``context.compressThreshold``,
            ``context.keepRecent`` and ``context.tokenMode`` from ``settings``.
        settings: the ``context.*`` settings (``config.context_settings``); default: those of ``store``
            (or the defaults) with the environment's overrides. ``context.logPromptResolution`` logs
            the manifest's metadata (``config.log_prompt_resolution``).
        memory_tokens: the memory block's own budget (default: min(600, budget // 4)).
        record_access: passed to ``build_context`` (False for previews).
        memory_fn: replaces ``memory_block`` (same signature), e.g. for another memory source.

    Raises:
        InvalidValueError: no task, a bad pin, artifact spec or message, an artifact outside
            ``artifact_root``; BudgetError (a subclass)
            when the parts never cut exceed ``budget``.
        MissingExtraError: ``tiktoken_cl100k`` without ``bestie-tui[tokens]``.
    """
    settings = settings if settings is not None else context_settings(store)
    token_mode = token_mode or settings["context.tokenMode"]
    threshold = settings["context.compressThreshold"] if threshold is None else threshold
    keep_recent = settings["context.keepRecent"] if keep_recent is None else keep_recent
    summarizer = summarizer or ExtractiveSummarizer(settings["context.summaryChars"])
    count_tokens("", token_mode)  # validate the mode first
    if budget is not None and budget < 1:
        raise InvalidValueError("token budget must be at least 1")
    history = list(history)
    normalize_messages(history)  # refused here, before the task is taken from it
    if task is None:
        if not history or history[-1].get("role") != "user":
            raise InvalidValueError("no task: pass one, or end the history with the user's request")
        task = message_text(history.pop())
    if not str(task).strip():
        raise InvalidValueError("the task is empty")
    specs = [s if isinstance(s, ArtifactSpec) else ArtifactSpec.parse(str(s)) for s in artifacts]
    if specs:
        root = project_root() if artifact_root is None else artifact_root
        for spec in specs:
            check_confined(spec.path, root)
    manifest = PackManifest(token_mode, budget)
    pin_items = _normalize_pins(pins)
    pin_msgs = [make_pin(prefix, body) for prefix, body in pin_items]
    task_msg = {"role": "user", "content": str(task)}
    task_seg = _segment("task", "task", [task_msg], token_mode)

    excerpts, skipped = [], []
    for spec in specs:
        ex = read_artifact(spec.path, spec.max_chars, prefix=spec.prefix)
        if ex.error:
            manifest.skipped[spec.path] = ex.error
            if ex.error == "missing" and not spec.optional:
                manifest.missing.append(spec.path)
            note = ("optional, not there" if spec.optional else ex.error) if ex.error == "missing" else f"skipped: {ex.error}"
            skipped.append((spec, Segment(segment_name(spec), "artifact", 0, 0, 0, note=note)))
        else:
            excerpts.append(ex)

    def memory(tokens: int, record: bool) -> tuple[Any, dict[str, str] | None]:
        if store is None:
            return None, None
        if memory_fn is not None:
            pack, block = memory_fn(store, query or task, user, channel, project, tokens, token_mode, record)
        else:
            pack, block = memory_block(store, query or task, user, channel, project, tokens, token_mode, record,
                                       exclude_texts=[str(m.get("content", "")) for m in history if isinstance(m, dict)])
        return pack, (make_pin(MEMORY_BLOCK, block) if block else None)

    def tokens_of(msgs: Iterable[dict[str, Any]]) -> int:
        return sum(message_tokens(m, token_mode) for m in msgs)

    history = list(history)  # read twice: the recall segment skips what the history already holds
    mem_budget = memory_tokens if memory_tokens is not None else (
        min(DEFAULT_MEMORY_TOKENS, budget // 4) if budget else DEFAULT_MEMORY_TOKENS)
    # With a budget the block may be rebuilt smaller, so access is recorded once, at the end.
    memory_pack, memory_msg = memory(mem_budget, record_access and budget is None)
    # The one stripping step: history copies of what this pack supplies (its pins, the memory block,
    # artifacts) and any block injected into a turn never reach the prompt again.
    cleaned = clean_history(history, supplied={p for p, _ in pin_items} | {MEMORY_BLOCK, ARTIFACT})
    history = cleaned.messages
    if cleaned.kinds:
        manifest.dropped.append("history: " + cleaned.describe())
    comp = compress(history, threshold, keep_recent, summarizer, token_mode=token_mode)
    trimmed_summary, mem_note = False, ""
    if budget is not None:
        fixed_tokens = tokens_of(pin_msgs + [task_msg]) + REPLY_PRIMING_TOKENS

        def total(c: CompressionResult, exs: list[Excerpt], mem: dict[str, str] | None) -> int:
            return (fixed_tokens + tokens_of(c.messages) + tokens_of(artifact_message(e) for e in exs)
                    + (message_tokens(mem, token_mode) if mem else 0))

        if total(comp, excerpts, memory_msg) > budget:
            forced: dict[int, CompressionResult] = {}  # keep → forced compression (the summarizer is slow)

            def compress_at(keep: int) -> CompressionResult:
                if keep not in forced:
                    forced[keep] = compress(history, keep, keep, summarizer, token_mode=token_mode, force=True)
                return forced[keep]

            smallest = smallest_history(compress_at(0))
            rest_floor = total(smallest, [smallest_excerpt(e, token_mode) for e in excerpts], None)
            if memory_msg is not None and memory_tokens is None and \
                    rest_floor + message_tokens(memory_msg, token_mode) > budget:
                # The block's own budget is lowered until the rest fits (bisection): a larger pack
                # budget never gets a pack that fails where a smaller one worked.
                lo, hi, best = 0, mem_budget - 1, None
                while lo <= hi:
                    mid = (lo + hi) // 2
                    trial = memory(mid, False)
                    if rest_floor + (message_tokens(trial[1], token_mode) if trial[1] else 0) <= budget:
                        best, lo = (trial, mid), mid + 1
                    else:
                        hi = mid - 1
                (memory_pack, memory_msg), lowered = best or (memory(0, False), 0)
                mem_note = f", lowered from {mem_budget} to fit the pack budget"
                mem_budget = lowered
            fixed_named = [("task", [task_msg]), ("pins", pin_msgs),
                           ("memory block", [memory_msg] if memory_msg else [])]
            floor = rest_floor + (message_tokens(memory_msg, token_mode) if memory_msg else 0)
            if floor > budget:
                raise _budget_error(budget, fixed_named, smallest, excerpts, token_mode)
            fitted = fit_pack(comp, excerpts, compress_at, keep_recent, len(history),
                              lambda c, exs: total(c, exs, memory_msg) <= budget, token_mode)
            comp, excerpts, trimmed_summary = fitted.comp, fitted.excerpts, fitted.trimmed_summary
            manifest.dropped += fitted.dropped
            if total(comp, excerpts, memory_msg) > budget:  # the steps end at the floor: not expected
                raise _budget_error(budget, fixed_named, smallest, excerpts, token_mode)
        if record_access and memory_msg is not None:
            memory(mem_budget, True)

    # Pins, the memory block and artifact excerpts sit together in PIN_PREFIXES order (the Engineer
    # pack's spec, PRODUCT_PLAN, MASTER, BUILD_STATE, CROSS_STACK, digest); equal prefixes keep their order.
    rank = {p: i for i, p in enumerate(PIN_PREFIXES)}
    front: list[tuple[int, Segment, list[dict[str, Any]]]] = [
        (rank[pin_prefix(m) or ARTIFACT], _segment("pin:" + m["content"].split("]", 1)[0].strip("["), "pin", [m],
                                                   token_mode), [m]) for m in pin_msgs]
    if memory_msg is not None:
        n = len(getattr(memory_pack, "items", []))
        note = f"{n} memor{'y' if n == 1 else 'ies'}, block budget {mem_budget} tokens{mem_note}"
        front.append((rank[MEMORY_BLOCK], _segment("memory", "memory", [memory_msg], token_mode, note=note), [memory_msg]))
    elif store is not None:
        note = "memory paused" if getattr(memory_pack, "paused", False) else "no memory matched"
        front.append((rank[MEMORY_BLOCK], Segment("memory", "memory", 0, 0, 0, note=note + mem_note), []))
    for ex, spec in zip(excerpts, [s for s in specs if s.path not in manifest.skipped]):
        msg = artifact_message(ex)
        name = segment_name(spec)
        if ex.cut:
            note = f"cut to {ex.shown:,} of {total_text(ex)} characters"
            if ex.shown < spec.max_chars:
                note += f" (cap {spec.max_chars:,}, lowered to fit the budget)"
            manifest.cut.append(name)
        else:
            note = f"{len(ex.text):,} characters, whole file"
        front.append((rank[spec.prefix], _segment(name, "artifact", [msg], token_mode, ex.cut, note), [msg]))
    front += [(rank[spec.prefix], seg, []) for spec, seg in skipped]
    pinned, rest = split_pins(comp.messages)
    for m in pinned:  # pins that came inside the history (and that this pack does not supply) join the others
        prefix = pin_prefix(m) or ARTIFACT
        front.append((rank[prefix], _segment("history:pin:" + prefix.strip("[]"), "pin", [m], token_mode), [m]))
    front.sort(key=lambda item: item[0])
    messages: list[dict[str, Any]] = []
    for _rank, seg, msgs in front:
        manifest.segments.append(seg)
        messages += msgs
    prompt = []
    while rest and rest[0].get("role") == "system" and not is_summary(rest[0]):
        prompt.append(rest.pop(0))
    if prompt:  # the history's system prompt opens the pack
        manifest.segments.insert(0, _segment("system prompt", "system", prompt, token_mode))
        messages[0:0] = prompt
    if comp.summary:
        summary_msgs = [m for m in rest if m.get("content") == comp.summary]
        n = len(comp.evicted)
        note = f"{n} turn{'s' if n != 1 else ''} summarised" + (
            "; summary lines dropped to fit the budget" if trimmed_summary else "")
        manifest.segments.append(_segment("history:summary", "summary", summary_msgs, token_mode,
                                          trimmed_summary, note))
        if trimmed_summary:
            manifest.cut.append("history:summary")
        rest = [m for m in rest if m.get("content") != comp.summary]
        messages += summary_msgs
    if rest:
        manifest.segments.append(_segment("history:recent", "history", rest, token_mode,
                                          note=f"{len(rest)} turn{'s' if len(rest) != 1 else ''} verbatim"))
        messages += rest
    if comp.compressed:
        n = len(comp.evicted)
        manifest.cut.append(f"history: {n} turn{'s' if n != 1 else ''} summarised")
    manifest.warnings = list(comp.warnings)
    manifest.segments.append(task_seg)
    messages.append(task_msg)
    manifest.total_chars = sum(s.chars for s in manifest.segments)
    manifest.total_tokens = sum(s.tokens for s in manifest.segments) + REPLY_PRIMING_TOKENS
    log_prompt_resolution(manifest, settings)
    return PromptPack(messages, manifest, comp, memory_pack)


def _budget_error(budget: int, fixed, smallest: CompressionResult, excerpts: list[Excerpt],
                  mode: str) -> BudgetError:
    parts = floor_parts(fixed, smallest, excerpts, mode, REPLY_PRIMING_TOKENS)
    need = sum(n for _, n in parts)
    detail = ", ".join(f"{name} {n}" for name, n in parts)
    return BudgetError(f"a budget of {budget} tokens cannot hold the smallest pack, which needs at least {need} "
                       f"tokens in {mode} ({detail}); raise --budget")
