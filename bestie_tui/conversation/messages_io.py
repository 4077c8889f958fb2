"""Reading chat messages from files and callers: one validator for every command and API.

``parse_messages`` reads JSON (an array or ``{"messages": [...]}``) or JSONL text; ``normalize_messages``
checks each message (known role, content as text, null with tool calls, or a list of parts; tool calls
as a list of objects) and ``data_problem`` refuses data that cannot be used safely (nesting deeper than
``MAX_NESTING``, lone surrogates, NaN/Infinity). Split from ``conversation`` so that module holds the
compression itself; everything here is re-exported there.
"""

from __future__ import annotations

import json
import re
import reprlib
from collections.abc import Iterable
from typing import Any

from bestie_tui.errors import InvalidValueError

#: Roles a chat message may have.
ROLES = ("system", "user", "assistant", "tool", "developer")
#: Deepest nesting of lists/objects accepted in a message (chat messages need about 5: message →
#: tool_calls → call → function → arguments); deeper input is refused before anything recurses on it.
MAX_NESTING = 64
_SURROGATE = re.compile("[\ud800-\udfff]")


def normalize_messages(raw: Iterable[Any]) -> list[dict[str, Any]]:
    """Validate chat messages and return copies with ``content`` set (``text`` alias resolved).

    The one validator of messages: ``compress``, ``pack.build_pack`` and ``parse_messages`` (the CLI's
    ``compress``, ``pack --history`` and ``estimate --messages``) all call it. ``content`` is text,
    ``None`` (an assistant message with tool calls) or OpenAI's list of content parts (objects, whose
    ``text``, when given, is text); ``tool_calls``, when given, is a list of objects.

    Raises:
        InvalidValueError: an item that is not an object, lacks a known ``role``, has no content or
            content of another type (object, number, boolean), bad ``tool_calls`` or a part whose
            ``text`` is not text, or that ``data_problem`` refuses (too deep, a lone surrogate);
            the message names its position (1-based).
    """
    out = []
    for pos, item in enumerate(raw, 1):
        problem = data_problem(item)  # first: the checks below may print or walk the item
        if problem:
            raise InvalidValueError(f"message {pos} {problem}")
        if not isinstance(item, dict):
            raise InvalidValueError(f"message {pos} is not an object: {reprlib.repr(item)}")
        role = item.get("role")
        if role not in ROLES:
            raise InvalidValueError(f"message {pos} has role {reprlib.repr(role)}; use one of {', '.join(ROLES)}")
        msg = dict(item)
        if "content" not in msg:
            if "text" not in msg and not msg.get("tool_calls"):
                raise InvalidValueError(f"message {pos} has neither content nor text")
            msg["content"] = msg.pop("text", None)
        content = msg["content"]
        if content is not None and not isinstance(content, str) and not (
                isinstance(content, list) and all(isinstance(part, dict) for part in content)):
            raise InvalidValueError(f"message {pos} has content of type {type(content).__name__}; "
                                    "use text or a list of content parts ({\"type\": \"text\", \"text\": …})")
        for part in content if isinstance(content, list) else ():
            if "text" in part and not isinstance(part["text"], str):
                raise InvalidValueError(f"message {pos} has a text part of type {type(part['text']).__name__}; "
                                        "a part's text must be text")
        calls = msg.get("tool_calls")
        if calls is not None and not (isinstance(calls, list) and all(isinstance(c, dict) for c in calls)):
            raise InvalidValueError(f"message {pos} has tool_calls of type {type(calls).__name__}; "
                                    "use a list of call objects ({\"id\": …, \"function\": {…}})")
        out.append(msg)
    return out


def data_problem(value: Any) -> str | None:
    """Why a message's data cannot be used safely, or ``None``: nesting deeper than ``MAX_NESTING``
    (printing or copying it would exhaust Python's recursion limit) or a string with a lone surrogate
    (``"\\ud800"`` in JSON: not Unicode text, so no terminal, database or tokenizer can take it).
    Walks the value without recursion; an object met twice is walked once."""
    stack, seen = [(value, 0)], set()
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            bad = _SURROGATE.search(item)
            if bad:
                return (f"holds a lone surrogate \\u{ord(bad.group()):04x}, which is not text "
                        "(a broken \\u escape?)")
        elif isinstance(item, (list, tuple, dict)):
            if depth >= MAX_NESTING:
                return f"is nested too deeply (more than {MAX_NESTING} levels of lists and objects)"
            if id(item) in seen:
                continue
            seen.add(id(item))
            children = [x for kv in item.items() for x in kv] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


def parse_messages(text: str, source: str) -> list[dict[str, Any]]:
    """Chat messages from JSON (an array, or ``{"messages": [...]}``) or JSONL text, as parsed and
    checked by ``normalize_messages`` (returned as given: a ``text`` message stays ``text``).

    Raises:
        InvalidValueError: empty input; neither valid JSON nor JSONL (the line is named); ``NaN`` or
            ``Infinity`` (accepted by Python, not JSON); ``"messages"`` that is not a list; nesting
            beyond Python's recursion limit or ``MAX_NESTING``; a number too long for Python to read
            (``sys.get_int_max_str_digits()``) or out of float range; a lone surrogate. ``source`` names
            the input in the message; any message ``normalize_messages`` refuses.
    """
    stripped = text.lstrip("\ufeff").strip()  # a byte order mark is not JSON
    if not stripped:
        raise InvalidValueError(f"{source} is empty: expected a JSON array of messages or JSONL")
    too_deep = f"{source} is nested too deeply (more than {MAX_NESTING} levels of lists and objects)"

    def whole_number(digits: str) -> int:
        try:
            return int(digits)
        except ValueError:  # over Python's limit on digits read from text (4,300 by default)
            raise InvalidValueError(f"{source} holds a number of {len(digits.lstrip('-')):,} digits, "
                                    "too long to read") from None

    def real_number(digits: str) -> float:
        value = float(digits)
        if value in (float("inf"), float("-inf")):
            raise InvalidValueError(f"{source} holds a number out of range: {digits[:40]}")
        return value

    def not_json(word: str) -> None:
        raise InvalidValueError(f"{source} holds {word}, which is not JSON (use null or a string)")

    def load(chunk: str) -> Any:
        try:
            return json.loads(chunk, parse_int=whole_number, parse_float=real_number, parse_constant=not_json)
        except RecursionError:
            raise InvalidValueError(too_deep) from None

    try:
        data = load(stripped)
    except json.JSONDecodeError:
        data = []
        for number, line in enumerate(stripped.splitlines(), 1):
            if not line.strip():
                continue
            try:
                data.append(load(line))
            except json.JSONDecodeError as exc:
                raise InvalidValueError(f"{source} line {number} is not JSON: {exc.msg}") from None
    if isinstance(data, dict) and "messages" in data:
        if not isinstance(data["messages"], list):
            raise InvalidValueError(f'{source}: "messages" must be a list of messages, '
                                    f'not {type(data["messages"]).__name__}')
        data = data["messages"]
    if isinstance(data, dict):
        data = [data]  # one JSONL line that happens to be the whole file
    if not isinstance(data, list):
        raise InvalidValueError(f"{source} must hold a list of messages, not {type(data).__name__}")
    normalize_messages(data)  # the same checks as every other reader of messages
    return data
