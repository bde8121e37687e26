"""FastMCP's own tools (a plain `@mcp.tool`) on a server with `Variants`, at 2026-12-01: served as if migrated with
`legacy_tool()`, so a server can migrate one tool at a time.

A 2026-12-01 client must treat a tool listed without `outputVariants` as invalid, and such a tool would ignore the
call's `requestedOutputs`. So, at 2026-12-01 only, each is declared as the SDK layer declares MCPServer's own tools
(`sdk/_migrate.py`'s `plain_tool`): FastMCP's `content` as `assistant/content` and, where FastMCP lists an
outputSchema, its `structuredContent` as `assistant/structured` (a FastMCP `ToolResult` has both, as the SDK's
`CallToolResult` has). FastMCP still runs the tool as it always has; older versions see nothing of this.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..sdk._migrate import plain_tool
from ..sdk.lowlevel import ToolSet


class PlainTools:
    """The declarations of FastMCP's own tools, each made the first time it is listed or called at 2026-12-01 (and
    again when its schemas change: a tool replaced at run time)."""

    def __init__(self) -> None:
        self._made: dict[str, tuple[Any, ToolSet]] = {}

    def tools(self, listed: Mapping[str, Any]) -> ToolSet:
        """A ToolSet holding this one tool, declared from its tools/list entry (`name`, `inputSchema`, `outputSchema`)."""
        name = str(listed["name"])
        key = (listed.get("inputSchema"), listed.get("outputSchema"))
        made = self._made.get(name)
        if made is None or made[0] != key:
            made = self._made[name] = (key, ToolSet([plain_tool(listed)]))
        return made[1]
