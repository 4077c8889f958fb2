"""``bestie mcp``: the per-turn calls served over the Model Context Protocol (stdio).

Built on the official ``mcp`` Python SDK (the optional extra ``bestie-tui[mcp]``), imported only
when the server starts. SDK 2.x names the server class ``MCPServer`` (``mcp.server.mcpserver``);
1.x named it ``FastMCP`` (``mcp.server.fastmcp``); both are supported.

The user, channel and project of every call are fixed when the server starts (its arguments or
environment); no tool takes them, and ``bestie mcp`` serves a store bound to that user
(``MemoryStore(…, user=U)``), so no tool reads or writes another user's rows. A refused
call (a secret, an injected block, an over-long text, an unknown id) is a tool error whose text is
the one-line reason; nothing is written. ``recall`` for a user the database holds no memory and no
message of answers with a ``note`` (``turns.UNKNOWN_USER_NOTE``), never a silent empty block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bestie_tui.agent import forget_requests, turns
from bestie_tui.errors import BestieError
from bestie_tui.store.support import kind_note
from bestie_tui.text.tokens import MissingExtraError

#: What the server tells the model about itself (``instructions`` in the MCP handshake).
INSTRUCTIONS = (
    "Long-term memory of the user you are talking with, kept on their machine and reviewed by them. "
    "Call recall at the start of each user request and put the block it returns into your context. "
    "Call log_message for each user turn and each of your replies. Call remember when the user states "
    "something lasting about themself (a preference, a fact, a decision); the user approves it before "
    "it is used. Never store secrets. Call forget_request when the user asks you to forget something: "
    "the user confirms it."
)


@dataclass(frozen=True)
class Binding:
    """Whose memory the server serves: fixed at start, never taken from a tool call."""

    user: str
    channel: str | None = None
    project: str | None = None
    session: str | None = None


def _server_class() -> tuple[Any, type[Exception]]:
    """The SDK's server class and its tool-error class, for SDK 2.x or 1.x.

    Raises:
        MissingExtraError: the ``mcp`` package is not installed.
    """
    from importlib import import_module

    for package, name in (("mcp.server.mcpserver", "MCPServer"), ("mcp.server.fastmcp", "FastMCP")):
        try:
            server_class = getattr(import_module(package), name)
            tool_error = import_module(f"{package}.exceptions").ToolError
        except (ImportError, AttributeError):
            continue
        return server_class, tool_error
    raise MissingExtraError("bestie mcp needs the mcp extra: pip install 'bestie-tui[mcp]'")


def build_server(store, binding: Binding) -> Any:
    """An MCP server (not yet running) whose tools act on ``store`` for ``binding``.

    Raises:
        MissingExtraError: the ``mcp`` package is not installed.
    """
    server_class, tool_error = _server_class()
    # WARNING: a refused call (a secret, an unknown id) is the client's answer, not a log record; the
    # SDK's INFO records repeat each refusal on stderr over several lines
    server = server_class(name="bestie-memory", instructions=INSTRUCTIONS, log_level="WARNING")

    def call(fn, *args, **kwargs):
        try:
            return fn(store, *args, **kwargs)
        except BestieError as exc:
            raise tool_error(str(exc)) from None

    @server.tool(description=(
        "Get what you should know about the user for this request: the memory block of their approved "
        "memories, most relevant first; its 'How to answer:' section holds the user's standing "
        "instructions (reply language, length, tone, format), which apply to every answer. Call it at the "
        "start of every user request with the request text as query, and put the returned block into "
        "your context as it is. An answer with a note "
        "holds nothing for this user yet: a new user, or a user id mistyped in this server's setup."))
    async def recall(query: str) -> dict[str, Any]:
        result = call(turns.recall, query, user=binding.user, channel=binding.channel, project=binding.project)
        answer = {"block": result.block, "memory_ids": [i.record.id for i in result.pack.items],
                  "history": result.history}
        return {**answer, "note": result.note} if result.note else answer

    @server.tool(description=(
        "Propose one lasting fact about the user to remember (a preference, a fact about their life, a "
        "decision), as one short sentence in the third person, e.g. 'Prefers short answers.'. Call it "
        "when the user states something that will still hold next week; not for small talk, one-off "
        "moods or questions, and never for passwords, codes or keys (they are refused). The user "
        "reviews it: the answer says whether it was stored or queued for their approval."))
    async def remember(text: str, kind: str = "note") -> dict[str, Any]:
        r = call(turns.remember, text, kind=kind, user=binding.user, channel=binding.channel,
                 project=binding.project, session=binding.session)
        note = kind_note(kind, r.memory.source)  # an unknown kind is stored as note, as on every path
        return {"outcome": r.outcome, "memory_id": r.memory.id, "message": f"{r.message}; {note}" if note else r.message}

    @server.tool(description=(
        "Append one chat message to the user's conversation history. Call it for every user turn "
        "(role 'user') and every reply of yours (role 'assistant'). Secrets in it are redacted."))
    async def log_message(role: str, text: str) -> dict[str, Any]:
        m = call(turns.log_message, role, text, user=binding.user, channel=binding.channel, session=binding.session)
        return {"message_id": m.id}

    @server.tool(description=(
        "Search the user's approved memories by words (accent- and inflection-tolerant). Call it when "
        "the user asks what you remember about something, or to find a memory's id for forget_request."))
    async def search(query: str, limit: int = 10) -> list[dict[str, Any]]:
        found = call(turns.search_memories, query, user=binding.user, limit=limit)
        return [{"id": m.id, "text": m.text, "kind": m.kind} for m in found]

    @server.tool(description=(
        "Ask to forget one of the user's memories (its id from recall or search) when the user asks you "
        "to forget it or says it is wrong. Nothing is deleted now: the user confirms the request "
        "themself. Tell the user it is waiting for their confirmation."))
    async def forget_request(memory_id: int, reason: str = "") -> dict[str, Any]:
        item = call(forget_requests.request_forget, memory_id, reason, user=binding.user)
        return {"memory_id": item["memory_id"], "status": "waiting for the owner's confirmation"}

    return server


def serve(store, binding: Binding) -> None:
    """Serve ``store`` for ``binding`` over stdio until the client closes the stream.

    Raises:
        MissingExtraError: the ``mcp`` package is not installed.
    """
    build_server(store, binding).run("stdio")
