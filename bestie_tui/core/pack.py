"""The prompt pack: everything a worker receives for one request, with a manifest.

Order (the second seed's ContextPack): pins (user info, project context, the memory block from
``assembly.build_context``, build state, resource digest), excerpts of on-disk artifacts (plan and
state files, the source of truth between turns — each read under its own character cap, with a visible
marker where it was cut), the compressed history, then the task as the last ``user`` message.

The manifest lists every segment applied with its size in characters and tokens, what was cut and
which artifact files were missing. With a token ``budget`` the pack is fitted, giving things up in this
order: verbatim history turns (they move into the summary), the oldest summary lines, then artifact
text. The task, the pins, the memory block and the newest user turn are never cut; if they alone
exceed the budget, ``BudgetError`` says by how much.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from .conversation import (
    REPLY_PRIMING_TOKENS, CompressionResult, Summarizer, compress, message_tokens,
)
from .errors import InvalidValueError
from .pins import ARTIFACT, MEMORY_BLOCK, PIN_KINDS, PIN_PREFIXES, is_summary, make_pin, split_pins
from .summarize import message_text
from .tokens import count_tokens

DEFAULT_ARTIFACT_CHARS = 4000
#: Characters read from an artifact at most (to count its length for the manifest).
READ_LIMIT_CHARS = 1_000_000
#: Memory block budget when the pack has none of its own: ``build_context``'s default.
DEFAULT_MEMORY_TOKENS = 600


class BudgetError(InvalidValueError):
    """The parts of a pack that are never cut (task, pins, memory block, newest turn) exceed the budget."""


@dataclass(frozen=True)
class ArtifactSpec:
    """An artifact file to excerpt: ``path`` and its own cap in characters (marker included)."""

    path: str
    max_chars: int = DEFAULT_ARTIFACT_CHARS

    @classmethod
    def parse(cls, value: str) -> "ArtifactSpec":
        """``PATH`` or ``PATH:MAXCHARS`` (the CLI's ``--artifact``). Raises InvalidValueError."""
        path, sep, cap = value.rpartition(":")
        if sep and cap.isdigit() and path:
            return cls(path, int(cap))
        if sep and path and not cap.isdigit() and len(path) > 1:
            raise InvalidValueError(f"--artifact {value!r}: the character cap after ':' must be a whole number")
        return cls(value)


@dataclass
class Excerpt:
    """An artifact as read: ``text`` (with the cut marker when cut), ``total_chars`` read (``None``
    when the file was too large to count), ``error`` (``missing``/``unreadable: …``) or ``None``."""

    path: str
    max_chars: int
    text: str = ""
    cut: bool = False
    total_chars: int | None = None
    error: str | None = None


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
    token_mode: str
    budget: int | None
    segments: list[Segment] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)
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


def read_artifact(path: str | Path, max_chars: int) -> Excerpt:
    """Read at most ``max_chars`` characters of a UTF-8 file (undecodable bytes replaced).

    When the file is longer, the excerpt ends with the visible marker
    ``[… cut: first N of M characters of PATH …]`` and the whole excerpt stays within ``max_chars``.
    A missing or unreadable file gives an ``Excerpt`` with ``error`` set, never an exception.

    Raises:
        InvalidValueError: ``max_chars`` under 1.
    """
    if max_chars < 1:
        raise InvalidValueError(f"artifact cap for {path} must be at least 1 character")
    p = Path(path).expanduser()
    ex = Excerpt(str(path), max_chars)
    try:
        with p.open(encoding="utf-8", errors="replace") as fh:
            # A huge file is never loaded whole: its total is then reported as "more than …".
            data = fh.read(max(max_chars, READ_LIMIT_CHARS))
            more = fh.read(1) != ""
    except FileNotFoundError:
        ex.error = "missing"
        return ex
    except OSError as exc:
        ex.error = f"unreadable: {exc.strerror or exc}"
        return ex
    ex.total_chars = None if more else len(data)
    if len(data) <= max_chars and not more:
        ex.text = data
        return ex
    total = f"{len(data):,}" if not more else f"more than {len(data):,}"
    keep = max_chars
    for _ in range(4):  # the marker's length depends on the number it shows; let it settle
        keep = max(0, max_chars - len(_marker(keep, total, path)) - 1)
    marker = _marker(keep, total, path)
    ex.text = data[:keep] + "\n" + marker if keep else marker[:max_chars]
    ex.cut = True
    return ex


