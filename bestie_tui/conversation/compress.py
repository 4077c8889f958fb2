"""Short-term conversation context: history compression (the second seed's CompressedHistory).

``compress_history(messages, threshold, keep_recent)``: while the history has at most ``threshold``
messages nothing changes; above it, the older turns become one ``[CONTEXT_SUMMARY …]`` system message
and the last ``keep_recent`` turns stay verbatim, in order. Guarantees:

* the newest ``user`` message is always verbatim (the cut moves back to it);
* an assistant message with ``tool_calls`` and the ``tool`` results that answer it are never split
  (the cut moves back to the assistant message);
* an orphan ``tool`` result (its call is not in the history) that would open the kept turns moves
  into the summary (the cut moves forward past it); one deeper in the kept turns, and an assistant
  tool call without results, stay verbatim (never reordered, dropped or invented) and are named in
  ``CompressionResult.warnings``, since the chat API refuses them;
* a previous ``[CONTEXT_SUMMARY …]`` is merged with the newly evicted turns: never two summaries;
* pinned messages (``pins.PIN_PREFIXES``) are neither counted nor summarised; they come first, after
  the system prompt (the plain ``system`` messages at the very start, also kept and not counted).

Messages are OpenAI chat dicts (``role``, ``content``, ``tool_calls``, ``tool_call_id``; ``text`` is
accepted as an alias of ``content``; ``content`` may be OpenAI's list of content parts, whose ``text``
parts are read). Optional ``name``/``user`` (speaker) and ``created_at``/``at`` (ISO text or datetime)
make the summary say who and when. Verbatim messages are returned as the caller gave them (the same
dicts: a ``text`` message stays ``text``). The summary's character cap (``ExtractiveSummarizer``'s
``max_chars``, the setting ``context.summaryChars``) covers its body; the ``[CONTEXT_SUMMARY …]``
header and the closing marker come on top.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from bestie_tui.conversation.config import SUMMARY_SESSION, context_settings, persist_summary  # noqa: F401 (API)
from bestie_tui.conversation.injected import clean_history, strip_injected
from bestie_tui.conversation.messages_io import MAX_NESTING, ROLES, data_problem, normalize_messages, parse_messages  # noqa: F401 (API)
from bestie_tui.conversation.pins import CONTEXT_SUMMARY, is_pinned, is_summary
from bestie_tui.conversation.summarize import ExtractiveSummarizer, message_day, message_text
from bestie_tui.errors import InvalidValueError
from bestie_tui.store.settings import CONTEXT_DEFAULTS  # noqa: F401 (API)
from bestie_tui.text.tokens import TOKEN_MODES, count_tokens

#: ``(previous summary body or None, evicted messages) -> new summary body``. An LLM call fits here.
Summarizer = Callable[[str | None, list[dict[str, Any]]], str]

#: Chat framing per message and per reply, in tokens ("How to count tokens with tiktoken", OpenAI
#: cookbook: 3 tokens wrap every message of gpt-3.5/4-class chat models, 3 more prime the reply).
MESSAGE_OVERHEAD_TOKENS = 3
REPLY_PRIMING_TOKENS = 3


#: The token estimate of every compression is logged here at DEBUG (the note's ``compress_history`` log).
LOGGER = logging.getLogger("bestie_tui.conversation.compress")

_HEADER = re.compile(r"^\[CONTEXT_SUMMARY(?P<attrs>[^\]\n]*)\]\n?")
_ATTR = re.compile(r"(\w+)=(\S+)")
_MARKER = re.compile(r"[ \t]*\[/?CONTEXT_SUMMARY(?:\]|[ \t][^\]\n]*\])[ \t]*")


@dataclass
class CompressionResult:
    """What one compression did; the CLI prints it and the Messages view previews it.

    Indices refer to the input list. ``tokens_before``/``tokens_after`` count message contents plus
    chat framing (``MESSAGE_OVERHEAD_TOKENS`` each) under ``token_mode``.
    """

    messages: list[dict[str, Any]]
    compressed: bool
    evicted: list[int] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)
    pinned: list[int] = field(default_factory=list)
    summary: str | None = None
    merged_previous: bool = False
    cut_moved: list[str] = field(default_factory=list)
    tokens_before: int = 0
    tokens_after: int = 0
    token_mode: str = "chars4"
    note: str = ""  # why nothing changed, when ``compressed`` is False
    warnings: list[str] = field(default_factory=list)  # ``pairing_warnings`` of the verbatim turns
    stripped: list[int] = field(default_factory=list)  # messages whose text lost injected blocks
    dropped: list[int] = field(default_factory=list)  # messages left out: injected only, or an older pin copy
    injected: str = ""  # ``injected.Cleaned.describe()``: what the stripping step removed

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def message_tokens(message: dict[str, Any], mode: str = "chars4") -> int:
    """Tokens of one message: its text (``summarize.message_text``) plus ``MESSAGE_OVERHEAD_TOKENS``."""
    return count_tokens(message_text(message), mode) + MESSAGE_OVERHEAD_TOKENS


def history_tokens(messages: Iterable[dict[str, Any]], mode: str = "chars4") -> int:
    """Tokens of a message list: each message with its framing, plus ``REPLY_PRIMING_TOKENS``."""
    return sum(message_tokens(m, mode) for m in messages) + REPLY_PRIMING_TOKENS


def summary_parts(content: str) -> tuple[dict[str, str], str]:
    """``(header attributes, body)`` of a ``[CONTEXT_SUMMARY …]`` message's content."""
    text = content.strip()
    m = _HEADER.match(text)
    attrs = dict(_ATTR.findall(m.group("attrs"))) if m else {}
    body = text[m.end():] if m else text
    end = "[/CONTEXT_SUMMARY]"
    if body.rstrip().endswith(end):
        body = body.rstrip()[: -len(end)]
    return attrs, body.strip()


