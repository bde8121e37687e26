"""The reference SEP-3279 client session, over any Transport.

It speaks 2026-12-01 (stateless `_meta` envelope) and every legacy version: 2026-07-28
statelessly, 2024-11-05 … 2025-11-25 through `initialize`. The client MUSTs of SEP-3279
are enforced here, before a byte is sent or a result is used:

* `requestedOutputs` is sent only at 2026-12-01; asking for anything but the fallback at
  an older version raises SelectionError instead of sending it.
* At 2026-12-01, a Tool without `outputVariants` makes tools/list invalid.
* Only variants the tool advertised and extension audiences negotiated for this request
  are selected, never the same selector twice.
* Results are checked by `results.check_outputs` / `results.check_legacy`.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any, Self

from ..protocol.selection import misspelt_audience
from ..protocol.types import ASSISTANT_CONTENT, Selector
from ..protocol.versions import HANDSHAKE_VERSIONS, OUTPUTS_VERSION, SUPPORTED_VERSIONS, era_for
from .errors import ClientError, InvalidServerResponse, SelectionError, ServerError
from .results import CallResult, SelectorLike, as_selector, check_legacy, check_outputs
from .stdio import envelope
from .tools import ToolIndex, parse_listing
from .transport import Routing, Transport, routing_for

CLIENT_INFO: dict[str, str] = {"name": "mcp-variants-client", "version": "0.1.0"}
MAX_LIST_PAGES = 100

class ClientSession:
    """One protocol version, one set of client extensions, one transport."""

    def __init__(
        self,
        transport: Transport,
        version: str = OUTPUTS_VERSION,
        *,
        extensions: Mapping[str, Any] | None = None,
        timeout: float = 120.0,
    ) -> None:
        if version not in SUPPORTED_VERSIONS:
            raise ValueError(f"unsupported protocol version {version!r}; known: {SUPPORTED_VERSIONS}")
        self.transport = transport
        self.version = version
        self.era = era_for(version)
        self.stateless = version not in HANDSHAKE_VERSIONS
        self.extensions: dict[str, Any] = dict(extensions or {})
        self.timeout = timeout
        self.server_capabilities: dict[str, Any] = {}
        self.negotiated: frozenset[str] = frozenset()
        self._ids = itertools.count(1)
        self._opened = False
        self._tools: ToolIndex | None = None

    # ---- lifecycle ----------------------------------------------------------------------------

    def open(self) -> dict[str, Any]:
        """initialize (handshake versions) or server/discover (stateless); learns the
        server's extensions, so only those both sides advertised count as negotiated."""
        if self._opened:
            return self.server_capabilities
        if self.stateless:
            result = self._request("server/discover", {})
            supported = result.get("supportedVersions")
            if not isinstance(supported, list) or self.version not in supported:
                raise ClientError(f"the server does not support {self.version}; it supports {supported}")
        else:
            result = self._request(
                "initialize",
                {
                    "protocolVersion": self.version,
                    "capabilities": {"extensions": self.extensions} if self.extensions else {},
                    "clientInfo": CLIENT_INFO,
                },
            )
            if result.get("protocolVersion") != self.version:
                raise ClientError(
                    f"asked for {self.version}, the server answered {result.get('protocolVersion')!r}; "
                    "open a session at that version explicitly to use it"
                )
            self._notify("notifications/initialized")
        capabilities = result.get("capabilities")
        self.server_capabilities = capabilities if isinstance(capabilities, dict) else {}
        server_extensions = self.server_capabilities.get("extensions")
        offered = set(server_extensions) if isinstance(server_extensions, dict) else set()
        self.negotiated = frozenset(set(self.extensions) & offered)
        self._opened = True
        return self.server_capabilities

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- tools ----------------------------------------------------------------------------------

    def list_tools(self, *, refresh: bool = False) -> ToolIndex:
        """Every page of tools/list, checked for this version and compiled (cached)."""
        if self._tools is not None and not refresh:
            return self._tools
        self.open()
        tools: list[Any] = []
        params: dict[str, Any] = {}
        for _ in range(MAX_LIST_PAGES):
            result = self._request("tools/list", params)
            page = result.get("tools")
            if not isinstance(page, list):
                raise InvalidServerResponse(["tools/list result has no `tools` array"], result)
            tools += page
            cursor = result.get("nextCursor")
            if not cursor:
                break
            params = {"cursor": cursor}
        self._tools = parse_listing(tools, self.era, self.negotiated)
        return self._tools

    def selection(self, tool: str, outputs: Sequence[SelectorLike] | None) -> tuple[Selector, ...] | None:
        """Check a selection against the client MUSTs; None means send no `requestedOutputs`."""
        info = self.list_tools().get(tool)
        if outputs is None:
            return None
        if isinstance(outputs, (str, Mapping)):
            raise SelectionError(f"outputs is a list of selectors, e.g. [{outputs!r}]; not {outputs!r} alone")
        selectors = tuple(map(as_selector, outputs))
        if self.era.is_legacy:
            if selectors == (ASSISTANT_CONTENT,):
                return None  # the legacy result already is the fallback: nothing to send
            raise SelectionError(
                f"protocol version {self.version} has no requestedOutputs; cannot ask for "
                f"{', '.join(map(str, selectors)) or 'an empty selection'}. Use {OUTPUTS_VERSION}, "
                "or call without a selection and route the legacy content/structuredContent"
            )
        if not selectors:
            raise SelectionError("an empty selection asks for nothing; omit it to get assistant/content")
        seen: set[Selector] = set()
        for selector in selectors:
            if selector in seen:
                raise SelectionError(
                    f"{selector} is selected twice; a client must not send a duplicate selector"
                )
            seen.add(selector)
            if not selector.is_core and selector.audience not in self.negotiated:
                raise SelectionError(f"{selector}: "
                                     f"{misspelt_audience(selector) or f'the extension {selector.audience} was not negotiated'}")
            if not info.declares(selector):
                raise SelectionError(
                    f"{tool} does not advertise {selector}; it offers {', '.join(map(str, info.selectors))}"
                )
        return selectors

    def call(
        self, tool: str, arguments: Mapping[str, Any] | None = None, outputs: Sequence[SelectorLike] | None = None
    ) -> CallResult:
        """tools/call with an explicit selection (None: the assistant/content fallback): each output written
        `"programmatic/structured"`, as the wire's `{"audience": ..., "format": ...}`, or as a `Selector`."""
        selectors = self.selection(tool, outputs)
        params: dict[str, Any] = {"name": tool, "arguments": dict(arguments or {})}
        if selectors is not None:
            params["requestedOutputs"] = [s.to_wire() for s in selectors]
        result = self._request("tools/call", params)
        index = self.list_tools()
        if self.era.is_legacy:
            return check_legacy(tool, self.version, result, index)
        return check_outputs(tool, self.version, selectors or (ASSISTANT_CONTENT,), result, index)

    # ---- wire -------------------------------------------------------------------------------------

    def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = next(self._ids)
        message = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": method,
            "params": self._with_envelope(params),
        }
        response = self.transport.request(
            self._encode(message), self._routing(method, request_id, params), self.timeout
        )
        if "error" in response:
            error = response["error"] if isinstance(response["error"], dict) else {}
            raise ServerError(int(error.get("code", 0)), str(error.get("message", "")), error.get("data"))
        result = response.get("result")
        if not isinstance(result, dict):
            raise InvalidServerResponse([f"{method}: the response has no result object"], response)
        return result

    def _notify(self, method: str) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        self.transport.notify(self._encode(message), self._routing(method, None, {}))

    def _with_envelope(self, params: dict[str, Any]) -> dict[str, Any]:
        if not self.stateless:
            return params
        return {**params, "_meta": envelope(self.version, self.extensions or None)}

    def _routing(self, method: str, request_id: int | None, params: Mapping[str, Any]) -> Routing:
        return routing_for(method, request_id, params, self.version, self.stateless)

    def _encode(self, message: dict[str, Any]) -> bytes:
        """The one place bytes are made: a last guard that legacy requests never carry the field."""
        params = message.get("params")
        if self.era.is_legacy and isinstance(params, dict) and "requestedOutputs" in params:
            raise SelectionError(f"refusing to send requestedOutputs at {self.version}")
        return json.dumps(message, separators=(",", ":")).encode()
