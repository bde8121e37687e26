"""HTTP limits on the public server API: the SDK's own defaults unless the author gives others (`HttpLimits.personal()`
is the Jupyter server's); what the SDK's session manager is made with, in process, on the real SDK."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from mcp_variants.sdk import HttpLimits, streamable_http_app


def session_limits(limits: HttpLimits | None) -> tuple[float | None, int | None, int]:
    mcp = MCPServer("limits")
    streamable_http_app(mcp) if limits is None else streamable_http_app(mcp, limits=limits)
    manager = mcp.session_manager
    return manager.session_idle_timeout, manager.max_sessions, manager.max_request_body_size


def test_the_sdks_defaults_unless_the_author_sets_others() -> None:
    mcp = MCPServer("plain")
    plain = mcp.streamable_http_app()  # the SDK alone
    assert plain is not None
    sdk = (mcp.session_manager.session_idle_timeout, mcp.session_manager.max_sessions, mcp.session_manager.max_request_body_size)
    assert session_limits(None) == sdk
    assert HttpLimits().read_timeout is None and HttpLimits().max_connections is None  # uvicorn's: no deadline, no cap
    assert session_limits(HttpLimits.personal()) == (600.0, 100, sdk[2])
    assert session_limits(HttpLimits(session_idle_timeout=None, max_sessions=5)) == (None, 5, sdk[2])
