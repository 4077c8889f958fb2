"""What an assistant calls on each turn, for Python callers, the CLI and the MCP server alike.

``turns`` holds the per-turn calls (recall, remember, log, propose from a turn, search, ask to
forget); ``forget_requests`` the queue of forgets the assistant asked for and only the owner
confirms; ``mcp_server`` serves those calls over the Model Context Protocol (the optional ``mcp``
extra, imported only by ``bestie mcp``).
"""
