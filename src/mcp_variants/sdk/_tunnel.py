"""A result the SDK would re-validate away, carried past it inside `_meta`, and what every answer gets on its way out.

mcp 2.3.0 re-validates each result against the wire model of the request's version and drops (or refuses) what
that model lacks: a CreateTaskResult answering a 2025-11-25 tools/call (_task_wire.py), and, while the SDK does not
serve 2026-12-01 itself, a 2026-12-01 result the bridge had it serve as 2026-07-28 (_bridge.py, _requests.finish).
`tunnel` hides such a result in a placeholder's `_meta`, where the SDK keeps it untouched; every transport of ours
opens it again on the way out (`as_sent`: stdio per message, the HTTP guard per body and per SSE event), and names
every served version in a -32022. Pure: decoded messages, changed in place.
"""

from __future__ import annotations

from typing import Any, Final

from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCResponse

from ..protocol.versions import UNSUPPORTED_PROTOCOL_VERSION, name_every_version

TUNNEL_KEY: Final[str] = "io.github.mcp-variants/tunnel"
# What a body holds when `as_sent` may change it: a cheap test before decoding it.
NEEDLES: Final[tuple[bytes, ...]] = (TUNNEL_KEY.encode(), str(UNSUPPORTED_PROTOCOL_VERSION).encode())
_PLACEHOLDERS: Final[dict[str, dict[str, Any]]] = {"tools/call": {"content": []}, "tools/list": {"tools": []}}
# Keys the SDK adds to a result that the real result keeps.
_SDK_ENVELOPE_KEYS: Final[tuple[str, ...]] = ("resultType", "ttlMs", "cacheScope")


def tunnel(method: str, result: dict[str, Any]) -> dict[str, Any]:
    """A result the SDK will accept for `method`, carrying the real one for `unwrap_result`."""
    return {**_PLACEHOLDERS[method], "_meta": {TUNNEL_KEY: result}}


def unwrap_result(result: dict[str, Any]) -> dict[str, Any]:
    """The real result of a tunnelled response, with the SDK's envelope keys kept; any other result as it is."""
    meta = result.get("_meta")
    if not isinstance(meta, dict) or TUNNEL_KEY not in meta:
        return result
    sdk_meta = {k: v for k, v in meta.items() if k != TUNNEL_KEY}
    real = dict(meta[TUNNEL_KEY])
    for key in _SDK_ENVELOPE_KEYS:
        if key in result and key not in real:
            real[key] = result[key]
    merged_meta = {**sdk_meta, **(real.get("_meta") or {})}
    if merged_meta:
        real["_meta"] = merged_meta
    return real


def as_sent(message: dict[str, Any]) -> dict[str, Any]:
    """One decoded JSON-RPC message the SDK wrote, as the client gets it."""
    if isinstance(message.get("result"), dict):
        message["result"] = unwrap_result(message["result"])
    elif isinstance(message.get("error"), dict):
        name_every_version(message["error"])
    return message


def session_message_as_sent(item: SessionMessage) -> SessionMessage:
    """`as_sent` for a message of the SDK's stdio loop (a model, changed in place)."""
    message = item.message
    if isinstance(message, JSONRPCResponse):
        message.result = unwrap_result(message.result)
    elif isinstance(message, JSONRPCError) and message.error.code == UNSUPPORTED_PROTOCOL_VERSION:
        error = message.error.model_dump(mode="json")
        name_every_version(error)
        message.error.data = error["data"]
    return item
