"""Hygiene: keeping the memory true and small.

Owns: the doctor's pair scan (``pairs``: which memories to compare; ``facts.relate`` decides),
duplicate groups (``duplicates``), corrections (``corrections``), contradictions
(``contradictions``), the doctor's report (``doctor``), cleanup, rebalance and hygiene plans — their
types (``plans``), builders (``plan_build``, ``plan_fixes``) and one-transaction apply
(``plan_apply``) — the owner's answer to a related pair (``resolve``: keep both, merge, newer,
older) and the health score with its snapshots (``health``).

May import: ``bestie_tui.store``, ``bestie_tui.facts`` (the fact reader and relations),
``bestie_tui.text``, ``bestie_tui.errors``. Not retrieval (it judges memories by their text, not by
a request), not conversation or maintenance.
"""
