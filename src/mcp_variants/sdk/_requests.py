"""What the SDK's request context says of a request, for SEP-3279: its era, its protocol version, its negotiated
extensions and whose state it may use; and how a handler's result goes back through the SDK (the tunnel)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from mcp.server.context import HandlerResult, ServerRequestContext

from ..protocol.versions import OUTPUTS_VERSION, STATELESS_VERSIONS, SUPPORTED_VERSIONS, Era, complete, era_for
from ._tunnel import tunnel

BRIDGE_MARK: Final[str] = "io.github.mcp-variants/bridged"
"""The `_meta` key the 2026-12-01 bridge (_bridge.py) puts on a request it presents to the SDK as 2026-07-28; with
no bridge installed no request carries it (the bridge removes any copy a client sends)."""


def is_outputs_request(params: Any) -> bool:
    """True when the bridge admitted this request (its params) as 2026-12-01."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and meta.get(BRIDGE_MARK) is True


def request_version(ctx: ServerRequestContext[Any, Any]) -> str:
    """The protocol version the client speaks in this request: 2026-12-01 where the bridge admitted it as such."""
    return OUTPUTS_VERSION if is_outputs_request(ctx.params) else ctx.protocol_version


def request_era(ctx: ServerRequestContext[Any, Any]) -> Era:
    """The era of the request's protocol version (`request_version`)."""
    return era_for(request_version(ctx))


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
        result = tunnel(method, result)
    return complete(result, ctx.protocol_version)


def naming_every_version(ctx: ServerRequestContext[Any, Any], result: HandlerResult) -> HandlerResult:
    """A server/discover answer naming every version this layer serves, 2026-12-01 and the handshake eras included:
    the SDK's own discover names only the versions it knows, without 2026-12-01, and a client that reads
    `supportedVersions` before asking would take the server for one without output variants."""
    if ctx.method == "server/discover" and isinstance(result, dict):
        result["supportedVersions"] = list(SUPPORTED_VERSIONS)
    return result
