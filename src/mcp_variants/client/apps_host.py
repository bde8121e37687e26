"""The host side of MCP Apps on top of the reference client: what a view is given.

`AppsHost` is what an Apps-capable host does around `mcp_variants.client`:

* tools/list: tools whose `_meta.ui.visibility` leaves out "model" are not offered to the
  model (`model_tools`);
* a call from the conversation (`call`) uses the Apps mode (assistant/content +
  io.modelcontextprotocol/ui/structured); the router delivers the assistant output to the
  model and the ui output to the view sink, and `tool_result` is built from that delivery
  alone;
* a call from a view (`call_from_view`) is allowed only for tools whose visibility includes
  "app", and asks for the ui output only: the view is its one consumer;
* views are read with resources/read (`load_view`): the HTML and its declared CSP.

What the view receives in `ui/notifications/tool-result` (docs/apps.md):

* 2026-12-01: the ui output exactly as the server sent it,
  `{"audience": "io.modelcontextprotocol/ui", "format": "structured", "structuredContent": …}`,
  plus `"isError": true` for an error. No assistant output, no result `_meta`. The object is
  also a valid (reduced) CallToolResult, so today's App SDK reads it unchanged.
* before 2026-12-01 there is no ui output: the view receives the legacy CallToolResult as
  MCP Apps (2026-01-26) defines it, unchanged (`content`, `structuredContent`, `isError`,
  `_meta`). SEP-3279 keeps that flow for older versions. Our server's legacy
  `structuredContent` is the assistant/structured value, never the ui one.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..protocol.types import UI_EXTENSION, UI_MIME_TYPE, UI_STRUCTURED
from .errors import ClientError, InvalidServerResponse, ServerError
from .minimal_host import Host, HostCall
from .modes import Mode
from .router import Delivery, HostRouter
from .session import ClientSession
from .stdio import envelope
from .transport import Routing

DEFAULT_VISIBILITY: tuple[str, ...] = ("model", "app")
_READ_IDS = itertools.count(1_000_000)  # resources/read ids, apart from the session's own


class ViewCallRefused(ClientError):
    """A tools/call from a view that the host does not pass on (MCP Apps visibility rules)."""


@dataclass(frozen=True, slots=True)
class ViewResource:
    """A view as resources/read returned it."""

    uri: str
    html: str
    csp: Mapping[str, Any]
    meta: Mapping[str, Any]  # the content item's `_meta.ui`


@dataclass(frozen=True)
class AppsCall:
    """One call from the conversation: what the model got, and what the view is sent."""

    call: HostCall
    tool: Mapping[str, Any]  # the tool as listed
    arguments: Mapping[str, Any]
    model: list[Delivery] = field(default_factory=list)
    view_uri: str | None = None
    tool_result: dict[str, Any] | None = None  # params of ui/notifications/tool-result; None: no view


def ui_meta(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = tool.get("_meta")
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    return ui if isinstance(ui, Mapping) else {}


def linked_view(tool: Mapping[str, Any]) -> str | None:
    """The `ui://` view a listed tool links (`_meta.ui.resourceUri`), if any."""
    uri = ui_meta(tool).get("resourceUri")
    return uri if isinstance(uri, str) and uri.startswith("ui://") else None


def visibility(tool: Mapping[str, Any]) -> tuple[str, ...]:
    value = ui_meta(tool).get("visibility")
    return tuple(value) if isinstance(value, list) and value else DEFAULT_VISIBILITY


def view_resource(uri: str, result: Mapping[str, Any]) -> ViewResource:
    """The view in a resources/read result for `uri`; InvalidServerResponse names each problem."""
    contents = result.get("contents")
    if not isinstance(contents, list) or len(contents) != 1 or not isinstance(contents[0], dict):
        raise InvalidServerResponse([f"resources/read {uri}: expected exactly one content item"], result)
    item = contents[0]
    problems = []
    if item.get("uri") != uri:
        problems.append(f"content uri {item.get('uri')!r} is not {uri!r}")
    if item.get("mimeType") != UI_MIME_TYPE:
        problems.append(f"mimeType {item.get('mimeType')!r} is not {UI_MIME_TYPE}")
    if not isinstance(item.get("text"), str):
        problems.append("no HTML text")
    if problems:
        raise InvalidServerResponse([f"resources/read {uri}: {p}" for p in problems], result)
    meta = item.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    ui = ui if isinstance(ui, dict) else {}
    csp = ui.get("csp")
    return ViewResource(uri, item["text"], csp if isinstance(csp, dict) else {}, ui)


def view_params(delivery: Delivery) -> dict[str, Any]:
    """ui/notifications/tool-result params from the view sink's delivery (2026-12-01)."""
    assert delivery.selector == UI_STRUCTURED, delivery.selector
    params: dict[str, Any] = {**delivery.selector.to_wire(), "structuredContent": delivery.payload}
    if delivery.is_error:
        params["isError"] = True
    return params


