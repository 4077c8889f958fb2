"""The write gate: one decision for every write of memory text or tier, and the checks it runs.

``check_write(text, *, path, store, …) -> WriteDecision`` (``decision``) is called by every path
that creates or changes a memory's text or tier. Its checks live beside it: secrets (``secrets``,
over the rule families ``tokens``, ``words`` and ``numbers``), venting and contact details
(``content``), statements about someone else (``about``) and the core's token cap (``cap``); the
injected-block markers it refuses are ``store.markers``. ``redact`` applies the same secret rules
to chat messages and persisted summaries.

Pure text except ``cap`` and ``decision``, which read the store's settings and its core records.
"""

from __future__ import annotations

from bestie_tui.store.gate.decision import PATHS, WriteDecision, check_write
from bestie_tui.store.gate.secrets import SecretMatch, detect_secret, find_secrets, redact

__all__ = ["PATHS", "WriteDecision", "check_write", "SecretMatch", "detect_secret", "find_secrets", "redact"]
