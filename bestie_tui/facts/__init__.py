"""Facts: what a memory says, read without a model, and how two memories relate.

Owns: the fact reader (``reader``: relation, polarity, content terms, an attribute/value frame,
event or state). Pure functions of text: no database, no settings, no records, so that the store's
write path and the doctor can both use them.

May import: ``bestie_tui.text``, ``bestie_tui.errors``. Imported by ``store``, ``hygiene`` and
``retrieval``; never the other way round.
"""