class AppsHost:
    """An Apps host's bookkeeping around one ClientSession (see the module docstring)."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.model: list[Delivery] = []
        self.views: list[Delivery] = []
        self.programs: list[Delivery] = []  # legacy structuredContent, by the router's policy
        self.router = HostRouter(model=self.model.append, view=self.views.append, program=self.programs.append)
        self.host = Host(session, self.router)
        self._views: dict[str, ViewResource] = {}

    # ---- discovery --------------------------------------------------------------------------

    def tool(self, name: str) -> Mapping[str, Any]:
        raw = self.session.list_tools().get(name).raw
        return raw if raw is not None else {"name": name}

    def model_tools(self) -> list[str]:
        """The tools a model may see: visibility includes "model" (MCP Apps: app-only tools are hidden)."""
        return [t.name for t in self.session.list_tools() if "model" in visibility(t.raw or {})]

    def view_uri(self, name: str) -> str | None:
        return linked_view(self.tool(name))

    def load_view(self, uri: str) -> ViewResource:
        """resources/read of a `ui://` view (cached per host: hosts may prefetch and cache)."""
        if uri not in self._views:
            self._views[uri] = view_resource(uri, self._read_resource(uri))
        return self._views[uri]

    # ---- calls ------------------------------------------------------------------------------

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> AppsCall:
        """A call the conversation makes, in the Apps mode; the view gets only its own output."""
        tool = self.tool(name)
        model_mark, view_mark = len(self.model), len(self.views)
        call = self.host.call(name, arguments or {}, Mode.APPS)
        model = self.model[model_mark:]
        views = self.views[view_mark:]
        uri = self.view_uri(name)
        if uri is None:
            return AppsCall(call, tool, dict(arguments or {}), model)
        if call.result.legacy:
            # No ui output exists before 2026-12-01: MCP Apps' own flow, the whole legacy result.
            return AppsCall(call, tool, dict(arguments or {}), model, uri, dict(call.result.raw))
        if len(views) != 1:
            # Not negotiated, or nothing for the view: no view is shown (never another audience's output).
            return AppsCall(call, tool, dict(arguments or {}), model)
        return AppsCall(call, tool, dict(arguments or {}), model, uri, view_params(views[0]))

    def call_from_view(self, name: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """A tools/call a view sent through the host; the result to hand back to the view.

        Raises ViewCallRefused for a tool the view may not call, ServerError when the server
        refuses, InvalidServerResponse for a result that breaks SEP-3279.
        """
        index = self.session.list_tools()
        if name not in index:
            raise ViewCallRefused(f"{name} is not a tool of this server")
        tool = self.tool(name)
        if "app" not in visibility(tool):
            raise ViewCallRefused(f"{name} is not visible to apps (visibility {list(visibility(tool))})")
        if self.session.era.is_legacy:
            result = self.session.call(name, arguments or {})
            return dict(result.raw)
        if UI_EXTENSION not in self.session.negotiated:
            raise ViewCallRefused(f"{UI_EXTENSION} was not negotiated: a view has no output to receive")
        if not index.get(name).declares(UI_STRUCTURED):
            raise ViewCallRefused(f"{name} declares no {UI_STRUCTURED}: nothing of its result is meant for a view")
        result = self.session.call(name, arguments or {}, (UI_STRUCTURED,))
        views: list[Delivery] = []
        report = HostRouter(view=views.append).route(result)
        if len(views) != 1 or not report.ok:
            raise InvalidServerResponse([f"{name}: no single ui output to hand to the view", *report.dropped], result.raw)
        return view_params(views[0])

    # ---- wire ---------------------------------------------------------------------------------

    def _read_resource(self, uri: str) -> dict[str, Any]:
        """resources/read through the session's transport, with its version (and envelope)."""
        session = self.session
        session.open()
        request_id = next(_READ_IDS)
        params: dict[str, Any] = {"uri": uri}
        if session.stateless:
            params["_meta"] = envelope(session.version, session.extensions or None)
        body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "resources/read", "params": params}, separators=(",",
                                                                                                                          ":")).encode()
        # Mcp-Name carries the uri on HTTP at the stateless versions (the server checks it).
        routing = Routing("resources/read", request_id, session.version, session.stateless, uri)
        response = session.transport.request(body, routing, session.timeout)
        if "error" in response:
            error = response["error"] if isinstance(response["error"], dict) else {}
            raise ServerError(int(error.get("code", 0)), str(error.get("message", "")), error.get("data"))
        result = response.get("result")
        if not isinstance(result, dict):
            raise InvalidServerResponse(["resources/read: the response has no result object"], response)
        return result
