"""``check_write``: the one decision every memory write goes through.

Every path that creates or changes memory text or its tier calls it before writing — the
assistant's ``propose`` (and ``propose_from_turn`` through it), the owner's ``add``, ``edit``,
``approve`` (with or without ``--text``), ``move``, ``set_layer``, ``restore``, a restated fact
coming back, ``import`` and cleanup's merged text; the console's editor calls it through
``MemoryStore.check_text`` and ``edit``. It returns a ``WriteDecision``: **store**, **queue** for
the owner, or **refuse**, with a one-line reason that never quotes a secret.

The checks, in order (``who`` is the assistant for ``propose``, the owner for the owner's
commands, and a file for ``import``):

============================  =======================  ========================  =====================
check                          assistant (propose)      owner                     import
============================  =======================  ========================  =====================
paused / writePolicy deny      refuse                   —                         —
secret (``gate.secrets``)      refuse                   refuse (``allow_secret``  refuse (counted;
                                                        stores it)                ``allow_secrets``)
injected marker (``markers``)  refuse                   refuse                    refuse
a line of the block itself     refuse                   refuse                    refuse
one-off venting                refuse                   refuse (``keep_venting``: refuse
                                                        archive, 7 days)
about someone else → core      moved to working         refuse                    moved to working
core over its token cap        queued as working        refuse                    moved to working
contact details                queue                    store                     as the file says
no user under ``allow``        queue                    —                         —
writePolicy ask                queue                    —                         —
============================  =======================  ========================  =====================

A statement about someone else is bound to that person (``about``) on every path.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from bestie_tui.errors import PolicyError, SecretRefusedError, WriteRefusedError
from bestie_tui.store.binding import uses_store
from bestie_tui.store.gate.about import NAME_ROWS, about_someone_else, names_given
from bestie_tui.store.gate.batch import GateBatch, name_rows
from bestie_tui.store.gate.cap import core_usage
from bestie_tui.store.gate.content import block_line, contact_kind, venting_reason
from bestie_tui.store.gate.secrets import detect_secret
from bestie_tui.store.gate.sensitive import sensitive_kind
from bestie_tui.store.instructions import promoted_kind
from bestie_tui.store.markers import BLOCK_LINES, injected_marker
from bestie_tui.store.models import SCOPE_DEFAULT_LAYER

#: Who writes on each path.
PATHS: dict[str, str] = {
    "propose": "assistant", "add": "owner", "edit": "owner", "approve": "owner", "move": "owner",
    "layer": "owner", "restore": "owner", "revive": "owner", "cleanup": "owner", "import": "import",
}
#: Paths that change the text (the others change the tier of a text already stored).
TEXT_PATHS = frozenset({"propose", "add", "edit", "approve", "cleanup", "import"})
#: Paths on which a generic kind becomes ``communication_preference`` when the text is about replies
#: (``store.instructions``); never ``edit``, so the owner's ``uninstruct`` stays made.
INSTRUCTION_PATHS = frozenset({"propose", "add", "approve"})
#: Paths whose layer is a default, not the owner's choice now (a scope's layer, a file's, a pending
#: record's): there a sensitive detail (``gate.sensitive``) is kept out of core.
DEFAULT_LAYER_PATHS = frozenset({"propose", "add", "import", "approve"})
#: How long a venting note the owner insists on keeping lives (in the archive, never injected).
VENTING_TTL = "7d"


@dataclass(frozen=True)
class WriteDecision:
    """What the gate decided for one write.

    Attributes:
        action: ``store`` (write it: approved on the owner's paths, pending under writePolicy ask),
            ``queue`` (write it as pending for the owner's review) or ``refuse`` (write nothing).
        reason: one line for the person who asked; never any part of a secret.
        rule: the check that decided (``ok``, ``policy``, ``secret``, ``injected``, ``venting``,
            ``about``, ``core_cap``, ``contact``, ``unbound``, ``ask``).
        scope / layer: where the memory goes (a statement about someone else or a full core moves
            it out of core); ``kind``: its kind (``venting`` for a kept venting note).
        about: who the memory is about when not the owner.
        ttl: an expiry the gate sets (a kept venting note), else ``None``.
        notes: what the gate changed, one line each ("about J: kept out of core").
        secret: the phrase of the secret found ("a password"), when ``rule`` is ``secret``.
    """

    action: str
    reason: str
    rule: str = "ok"
    scope: str | None = None
    layer: str | None = None
    kind: str | None = None
    about: str | None = None
    ttl: str | None = None
    notes: tuple[str, ...] = field(default=())
    secret: str | None = None

    @property
    def refused(self) -> bool:
        return self.action == "refuse"

    def raise_if_refused(self) -> WriteDecision:
        """Return ``self`` unless refused; then raise ``SecretRefusedError`` (a secret),
        ``PolicyError`` (paused, writePolicy deny) or ``WriteRefusedError`` (the other checks)."""
        if not self.refused:
            return self
        if self.rule == "secret":
            raise SecretRefusedError(self.secret or "a secret")
        if self.rule == "policy":
            raise PolicyError(self.reason)
        raise WriteRefusedError(self.reason, self.rule)

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "reason": self.reason, "rule": self.rule, "scope": self.scope,
                "layer": self.layer, "kind": self.kind, "about": self.about, "ttl": self.ttl,
                "notes": list(self.notes)}


@uses_store
def owner_names(store: Any, user: str) -> frozenset[str]:
    """The names ``user`` gave as their own in approved memories ("My name is Alice", "tên tôi là
    Lan"), folded: a third-person sentence naming one of them is the owner's. One indexed query
    (the user's approved memories that mention a name), at most ``NAME_ROWS`` rows."""
    from bestie_tui.store.models import Memory

    rows = Memory.select(Memory.text).where((Memory.user == user) & name_rows()).limit(NAME_ROWS)
    return names_given(row.text for row in rows)


def _refuse(rule: str, reason: str, **extra: Any) -> WriteDecision:
    return WriteDecision("refuse", reason, rule, **extra)


@uses_store
def check_write(text: str, *, path: str, store: Any, kind: str = "note", scope: str = "project",
                layer: str | None = None, user: str | None = None, about: str | None = None,
                memory_id: int | None = None, replaces: Iterable[int] = (), allow_secret: bool = False,
                keep_venting: bool = False, batch: GateBatch | None = None) -> WriteDecision:
    """Decide one memory write. Reads the database (settings, the core's size); writes nothing.

    Args:
        text: the memory text as it would be stored.
        path: which write this is: one of ``PATHS`` (``propose``, ``add``, ``edit``, ``approve``,
            ``move``, ``layer``, ``restore``, ``revive``, ``cleanup``, ``import``).
        store: the open ``MemoryStore`` (settings, clock, the models' database); ``None`` checks
            the text alone (no policy, no core cap), as an editor does before it knows the tier.
        kind / scope / layer: what the write asks for; ``layer`` defaults to the scope's layer.
        user: who the memory belongs to (``None``: unbound, seen by every user).
        about: who it is about, when the caller knows; else read from the text.
        memory_id: the memory being changed (not counted twice in the core's size).
        replaces: more ids whose core tokens the write frees (the members of a merge).
        allow_secret: the owner explicitly keeps a secret (``add --allow-secret``, import).
        keep_venting: the owner insists on keeping a venting note (``add --keep-venting``).
        batch: a ``GateBatch`` of the caller's transaction, which answers what this decision reads
            of the core and of the owner's names (many writes at once: an import); ``None`` reads
            the database.

    Returns:
        A ``WriteDecision``. The time is linear in ``len(text)`` (``benchmarks/gate.py``).

    Raises:
        InvalidValueError: ``path`` is not one of ``PATHS``.
    """
    who = PATHS.get(path)
    if who is None:
        from bestie_tui.errors import InvalidValueError

        raise InvalidValueError(f"unknown write path {path!r}; use one of {', '.join(PATHS)}")
    text = text or ""
    layer = layer or SCOPE_DEFAULT_LAYER.get(scope, "working")
    if store is None and who == "assistant":
        raise ValueError("the assistant's writes need the store (its write policy)")
    policy = store.get_setting("memory.writePolicy") if who == "assistant" else None
    if who == "assistant":
        if store.get_setting("memory.paused"):
            return _refuse("policy", "memory is paused: the assistant cannot write memories until "
                                     "`bestie memory resume`")
        if policy == "deny":
            return _refuse("policy", "memory.writePolicy is deny: memory writes are refused")

    secret = detect_secret(text)
    if secret and not allow_secret:
        return _refuse("secret", f"refused: the text looks like {secret}; secrets are never stored", secret=secret)
    marker = injected_marker(text)
    if marker:
        return _refuse("injected", f"refused: the text carries {marker} (machine text injected into prompts); "
                                   "stored, it would come back as a fake block in the next prompt")
    line = block_line(text)
    if line:
        what = f"the memory block's own line {line!r}" if line in BLOCK_LINES else \
            f"{line}, which the memory block writes itself"
        return _refuse("injected", f"refused: the text holds {what}; stored, it would print as a fake line inside "
                                   "the block")
    notes: list[str] = []
    decision = WriteDecision("store", "ok", scope=scope, layer=layer, kind=kind, about=about)

    venting = venting_reason(text, kind) if path in TEXT_PATHS else (
        "one-off venting" if (kind or "").lower() in ("venting", "vent") else None)
    if venting:
        if who == "owner" and keep_venting and path == "add":
            decision = replace(decision, kind="venting", scope="session", layer="archive", ttl=VENTING_TTL)
            notes.append("kept as a short-lived archive note (never injected; expires in 7 days)")
        elif path in TEXT_PATHS or decision.layer == "core":
            hint = " (to keep it anyway as a short-lived archive note: add --keep-venting)" if who == "owner" else ""
            return _refuse("venting", f"refused: this reads as {venting}, not a lasting fact; it is not kept as a "
                                      f"memory{hint}")

    found = about_someone_else(text, user) if decision.about is None and path in TEXT_PATHS else None
    if found:
        decision = replace(decision, about=found)
        if store is not None and user is not None:
            # "Alice likes durian" for user A whose name is Alice is the owner's own statement
            names = batch.owner_names(user) if batch is not None else owner_names(store, user)
            if names:
                decision = replace(decision, about=about_someone_else(text, user, names))
    if decision.about and decision.layer == "core":
        if who == "owner":
            return _refuse("about", f"refused: this is about {decision.about}, not the owner, and a statement about "
                                    "someone else is never core (keep it in working: --scope project)",
                           about=decision.about)
        decision = replace(decision, scope="project", layer="working")
        notes.append(f"about {decision.about}: kept out of core")

    if path in INSTRUCTION_PATHS:  # a generic memory the reader sees as about replies: a standing instruction
        decision = replace(decision, kind=promoted_kind(decision.kind or "note", text, decision.about))

    sensitive = sensitive_kind(text) if path in DEFAULT_LAYER_PATHS and decision.layer == "core" else None
    if sensitive:  # health, finance, identity documents: never in every prompt unless the owner moves it there
        decision = replace(decision, scope="project", layer="working")
        notes.append(f"a {sensitive} detail is sensitive: kept out of core (bestie memory move ID --scope core "
                     "puts it there by hand)")

    if decision.layer == "core" and store is not None:
        exclude = [i for i in (memory_id, *replaces) if i]
        usage = (batch.core_usage(text, decision.about, user, exclude) if batch is not None
                 else core_usage(store, text, decision.about, user, exclude=exclude))
        if usage.over:
            if who == "owner":
                return _refuse("core_cap", f"refused: {usage.message()}; shorten core or keep this in working "
                                           "(--scope project)")
            decision = replace(decision, scope="project", layer="working")
            # the limit and the sizes, so the reader can tell a full core from a memory too long for any core
            notes.append(f"{usage.message()}: " + ("queued as working" if who == "assistant" else "imported as working"))

    if who == "assistant":
        contact = contact_kind(text)
        if contact:
            return replace(decision, action="queue", rule="contact", notes=tuple(notes),
                           reason=f"it holds {contact}, which the owner reviews whatever memory.writePolicy says")
        if policy == "allow" and user is None:
            return replace(decision, action="queue", rule="unbound", notes=tuple(notes),
                           reason="it is bound to no user, so it would reach every user")
        if policy != "allow":
            return replace(decision, action="queue", rule="ask", notes=tuple(notes),
                           reason="memory.writePolicy is ask")
    # built afresh rather than ``replace``d: the same decision at a third of the cost (one per write of an import)
    return WriteDecision(decision.action, "; ".join(notes) or "ok", rule=decision.rule, scope=decision.scope,
                         layer=decision.layer, kind=decision.kind, about=decision.about, ttl=decision.ttl,
                         notes=tuple(notes), secret=decision.secret)
