"""The ``bestie`` command line (click), on top of everything.

Owns: the command groups and options (``common``), one module of commands per family
(``memory_cmds``, ``review_cmds``, ``data_cmds``, ``doctor_cmds``, ``scoring_cmds``,
``maintenance_cmds``, ``context_cmds``), text and JSON rendering (``render``) and the demo
database (``demo``); ``main`` is the entry point.

May import: every package; ``bestie_tui.tui`` only to open the console (``bestie tui``). Nothing
imports the CLI. Imports neither Textual nor scikit-learn at start-up.
"""
