"""Retrieval: which memories a request gets, and why.

Owns: relevance over approved memories (``index``: the reader of the persisted index that
``store.doc_index`` keeps, with the BM25 weighting in ``bm25``), the
score and its parts (``scoring``), ranked search (``search``), governance of what may be injected
where (``governance``) and prompt assembly (``assembly.build_context``: the memory block, its titles,
the core cap and the token budget).

May import: ``bestie_tui.store``, ``bestie_tui.text``, ``bestie_tui.errors``. numpy only inside
functions, so importing retrieval stays cheap; the query path needs neither scipy nor scikit-learn.
"""
