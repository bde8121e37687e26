"""Migrating an existing FastMCP tool to declared variants, by the inferences SEP-3279 allows an SDK (as
`mcp_variants.sdk`'s _migrate.py does for MCPServer, with FastMCP's own conversion of a return value).

- Its legacy `content` (what FastMCP makes of the return value: `Tool.convert_result`) becomes `assistant/content`,
  so an old client's content does not change.
- Its legacy `outputSchema` (from the return annotation, FastMCP's `{"result": ...}` wrapping included) becomes one
  structured variant only when the author names the audience, `programmatic` or `assistant`. Never both, and never
  an extension's: the SEP forbids inferring that one outputSchema suits several audiences.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastmcp.tools import Tool

from ..sdk import VariantSpec
from ..sdk._migrate import StructuredAudience, check_audience, inferred_variants


def legacy_variants(fn: Callable[..., Any], structured: StructuredAudience | None = None) -> list[VariantSpec]:
    """The variants a legacy FastMCP tool already has: assistant/content, and with `structured` its outputSchema for
    that one audience. ValueError when `structured` names another audience, or the tool has no outputSchema."""
    check_audience(structured)
    legacy = Tool.from_function(fn)
    return inferred_variants(fn, structured, legacy.output_schema, legacy.convert_result)
