"""The Engineer's context pack of the second design note, and the PM's pinned machine messages.

BeGuru's note ("Memory, nén history & tầng context") gives the Engineer (Next.js) a pack built by
``build_nextjs_context_pack`` with these segments, in this order — and so does this module:

==================  ===================  ==================================================
segment             prefix               read from (under the design-system folder)
==================  ===================  ==================================================
spec                ``[FE_SPEC]``        ``spec=``, else ``fe_spec`` of ``beguru_chat_context.json``
PRODUCT_PLAN        ``[PRODUCT_PLAN]``   ``PRODUCT_PLAN.md`` (an excerpt under ``plan_chars``)
MASTER              ``[MASTER]``         ``MASTER.md`` (under ``master_chars``)
BUILD_STATE         ``[BUILD_STATE]``    ``BUILD_STATE.md`` (under ``context.buildStateMaxChars``,
                                         env ``FREETEXT_BUILD_STATE_MAX_CHARS``)
CROSS_STACK         ``[CROSS_STACK]``    ``CROSS_STACK.md``, optional (under ``context.crossStackMaxChars``,
                                         env ``FREETEXT_CROSS_STACK_MAX_CHARS``)
digest              ``[RESOURCE_DIGEST]`` ``digest=``, else ``resource_digest`` of the JSON file
task                (the last ``user`` message)
==================  ===================  ==================================================

The artifacts on disk are the source of truth between turns: the Engineer reads them through the
pack and needs no full chat (a ``history`` may still be given; it is compressed and goes before the
task). A file that is missing, not a regular file, not UTF-8 or (for the JSON) not an object is
left out and named in the manifest; nothing here raises for a file. The pack is
``pack.build_pack``'s, so budgets, the manifest and ``FREETEXT_LOG_PROMPT_RESOLUTION`` work alike.

``build_pm_pinned_machine_messages(chat_context)`` is the note's PinnedLayer for the PM: the
``[USER_INFO]``, ``[KYB]``, ``[PROJECT_CONTEXT]`` and ``[RESOURCE_DIGEST]`` pins of the same JSON file,
placed after compression.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bestie_tui.conversation.artifacts import DEFAULT_ARTIFACT_CHARS, ArtifactSpec, NotRegularFileError, open_regular
from bestie_tui.conversation.config import context_settings, log_prompt_resolution
from bestie_tui.conversation.pack import PromptPack, Segment, build_pack
from bestie_tui.conversation.pins import (
    BUILD_STATE,
    CROSS_STACK,
    FE_SPEC,
    KYB,
    MASTER,
    PIN_PREFIXES,
    PRODUCT_PLAN,
    PROJECT_CONTEXT,
    RESOURCE_DIGEST,
    USER_INFO,
    make_pin,
)

#: The folder the note keeps its artifacts in, relative to the working directory.
DESIGN_DIR = "design-system"
PLAN_FILE, MASTER_FILE, BUILD_STATE_FILE = "PRODUCT_PLAN.md", "MASTER.md", "BUILD_STATE.md"
CROSS_STACK_FILE, CHAT_CONTEXT_FILE = "CROSS_STACK.md", "beguru_chat_context.json"
#: Keys of ``beguru_chat_context.json`` → the pin they fill (any case; ``-``, ``_`` and spaces alike).
CHAT_CONTEXT_KEYS: dict[str, str] = {
    "fe_spec": FE_SPEC, "spec": FE_SPEC, "user_info": USER_INFO, "kyb": KYB,
    "project_context": PROJECT_CONTEXT, "resource_digest": RESOURCE_DIGEST, "digest": RESOURCE_DIGEST,
}
#: Longest JSON file read, in bytes.
MAX_CHAT_CONTEXT_BYTES = 1_000_000


@dataclass
class ChatContext:
    """``beguru_chat_context.json`` as read: ``values`` maps pin prefixes to their text; ``error`` says
    why nothing was read (``missing``, ``not a regular file (…)``, ``unreadable: …``, ``not UTF-8``,
    ``not JSON: …``, ``not a JSON object``)."""

    path: str
    values: dict[str, str] = field(default_factory=dict)
    error: str | None = None


def _as_text(value: Any) -> str:
    """A JSON value as pin text: a string as is, a list as ``- item`` lines, an object as
    ``key: value`` lines (nested values as compact JSON)."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "\n".join("- " + (v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)) for v in value)
    if isinstance(value, dict):
        return "\n".join(f"{k}: {v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
                         for k, v in value.items())
    return "" if value is None else json.dumps(value, ensure_ascii=False)


def chat_context_values(data: dict[str, Any]) -> dict[str, str]:
    """The pins a chat-context object fills (``CHAT_CONTEXT_KEYS``), non-empty ones only."""
    out: dict[str, str] = {}
    for key, value in data.items():
        prefix = CHAT_CONTEXT_KEYS.get(str(key).strip().lower().replace("-", "_").replace(" ", "_"))
        text = _as_text(value)
        if prefix and text and prefix not in out:
            out[prefix] = text
    return out


def read_chat_context(path: str | Path) -> ChatContext:
    """Read ``beguru_chat_context.json`` (UTF-8, an object). Never raises for the file: see ``ChatContext``."""
    out = ChatContext(str(path))
    try:
        with open_regular(Path(path).expanduser()) as fh:
            raw = fh.read(MAX_CHAT_CONTEXT_BYTES + 1)
    except FileNotFoundError:
        out.error = "missing"
        return out
    except NotRegularFileError as exc:
        out.error = str(exc)
        return out
    except OSError as exc:
        out.error = f"unreadable: {exc.strerror or exc}"
        return out
    if len(raw) > MAX_CHAT_CONTEXT_BYTES:
        out.error = f"larger than {MAX_CHAT_CONTEXT_BYTES:,} bytes"
        return out
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        out.error = "not UTF-8"
        return out
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        out.error = f"not JSON{where}"
        return out
    if not isinstance(data, dict):
        out.error = "not a JSON object"
        return out
    out.values = chat_context_values(data)
    return out


