"""Memories and chat history from other systems, into the owner's triage queue.

``load(path, format=None, user=None)`` reads a file of another memory system and turns it into the
bestie export shape (``transfer.exchange``) with every memory ``pending``, so ``transfer.import_data``
passes each one through the write gate and the import becomes a review session in the console.
Formats: ``bestie`` (our own export, restored as it was), ``mem0`` (``Memory.get_all`` JSON),
``openclaw`` (``MEMORY.md`` and the daily notes ``memory/YYYY-MM-DD.md``), ``chatgpt`` (the data
export's ``conversations.json``: messages only, no memory without a proposal).
"""

from bestie_tui.importers.detect import FORMATS, detect, load

__all__ = ["FORMATS", "detect", "load"]
