"""The event log read back: what the owner can undo and what the owner has decided.

Every write appends ``Event`` rows (``models.Event``) inside its own transaction; the modules here
read them back. ``undo`` reverts the newest change batch of one actor, field by field, and names a
conflict instead of overwriting a newer change; ``pair_decisions`` records and reads the owner's
"keep both" answers on pairs of memories, which are events too and so undone like any change.

May import the rest of ``bestie_tui.store``; nothing in the store's own room imports this package at
module level except ``writes`` (for the pair decisions), so the log's readers stay out of a cold start.
"""
