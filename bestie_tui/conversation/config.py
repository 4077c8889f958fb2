"""The conversation settings in force, where each came from, and the two things they switch on.

``context_settings(store)`` resolves every ``context.*`` setting (``store.settings.CONTEXT_DEFAULTS``):
the default, then the value stored in the database (``bestie memory config``), then the environment
variable of the second design note that overrides it (``store.settings.ENV_OVERRIDES``:
``FREETEXT_COMPRESS_THRESHOLD``, ``FREETEXT_COMPRESS_KEEP_RECENT``, ``FREETEXT_TOKEN_ESTIMATE_MODE``,
``FREETEXT_BUILD_STATE_MAX_CHARS``, ``FREETEXT_CROSS_STACK_MAX_CHARS``,
``FREETEXT_PERSIST_COMPRESSOR_SUMMARY``, ``FREETEXT_LOG_PROMPT_RESOLUTION``).

* ``persist_summary``: the compressed summary stored as a ``system`` message when
  ``context.persistSummary`` is on.
* ``log_prompt_resolution``: with ``context.logPromptResolution`` on, one ``logging`` record (logger
  ``bestie_tui.conversation.pack``, level INFO) per pack with the manifest's metadata: the segments
  applied, the length of the spec and of the design parts, tokens, budget and what was dropped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.binding import uses_store
from bestie_tui.store.gate import redact
from bestie_tui.store.settings import CONTEXT_DEFAULTS, ENV_OVERRIDES, env_overrides
from bestie_tui.text.tokens import TOKEN_MODES

#: Session marker of summaries persisted as ``system`` messages (setting ``context.persistSummary``).
SUMMARY_SESSION = "context-summary"
#: The logger ``log_prompt_resolution`` writes to.
LOGGER = logging.getLogger("bestie_tui.conversation.pack")
#: Segments that are the design parts of an Engineer pack (read from the design-system folder).
DESIGN_SEGMENTS = ("PRODUCT_PLAN", "MASTER", "BUILD_STATE", "CROSS_STACK")


def _usable(default: Any, value: Any) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value in TOKEN_MODES


@uses_store
def setting_sources(store=None, environ: Mapping[str, str] | None = None) -> dict[str, tuple[Any, str]]:
    """``{key: (value, source)}`` for every ``context.*`` setting; ``source`` is ``default``,
    ``database`` or ``env VARIABLE``.

    Raises:
        InvalidValueError: a stored value of the wrong type, or an environment value the setting
            refuses (the message names the key or the variable).
    """
    out: dict[str, tuple[Any, str]] = {}
    for key, default in CONTEXT_DEFAULTS.items():
        value = store.get_setting(key) if store is not None else None
        source = "default" if value is None else "database"
        value = default if value is None else value
        if not _usable(default, value):
            raise InvalidValueError(f"setting {key} has an unusable value {value!r}; default is {default!r}")
        out[key] = (value, source)
    for key, (var, value) in env_overrides(environ).items():
        out[key] = (value, f"env {var}")
    return out


@uses_store
def context_settings(store=None, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The ``context.*`` settings in force: defaults ← the database's (when ``store`` is given) ←
    the environment (``ENV_OVERRIDES``). Raises InvalidValueError as ``setting_sources``."""
    return {key: value for key, (value, _) in setting_sources(store, environ).items()}


def env_names() -> dict[str, list[str]]:
    """Setting key → the environment variables that override it."""
    out: dict[str, list[str]] = {}
    for var, key in ENV_OVERRIDES.items():
        out.setdefault(key, []).append(var)
    return out


@uses_store
def persist_summary(store, result, *, user: str | None = None, channel: str | None = None,
                    force: bool = False, settings: dict[str, Any] | None = None):
    """Store ``result.summary`` (a ``compress.CompressionResult``) as a ``system`` message in session
    ``SUMMARY_SESSION`` when ``context.persistSummary`` is in force (``context_settings``, so
    ``FREETEXT_PERSIST_COMPRESSOR_SUMMARY`` counts) or ``force``. Its secrets are redacted as every
    logged message's are (``[redacted: password]``, ``store.gate.redact``). The same summary twice in
    a row is stored once. Returns the ``MessageRecord`` written, or ``None``."""
    on = force or (settings if settings is not None else context_settings(store))["context.persistSummary"]
    if not result.summary or not on:
        return None
    stored, _ = redact(result.summary)
    for m in store.messages(limit=20, role="system"):
        if m.session == SUMMARY_SESSION:
            if m.text == stored:
                return None
            break
    return store.log_message("system", result.summary, user=user, channel=channel, session=SUMMARY_SESSION)


def resolution_metadata(manifest) -> dict[str, Any]:
    """What ``log_prompt_resolution`` logs about a ``pack.PackManifest``: ``segments_applied`` (names
    of the segments that put messages in the pack, in order), ``lengths`` (characters per segment),
    ``spec_chars`` (the FE spec), ``design_chars`` (PRODUCT_PLAN, MASTER, BUILD_STATE, CROSS_STACK),
    ``history_chars``, ``task_chars``, ``total_tokens``, ``token_mode``, ``budget``, ``missing``,
    ``dropped``."""
    applied = [s for s in manifest.segments if s.messages]

    def chars(test) -> int:
        return sum(s.chars for s in applied if test(s))

    return {
        "segments_applied": [s.name for s in applied],
        "lengths": {s.name: s.chars for s in applied},
        "spec_chars": chars(lambda s: s.name.split(":", 1)[-1] == "FE_SPEC"),
        "design_chars": chars(lambda s: s.name.split(":", 1)[0] in DESIGN_SEGMENTS
                              or (s.kind == "pin" and s.name.split(":", 1)[-1] in DESIGN_SEGMENTS)),
        "history_chars": chars(lambda s: s.kind in ("summary", "history")),
        "task_chars": chars(lambda s: s.kind == "task"),
        "total_tokens": manifest.total_tokens, "token_mode": manifest.token_mode, "budget": manifest.budget,
        "missing": list(manifest.missing), "dropped": list(manifest.dropped),
    }


def log_prompt_resolution(manifest, settings: dict[str, Any]) -> dict[str, Any] | None:
    """Log ``resolution_metadata(manifest)`` at INFO on ``LOGGER`` when ``context.logPromptResolution``
    is on (``FREETEXT_LOG_PROMPT_RESOLUTION=true``); returns what was logged, or ``None``. Only sizes
    and names are logged, never the text of a memory, spec or turn."""
    if not settings.get("context.logPromptResolution"):
        return None
    meta = resolution_metadata(manifest)
    LOGGER.info("prompt resolution: %s", json.dumps(meta, ensure_ascii=False))
    return meta
