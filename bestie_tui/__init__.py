"""bestie-tui: the local-first memory layer of the Bestie assistant and its review console.

The public face, for an assistant runtime::

    from bestie_tui import MemoryStore, build_context, propose_from_turn

Names are loaded on first use (PEP 562), ``__version__`` too (read from the package metadata), so
``import bestie_tui`` stays cheap: it imports neither Textual nor scikit-learn, nor even the
database layer until a name is asked for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

#: The distribution whose metadata holds the version (declared once, in ``pyproject.toml``).
DISTRIBUTION = "bestie-tui"

#: Public name → the module that defines it.
_EXPORTS: dict[str, str] = {
    "MemoryStore": "bestie_tui.store.memory_store",
    "MemoryRecord": "bestie_tui.store.records",
    "ProposalResult": "bestie_tui.store.records",
    "build_context": "bestie_tui.retrieval.assembly",
    "search": "bestie_tui.retrieval.search",
    "build_pack": "bestie_tui.conversation.pack",
    "build_nextjs_context_pack": "bestie_tui.conversation.engineer",
    "compress_history": "bestie_tui.conversation.compress",
    "propose_from_turn": "bestie_tui.conversation.proposals",
    "BestieError": "bestie_tui.errors",
    "NotFoundError": "bestie_tui.errors",
    "InvalidValueError": "bestie_tui.errors",
    "SchemaError": "bestie_tui.errors",
    "StorageError": "bestie_tui.errors",
    "PolicyError": "bestie_tui.errors",
    "SecretRefusedError": "bestie_tui.errors",
    "WriteRefusedError": "bestie_tui.errors",
    "ImportFormatError": "bestie_tui.errors",
    "DeliveryError": "bestie_tui.errors",
}

__all__ = [
    "__version__",
    "MemoryStore",
    "MemoryRecord",
    "ProposalResult",
    "build_context",
    "search",
    "build_pack",
    "build_nextjs_context_pack",
    "compress_history",
    "propose_from_turn",
    "BestieError",
    "NotFoundError",
    "InvalidValueError",
    "SchemaError",
    "StorageError",
    "PolicyError",
    "SecretRefusedError",
    "WriteRefusedError",
    "ImportFormatError",
    "DeliveryError",
]

if TYPE_CHECKING:
    from bestie_tui.conversation.compress import compress_history
    from bestie_tui.conversation.engineer import build_nextjs_context_pack
    from bestie_tui.conversation.pack import build_pack
    from bestie_tui.conversation.proposals import propose_from_turn
    from bestie_tui.errors import (
        BestieError,
        DeliveryError,
        ImportFormatError,
        InvalidValueError,
        NotFoundError,
        PolicyError,
        SchemaError,
        SecretRefusedError,
        StorageError,
        WriteRefusedError,
    )
    from bestie_tui.retrieval.assembly import build_context
    from bestie_tui.retrieval.search import search
    from bestie_tui.store.memory_store import MemoryStore
    from bestie_tui.store.records import MemoryRecord, ProposalResult


def __getattr__(name: str) -> Any:
    """Load a public name from its module the first time it is asked for.

    Raises:
        AttributeError: ``name`` is not part of the public face.
    """
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value: Any = version(DISTRIBUTION)
        except PackageNotFoundError:  # a source tree that was never installed
            value = "0.0.0+unknown"
        globals()[name] = value
        return value
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bestie_tui' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
