"""A server whose only tool fails on every call (isError: true), for the suite to fail.

Read-only and needing no arguments, so the suite calls it unasked. Its message is what `mcp-variants check`
must show: it once reported "precondition not met" and, with --allow-skips, exit 0.

    python tests/conformance/servers/always_failing.py            # stdio
    ALWAYS_FAILING_WRITES=1 python ...                            # the same tool, not read-only: called only if named
"""

import os

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import ErrorKind, Results, ToolError, Variants, cli, variant

READ_ONLY = os.environ.get("ALWAYS_FAILING_WRITES") != "1"
MESSAGE = "the inventory database is unreachable (connection refused, 127.0.0.1:5432)"


class Stock(BaseModel):
    items: int


variants = Variants()


@variants.tool("assistant/content", variant("programmatic/structured", Stock), annotations={"readOnlyHint": READ_ONLY})
def stock() -> Results:
    """How many items are in stock."""
    raise ToolError(ErrorKind.UNREACHABLE, MESSAGE)


mcp = MCPServer("always-failing", version="1.0.0", extensions=[variants], middleware=[variants.middleware])

if __name__ == "__main__":
    cli(mcp)
