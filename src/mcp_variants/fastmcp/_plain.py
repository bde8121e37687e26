"""FastMCP's own tools (a plain `@mcp.tool`) on a server with `Variants`, at 2026-12-01: served as if migrated with
`legacy_tool()`, so a server can migrate one tool at a time.

A 2026-12-01 client must treat a tool listed without `outputVariants` as invalid, and such a tool would ignore the
call's `requestedOutputs`. So, at 2026-12-01 only, each is declared as `legacy_tool()` would declare it: what FastMCP
sends as its `content` is `assistant/content`, and where FastMCP lists an outputSchema, that schema is
`assistant/structured` with FastMCP's `structuredContent` (the SEP's inferences for an SDK; the assistant's, never the
programmatic audience's). FastMCP still runs the tool as it always has; older versions see nothing of this.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastmcp.tools import ToolResult

from ..protocol.errors import DeclarationError
from ..sdk import VariantSpec, variant
from ..sdk._declare import projectors_for
from ..sdk.lowlevel import ToolSet, VariantTool, declaration

logger = logging.getLogger(__name__)


class PlainTools:
    """The declarations of FastMCP's own tools, each made the first time it is listed or called at 2026-12-01 (and
    again when its schemas change: a tool replaced at run time)."""

    def __init__(self) -> None:
        self._made: dict[str, tuple[Any, ToolSet]] = {}

    def tools(self, name: str, input_schema: Mapping[str, Any], output_schema: Mapping[str, Any] | None) -> ToolSet:
        """A ToolSet holding this one tool, declared from FastMCP's schemas for it."""
        key = (dict(input_schema), dict(output_schema) if output_schema is not None else None)
        made = self._made.get(name)
        if made is None or made[0] != key:
            made = self._made[name] = (key, ToolSet([_declared(name, input_schema, output_schema)]))
        return made[1]


def _declared(name: str, input_schema: Mapping[str, Any], output_schema: Mapping[str, Any] | None) -> VariantTool:
    content = variant("assistant/content", project=_content)
    specs: list[VariantSpec] = [content]
    if output_schema is not None:
        specs.append(variant("assistant/structured", dict(output_schema), project=_structured))
    try:
        made = declaration(name, specs, input_schema=input_schema)
    except DeclarationError as exc:  # an outputSchema the SEP refuses as a variant's: the tool keeps its content
        logger.warning("FastMCP tool %r is served at 2026-12-01 with assistant/content only: %s", name, exc)
        specs = [content]
        made = declaration(name, specs, input_schema=input_schema)
    return VariantTool(made, projectors_for(name, specs))


def _content(result: ToolResult) -> list[dict[str, Any]]:
    return [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]


def _structured(result: ToolResult) -> Any:
    return result.structured_content
