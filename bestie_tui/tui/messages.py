"""Messages the app posts to its screens."""

from __future__ import annotations

from textual.message import Message


class StoreChanged(Message):
    """The database changed (this console's own write, or another process's commit).

    Screens refresh their data on it and keep the owner's place (selected id, scroll)."""

    def __init__(self, external: bool) -> None:
        super().__init__()
        #: True when another connection (e.g. the assistant) wrote it.
        self.external = external
