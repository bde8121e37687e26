"""A raw stdio server (standard library only) with a ui view whose Apps extension it does not serve.

Its one tool lists the io.modelcontextprotocol/ui/structured variant and `_meta.ui.resourceUri` to a client that
negotiates the extension, but server/discover advertises no extension and the ui:// view cannot be read: what
`Variants(apps=apps)` with `apps` missing from `MCPServer(extensions=[...])` once served. Written without any SDK
so that the suite's verdict does not rest on an SDK refusing to start it. Everything else it does by the SEP.

    python tests/conformance/servers/apps_not_served.py
"""

from __future__ import annotations

import json
import sys
from typing import Any

VERSION = "2026-12-01"
UI = "io.modelcontextprotocol/ui"
VIEW = "ui://chart/view.html"
SCHEMA = {"type": "object", "required": ["points"], "properties": {"points": {"type": "array", "items": {"type": "number"}}}}
CORE = [{"audience": "assistant", "format": "content"}, {"audience": "programmatic", "format": "structured", "schema": SCHEMA}]
UI_VARIANT = {"audience": UI, "format": "structured", "schema": SCHEMA}


def negotiated(params: dict[str, Any]) -> bool:
    capabilities = (params.get("_meta") or {}).get("io.modelcontextprotocol/clientCapabilities") or {}
    return UI in (capabilities.get("extensions") or {})


def tool(ui: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": "chart", "description": "A chart of the points.", "inputSchema": {"type": "object"},
                             "annotations": {"readOnlyHint": True}, "outputVariants": [*CORE, *([UI_VARIANT] if ui else [])]}
    if ui:
        entry["_meta"] = {"ui": {"resourceUri": VIEW}}
    return entry


def output(selector: dict[str, str]) -> dict[str, Any]:
    if selector["format"] == "content":
        return {**selector, "content": [{"type": "text", "text": "1, 2, 3"}]}
    return {**selector, "structuredContent": {"points": [1, 2, 3]}}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The result, or {"error": ...}."""
    version = (params.get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")
    if method == "initialize":
        return {"protocolVersion": VERSION, "capabilities": {"tools": {}}, "serverInfo": {"name": "apps-not-served", "version": "1"}}
    if version != VERSION:
        return {"error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": [VERSION]}}}
    if method == "server/discover":
        return {"supportedVersions": [VERSION], "capabilities": {"tools": {}, "resources": {}}, "ttlMs": 0, "cacheScope": "private",
                "resultType": "complete"}
    if method == "tools/list":
        return {"tools": [tool(negotiated(params))], "ttlMs": 0, "cacheScope": "private", "resultType": "complete"}
    if method == "resources/read":
        return {"error": {"code": -32602, "message": "Resource not found", "data": {"uri": params.get("uri")}}}
    if method == "tools/call":
        declared = [{"audience": v["audience"], "format": v["format"]} for v in tool(negotiated(params))["outputVariants"]]
        requested = params.get("requestedOutputs") or [declared[0]]
        pairs = [(s.get("audience"), s.get("format")) for s in requested if isinstance(s, dict)]
        if params.get("name") != "chart" or len(pairs) != len(requested) or len(set(pairs)) != len(pairs) or any(
                {"audience": a, "format": f} not in declared for a, f in pairs):
            return {"error": {"code": -32602, "message": "Invalid params: unknown tool or selector"}}
        return {"outputs": [output({"audience": a, "format": f}) for a, f in pairs], "resultType": "complete"}
    return {"error": {"code": -32601, "message": f"Method not found: {method}"}}


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue
        result = answer(message["method"], message.get("params") or {})
        reply = {"jsonrpc": "2.0", "id": message["id"], **({"error": result["error"]} if "error" in result else {"result": result})}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
