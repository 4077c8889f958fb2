"""Text, below everything else: word folding and stemming (``words``), the analyzers the index and
the doctor share (``analysis``), IDF-weighted similarity (``similarity``), token estimates in chars4
and cl100k (``tokens``) and TTL words read on the owner's calendar (``ttl``).

Owns: pure functions of strings and dates; no database, no settings.
May import: ``bestie_tui.errors`` and the standard library (snowballstemmer, dateutil, tiktoken
inside functions). Nothing in ``bestie_tui`` but ``errors``.
"""
