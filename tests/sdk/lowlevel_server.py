"""A server on the low-level half of the server API (`mcp_variants.sdk.lowlevel`): the SDK's low-level `Server`,
one tool from a `ToolSet`, served by `mcp_variants.sdk.run` on stdio."""

from __future__ import annotations

from typing import Any

from mcp.server.lowlevel import Server

from mcp_variants.protocol.types import ASSISTANT_CONTENT
from mcp_variants.sdk import run
from mcp_variants.sdk.lowlevel import Outcome, ToolProjectors, ToolSet, VariantTool, declaration, serve_tools, variant

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}


async def add(context: Any, arguments: dict[str, Any]) -> Outcome:
    return Outcome(value=arguments["a"] + arguments["b"])


tools = ToolSet([
    VariantTool(declaration("add", [variant("assistant/content")], input_schema=SCHEMA),
                ToolProjectors(success={ASSISTANT_CONTENT: lambda total: [{"type": "text", "text": f"sum: {total}"}]}), run=add),
    # A content projector that returns a bare string, not content blocks: a bug of the server's.
    VariantTool(declaration("add_as_text", [variant("assistant/content")], input_schema=SCHEMA),
                ToolProjectors(success={ASSISTANT_CONTENT: lambda total: f"sum: {total}"}), run=add),
])
server: Server[Any] = Server("calc")
serve_tools(server, tools, context=lambda ctx: None)

if __name__ == "__main__":
    run(server)
