"""The floor of the HTTP throughput benchmark: the MCP SDK's own low-level server with one trivial tool, on the
same transport as ours (its streamable HTTP app under uvicorn, DNS-rebinding protection on, as ours), and
nothing of this project: no bridge, no limits, no tools of ours.

    python -m bench.bare_server --port PORT
"""

from __future__ import annotations

import argparse
from typing import Any

import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolRequestParams, PaginatedRequestParams

TOOL = {"name": "echo", "description": "Answers ok.", "inputSchema": {"type": "object"}}


def build() -> Server[Any]:
    server: Server[Any] = Server("bare")

    async def list_tools(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> dict[str, Any]:
        return {"tools": [TOOL], "resultType": "complete"}

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "ok"}], "resultType": "complete"}

    server.add_request_handler("tools/list", PaginatedRequestParams, list_tools)
    server.add_request_handler("tools/call", CallToolRequestParams, call_tool)
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    allowed = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    security = TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=allowed,
                                         allowed_origins=[f"http://{h}" for h in allowed])
    app = build().streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1", transport_security=security)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