def _tool_parents(turns: list[dict[str, Any]]) -> list[int | None]:
    """Per turn, the index of the assistant message whose tool call it answers (``tool`` turns only;
    ``None`` otherwise). A result names its call by ``tool_call_id``; one without an id answers the
    nearest earlier assistant message with tool calls. A result whose id matches no earlier call, or
    without an id and no call before it, is an orphan: ``None``."""
    callers: dict[str, int] = {}
    for i, m in enumerate(turns):
        for call in m.get("tool_calls") or []:
            if call.get("id"):
                callers.setdefault(str(call["id"]), i)
    out: list[int | None] = []
    last_caller = None
    for i, m in enumerate(turns):
        parent = None
        if m.get("role") == "tool":
            call_id = m.get("tool_call_id")
            if call_id in (None, ""):
                parent = last_caller
            elif callers.get(str(call_id), i) < i:
                parent = callers[str(call_id)]
        out.append(parent)
        if m.get("tool_calls"):
            last_caller = i
    return out


def _cut(turns: list[dict[str, Any]], keep_recent: int) -> tuple[int, list[str]]:
    """Index of the first verbatim turn, moved back so no tool exchange is split and the newest
    user message is kept, then forward past orphan tool results (``_tool_parents``) that would open
    the kept turns: no call before them can ever answer to them, and the chat API refuses a ``tool``
    message that does not follow its call. Returns ``(cut, reasons the cut moved)``."""
    cut = max(0, len(turns) - keep_recent)
    reasons: list[str] = []
    users = [i for i, m in enumerate(turns) if m.get("role") == "user"]
    if users and users[-1] < cut:
        cut = users[-1]
        reasons.append("kept the newest user message verbatim")
    parents = _tool_parents(turns)
    moved = True
    while moved:  # the cut only moves back here, so this ends
        moved = False
        for i in range(cut, len(turns)):
            p = parents[i]
            if p is not None and p < cut:
                cut = p
                moved = True
                if "kept a tool call with its results" not in reasons:
                    reasons.append("kept a tool call with its results")
                break
    # Only tool turns are skipped: the newest user message and every answered result stay kept.
    while cut < len(turns) and turns[cut].get("role") == "tool" and parents[cut] is None:
        cut += 1
        if "moved a tool result without its call into the summary" not in reasons:
            reasons.append("moved a tool result without its call into the summary")
    return cut, reasons


