"""Conversation: the chat around the memory block.

Owns: reading and checking message lists (``messages_io``), compression into one summary block
(``compress``) and the offline extractive summarizer (``summarize``), pinned lines and their prefixes
(``pins``), the context pack with artifacts and its budget fit (``pack``, ``pack_fit``,
``artifacts``).

May import: ``bestie_tui.retrieval`` (the memory block of a pack, its titles), ``bestie_tui.store``,
``bestie_tui.text``, ``bestie_tui.errors``. Token estimates live in ``bestie_tui.text.tokens``,
since assembly counts tokens too.
"""
