"""Policy settings: names, defaults and validation. Stored as JSON in the ``setting`` table."""

from __future__ import annotations

from typing import Any

from .errors import InvalidValueError

#: key -> (default, validator description, allowed values or a type)
DEFAULTS: dict[str, Any] = {
    "memory.writePolicy": "ask",
    "memory.deletePolicy": "ask",
    "memory.paused": False,
    "memory.governance": "governed",
    "memory.coreTokenCap": 200,
}
CHOICES: dict[str, tuple[Any, ...]] = {
    "memory.writePolicy": ("allow", "ask", "deny"),
    "memory.deletePolicy": ("allow", "ask", "deny"),
    "memory.paused": (True, False),
    "memory.governance": ("governed", "full"),
}


def validate(key: str, value: Any) -> Any:
    """Check a setting value; return it in its stored type.

    Raises:
        InvalidValueError: unknown key, or a value outside the allowed set / type.
    """
    if key not in DEFAULTS and not key.startswith(("score.", "context.", "digest.", "maintenance.")):
        raise InvalidValueError(f"unknown setting {key!r}; known: {', '.join(sorted(DEFAULTS))}")
    if key in CHOICES and (not any(value is c or (type(value) is type(c) and value == c) for c in CHOICES[key])):
        allowed = ", ".join(str(c).lower() for c in CHOICES[key])
        raise InvalidValueError(f"{key} must be one of {allowed}, not {value!r}")
    if key == "memory.coreTokenCap":
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100_000:
            raise InvalidValueError(f"{key} must be a whole number of tokens from 1 to 100000, not {value!r}")
    return value
