"""The 2026-12-01 bridge: the workaround for an SDK that does not serve 2026-12-01. Delete this module when it does.

mcp 2.3.0 knows protocol versions up to 2026-07-28. It answers 2026-12-01 with -32022 before any handler runs, and
it re-validates every result against the wire model of the request's version, dropping what it does not know
(`outputVariants` on tools, `outputs` on results). The bridge presents a 2026-12-01 request to the SDK as 2026-07-28
(envelope and `MCP-Protocol-Version` header), marking it with a private `_meta` key (`_requests.BRIDGE_MARK`) that
no client can forge (any incoming copy is removed first). The rest is permanent and lives elsewhere: the handlers
see the mark (`_requests.request_era`) and hand back the real result through the tunnel (_tunnel.py), which every
transport of ours opens on the way out; the message guard (_guard.py) checks every message, bridge or not.

Installed only where `needed()`: the transports import this module only then (_stdio.stdio_connection's `bridge`,
_http.build_http_app's). With an SDK that serves 2026-12-01 (docs/sdk-change.md; tests/sdk/test_patched_sdk.py runs
the conformance suite on an SDK patched so) nothing imports it, and tests/sdk/test_without_the_bridge.py serves with its
import blocked. Deleting it: `git rm` this file, and remove the `bridge` branches that import it (_stdio.py,
_http.py, fastmcp/_serve.py) with `_serve.bridging`.
"""

from __future__ import annotations

from typing import Any, Final

from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest
from starlette.types import Scope

from ..protocol.jsonrpc import JsonRpcMessage, Kind, Refusal, dumps
from ..protocol.versions import HANDSHAKE_VERSIONS, HEADER_MISMATCH, OUTPUTS_VERSION, STATELESS_VERSIONS, VERSION_KEY
from ._requests import BRIDGE_MARK

SDK_VERSION: Final[str] = "2026-07-28"
_HEADER: Final[bytes] = b"mcp-protocol-version"


def rewrite_request(params: dict[str, Any] | None, header_version: str | None = None) -> str | None:
    """Present a 2026-12-01 request as 2026-07-28, in place. Returns the header to forward.

    A header that disagrees with the body is left as it is, so the SDK still answers
    the mismatch with -32020.
    """
    if not isinstance(params, dict):
        return header_version
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        return header_version
    meta.pop(BRIDGE_MARK, None)
    if meta.get(VERSION_KEY) != OUTPUTS_VERSION or header_version not in (None, OUTPUTS_VERSION):
        return header_version
    meta[VERSION_KEY] = SDK_VERSION
    meta[BRIDGE_MARK] = True
    return SDK_VERSION if header_version is not None else None


def bridge_inbound(item: SessionMessage | Exception) -> SessionMessage | Exception:
    """stdio: a message read from the client, as the SDK should see it."""
    if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCRequest):
        rewrite_request(item.message.params)
    return item


def rewrite_http_request(checked: JsonRpcMessage, body: bytes, scope: Scope) -> tuple[bytes, Scope] | Refusal:
    """streamable HTTP (the guard's `inbound` step): the body and scope the SDK gets for a message, bridged when it
    is a 2026-12-01 request, else as they came."""
    decoded = checked.body
    if checked.kind is Kind.REQUEST and (unrouted := _unrouted(decoded, scope["headers"], checked.id)) is not None:
        return unrouted
    if not isinstance(decoded.get("params"), dict):
        return body, scope  # the SDK answers what is not a request
    headers = scope["headers"]
    versions = [v.decode("latin-1") for k, v in headers if k == _HEADER]
    if len(versions) > 1:
        return body, scope  # the SDK refuses a repeated routing header with -32020
    header = versions[0] if versions else None
    meta = decoded["params"].get("_meta")
    before = dict(meta) if isinstance(meta, dict) else None
    forwarded = rewrite_request(decoded["params"], header)
    if before == decoded["params"].get("_meta") and forwarded == header:
        return body, scope
    new_headers = [(k, v) for k, v in headers if k not in (_HEADER, b"content-length")]
    if forwarded is not None:
        new_headers.append((_HEADER, forwarded.encode("latin-1")))
    body = dumps(decoded)
    new_headers.append((b"content-length", str(len(body)).encode()))
    return body, {**scope, "headers": new_headers}


def _unrouted(decoded: dict[str, Any], headers: list[tuple[bytes, bytes]], request_id: Any) -> Refusal | None:
    """A stateless-era request (its `_meta` names 2026-07-28 or later) whose MCP-Protocol-Version header is missing
    or names a handshake-era version: the SDK routes by the header, so it would take it for a handshake-era request,
    answer "Missing session ID" and open a session. The refusal names the header instead."""
    params = decoded.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(VERSION_KEY) if isinstance(meta, dict) else None
    given = [v.decode("latin-1") for k, v in headers if k == _HEADER]
    stateless = isinstance(version, str) and version in STATELESS_VERSIONS
    if not stateless or len(given) > 1 or (given and given[0] not in HANDSHAKE_VERSIONS):
        return None  # the SDK answers the rest (a mismatch between stateless versions, a repeated header: -32020)
    said = f"says {given[0]}" if given else "is missing"
    return Refusal(request_id, HEADER_MISMATCH,
                   f"Bad Request: the MCP-Protocol-Version header {said}; a request whose params._meta names protocol "
                   f"version {version} carries the header MCP-Protocol-Version: {version}",
                   {"header": "MCP-Protocol-Version", "expected": version, "received": given[0] if given else None})


__all__ = ["bridge_inbound", "rewrite_http_request", "rewrite_request"]
