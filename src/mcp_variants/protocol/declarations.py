"""Parse tool declarations and enforce SEP-3279's declaration rules.

A declaration that breaks a rule raises DeclarationError naming the tool and the
rule; the server refuses to start rather than serve a tool a client cannot trust.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema_rs

from .errors import DeclarationError
from .types import (
    ASSISTANT_CONTENT,
    Selector,
    ToolDeclaration,
    UnknownCombination,
    Variant,
    unknown_combination,
)

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def parse_declaration(raw: Mapping[str, Any]) -> ToolDeclaration:
    """Turn one variants/<tool>.json document into a checked ToolDeclaration."""
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise DeclarationError(str(name), "a tool has a name", "missing or not a string")
    input_schema = raw.get("inputSchema")
    if not isinstance(input_schema, dict) or input_schema.get("type") != "object":
        raise DeclarationError(name, "inputSchema is an object schema", "inputSchema must have type 'object'")
    check_schema(name, "inputSchema", input_schema)
    raw_variants = raw.get("outputVariants")
    if not isinstance(raw_variants, list):
        raise DeclarationError(name, "a tool declares outputVariants", "outputVariants must be a list")
    variants = tuple(_parse_variant(name, item) for item in raw_variants)
    _check_variants(name, variants)
    return ToolDeclaration(
        name=name,
        title=raw.get("title"),
        description=str(raw.get("description", "")),
        input_schema=input_schema,
        variants=variants,
        annotations=raw.get("annotations"),
        meta=raw.get("_meta"),
    )


def _parse_variant(tool: str, item: Any) -> Variant:
    if not isinstance(item, dict):
        raise DeclarationError(tool, "a variant is an object", repr(item))
    selector = Selector.from_wire(item)
    if selector is None:
        raise DeclarationError(
            tool, "a variant has an audience and a format", f"audience={item.get('audience')!r} format={item.get('format')!r}"
        )
    schema = item.get("schema")
    if selector.format == "content" and schema is not None:
        raise DeclarationError(tool, "content variants carry no schema", str(selector))
    if selector.format == "structured":
        if not isinstance(schema, dict):
            raise DeclarationError(tool, "every structured variant declares a schema", str(selector))
        check_schema(tool, str(selector), schema)
    return Variant(selector, schema)


def _check_variants(tool: str, variants: tuple[Variant, ...]) -> None:
    seen: set[Selector] = set()
    for variant in variants:
        selector = variant.selector
        if selector in seen:
            raise DeclarationError(tool, "no audience/format pair is declared twice", str(selector))
        seen.add(selector)
        unknown = unknown_combination(selector)
        if unknown is not None:
            known = "core" if unknown is UnknownCombination.NOT_CORE else "an audience/format of a known extension"
            detail = f"{selector} is not {known}"
            raise DeclarationError(tool, "only core combinations or known extension audiences", detail)
    if ASSISTANT_CONTENT not in seen:
        raise DeclarationError(tool, "every tool declares assistant/content", "assistant/content is missing")


def check_schema(tool: str, where: str, schema: dict[str, Any]) -> None:
    """DeclarationError unless `schema` is valid JSON Schema 2020-12 (`where` says which schema of `tool`)."""
    declared = schema.get("$schema")
    if declared is not None and declared != DRAFT_2020_12:
        raise DeclarationError(tool, "schemas are JSON Schema 2020-12", f"{where} declares $schema {declared!r}")
    # jsonschema-rs's metaschema check: the pure-Python one would cost a second of start-up
    # (its format checkers compile dozens of grammars on import).
    try:
        jsonschema_rs.meta.validate({"$schema": DRAFT_2020_12, **schema})
    except jsonschema_rs.ValidationError as exc:
        detail = str(exc).splitlines()[0]
        raise DeclarationError(tool, "schemas are valid JSON Schema 2020-12", f"{where}: {detail}") from None
