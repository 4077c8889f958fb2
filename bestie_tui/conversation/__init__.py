"""Conversation: the chat around the memory block.

Owns: reading and checking message lists (``messages_io``); the one stripping step for what the
system injected (``injected``); reading chat text into sentences, lists, records and dates
(``sentences``, ``extract``); compression into one summary block (``compress``), the offline
summarizer (``summarize``) and the summary's shape (``summary_format``); pinned lines and their public
prefixes (``pins``); memories proposed from a turn (``proposals``); the context pack with artifacts
and its budget fit (``pack``, ``pack_fit``, ``artifacts``); the design note's Engineer pack
(``engineer``); the ``context.*`` settings in force with their ``FREETEXT_*`` overrides, summary
persistence and prompt-resolution logging (``config``).

May import: ``bestie_tui.retrieval`` (the memory block of a pack, its titles), ``bestie_tui.store``,
``bestie_tui.facts``, ``bestie_tui.text``, ``bestie_tui.errors``. Token estimates live in
``bestie_tui.text.tokens``, since assembly counts tokens too.
"""
