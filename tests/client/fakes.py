"""A crafted server behind the Transport seam: the client is under test, not the server.

`FakeServer` answers initialize, server/discover, tools/list and tools/call from Python,
so a test can hand the client exactly the broken response a rule is about.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcp_variants.client.transport import Routing

UI = "io.modelcontextprotocol/ui"
UI_CAPS = {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}
VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2026-12-01"]
META_SECRET = "META-SECRET-must-never-reach-a-sink"

ANSWER_SCHEMA = {
    "type": "object",
    "required": ["answer"],
    "properties": {"answer": {"type": "integer"}},
    "additionalProperties": False,
}
PROGRAM_SCHEMA = {"type": "object", "required": ["rows"], "properties": {"rows": {"type": "array"}}}
VIEW_SCHEMA = {"type": "object", "required": ["view"], "properties": {"view": {"const": "table"}}}
USER_SCHEMA = {"type": "array", "items": {"type": "string"}}


def sel(audience: str, fmt: str) -> dict[str, str]:
    return {"audience": audience, "format": fmt}


# A tool declaring every core variant and the ui one, each structured variant with its own schema.
CRAFTED_TOOL: dict[str, Any] = {
    "name": "crafted",
    "inputSchema": {"type": "object"},
    "outputVariants": [
        sel("assistant", "content"),
        {**sel("assistant", "structured"), "schema": ANSWER_SCHEMA},
        {**sel("programmatic", "structured"), "schema": PROGRAM_SCHEMA},
        sel("user", "content"),
        {**sel("user", "structured"), "schema": USER_SCHEMA},
        {**sel(UI, "structured"), "schema": VIEW_SCHEMA},
    ],
}

# One good payload per selector, each carrying a marker naming its audience.
GOOD_OUTPUTS: dict[tuple[str, str], dict[str, Any]] = {
    ("assistant", "content"): {
        **sel("assistant", "content"),
        "content": [{"type": "text", "text": "for-the-model"}],
    },
    ("assistant", "structured"): {**sel("assistant", "structured"), "structuredContent": {"answer": 42}},
    ("programmatic", "structured"): {
        **sel("programmatic", "structured"),
        "structuredContent": {"rows": ["for-the-program"]},
    },
    ("user", "content"): {**sel("user", "content"), "content": [{"type": "text", "text": "for-the-user"}]},
    ("user", "structured"): {**sel("user", "structured"), "structuredContent": ["for-the-user-table"]},
    (UI, "structured"): {
        **sel(UI, "structured"),
        "structuredContent": {"view": "table", "marker": "for-the-view"},
    },
}


def echo_outputs(params: dict[str, Any]) -> dict[str, Any]:
    """A correct server: exactly the requested outputs (assistant/content when none), plus _meta."""
    requested = params.get("requestedOutputs") or [sel("assistant", "content")]
    outputs = [GOOD_OUTPUTS[(s["audience"], s["format"])] for s in requested]
    return {"resultType": "complete", "outputs": outputs, "_meta": {"io.example/secret": META_SECRET}}


class FakeServer:
    """A Transport answering from Python. `call` builds the tools/call result from its params."""

    def __init__(
        self,
        tools: list[dict[str, Any]] | None = None,
        call: Callable[[dict[str, Any]], dict[str, Any]] = echo_outputs,
        *,
        extensions: dict[str, Any] | None = None,
    ) -> None:
        self.tools = [CRAFTED_TOOL] if tools is None else tools
        self.call = call
        self.extensions = UI_CAPS if extensions is None else extensions
        self.sent: list[bytes] = []
        self.calls: list[dict[str, Any]] = []  # params of every tools/call that reached the "server"

    def request(self, body: bytes, routing: Routing, timeout: float) -> dict[str, Any]:
        self.sent.append(body)
        message = json.loads(body)
        method, params = message["method"], message.get("params") or {}
        capabilities = {"tools": {}, "extensions": self.extensions}
        if method == "server/discover":
            result: dict[str, Any] = {"supportedVersions": VERSIONS, "capabilities": capabilities}
        elif method == "initialize":
            result = {
                "protocolVersion": params["protocolVersion"],
                "capabilities": capabilities,
                "serverInfo": {"name": "fake", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": self.tools}
        elif method == "tools/call":
            self.calls.append(params)
            result = self.call(params)
        else:
            return {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32601, "message": "no such method"},
            }
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}

    def notify(self, body: bytes, routing: Routing) -> None:
        self.sent.append(body)

    def close(self) -> None:
        pass

    def written(self) -> list[dict[str, Any]]:
        return [json.loads(b) for b in self.sent]
