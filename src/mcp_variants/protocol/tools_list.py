"""A tool's tools/list entry for the era of the request."""

from __future__ import annotations

from typing import Any

from .projection import legacy_output_schema
from .types import ToolDeclaration
from .versions import Era


def tool_entry(declaration: ToolDeclaration, era: Era, negotiated_extensions: frozenset[str]) -> dict[str, Any]:
    """`outputVariants` at 2026-12-01 (extension variants only when negotiated);
    the legacy `outputSchema` before it, and never both."""
    entry: dict[str, Any] = {"name": declaration.name, "description": declaration.description}
    if declaration.title:
        entry["title"] = declaration.title
    entry["inputSchema"] = declaration.input_schema
    if era is Era.OUTPUTS:
        entry["outputVariants"] = [v.to_wire() for v in declaration.offered(negotiated_extensions)]
    else:
        schema = legacy_output_schema(declaration, era)
        if schema is not None:
            entry["outputSchema"] = schema
    if declaration.annotations:
        entry["annotations"] = declaration.annotations
    if declaration.meta:
        entry["_meta"] = declaration.meta
    return entry