def _marker(shown: int, total: str, path: str | Path) -> str:
    return f"[… cut: first {shown:,} of {total} characters of {path} …]"


def _artifact_message(ex: Excerpt) -> dict[str, str]:
    return make_pin(ARTIFACT, f"path: {ex.path}\n{ex.text}")


def _segment(name: str, kind: str, msgs: list[dict[str, Any]], mode: str, cut: bool = False,
             note: str = "") -> Segment:
    return Segment(name, kind, sum(len(message_text(m)) for m in msgs),
                   sum(message_tokens(m, mode) for m in msgs), len(msgs), cut, note)


def _normalize_pins(pins: dict[str, str] | Iterable[tuple[str, str]] | None) -> list[tuple[str, str]]:
    items = list(pins.items()) if isinstance(pins, dict) else list(pins or [])
    out = []
    for key, body in items:
        prefix = key if key in PIN_PREFIXES else PIN_KINDS.get(str(key).lower())
        if prefix is None or prefix in (MEMORY_BLOCK, ARTIFACT):
            usable = ", ".join(k for k, p in PIN_KINDS.items() if p not in (MEMORY_BLOCK, ARTIFACT))
            raise InvalidValueError(f"unknown pin {key!r}; use one of {usable} "
                                    "(the memory block and artifacts are added by the pack itself)")
        out.append((prefix, body))
    order = {p: i for i, p in enumerate(PIN_PREFIXES)}
    return sorted(out, key=lambda kv: order[kv[0]])


def memory_block(store, query: str, user: str | None, channel: str | None, project: str | None,
                 token_budget: int, token_mode: str, record_access: bool = True):
    """``assembly.build_context`` (imported lazily) → ``(ContextPack, rendered block text)``."""
    from .assembly import build_context

    pack = build_context(store, query, user, channel, project, token_budget, token_mode=token_mode,
                         record_access=record_access)
    return pack, pack.render()


