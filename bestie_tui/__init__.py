"""bestie-tui: the local-first memory layer of the Bestie assistant and its review console."""

__version__ = "0.1.0"
