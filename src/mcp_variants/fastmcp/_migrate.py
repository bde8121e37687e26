"""Migrating an existing FastMCP tool to declared variants, by the inferences SEP-3279 allows an SDK (as
`mcp_variants.sdk` does for MCPServer, with FastMCP's own conversion of a return value).

- Its legacy `content` (what FastMCP makes of the return value: `Tool.convert_result`) becomes `assistant/content`,
  so an old client's content does not change.
- Its legacy `outputSchema` (from the return annotation, FastMCP's `{"result": ...}` wrapping included) becomes one
  structured variant only when the author names the audience, `programmatic` or `assistant`. Never both, and never
  an extension's: the SEP forbids inferring that one outputSchema suits several audiences.
- Its legacy results keep FastMCP's mark of a wrapped `structuredContent` (`_meta` `fastmcp.wrap_result`, which
  FastMCP's own `Client` reads to unwrap `result`): `with_wrap_mark`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fastmcp.tools import Tool

from ..protocol.types import ASSISTANT_STRUCTURED, ToolDeclaration
from ..sdk import VariantSpec
from ..sdk.framework import Legacy, StructuredAudience, established_shape, inferred_variants

WRAP_MARK = "x-fastmcp-wrap-result"
"""FastMCP's mark on an outputSchema it wrapped as `{"result": ...}` (a return annotation that is not an object)."""


def legacy_variants(fn: Callable[..., Any], structured: StructuredAudience | None = None,
                    beside: Sequence[VariantSpec] = ()) -> list[VariantSpec]:
    """The variants a legacy FastMCP tool already has: assistant/content, and its outputSchema as `structured`'s
    structured variant (without it: assistant/structured, unless `beside`, the variants declared with them, has one).
    ValueError when `structured` names another audience, or the tool has no outputSchema."""
    return migrated(fn, structured, beside)[0]


def migrated(fn: Callable[..., Any], structured: StructuredAudience | None = None,
             beside: Sequence[VariantSpec] = ()) -> tuple[list[VariantSpec], Legacy]:
    """`legacy_variants`, and what FastMCP listed and answered for the tool before it declared variants, which older
    versions keep: the tool read once, as FastMCP registers it."""
    legacy = Tool.from_function(fn)
    return (inferred_variants(fn, structured, legacy.output_schema, legacy.convert_result, beside),
            established_shape(legacy.output_schema, legacy.convert_result))


def with_wrap_mark(result: dict[str, Any], declaration: ToolDeclaration) -> dict[str, Any]:
    """A legacy result as FastMCP would have sent it: where its `structuredContent` is the assistant/structured output
    of a schema FastMCP marked wrapped, `_meta` `{"fastmcp": {"wrap_result": true}}` beside it, as FastMCP's
    `Tool.convert_result` puts it. Any other result (2026-12-01's outputs, a failure, content only) as it is."""
    if declaration.established:
        schema = declaration.established_output_schema
    else:
        variant = declaration.variant(ASSISTANT_STRUCTURED)
        schema = variant.schema if variant is not None else None
    if "structuredContent" not in result or result.get("isError") or schema is None or schema.get(WRAP_MARK) is not True:
        return result
    meta = result.get("_meta") or {}
    return {**result, "_meta": {**meta, "fastmcp": {**(meta.get("fastmcp") or {}), "wrap_result": True}}}