def build_pack(task: str | None, history: Iterable[dict[str, Any]] = (), *,
               pins: dict[str, str] | Iterable[tuple[str, str]] | None = None,
               artifacts: Iterable[ArtifactSpec | str] = (), store=None, query: str | None = None,
               user: str | None = None, channel: str | None = None, project: str | None = None,
               token_mode: str = "chars4", budget: int | None = None, threshold: int = 40,
               keep_recent: int = 10, summarizer: Summarizer | None = None,
               memory_tokens: int | None = None, record_access: bool = True,
               memory_fn: Callable | None = None) -> PromptPack:
    """Assemble the prompt pack (see the module docstring).

    Args:
        task: the request; ``None`` takes the history's last message, which must be a ``user`` one.
        history: OpenAI-shaped messages, oldest first (compressed with ``threshold``/``keep_recent``).
        pins: ``{"user_info": text, …}`` or ``[(prefix, text)]``; keys are ``pins.PIN_KINDS`` names
            or prefixes (not ``memory_block``/``artifact``: the pack adds those).
        artifacts: ``ArtifactSpec`` or ``"PATH[:MAXCHARS]"`` strings.
        store: when given, the memory block is ``build_context(store, query or task, user, …)``.
        token_mode / budget: tokens of the whole pack (message framing included); ``None`` = no limit.
        memory_tokens: the memory block's own budget (default: min(600, budget // 4)).
        record_access: passed to ``build_context`` (False for previews).
        memory_fn: replaces ``memory_block`` (same signature), e.g. for another memory source.

    Raises:
        InvalidValueError: no task, a bad pin, artifact spec or message; BudgetError (a subclass)
            when the parts never cut exceed ``budget``.
        MissingExtraError: ``tiktoken_cl100k`` without ``bestie-tui[tokens]``.
    """
    count_tokens("", token_mode)  # validate the mode first
    if budget is not None and budget < 1:
        raise InvalidValueError("token budget must be at least 1")
    history = list(history)
    if task is None:
        if not history or history[-1].get("role") != "user":
            raise InvalidValueError("no task: pass one, or end the history with the user's request")
        task = message_text(history.pop())
    if not str(task).strip():
        raise InvalidValueError("the task is empty")
    manifest = PackManifest(token_mode, budget)
    fixed: list[tuple[Segment, list[dict[str, Any]]]] = []
    for prefix, body in _normalize_pins(pins):
        msg = make_pin(prefix, body)
        fixed.append((_segment("pin:" + prefix.strip("[]"), "pin", [msg], token_mode), [msg]))
    memory_pack, empty_memory = None, None
    if store is not None:
        mem_budget = memory_tokens if memory_tokens is not None else (
            min(DEFAULT_MEMORY_TOKENS, budget // 4) if budget else DEFAULT_MEMORY_TOKENS)
        memory_pack, block = (memory_fn or memory_block)(store, query or task, user, channel, project,
                                                         mem_budget, token_mode, record_access)
        if block:
            msg = make_pin(MEMORY_BLOCK, block)
            n = len(getattr(memory_pack, "items", []))
            note = f"{n} memor{'y' if n == 1 else 'ies'}, block budget {mem_budget} tokens"
            fixed.append((_segment("memory", "memory", [msg], token_mode, note=note), [msg]))
        else:
            note = "memory paused" if getattr(memory_pack, "paused", False) else "no memory matched"
            empty_memory = Segment("memory", "memory", 0, 0, 0, note=note)
    # The memory pin sits with the other pins, in PIN_PREFIXES order.
    order = {p: i for i, p in enumerate(PIN_PREFIXES)}
    fixed.sort(key=lambda sm: order[next(p for p in PIN_PREFIXES if sm[1][0]["content"].startswith(p))])
    task_msg = {"role": "user", "content": str(task)}
    task_seg = _segment("task", "task", [task_msg], token_mode)

    excerpts, missing = [], []
    for spec in artifacts:
        spec = spec if isinstance(spec, ArtifactSpec) else ArtifactSpec.parse(str(spec))
        ex = read_artifact(spec.path, spec.max_chars)
        if ex.error:
            manifest.missing.append(spec.path)
            missing.append(Segment("artifact:" + spec.path, "artifact", 0, 0, 0, note=ex.error))
        else:
            excerpts.append(ex)

    comp = compress(history, threshold, keep_recent, summarizer, token_mode=token_mode)
    fixed_tokens = sum(s.tokens for s, _ in fixed) + task_seg.tokens + REPLY_PRIMING_TOKENS

    def total(c: CompressionResult, exs: list[Excerpt]) -> int:
        return (fixed_tokens + sum(message_tokens(m, token_mode) for m in c.messages)
                + sum(message_tokens(_artifact_message(e), token_mode) for e in exs))

    trimmed_summary = False
    if budget is not None and total(comp, excerpts) > budget:
        comp = _fit_history(history, comp, keep_recent, summarizer, token_mode,
                            lambda c: total(c, excerpts) <= budget)
        if total(comp, excerpts) > budget and comp.summary:
            trimmed_summary = _trim_summary(comp, token_mode, budget - total(comp, excerpts))
        over = total(comp, excerpts) - budget
        if over > 0:
            excerpts = _shrink_artifacts(excerpts, over, token_mode)
        over = total(comp, excerpts) - budget
        if over > 0:
            raise BudgetError(f"a budget of {budget} tokens cannot hold the task, pins, memory block and the "
                              f"newest turn ({budget + over} tokens in {token_mode}); raise --budget")

    messages: list[dict[str, Any]] = []
    for seg, msgs in fixed:
        manifest.segments.append(seg)
        messages += msgs
    if empty_memory is not None:
        manifest.segments.append(empty_memory)
    for ex in excerpts:
        msg = _artifact_message(ex)
        total_txt = f"{ex.total_chars:,}" if ex.total_chars is not None else f"over {READ_LIMIT_CHARS:,}"
        note = (f"cut to {ex.max_chars:,} of {total_txt} characters" if ex.cut
                else f"{len(ex.text):,} characters, whole file")
        manifest.segments.append(_segment("artifact:" + ex.path, "artifact", [msg], token_mode, ex.cut, note))
        if ex.cut:
            manifest.cut.append("artifact:" + ex.path)
        messages.append(msg)
    manifest.segments += missing
    pinned, rest = split_pins(comp.messages)
    if pinned:  # pins that came inside the history join the other pins
        manifest.segments.append(_segment("history:pins", "pin", pinned, token_mode))
        messages[len(fixed):len(fixed)] = pinned
    prompt = []
    while rest and rest[0].get("role") == "system" and not is_summary(rest[0]):
        prompt.append(rest.pop(0))
    if prompt:  # the history's system prompt opens the pack
        manifest.segments.insert(0, _segment("system prompt", "system", prompt, token_mode))
        messages[0:0] = prompt
    if comp.summary:
        summary_msgs = [m for m in rest if m["content"] == comp.summary]
        note = f"{len(comp.evicted)} turns summarised" + ("; oldest summary lines dropped" if trimmed_summary else "")
        manifest.segments.append(_segment("history:summary", "summary", summary_msgs, token_mode,
                                          trimmed_summary, note))
        if trimmed_summary:
            manifest.cut.append("history:summary")
        rest = [m for m in rest if m["content"] != comp.summary]
        messages += summary_msgs
    if rest:
        manifest.segments.append(_segment("history:recent", "history", rest, token_mode,
                                          note=f"{len(rest)} turn{'s' if len(rest) != 1 else ''} verbatim"))
        messages += rest
    if comp.compressed:
        manifest.cut.append(f"history: {len(comp.evicted)} turns summarised")
    manifest.segments.append(task_seg)
    messages.append(task_msg)
    manifest.total_chars = sum(s.chars for s in manifest.segments)
    manifest.total_tokens = sum(s.tokens for s in manifest.segments) + REPLY_PRIMING_TOKENS
    return PromptPack(messages, manifest, comp, memory_pack)


def _fit_history(history, comp: CompressionResult, keep_recent: int, summarizer, mode: str,
                 fits: Callable[[CompressionResult], bool]) -> CompressionResult:
    """The largest ``keep`` ≤ ``keep_recent`` whose forced compression fits (binary search; fitting
    is monotone in ``keep`` up to the summary's cap). The newest user turn stays regardless."""
    if not history:
        return comp
    lo, hi = 0, min(keep_recent, len(history))
    best = None
    while lo <= hi:
        mid = (lo + hi) // 2
        trial = compress(history, 0, mid, summarizer, token_mode=mode, force=True)
        if fits(trial):
            best, lo = trial, mid + 1
        else:
            hi = mid - 1
    return best or compress(history, 0, 0, summarizer, token_mode=mode, force=True)


def _trim_summary(comp: CompressionResult, mode: str, deficit: int) -> bool:
    """Drop the summary's oldest ``- `` lines until ``deficit`` (negative: tokens over) is covered."""
    idx = next(i for i, m in enumerate(comp.messages) if m.get("content") == comp.summary)
    lines = comp.summary.split("\n")
    body = [i for i, line in enumerate(lines) if line.startswith("- ")]
    need = -deficit
    dropped = False
    for i in body:
        if need <= 0:
            break
        need -= count_tokens(lines[i] + "\n", mode)
        lines[i] = None
        dropped = True
    if dropped:
        comp.summary = "\n".join(line for line in lines if line is not None)
        comp.messages[idx] = {"role": "system", "content": comp.summary}
    return dropped


def _shrink_artifacts(excerpts: list[Excerpt], over_tokens: int, mode: str) -> list[Excerpt]:
    """Re-read the artifacts with smaller caps, largest first, until ``over_tokens`` is covered."""
    out = list(excerpts)
    for i in sorted(range(len(out)), key=lambda i: -len(out[i].text)):
        if over_tokens <= 0:
            break
        ex = out[i]
        before = message_tokens(_artifact_message(ex), mode)
        # ~4 characters per token (chars4's basis), plus slack for the marker. The floor is the
        # marker alone: the reader still sees that the file exists and was cut.
        total = f"{ex.total_chars:,}" if ex.total_chars is not None else f"more than {READ_LIMIT_CHARS:,}"
        new_cap = max(len(_marker(0, total, ex.path)), len(ex.text) - over_tokens * 4 - 200)
        if new_cap >= len(ex.text):
            continue
        new = read_artifact(ex.path, new_cap)
        if new.error:
            continue
        out[i] = new
        over_tokens -= before - message_tokens(_artifact_message(new), mode)
    return out
