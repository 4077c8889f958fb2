"""The store: one SQLite file and everything that writes it.

Owns: opening and checking the database (``db``: WAL, schema version, refusal of a newer or foreign
file), which file the models talk to in this thread or task (``binding``: one store, one file, any
number of stores per process) and whose rows they reach (``binding.Tenant``: a store bound to a
user; ``models.TenantModel`` adds its condition to every query), the Peewee models (``models``),
plain records (``records``), the ``MemoryStore`` facade (``memory_store``) and its parts (``reads``,
``writes``, ``messages``, with ``query`` and ``support`` beside them), restated facts (``restate``),
the event log's readers in ``history/`` (``history.undo``: undo; ``history.pair_decisions``: the
owner's "keep both" answers on pairs of memories), the persisted search index kept current inside
each write's transaction (``doc_index``: counts only; retrieval weighs them), chunked bulk writes
that stay all-or-nothing (``bulk``), the write gate
(``gate/``: ``check_write`` and its rules — secrets, venting, someone else's facts, contact details,
the core cap; ``secrets`` re-exports the secret check), the machine markers of a prompt
(``markers``: pin prefixes, the memory block's header and titles) and the settings registry
(``settings``: every key, its default and its check, declared once as data).

Export, import, backup and erase live beside it in ``bestie_tui.transfer``, which imports the store.

May import: ``bestie_tui.facts``, ``bestie_tui.text``, ``bestie_tui.semantic``, ``bestie_tui.errors``,
``bestie_tui.paths``. Never a domain package (retrieval, hygiene, conversation, maintenance), nor
``transfer``, the CLI or the console: they import the store.
"""
