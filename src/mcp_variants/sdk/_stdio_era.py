"""Which era a stdio connection serves, decided by the first request whose claim is valid.

The SDK fixes a connection's era with its first request, whatever becomes of it: a `tools/list`
before `initialize`, or a `tools/call` with `"params": null`, made the connection a handshake one,
and every 2026-12-01 request after it was refused with a message naming 2026-07-28. Here the
transport screens requests until the era is fixed, so that the SDK's first request is always one
that opens an era (a well-formed `initialize`, or a request whose `_meta` envelope the SDK's own
classifier accepts), and answers the requests that cross eras itself, naming the versions involved.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from mcp.shared.inbound import InboundLadderRejection, classify_inbound_request
from mcp_types import InitializeRequestParams
from pydantic import ValidationError

from ..protocol.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, JsonRpcMessage, error_response
from ..protocol.versions import (
    HANDSHAKE_VERSIONS,
    STATELESS_VERSIONS,
    SUPPORTED_VERSIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
    VERSION_KEY,
    name_every_version,
)

LATEST_HANDSHAKE_VERSION = max(HANDSHAKE_VERSIONS)
BATCH_VERSIONS = frozenset({"2025-03-26"})  # JSON-RPC batches: added by 2025-03-26, removed by 2025-06-18
_STATELESS = ", ".join(sorted(STATELESS_VERSIONS))
_HANDSHAKE = f"{min(HANDSHAKE_VERSIONS)} … {LATEST_HANDSHAKE_VERSION}"


class Opening(Enum):
    UNDECIDED = "undecided"
    HANDSHAKE = "handshake"
    STATELESS = "stateless"


class ConnectionEra:
    """The era of one stdio connection; `screen` every request before the SDK sees it."""

    def __init__(self) -> None:
        self.era = Opening.UNDECIDED
        self.version: str | None = None  # the handshake version, once initialize was let through

    @property
    def allows_batches(self) -> bool:
        return self.era is Opening.HANDSHAKE and self.version in BATCH_VERSIONS

    def screen(self, request: JsonRpcMessage) -> dict[str, Any] | None:
        """The answer to give `request` instead of passing it to the SDK, or None to pass it."""
        method, params = request.method, request.params
        claimed = _envelope_version(params)
        if self.era is Opening.UNDECIDED:
            return self._open(request, method, params, claimed)
        if self.era is Opening.HANDSHAKE and claimed is not None and method != "initialize":
            return error_response(
                request.id, INVALID_REQUEST,
                f"This connection was opened with initialize at {self.version}; a request carrying the {claimed} _meta "
                f"envelope is not accepted on it. Open another connection for {claimed}.")
        if self.era is Opening.STATELESS and method == "initialize":
            return _initialize_refused(request, params)
        return None

    def _open(self, request: JsonRpcMessage, method: str | None, params: dict[str, Any] | None,
              claimed: str | None) -> dict[str, Any] | None:
        if method == "initialize":
            try:
                requested = InitializeRequestParams.model_validate(params or {}, by_name=False).protocol_version
            except ValidationError as exc:
                return error_response(request.id, INVALID_PARAMS, f"Invalid params for initialize: {_first_error(exc)}")
            self.era = Opening.HANDSHAKE
            self.version = requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE_VERSION  # as the SDK negotiates
            return None
        if claimed is not None:
            route = classify_inbound_request(request.body, supported_modern_versions=sorted(STATELESS_VERSIONS))
            if isinstance(route, InboundLadderRejection):
                error: dict[str, Any] = {"code": route.code, "message": route.message}
                if route.data is not None:
                    error["data"] = route.data
                name_every_version(error)
                return {"jsonrpc": "2.0", "id": request.id, "error": error}
            self.era = Opening.STATELESS
            return None
        if method == "ping":
            return {"jsonrpc": "2.0", "id": request.id, "result": {}}
        return error_response(
            request.id, INVALID_REQUEST,
            f"Invalid Request: no protocol version yet. Open the connection with initialize ({_HANDSHAKE}), "
            f"or send every request with the _meta envelope ({_STATELESS}).",
            {"supported": list(SUPPORTED_VERSIONS)})


def _envelope_version(params: dict[str, Any] | None) -> str | None:
    """The version a request's envelope claims (the SDK's test: the version key alone), or None."""
    meta = params.get("_meta") if params else None
    if not isinstance(meta, dict) or VERSION_KEY not in meta:
        return None
    return str(meta[VERSION_KEY])


def _initialize_refused(request: JsonRpcMessage, params: dict[str, Any] | None) -> dict[str, Any]:
    requested = (params or {}).get("protocolVersion")
    data: dict[str, Any] = {"supported": sorted(STATELESS_VERSIONS)}
    if isinstance(requested, str):
        data["requested"] = requested
    return error_response(
        request.id, UNSUPPORTED_PROTOCOL_VERSION,
        f"This connection serves {_STATELESS} (its first request carried the _meta envelope); initialize is not "
        "accepted on it. Open another connection for a handshake version.", data)


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "params"
    return f"{where}: {first['msg']}"
