"""The schemas this layer lists for a FastMCP server, self-contained when FastMCP's own are.

FastMCP inlines every `$ref` of the schemas it lists (its default `FastMCP(dereference_schemas=True)` adds a
`DereferenceRefsMiddleware` to `server.middleware`): some clients resolve no `$ref`. Our tools' output schemas are
listed by the layer, not by FastMCP, so they are inlined here the same way, by FastMCP's own `dereference_refs` and
on the same condition, so that a migrated tool's legacy `outputSchema` is FastMCP's byte for byte and a 2026-12-01
client gets `outputVariants` schemas as self-contained as the rest of the listing. A server without that middleware
(`dereference_schemas=False`, or removed from `server.middleware`) keeps its `$ref`s, as FastMCP keeps them.

Only the listing changes: outputs are still checked against the declared schemas, which the inlined ones equal.
"""

from __future__ import annotations

from typing import Any

from fastmcp import FastMCP
from fastmcp.server.middleware.dereference import DereferenceRefsMiddleware
from fastmcp.utilities.json_schema import dereference_refs


def dereferences_schemas(server: FastMCP[Any]) -> bool:
    """Whether the server inlines the `$ref`s of the schemas it lists, read from its middleware at each listing (a
    user may add or remove FastMCP's DereferenceRefsMiddleware after `Variants(mcp)`)."""
    return any(isinstance(middleware, DereferenceRefsMiddleware) for middleware in server.middleware)


def dereferenced_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A tools/list entry of ours with its output schemas inlined: the legacy `outputSchema`, or each
    `outputVariants[].schema` at 2026-12-01. Its inputSchema is FastMCP's, which FastMCP already inlined."""
    inlined = dict(entry)
    if isinstance(entry.get("outputSchema"), dict):
        inlined["outputSchema"] = _inlined(entry["outputSchema"])
    if isinstance(entry.get("outputVariants"), list):
        inlined["outputVariants"] = [{**v, "schema": _inlined(v["schema"])} if isinstance(v.get("schema"), dict) else v
                                     for v in entry["outputVariants"]]
    return inlined


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema as FastMCP lists one: through `dereference_refs` when it has `$defs` or a `$ref`, else as it is
    (FastMCP leaves such a schema untouched, and so must we, byte for byte)."""
    return dereference_refs(schema) if "$defs" in schema or _has_ref(schema) else schema


def _has_ref(node: Any) -> bool:
    if isinstance(node, dict):
        return "$ref" in node or any(_has_ref(value) for value in node.values())
    if isinstance(node, list):
        return any(_has_ref(item) for item in node)
    return False
