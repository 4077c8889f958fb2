"""The per-turn calls an assistant makes, each one function over an open ``MemoryStore``.

The user, channel and project of every call come from the caller's own configuration (the CLI's
options, the MCP server's arguments or environment), never from a model's words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bestie_tui.errors import InvalidValueError
from bestie_tui.store.binding import uses_store
from bestie_tui.store.limits import MESSAGE_TEXT_MAX
from bestie_tui.store.message_forget import forgotten_statements

if TYPE_CHECKING:
    from bestie_tui.retrieval.assembly import ContextPack
    from bestie_tui.store.records import MemoryRecord, MessageRecord, ProposalResult

#: Longest text a per-turn call accepts, in characters (1 MB of text is refused, not stored).
MAX_TEXT_CHARS = MESSAGE_TEXT_MAX  # the one limit of a message on every path (store.limits)


#: The note of an answer for a user the database holds nothing of (a mistyped user id looks empty).
UNKNOWN_USER_NOTE = "no memories or messages for this user yet"


@dataclass
class Recall:
    """What a prompt gets for one request.

    Attributes:
        block: the memory block exactly as it goes into the prompt (``""`` when nothing applies).
        pack: the ``ContextPack`` behind it (records, scores, what was left out and why).
        history: earlier chat turns recalled for the request (the block's recall segment,
            ``retrieval.recall``): each ``{"message_id", "session", "line", "tokens", "score", "parts"}``;
            empty when the ``recall.segment`` setting is off or nothing in the history applies.
        note: ``UNKNOWN_USER_NOTE`` when the block is empty because the database holds no memory
            and no message of the user at all (not one that matched nothing), else ``None``.
    """

    block: str
    pack: ContextPack
    history: list[dict[str, Any]] = field(default_factory=list)
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = {"block": self.block, "memories": [i.to_dict() for i in self.pack.items],
                "tokens": self.pack.tokens, "paused": self.pack.paused, "history": self.history}
        return {**data, "note": self.note} if self.note else data


def check_text(text: Any, what: str = "text") -> str:
    """``text`` if it is a string of 1..``MAX_TEXT_CHARS`` characters with a word in it.

    Raises:
        InvalidValueError: not a string, empty, or longer than ``MAX_TEXT_CHARS``.
    """
    query = what == "query"
    done = "nothing was looked up" if query else "nothing was saved"  # what happened, said
    if not isinstance(text, str) or not text.strip():
        raise InvalidValueError(f"{what} is empty; {done}")
    if len(text) > MAX_TEXT_CHARS:
        holds = "a query is" if query else "a message holds"
        raise InvalidValueError(f"{what} is {len(text):,} characters; {holds} at most {MAX_TEXT_CHARS:,}, so {done}")
    return text


@uses_store
def recall(store, query: str, *, user: str | None, channel: str | None = None, project: str | None = None,
           token_budget: int | None = None, session: str | None = None) -> Recall:
    """The memory block a prompt for ``query`` gets (``assembly.build_context``, with the recall
    segment of past conversations, never the current ``session``'s recent turns nor a turn that
    states a memory the owner forgot), recording access of the included memories as a real prompt
    does. A block with nothing of the user's own (empty, or only the unbound standing instructions
    every user gets) for a user the database holds nothing of carries ``UNKNOWN_USER_NOTE``.

    Raises:
        InvalidValueError: an empty or over-long query, a bad budget.
    """
    from bestie_tui.retrieval.assembly import DEFAULT_TOKEN_BUDGET, build_context

    check_text(query, "query")
    pack = build_context(store, query, user, channel, project,
                         DEFAULT_TOKEN_BUDGET if token_budget is None else token_budget, record_access=True,
                         history=True, session=session, exclude_texts=forgotten_statements(store, user))
    block = pack.render()
    # the owner's unbound standing instructions reach every user: they do not make a user known
    own = pack.recalled or any(i.record.user == user for i in pack.items)
    note = UNKNOWN_USER_NOTE if not own and not store.knows_user(user) else None
    return Recall(block, pack, history=[r.to_dict() for r in pack.recalled], note=note)


@uses_store
def log_message(store, role: str, text: str, *, user: str | None, channel: str | None = None,
                session: str | None = None) -> MessageRecord:
    """Append one chat message (its secrets redacted) to the history. Raises InvalidValueError."""
    return store.log_message(role, check_text(text, "message text"), user=user, channel=channel, session=session)


@uses_store
def propose_turn(store, text: str, *, user: str | None, channel: str | None = None, project: str | None = None,
                 session: str | None = None) -> list[ProposalResult]:
    """Proposals from one user turn (``conversation.proposals.propose_from_turn``: injected text
    stripped, questions and chit-chat left out, each statement through the write gate).

    Raises:
        PolicyError: memory is paused or writePolicy is deny. InvalidValueError: empty or over-long text.
    """
    from bestie_tui.conversation.proposals import propose_from_turn

    return propose_from_turn(store, check_text(text), user=user, channel=channel, project=project, session=session)


@uses_store
def remember(store, text: str, *, kind: str = "note", user: str | None, channel: str | None = None,
             project: str | None = None, session: str | None = None) -> ProposalResult:
    """The assistant's proposal of one memory, through the write gate (``store.propose``): queued
    for the owner under writePolicy ``ask``.

    Raises:
        SecretRefusedError / WriteRefusedError: the gate refuses it; PolicyError: paused or deny;
        InvalidValueError: empty or over-long text, an unknown kind.
    """
    return store.propose(check_text(text), kind, user=user, channel=channel, project=project, session=session,
                         actor="assistant")


@uses_store
def search_memories(store, query: str, *, user: str | None, limit: int = 10) -> list[MemoryRecord]:
    """This user's approved memories matching ``query`` (``retrieval.search``; no access is recorded),
    and for the owner (``owner.user``) the memories bound to no user too, which recall injects for them.

    Raises:
        InvalidValueError: a query without words or over-long.
    """
    from bestie_tui.retrieval.search import search

    owner = user is not None and user == store.get_setting("owner.user")  # the owner's general memories too
    found = search(store, check_text(query, "query"), status="approved", user=user, limit=max(1, min(limit, 50)),
                   with_unbound=owner)
    return [m for m in found if m.superseded_by is None]
