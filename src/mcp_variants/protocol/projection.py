"""Project one internal result into exactly the requested outputs, or the legacy pair.

A tool runs once and yields one value; each requested selector gets one output
made from it by that selector's projector. Nothing unrequested is produced, so
nothing unrequested can leak.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .errors import INTERNAL_ERROR, ErrorKind, ProtocolError, ToolError
from .types import ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, Output, Selector, ToolDeclaration
from .validation import OutputValidators
from .versions import Era

Projector = Callable[[Any], Any]


@dataclass(frozen=True)
class Outcome:
    """What one tool execution produced: a value or a failure, and result `_meta`."""

    value: Any = None
    failure: ToolError | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolProjectors:
    """A tool's projectors: one per declared selector, and optional error ones."""

    success: Mapping[Selector, Projector]
    errors: Mapping[Selector, Callable[[ToolError], Any]] = field(default_factory=dict)
    established_structured: Projector | None = None  # an established tool's structuredContent, as it made it


def default_error_projection(selector: Selector, failure: ToolError) -> Any:
    """The one declared error shape (variants/shapes/error.json) or a text block."""
    if selector.format == "content":
        return [{"type": "text", "text": failure.message}]
    return {"error": {"type": str(failure.kind), "message": failure.message, **failure.details}}


def build_result(
    declaration: ToolDeclaration,
    selectors: tuple[Selector, ...],
    era: Era,
    outcome: Outcome,
    projectors: ToolProjectors,
    validators: OutputValidators,
) -> BuiltResult:
    """The wire CallToolResult for this era (`outputs`, or `content` and `structuredContent`), and the
    schema breach it stands in for when a success output broke its schema: a bug for the caller to log."""
    breach: SchemaBreach | None = None
    if outcome.failure is None:
        try:
            result = _success(declaration, selectors, era, outcome.value, projectors, validators)
        except SchemaBreach as found:
            breach = found
            failure = invalid_output(declaration.name)
            result = _failure(declaration, selectors, era, failure, projectors, validators)
    else:
        result = _failure(declaration, selectors, era, outcome.failure, projectors, validators)
    if outcome.meta:
        result["_meta"] = dict(outcome.meta)
    return BuiltResult(result, breach)


def invalid_output(tool: str) -> ToolError:
    """What every requested audience is told when a success output broke its own schema (docs/choices.md, "An
    output that breaks its schema"). The tool ran, so no output may say it did not; the result cannot be delivered,
    since a successful result holds every requested output and each structured one conforms (SEP-3279). It names
    the tool and no variant or field: an assistant output must not describe another audience's output, and the
    value may not be for this audience. The author reads the variant, the field and the problem in the log."""
    return ToolError(ErrorKind.INVALID_OUTPUT,
                     f"{tool} ran, but its result does not match the output schema it declares, so it cannot be returned "
                     "(a bug in the server; its log names the field). What the tool did is done: do not assume it did not run.")


class SchemaBreach(Exception):
    """A projected structured output that breaks its variant's schema (at most five problems named)."""

    def __init__(self, tool: str, selector: Selector, problems: list[str]) -> None:
        super().__init__(f"tool {tool}: its {selector} output breaks the schema: {'; '.join(problems[:5])}")
        self.tool = tool
        self.selector = selector


class BuiltResult(NamedTuple):
    result: dict[str, Any]
    breach: SchemaBreach | None = None


def _checked(
    declaration: ToolDeclaration, selector: Selector, value: Any, validators: OutputValidators, *, is_error: bool
) -> Any:
    if selector.format == "structured":
        problems = validators.problems(declaration.name, selector, value, is_error=is_error)
        if problems:
            raise SchemaBreach(declaration.name, selector, problems)
    elif not (isinstance(value, list) and all(isinstance(block, dict) and isinstance(block.get("type"), str) for block in value)):
        # A content output is an array of content blocks: a projector's bare string or object would reach the client
        # as it is, a result no client can read.
        raise SchemaBreach(declaration.name, selector, [f"a content output is a list of content blocks (objects with a "
                                                        f"type), not {_shown(value)}"])
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _success(
    declaration: ToolDeclaration,
    selectors: tuple[Selector, ...],
    era: Era,
    value: Any,
    projectors: ToolProjectors,
    validators: OutputValidators,
) -> dict[str, Any]:
    def one(selector: Selector) -> Any:
        return _checked(declaration, selector, projectors.success[selector](value), validators, is_error=False)

    if era is Era.OUTPUTS:
        outputs = [Output(s, one(s)) for s in selectors]
        if declaration.established:
            outputs = [Output(o.selector, usable_content(o.value, value, projectors, declaration.established_output_schema))
                       if o.selector == ASSISTANT_CONTENT else o for o in outputs]
        return {"outputs": [o.to_wire() for o in outputs]}
    if declaration.established:  # as before it declared variants: its content, outputSchema and structuredContent
        result: dict[str, Any] = {"content": one(ASSISTANT_CONTENT)}
        if declaration.established_output_schema is not None and projectors.established_structured is not None:
            result["structuredContent"] = projectors.established_structured(value)
        return result
    result = {"content": legacy_content(one(ASSISTANT_CONTENT), era)}
    if legacy_output_schema(declaration, era) is not None:
        result["structuredContent"] = one(ASSISTANT_STRUCTURED)
    return result


