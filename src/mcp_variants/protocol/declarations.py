"""Parse tool declarations and enforce SEP-3279's declaration rules.

A declaration that breaks a rule raises DeclarationError naming the tool and the
rule; the server refuses to start rather than serve a tool a client cannot trust.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import jsonschema_rs

from .arguments import translated
from .errors import DeclarationError, ToolError
from .types import (
    ASSISTANT_CONTENT,
    ArgumentAlias,
    ForeignSchema,
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
    _check_schema(name, "inputSchema", input_schema)
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
        aliases=_parse_aliases(name, raw.get("argumentAliases", {}), input_schema),
    )


def _parse_aliases(tool: str, raw: Any, input_schema: dict[str, Any]) -> tuple[ArgumentAlias, ...]:
    """`argumentAliases`: {alias: {"canonical": name, "values"?: {word: value}, "add"?: int}}.

    An alias names an argument inputSchema lists, is not itself listed, and translates its value
    at most one way."""
    if not isinstance(raw, dict):
        raise DeclarationError(tool, "argumentAliases is an object", repr(raw))
    properties = input_schema.get("properties", {})
    aliases = []
    for alias, spec in raw.items():
        if not isinstance(spec, dict) or set(spec) - {"canonical", "values", "add"} or spec.get("canonical") not in properties:
            raise DeclarationError(tool, "an argument alias names an argument of inputSchema", f"{alias}: {spec!r}")
        if alias in properties:
            raise DeclarationError(tool, "an argument alias is not itself an argument of inputSchema", alias)
        values, add = spec.get("values"), spec.get("add")
        bad_values = values is not None and not isinstance(values, dict)
        bad_add = add is not None and (isinstance(add, bool) or not isinstance(add, int))
        if bad_values or bad_add or (values is not None and add is not None):
            raise DeclarationError(tool, "an argument alias translates its value at most one way (values or add)", alias)
        aliases.append(ArgumentAlias(alias, spec["canonical"], values, add))
    return tuple(aliases)


def standing_in(declaration: ToolDeclaration, input_schema: dict[str, Any]) -> ToolDeclaration:
    """The tool listing another server's `input_schema` in place of its own (`ForeignSchema`). Every argument that
    schema names must be one of ours or a declared alias, so that what is listed is taken; its defaults that mean
    another value than ours are kept, to be applied."""
    tool = declaration.name
    if input_schema.get("type") != "object":
        raise DeclarationError(tool, "a listed inputSchema is an object schema", "it must have type 'object'")
    _check_schema(tool, "the listed inputSchema", input_schema)
    ours = declaration.input_schema.get("properties", {})
    aliases = {alias.name: alias for alias in declaration.aliases}
    defaults: dict[str, Any] = {}
    for name, spec in input_schema.get("properties", {}).items():
        alias = aliases.get(name)
        if alias is None and name not in ours:
            raise DeclarationError(tool, "every argument a listed inputSchema names is taken",
                                   f"{name} is neither an argument nor an alias")
        canonical = alias.canonical if alias else name
        default = _listed_default(tool, alias, spec)
        if default is not None and default != ours[canonical].get("default"):
            defaults[canonical] = default
    return replace(declaration, foreign=ForeignSchema(input_schema, defaults))


def _listed_default(tool: str, alias: ArgumentAlias | None, spec: Any) -> Any:
    """A listed argument's default as a value of ours (an alias's translated); None for none, or null."""
    default = spec.get("default") if isinstance(spec, dict) else None
    if default is None or alias is None:
        return default
    try:
        return translated(tool, alias, default)
    except ToolError as exc:
        raise DeclarationError(tool, "a listed default means a value of ours", exc.message) from None


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
        _check_schema(tool, str(selector), schema)
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


def _check_schema(tool: str, where: str, schema: dict[str, Any]) -> None:
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
