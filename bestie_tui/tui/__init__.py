"""The Textual console: the app shell (``app``), one screen per view and the modals
(``screens``), and the widgets they share (``widgets``).

May import: the domain packages and the store. Nothing imports the console but ``bestie tui`` and
the tests; the CLI start-up and the domain packages never do.
"""