def build_pm_pinned_machine_messages(chat_context: dict[str, Any] | ChatContext | str | Path) -> list[dict[str, str]]:
    """The PM's pinned layer: ``[USER_INFO]``, ``[KYB]``, ``[PROJECT_CONTEXT]``, ``[RESOURCE_DIGEST]``
    pins (those present, in ``PIN_PREFIXES`` order) of a chat-context object, ``ChatContext`` or the
    path of ``beguru_chat_context.json``. Place them after compression (they are never summarised)."""
    if isinstance(chat_context, (str, Path)):
        chat_context = read_chat_context(chat_context)
    values = chat_context.values if isinstance(chat_context, ChatContext) else chat_context_values(chat_context)
    wanted = (USER_INFO, KYB, PROJECT_CONTEXT, RESOURCE_DIGEST)
    return [make_pin(p, values[p]) for p in PIN_PREFIXES if p in wanted and p in values]


def build_nextjs_context_pack(task: str | None, design_dir: str | Path = DESIGN_DIR, *, spec: str | None = None,
                              digest: str | None = None, history: Iterable[dict[str, Any]] = (), store=None,
                              user: str | None = None, channel: str | None = None, project: str | None = None,
                              budget: int | None = None, token_mode: str | None = None,
                              plan_chars: int = DEFAULT_ARTIFACT_CHARS, master_chars: int = DEFAULT_ARTIFACT_CHARS,
                              build_state_chars: int | None = None, cross_stack_chars: int | None = None,
                              settings: dict[str, Any] | None = None, **pack_options: Any) -> PromptPack:
    """The Engineer's pack (see the module docstring).

    Args:
        task: the request (``None``: the history's last ``user`` message).
        design_dir: the folder holding the artifact files (default ``design-system``).
        spec / digest: the FE spec and the resource digest; ``None`` reads them from the JSON file.
        history, store, user, channel, project, budget, token_mode, ``pack_options``: as ``build_pack``
            (a store adds the memory block; none by default).
        plan_chars / master_chars: caps of the PRODUCT_PLAN and MASTER excerpts, in characters.
        build_state_chars / cross_stack_chars: caps of BUILD_STATE and CROSS_STACK; ``None`` takes
            ``context.buildStateMaxChars`` / ``context.crossStackMaxChars`` (their env variables win).
        settings: the ``context.*`` settings; default ``config.context_settings(store)``.

    Raises:
        InvalidValueError: no task, a bad cap or message; ``BudgetError`` as ``build_pack``.
    """
    settings = settings if settings is not None else context_settings(store)
    folder = Path(design_dir)
    chat = read_chat_context(folder / CHAT_CONTEXT_FILE)
    spec_text = spec if spec is not None else chat.values.get(FE_SPEC)
    digest_text = digest if digest is not None else chat.values.get(RESOURCE_DIGEST)
    pins = [(p, t) for p, t in ((FE_SPEC, spec_text), (RESOURCE_DIGEST, digest_text)) if t and t.strip()]
    artifacts = [
        ArtifactSpec(str(folder / PLAN_FILE), plan_chars, PRODUCT_PLAN),
        ArtifactSpec(str(folder / MASTER_FILE), master_chars, MASTER),
        ArtifactSpec(str(folder / BUILD_STATE_FILE), build_state_chars or settings["context.buildStateMaxChars"],
                     BUILD_STATE),
        ArtifactSpec(str(folder / CROSS_STACK_FILE), cross_stack_chars or settings["context.crossStackMaxChars"],
                     CROSS_STACK, optional=True),
    ]
    quiet = {**settings, "context.logPromptResolution": False}  # logged once, below, with the whole manifest
    pack_options.setdefault("artifact_root", folder)  # the design files, symlinks resolved, stay in their folder
    pack = build_pack(task, history, pins=pins, artifacts=artifacts, store=store, user=user, channel=channel,
                      project=project, budget=budget, token_mode=token_mode, settings=quiet, **pack_options)
    manifest = pack.manifest
    needed = spec is None or digest is None
    if chat.error and needed:
        manifest.skipped[chat.path] = chat.error
        if chat.error == "missing":
            manifest.missing.append(chat.path)
    after_spec = ("PRODUCT_PLAN:", "MASTER:", "BUILD_STATE:", "CROSS_STACK:", "pin:RESOURCE_DIGEST")
    for prefix, text, given, name in ((FE_SPEC, spec_text, spec, "spec"), (RESOURCE_DIGEST, digest_text, digest, "digest")):
        seg_name = "pin:" + prefix.strip("[]")
        if text and text.strip():
            seg = next(s for s in manifest.segments if s.name == seg_name)
            seg.note = "given" if given is not None else f"from {CHAT_CONTEXT_FILE}"
            continue
        # Where the segment would have been: the spec before the design parts, the digest before the history.
        at = next((i for i, s in enumerate(manifest.segments) if s.kind in ("summary", "history", "task")
                   or (prefix == FE_SPEC and s.name.startswith(after_spec))), len(manifest.segments))
        where = f"none given, and {CHAT_CONTEXT_FILE} " + (f"is {chat.error}" if chat.error else "has none")
        manifest.segments.insert(at, Segment(seg_name, "pin", 0, 0, 0, note=f"no {name}: {where}"))
    log_prompt_resolution(manifest, settings)
    return pack


#: Our name for the same function.
build_engineer_pack = build_nextjs_context_pack
