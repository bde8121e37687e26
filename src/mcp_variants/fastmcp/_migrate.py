"""Migrating an existing FastMCP tool to declared variants, by the inferences SEP-3279 allows an SDK (as
`mcp_variants.sdk`'s migrate.py does for MCPServer, with FastMCP's own conversion of a return value).

- Its legacy `content` (what FastMCP makes of the return value: `Tool.convert_result`) becomes `assistant/content`,
  so an old client's content does not change.
- Its legacy `outputSchema` (from the return annotation, FastMCP's `{"result": ...}` wrapping included) becomes one
  structured variant only when the author names the audience, `programmatic` or `assistant`. Never both, and never
  an extension's: the SEP forbids inferring that one outputSchema suits several audiences.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from fastmcp.tools import Tool, ToolResult

from ..protocol.types import Selector
from ..sdk import VariantSpec, variant

StructuredAudience = Literal["programmatic", "assistant"]


def legacy_variants(fn: Callable[..., Any], structured: StructuredAudience | None = None) -> list[VariantSpec]:
    """The variants a legacy FastMCP tool already has: assistant/content, and with `structured` its outputSchema for
    that one audience. ValueError when `structured` names another audience, or the tool has no outputSchema."""
    if structured not in (None, "programmatic", "assistant"):
        raise ValueError(f"a legacy outputSchema maps to one audience, programmatic or assistant, not {structured!r}")
    legacy = Tool.from_function(fn)

    def converted(value: Any) -> ToolResult:
        return legacy.convert_result(value)

    def content(value: Any) -> list[dict[str, Any]]:
        return [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in converted(value).content]

    specs = [variant("assistant/content", project=content)]
    if structured:
        if legacy.output_schema is None:
            raise ValueError(f"{getattr(fn, '__name__', fn)!r} has no outputSchema (no return annotation FastMCP reads) "
                             f"to declare as {structured}/structured")
        specs.append(variant(Selector(structured, "structured"), legacy.output_schema,
                             project=lambda value: converted(value).structured_content))
    return specs