def pairing_warnings(messages: list[dict[str, Any]], positions: list[int]) -> list[str]:
    """What the chat API will refuse in verbatim turns ``messages`` (``positions``: their 0-based
    input indices, printed 1-based): a tool result whose call is not among them (an orphan left
    inside the kept turns: never reordered or dropped) and an assistant tool call with no result
    (e.g. the calls still in flight at the end)."""
    parents = _tool_parents(messages)
    out = []
    for i, m in enumerate(messages):
        if m.get("role") == "tool" and parents[i] is None:
            out.append(f"message {positions[i] + 1} is a tool result whose call is not in the history "
                       f"(tool_call_id {m.get('tool_call_id')}): the chat API refuses it")
        calls = m.get("tool_calls") or []
        if not calls:
            continue
        results = [messages[j] for j, p in enumerate(parents) if p == i]
        answered = {str(r.get("tool_call_id")) for r in results}
        missing = [str(c.get("id")) if c.get("id") else "no id" for c in calls
                   if (str(c["id"]) not in answered if c.get("id") else not results)]
        if missing:
            out.append(f"message {positions[i] + 1} has a tool call without results ({', '.join(missing)}): "
                       "the chat API refuses it until the results follow it")
    return out


def compress(messages: Iterable[dict[str, Any]], threshold: int, keep_recent: int,
             summarizer: Summarizer | None = None, *, token_mode: str = "chars4",
             force: bool = False) -> CompressionResult:
    """Compress a chat history (see the module docstring) and say what happened.

    Args:
        messages: OpenAI-shaped dicts, oldest first.
        threshold: most history messages (pins and the system prompt not counted) left as they are; ≥ 0.
        keep_recent: turns kept verbatim after the summary; ≥ 0.
        summarizer: replaces the offline ``ExtractiveSummarizer()``.
        token_mode: ``chars4`` or ``tiktoken_cl100k`` for the before/after counts.
        force: compress even at or under ``threshold`` (used to fit a token budget).

    Returns:
        ``CompressionResult``; ``.messages`` is the system prompt, pins, the summary, the kept turns.

    Raises:
        InvalidValueError: a bad message, a negative threshold/keep_recent, ``keep_recent`` over
            ``threshold`` or an unknown token mode.
        MissingExtraError: ``tiktoken_cl100k`` without ``bestie-tui[tokens]``.
    """
    for name, value in (("threshold", threshold), ("keep_recent", keep_recent)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InvalidValueError(f"{name} must be a whole number ≥ 0, not {value!r}")
    if keep_recent > threshold:
        # The compressed history (summary + kept turns) would itself be over the threshold.
        raise InvalidValueError(f"keep_recent ({keep_recent}) must not be more than threshold ({threshold})")
    if token_mode not in TOKEN_MODES:
        raise InvalidValueError(f"unknown token mode {token_mode!r}; use one of {', '.join(TOKEN_MODES)}")
    originals = list(messages)
    before = history_tokens(normalize_messages(originals), token_mode)
    # The one stripping step: what the system injected is never counted, summarised or kept twice.
    cleaned = clean_history(originals)
    source, pos = cleaned.messages, cleaned.positions
    msgs = normalize_messages(source)
    pinned = [i for i, m in enumerate(msgs) if is_pinned(m)]
    # Leading plain system messages are the system prompt: instructions, not conversation.
    head = []
    for i, m in enumerate(msgs):
        if m.get("role") != "system" or is_summary(m):
            break
        if not is_pinned(m):
            head.append(i)
    order = [i for i, m in enumerate(msgs) if not is_pinned(m) and i not in head]
    # Verbatim messages go out as the caller gave them (``text`` stays ``text``), minus injections.
    result = CompressionResult(messages=list(source), compressed=False, kept=[pos[i] for i in head + order],
                               pinned=[pos[i] for i in pinned], tokens_before=before, token_mode=token_mode,
                               stripped=list(cleaned.stripped), dropped=list(cleaned.dropped),
                               injected=cleaned.describe())
    result.tokens_after = history_tokens(result.messages, token_mode)
    unchanged = f"; {result.injected}" if result.injected else ": unchanged"
    n = len(order)
    if n <= threshold and not force:
        turns = [i for i in order if not is_summary(msgs[i])]
        result.warnings = pairing_warnings([msgs[i] for i in turns], [pos[i] for i in turns])
        result.note = f"{_plural(n, 'message')}, at or under the threshold of {threshold}{unchanged}"
        return result
    previous = [i for i in order if is_summary(msgs[i])]
    turns_idx = [i for i in order if i not in previous]
    cut, reasons = _cut([msgs[i] for i in turns_idx], keep_recent)
    evicted, kept = turns_idx[:cut], turns_idx[cut:]
    result.warnings = pairing_warnings([msgs[i] for i in kept], [pos[i] for i in kept])
    if not evicted:
        result.cut_moved = reasons
        what = "the summary and " if previous else ""
        result.note = (f"{_plural(n, 'message')}, over the threshold of {threshold}, but nothing to summarise: "
                       f"{what}the {_plural(len(kept), 'turn')} kept verbatim{unchanged}")
        return result
    prev_body, prev_turns, prev_from, prev_to = None, 0, None, None
    if previous:
        # Several earlier summaries (hand-assembled input) are merged too: the result has one.
        bodies, attrs_all = [], []
        for i in previous:
            attrs, body = summary_parts(str(msgs[i].get("content") or ""))
            bodies.append(body)
            attrs_all.append(attrs)
        prev_body = "\n".join(bodies)
        prev_turns = sum(int(a.get("turns", 0)) for a in attrs_all if str(a.get("turns", "")).isdigit())
        prev_from = next((a["from"] for a in attrs_all if "from" in a), None)
        prev_to = max((a["to"] for a in attrs_all if "to" in a), default=None)
    evicted_msgs = [msgs[i] for i in evicted]
    summarize = summarizer or ExtractiveSummarizer()
    if isinstance(summarize, ExtractiveSummarizer):  # it numbers list turns across compressions
        raw = summarize(prev_body, evicted_msgs, first_turn=prev_turns + 1)
    else:
        raw = summarize(prev_body, evicted_msgs)
    body = _checked_body(summarize, raw, len(evicted_msgs))
    days = [d for d in (message_day(m) for m in evicted_msgs) if d]
    attrs = [f"turns={prev_turns + len(evicted)}"]
    first = prev_from or (min(days) if days else None)
    if first:
        attrs.append(f"from={first}")
    last = max(days + ([prev_to] if prev_to else []), default=None)
    if last:
        attrs.append(f"to={last}")
    content = f"{CONTEXT_SUMMARY} {' '.join(attrs)}]\n{body}\n[/CONTEXT_SUMMARY]"
    summary_msg = {"role": "system", "content": content}
    out = [source[i] for i in head + pinned] + [summary_msg] + [source[i] for i in kept]
    result.messages = out
    result.compressed = True
    result.evicted = [pos[i] for i in previous + evicted]
    result.kept = [pos[i] for i in head + kept]
    result.summary = content
    result.merged_previous = bool(previous)
    result.cut_moved = reasons
    result.tokens_after = history_tokens(out, token_mode)
    LOGGER.debug("compress_history: %d → %d messages, %d → %d tokens (%s)", len(originals), len(out),
                 result.tokens_before, result.tokens_after, token_mode)
    return result


def _checked_body(summarizer: Summarizer, body: Any, n_evicted: int) -> str:
    """The summarizer's text with any ``[CONTEXT_SUMMARY …]``/``[/CONTEXT_SUMMARY]`` marker removed
    (a nested or quoted marker would end the block early or forge a second one).

    Raises:
        InvalidValueError: not a string, or empty: the evicted turns would be lost without a trace.
    """
    name = getattr(summarizer, "__name__", None) or type(summarizer).__name__
    lost = f"the {_plural(n_evicted, 'evicted turn')} would be lost"
    if not isinstance(body, str):
        kind = "None" if body is None else type(body).__name__
        raise InvalidValueError(f"summarizer {name} returned {kind}, not the summary text; {lost}")
    lines = []
    for line in body.splitlines():
        clean = _MARKER.sub(" ", line).strip() if _MARKER.search(line) else line.rstrip()
        if clean or not _MARKER.search(line):
            lines.append(clean)
    text = strip_injected("\n".join(lines)).strip()  # a summary never quotes a memory block or a pin
    if not text:
        raise InvalidValueError(f"summarizer {name} returned an empty summary; {lost}")
    return text


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def compress_history(messages: Iterable[dict[str, Any]], threshold: int, keep_recent: int,
                     summarizer: Summarizer | None = None) -> list[dict[str, Any]]:
    """The compressed message list of ``compress(...)`` (same arguments and errors)."""
    return compress(messages, threshold, keep_recent, summarizer).messages
