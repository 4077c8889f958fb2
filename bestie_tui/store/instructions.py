"""Standing instructions: approved memories that say how to answer (reply language, length, tone,
format, form of address) and so enter every prompt of their user (``retrieval.assembly``, the
"How to answer:" section), whatever the request is about.

A memory is a standing instruction when its kind is ``INSTRUCTION_KIND`` (``communication_preference``)
and it is about the owner (``about`` is empty: "my brother wants short answers" is no instruction
to the assistant). The kind is the one truth, so export, import, undo and both engines carry it
with no column of its own:

* the write gate (``gate.check_write``) gives a new or approved memory of a generic kind
  (``GENERIC_KINDS``: ``note``, ``preference``, ``fact``) that the fact reader sees as about replies
  (``facts.manner.manner_of``) the kind ``communication_preference`` — on ``propose``, ``add`` and
  ``approve``, never on ``edit``, so an owner's choice stays made;
* the owner turns one into an ordinary memory and back (``MemoryStore.uninstruct`` /
  ``instruct``, ``bestie memory uninstruct|instruct ID``, the console's ``i``): an undoable change
  of kind, recorded in the event log like a pin. ``uninstruct`` gives back the kind the memory had
  before its last ``instruct`` (else ``ORDINARY_KIND``).
"""

from __future__ import annotations

from typing import Any

from bestie_tui.facts.manner import manner_of

#: The kind of a standing instruction.
INSTRUCTION_KIND = "communication_preference"
#: The kind ``uninstruct`` gives a memory that was never made an instruction by the owner.
ORDINARY_KIND = "preference"
#: Kinds that say nothing about how to answer either way: the reader may make them instructions.
GENERIC_KINDS = frozenset({"note", "preference", "fact"})


def is_instruction(memory: Any) -> bool:
    """Whether ``memory`` (a ``MemoryRecord`` or a ``Memory`` row: anything with ``kind`` and
    ``about``) is a standing instruction, whatever its status and layer."""
    return getattr(memory, "kind", None) == INSTRUCTION_KIND and not getattr(memory, "about", None)


def promoted_kind(kind: str, text: str, about: str | None) -> str:
    """``INSTRUCTION_KIND`` when ``kind`` is generic, the memory is about the owner and the reader
    sees ``text`` as about replies (``facts.manner``); else ``kind`` unchanged."""
    if kind in GENERIC_KINDS and not about and manner_of(text):
        return INSTRUCTION_KIND
    return kind


__all__ = ["INSTRUCTION_KIND", "ORDINARY_KIND", "GENERIC_KINDS", "is_instruction", "promoted_kind"]