def usable_content(blocks: list[dict[str, Any]], value: Any, projectors: ToolProjectors,
                   output_schema: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """An established tool's assistant/content at 2026-12-01, which MUST be a usable model representation (SEP-3279;
    older versions keep the content the tool always sent them, as a tool that already served them SHOULD): as it is,
    unless it carries nothing (the SDKs' content for a tool that returned None, an empty list or an empty string), then
    one text block of the JSON of the value; of its established structuredContent when the value is no JSON (a
    framework's own result object, a plain tool's), the value a framework wrapped there (`unwrapped`), so that it reads
    as a migrated tool's; else `null`."""
    if any(block.get("type") != "text" or block.get("text") for block in blocks):
        return blocks
    structured = (unwrapped(projectors.established_structured(value), output_schema),) if projectors.established_structured else ()
    for shown in (value, *structured):
        try:
            return [{"type": "text", "text": json.dumps(shown, ensure_ascii=False)}]
        except (TypeError, ValueError):
            continue
    return [{"type": "text", "text": "null"}]


def unwrapped(structured: Any, output_schema: dict[str, Any] | None) -> Any:
    """The value in a framework's structuredContent of a return value that is no object: MCPServer and FastMCP send
    `{"result": value}` under an outputSchema of that one required property. Any other structuredContent as it is."""
    wraps = output_schema is not None and set(output_schema.get("properties") or ()) == {"result"} \
        and output_schema.get("required") == ["result"]
    if wraps and isinstance(structured, dict) and structured.keys() == {"result"}:
        return structured["result"]
    return structured


def _failure(
    declaration: ToolDeclaration,
    selectors: tuple[Selector, ...],
    era: Era,
    failure: ToolError,
    projectors: ToolProjectors,
    validators: OutputValidators,
) -> dict[str, Any]:
    def one(selector: Selector) -> Any:
        project = projectors.errors.get(selector)
        value = project(failure) if project else default_error_projection(selector, failure)
        return _checked(declaration, selector, value, validators, is_error=True)

    if era is Era.OUTPUTS:
        try:
            outputs = [Output(s, one(s)).to_wire() for s in selectors]
        except SchemaBreach as breach:
            # No requested representation of the error can be produced: a protocol error,
            # never an empty or partial `outputs` array.
            raise ProtocolError(INTERNAL_ERROR, f"{declaration.name} failed and its error could not be represented",
                                {"tool": declaration.name}) from breach
        return {"outputs": outputs, "isError": True}
    # Legacy eras: content only on errors; structuredContent is the success contract.
    content = one(ASSISTANT_CONTENT)
    return {"content": content if declaration.established else legacy_content(content, era), "isError": True}


def legacy_content(blocks: list[dict[str, Any]], era: Era) -> list[dict[str, Any]]:
    """Content blocks an older era can carry: resource_link came with 2025-06-18, so before it a link
    is a text block naming the resource (docs/choices.md, "Images")."""
    if era is not Era.CONTENT_ONLY:
        return blocks
    return [{"type": "text", "text": f"[{b.get('mimeType', 'resource')} at {b['uri']}: resources/read returns it]"}
            if b.get("type") == "resource_link" else b for b in blocks]


def legacy_output_schema(declaration: ToolDeclaration, era: Era) -> dict[str, Any] | None:
    """The legacy outputSchema: an established tool's own at every older version (SEP-3279: SHOULD preserve);
    else assistant/structured's schema where the era allows it.

    Never a user, programmatic or extension schema (SEP-3279 "Servers handling older
    requests"). 2025-06-18 and 2025-11-25 need an object root; without one, the tool
    is listed and answered with content only.
    """
    if era is Era.OUTPUTS:
        return None
    if declaration.established:  # its own, at every older version, as it listed it before it declared variants
        return declaration.established_output_schema
    if era is Era.CONTENT_ONLY:
        return None
    variant = declaration.variant(ASSISTANT_STRUCTURED)
    if variant is None or variant.schema is None:
        return None
    if era is Era.LEGACY_OBJECT and variant.schema.get("type") != "object":
        return None
    return variant.schema
