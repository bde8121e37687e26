"""A server mounted inside an existing Starlette app with a /health route, as python-servers.md (*Mount it in your
app*) and fastmcp.md say: the parent runs the MCP app's lifespan. `python mounted_server.py MOUNT [--no-lifespan]
[--fastmcp]` mounts `streamable_http_app(mcp)` (with a bearer token and a 64 KiB body limit, to show both still
apply) or, with --fastmcp, the FastMCP layer's `http_app(mcp)` (its 64 KiB body limit) at MOUNT ("/" or "/api"), on
127.0.0.1 and a free port, and prints that port once uvicorn takes requests. Run by test_mounted.py."""

import socket
import sys
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from mcp_variants.sdk import HttpLimits

LIMITS = HttpLimits(max_body_bytes=64 * 1024)


def sdk_app() -> Any:
    from mcp.server.mcpserver import MCPServer

    from mcp_variants.sdk import Results, Variants, streamable_http_app

    mcp = MCPServer("mounted")
    variants = Variants(mcp)

    @variants.tool("assistant/content", annotations={"readOnlyHint": True})
    def ping() -> Results:
        """Answers pong."""
        return Results({"assistant/content": "pong"})

    return streamable_http_app(mcp, token="s3cret", limits=LIMITS)


def fastmcp_app() -> Any:
    from fastmcp import FastMCP

    from mcp_variants.fastmcp import Results, Variants, http_app

    mcp = FastMCP("mounted")
    variants = Variants(mcp)

    @variants.tool("assistant/content", annotations={"readOnlyHint": True})
    def ping() -> Results:
        """Answers pong."""
        return Results({"assistant/content": "pong"})

    return http_app(mcp, limits=LIMITS)


async def health(request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


mount, lifespan = sys.argv[1], "--no-lifespan" not in sys.argv
mcp_app = fastmcp_app() if "--fastmcp" in sys.argv else sdk_app()
app = Starlette(routes=[Route("/health", health), Mount(mount, app=mcp_app)],
                lifespan=mcp_app.lifespan if lifespan else None)


class Announcing(uvicorn.Server):
    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        print(listening.getsockname()[1], flush=True)


listening = socket.create_server(("127.0.0.1", 0))
Announcing(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[listening])
