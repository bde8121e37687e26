"""The reference SEP-3279 client and host router.

* `session.ClientSession` speaks 2026-12-01 and the legacy versions over any `Transport`
  (`stdio.StdioTransport`, `http.HttpTransport`) and enforces the client MUSTs.
* `modes` chooses the selectors for an execution mode; `router.HostRouter` delivers each
  output to its audience's sink; `minimal_host.Host` ties the three together.
* `stdio.StdioConnection` stays the raw JSON-RPC connection the demo uses.
* `apps_host.AppsHost` is what an MCP Apps host does around the session: the tools a model is offered, the
  notifications a view receives, the calls a view may make.

`http` needs httpx and is not imported here.
"""

from .errors import ClientError, InvalidServerResponse, SelectionError, ServerError, TransportError
from .minimal_host import Host, HostCall
from .modes import Mode, Selection, select
from .results import CallResult
from .router import Delivery, HostRouter, RouteReport
from .session import ClientSession
from .stdio import StdioConnection, StdioTransport, envelope
from .tools import ToolIndex, ToolInfo
from .transport import RecordingTransport, Routing, Transport

__all__ = [
    "CallResult",
    "ClientError",
    "ClientSession",
    "Delivery",
    "Host",
    "HostCall",
    "HostRouter",
    "InvalidServerResponse",
    "Mode",
    "RecordingTransport",
    "RouteReport",
    "Routing",
    "Selection",
    "SelectionError",
    "ServerError",
    "StdioConnection",
    "StdioTransport",
    "ToolIndex",
    "ToolInfo",
    "Transport",
    "TransportError",
    "envelope",
    "select",
]
