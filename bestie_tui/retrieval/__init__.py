"""Retrieval: which memories a request gets, and why.

Owns: the relevance index over approved memories (``index``, with its BM25 parts in ``bm25``), the
score and its parts (``scoring``), ranked search (``search``), governance of what may be injected
where (``governance``) and prompt assembly (``assembly.build_context``: the memory block, its titles,
the core cap and the token budget).

May import: ``bestie_tui.store``, ``bestie_tui.text``, ``bestie_tui.errors``. scikit-learn, scipy and
numpy only inside functions, so importing retrieval stays cheap.
"""
