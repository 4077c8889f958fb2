"""Data in and out of a store: export and import, the full export, backups, and erasing for good.

``exchange``: the bestie JSON export format, import of it (and of what the importers convert into
it) in bounded chunks through the write gate, and ``clear``. ``full_export``: memories, messages,
the event log and settings in one file, and ``import_any`` for either shape. ``backup``: a
consistent copy taken before a change that undo cannot take back. ``erase``: one user's data, one
memory with its history and the messages that state it, or history text past the undo window.

Imports the store (``bestie_tui.store``) and below; the store never imports this package. The
importers (``bestie_tui.importers``), the CLI and the console import it.
"""
