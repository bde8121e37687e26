"""What the SDK's request context says of a request, for SEP-3279: its era and its negotiated extensions;
and how a handler's result goes back through the SDK at 2026-12-01 (the bridge's tunnel)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcp.server.context import ServerRequestContext

from ..protocol.versions import OUTPUTS_VERSION, STATELESS_VERSIONS, Era, era_for
from . import _bridge as bridge


def request_era(ctx: ServerRequestContext[Any, Any]) -> Era:
    """OUTPUTS for a request the bridge admitted as 2026-12-01; else the era of the version the SDK negotiated."""
    if bridge.is_outputs_request(ctx.params):
        return Era.OUTPUTS
    return era_for(ctx.protocol_version)


def negotiated_extensions(ctx: ServerRequestContext[Any, Any], served: Iterable[str]) -> frozenset[str]:
    """Extensions both sides advertised for this request (its envelope, or the connection's handshake)."""
    capabilities = ctx.session.client_capabilities
    client = set((capabilities.extensions or {}) if capabilities else {})
    return frozenset(client.intersection(served))


def client_key(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """Whose state this request may use: its stdio connection or HTTP session; None when stateless."""
    if ctx.protocol_version in STATELESS_VERSIONS:
        return None
    if ctx.request is None:
        return "stdio"
    session = ctx.request.headers.get("mcp-session-id")
    return f"http:{session}" if session else None


def finish(ctx: ServerRequestContext[Any, Any], method: str, era: Era, result: dict[str, Any]) -> dict[str, Any]:
    """A result as the SDK must be handed it: a 2026-12-01 result the SDK serves as another version (a request
    the bridge presented as 2026-07-28) is tunnelled, or the SDK would drop `outputs` and `outputVariants`;
    with an SDK that serves 2026-12-01 itself it goes as it is. `resultType` at the stateless versions."""
    if era is Era.OUTPUTS and ctx.protocol_version != OUTPUTS_VERSION:
        result = bridge.tunnel(method, result)
    if ctx.protocol_version in STATELESS_VERSIONS:
        result.setdefault("resultType", "complete")  # a CreateTaskResult says "task"
    return result
