"""Exceptions raised by the core. The CLI maps them to exit code 1 with a one-line message."""

from __future__ import annotations


class BestieError(Exception):
    """Base class: every error the core raises on purpose."""


class NotFoundError(BestieError):
    """An id (memory, message, event) that does not exist."""


class InvalidValueError(BestieError, ValueError):
    """A value the user gave that cannot be used (bad TTL, bad scope, empty text...)."""


class SchemaError(BestieError):
    """The database file is newer than this program, or not a bestie database at all."""


class StorageError(BestieError):
    """The database file cannot be written or read right now: read-only, locked past the busy
    timeout, missing directory, disk error. Nothing was changed."""


class PolicyError(BestieError):
    """A write refused by a policy setting (writePolicy deny, paused memory, deletePolicy)."""


class SecretRefusedError(BestieError):
    """A proposal that looks like a secret. The message names the kind, never the secret."""

    def __init__(self, kind: str):
        self.kind = kind
        super().__init__(
            f"refused: the text looks like {kind}; secrets are never stored "
            "(if the owner really wants it kept: bestie memory add KIND TEXT --allow-secret)"
        )


class ImportFormatError(BestieError):
    """An import file that is not valid JSON or not in the export format; nothing was written."""
