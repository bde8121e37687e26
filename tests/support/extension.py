"""A Jupyter server with the mcp-variants extension, and stateless MCP requests to its endpoint.

`extension_server(folder, ...)` is a JupyterServerProcess that loads `mcp_variants.jupyter_extension`
(the tests' servers read no configuration, so it is named, as the config file an install ships
names it); `EndpointConnection` speaks to `{url}mcp` with any headers (the server's token, a Hub
token, a cookie), one JSON-RPC request per POST, as `StdioConnection.request` does on a pipe, so the
integration tests' `StatelessClient` checks every output against its schema either way.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from mcp_variants.client.http import parse_messages
from mcp_variants.client.stdio import envelope
from mcp_variants.jupyter.server_launcher import COLLABORATION_EXTENSIONS, JupyterServerProcess
from support.checked_server import OUTPUTS_VERSION, UI_EXTENSIONS, Server
from support.jupyter import LAB_SETTINGS

EXTENSION = "mcp_variants.jupyter_extension"
ENDPOINT = "mcp"


def extension_server(folder: Path, *options: str, lab: bool = False) -> JupyterServerProcess:
    """jupyter-server with the extension (`lab`: a JupyterLab with real-time collaboration too); `options` are traitlets."""
    if not lab:
        return JupyterServerProcess(folder, extensions=(EXTENSION,), args=options)
    settings = folder / "lab-settings"
    for name, values in LAB_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    return JupyterServerProcess(folder, app="jupyterlab", extensions=(*COLLABORATION_EXTENSIONS, EXTENSION),
                                args=[f"--LabApp.user_settings_dir={settings}", "--LabApp.expose_app_in_browser=True", *options])


class EndpointServer(Server):
    """checked_server.Server's stateless 2026-12-01 calls (every output checked against its schema), to the endpoint."""

    def __init__(self, url: str, headers: Mapping[str, str]) -> None:
        # Not Server.__init__, which starts a stdio server: the server is the Jupyter server's endpoint.
        self.connection = EndpointConnection(url, headers)  # type: ignore[assignment]
        self.stateless = True
        self.seen = []
        listed = self.request("tools/list", {"_meta": envelope(OUTPUTS_VERSION, UI_EXTENSIONS)})
        self.tools = {t["name"]: t for t in listed["result"]["tools"]}

    def close(self) -> None:
        self.connection.close()


class EndpointConnection:
    """Requests to one MCP endpoint over streamable HTTP, each a stateless one (its headers from its envelope)."""

    def __init__(self, url: str, headers: Mapping[str, str], *, client: httpx.Client | None = None) -> None:
        self.url = url
        self.headers = dict(headers)
        self.http = client or httpx.Client(timeout=120)
        self._ids = itertools.count(1)
        self.notifications: list[dict[str, Any]] = []  # a stateless POST's answer carries none we keep

    def post(self, method: str, params: dict[str, Any], headers: Mapping[str, str] | Sequence[tuple[str, str]] = ()) -> httpx.Response:
        version = ((params.get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")) or "2025-11-25"
        routing = {"MCP-Protocol-Version": version, "Mcp-Method": method, **({"Mcp-Name": params["name"]} if "name" in params else {})}
        return self.http.post(self.url, content=json.dumps({"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}),
                              headers={"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                                       **routing, **self.headers, **dict(headers)})

    def request(self, method: str, params: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        response = self.post(method, params)
        assert response.status_code == 200, (response.status_code, response.text[:500])
        return [m for m in parse_messages(response) if "id" in m][-1]

    def close(self) -> None:
        self.http.close()
