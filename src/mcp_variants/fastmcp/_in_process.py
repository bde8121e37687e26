"""`mcp_variants.sdk.InProcessTransport` for a FastMCP server: served as this layer's `serve_stdio` serves it."""

from __future__ import annotations

from typing import Any

from fastmcp import FastMCP

from ..sdk import InProcessTransport as SdkInProcessTransport
from ..sdk.framework import DEFAULT_MAX_MESSAGE_BYTES
from ._serve import serve_stdio


class InProcessTransport(SdkInProcessTransport):
    """The reference client's `Transport` to a FastMCP server (given `Variants(mcp)`) in this process, served as
    `serve_stdio` serves it (FastMCP's lifespan, its middleware, 2026-12-01 through the bridge), on a thread of its own:

        with ClientSession(InProcessTransport(mcp)) as session:      # mcp_variants.client.ClientSession
            result = session.call("forecast", {"city": "Oslo"}, ["programmatic/structured"])

    Every version the client speaks; closing it ends the server as the end of stdin does and joins the thread."""

    def __init__(self, server: FastMCP[Any], *, bridge: bool | None = None,
                 max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        async def serve(fds: tuple[int, int]) -> None:
            await serve_stdio(server, fds=fds, bridge=bridge, max_message_bytes=max_message_bytes)

        self.start(server.name, serve)
