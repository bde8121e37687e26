"""Migrating an existing `MCPServer` tool to declared variants, by the inferences SEP-3279 allows an SDK.

- Its legacy `content` (what MCPServer makes of the return value) becomes `assistant/content`, so an old
  client's answer does not change.
- Its legacy `outputSchema` (from the return annotation) becomes one structured variant only when the
  author names the audience: `programmatic` (code uses it) or `assistant` (the model reads it). Never
  both, and never an extension's: the SEP forbids inferring that one outputSchema suits several audiences.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult

from ..protocol.errors import DeclarationError
from ..protocol.types import ASSISTANT_STRUCTURED, Selector
from ._declare import Legacy, VariantSpec, declaration, projectors_for, variant
from ._toolset import ToolSet, VariantTool

StructuredAudience = Literal["programmatic", "assistant"]
"""The one audience a legacy `outputSchema` may become the structured variant of (`legacy_tool(structured=...)`)."""

def legacy_variants(fn: Callable[..., Any], structured: StructuredAudience | None = None,
                    beside: Sequence[VariantSpec] = (), structured_output: bool | None = None) -> tuple[list[VariantSpec], Legacy]:
    """The variants a legacy tool already has (assistant/content, and with `structured` its outputSchema for that
    one audience), and its established shape, which older versions keep. ValueError when `structured` names another
    audience, or the tool has no outputSchema.

    The tool is read as `@mcp.tool(structured_output=...)` registers it (None: structured output inferred from the
    return annotation; False: none, as the tool had), so what it lists and answers does not change."""
    legacy = Tool.from_function(fn, structured_output=structured_output).fn_metadata

    def converted(value: Any) -> CallToolResult:
        result = legacy.convert_result(value)
        if not isinstance(result, CallToolResult):  # an InputRequiredResult: a multi-round tool, not a legacy one
            raise TypeError(f"{getattr(fn, '__name__', fn)!r} returned {type(result).__name__}, which has no legacy content")
        return result

    specs = inferred_variants(fn, structured, legacy.output_schema, converted, beside)
    return specs, established_shape(legacy.output_schema, converted)


def established_shape(output_schema: dict[str, Any] | None, converted: Callable[[Any], Any]) -> Legacy:
    """What a framework listed and answered for a tool before it declared variants, which older versions keep: its
    outputSchema, and the structuredContent of its conversion of the return value (`converted`, as for
    `inferred_variants`), whichever variant that schema became. SEP-3279 forbids projecting a programmatic schema into
    the legacy outputSchema of a new tool only; a tool that already served older versions SHOULD keep its own."""
    return Legacy(output_schema, lambda value: converted(value).structured_content)


def check_audience(structured: object) -> None:
    """ValueError unless `structured` is None or one audience a legacy outputSchema may map to."""
    if structured not in (None, "programmatic", "assistant"):
        raise ValueError(f"a legacy outputSchema maps to one audience, programmatic or assistant, not {structured!r}")


def inferred_variants(fn: Callable[..., Any], structured: StructuredAudience | None, output_schema: dict[str, Any] | None,
                      converted: Callable[[Any], Any], beside: Sequence[VariantSpec] = ()) -> list[VariantSpec]:
    """The SEP's inferences, whichever framework's conversion of the return value `converted` is (a result with
    `content` blocks and `structured_content`): its content as assistant/content; with `structured`, its
    outputSchema as that one audience's structured variant. Without it, assistant/structured when the tool has an
    outputSchema and the variants declared `beside` these have no assistant/structured of their own: what its plain
    `@mcp.tool` is served as at 2026-12-01 (`plain_tool`), and the schema SEP-3279 maps a legacy outputSchema to.
    ValueError when `structured` names another audience."""
    check_audience(structured)
    if structured is None and output_schema is not None and all(spec.selector != ASSISTANT_STRUCTURED for spec in beside):
        structured = "assistant"

    def content(value: Any) -> Any:
        return [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in converted(value).content]

    specs = [variant("assistant/content", project=content)]
    if structured:
        if output_schema is None:
            name = getattr(fn, "__name__", repr(fn))
            raise DeclarationError(name, "a legacy outputSchema is what becomes the structured variant",
                                   f"it has none to declare as {structured}/structured (its return annotation gives "
                                   "none: no annotation, or a bare dict or Any): drop structured=, or annotate the "
                                   "return with a model or a typed dict")
        specs.append(variant(Selector(structured, "structured"), output_schema,
                             project=lambda value: converted(value).structured_content))
    return specs


def plain_tool(listed: Mapping[str, Any]) -> VariantTool:
    """A tool the framework serves itself, from its tools/list entry, as 2026-12-01 serves it (where a tool without
    outputVariants is invalid): its content as assistant/content and, when it lists an outputSchema, its
    structuredContent as assistant/structured, the one structured variant the SEP maps a legacy outputSchema to.
    What `legacy_tool(structured="assistant")` would declare, for a server migrated a tool at a time."""

    def content(result: CallToolResult) -> list[dict[str, Any]]:
        return [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]

    specs = [variant("assistant/content", project=content)]
    if listed.get("outputSchema") is not None:
        specs.append(variant("assistant/structured", listed["outputSchema"], project=lambda result: result.structured_content))
    name = str(listed["name"])
    established = established_shape(listed.get("outputSchema"), lambda result: result)
    return VariantTool(declaration(name, specs, input_schema=listed.get("inputSchema") or {"type": "object"},
                                   description=listed.get("description") or "", title=listed.get("title"),
                                   annotations=listed.get("annotations"), legacy=established),
                       projectors_for(name, specs, legacy=established))


class PlainTools:
    """The 2026-12-01 declarations of a framework's own tools (as `legacy_tool(structured="assistant")` would declare
    them), each made the first time it is listed or called (and again when its schemas change: a tool replaced at run
    time). MCPServer's layer and FastMCP's share it."""

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

    def made(self, name: str) -> ToolSet | None:
        """The tool's ToolSet if it was declared already (listed or called before)."""
        made = self._made.get(name)
        return made[1] if made is not None else None
