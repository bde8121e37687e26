"""Declaring a tool's output variants in Python, and the result union a tool returns.

A variant is an audience, a format and, for `structured`, a schema given as a pydantic model or a JSON
Schema. A tool returns one value per variant (`Results`), each a value or a function called only when
that variant is requested, or one value that each variant's `project` function turns into its output.
Declarations go through the core's `parse_declaration`, so a Python tool obeys exactly the rules a
variants/*.json file does (every tool declares assistant/content; no pair twice; only core
combinations or a known extension's; every schema valid JSON Schema 2020-12).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter

from ..protocol.declarations import parse_declaration
from ..protocol.projection import ToolProjectors
from ..protocol.types import Selector, ToolDeclaration

SchemaLike = type[BaseModel] | Mapping[str, Any]


@dataclass(frozen=True)
class VariantSpec:
    """One declared variant: its selector, its JSON Schema (structured only), and what makes its output from
    the tool's return value (None: the value as it is, or the variant's own entry of a `Results`)."""

    selector: Selector
    schema: dict[str, Any] | None = None
    project: Callable[[Any], Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        """The variant as `outputVariants` lists it."""
        wire: dict[str, Any] = self.selector.to_wire()
        if self.schema is not None:
            wire["schema"] = self.schema
        return wire


def variant(selector: str | Selector, schema: SchemaLike | None = None, *, project: Callable[[Any], Any] | None = None) -> VariantSpec:
    """`variant("programmatic/structured", Forecast)`: a selector written `audience/format` (the audience may
    itself hold a slash, as `io.modelcontextprotocol/ui/structured`), and for a structured variant its schema."""
    return VariantSpec(parse_selector(selector), schema_of(schema) if schema is not None else None, project)


def parse_selector(selector: str | Selector) -> Selector:
    if isinstance(selector, Selector):
        return selector
    audience, _, fmt = selector.rpartition("/")
    if not audience or fmt not in ("content", "structured"):
        raise ValueError(f"a selector is written audience/format (assistant/content, programmatic/structured, ...), not {selector!r}")
    return Selector(audience, fmt)


def schema_of(schema: SchemaLike) -> dict[str, Any]:
    """The JSON Schema of a pydantic model (as it validates and serialises), or a JSON Schema given as a mapping."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema(mode="serialization")
    if isinstance(schema, Mapping):
        return dict(schema)
    raise TypeError(f"a variant's schema is a pydantic model class or a JSON Schema mapping, not {schema!r}")


class Results:
    """The result union: one entry per variant, `Results({"assistant/content": text, "programmatic/structured":
    lambda: compute()})`. A callable entry is called only when its variant is requested, so a tool pays only
    for what the client asked for."""

    __slots__ = ("_entries",)

    def __init__(self, entries: Mapping[str | Selector, Any]) -> None:
        self._entries = {parse_selector(key): value for key, value in entries.items()}

    def has(self, selector: Selector) -> bool:
        """Whether the tool gave an entry for this variant."""
        return selector in self._entries

    def resolve(self, selector: Selector) -> Any:
        """The variant's value: its entry, called when it is a function; LookupError when there is none."""
        if selector not in self._entries:
            raise LookupError(f"the tool returned no {selector} entry")
        value = self._entries[selector]
        return value() if callable(value) else value


def to_wire_value(selector: Selector, value: Any) -> Any:
    """An output as JSON: a content output's text or blocks as content blocks; pydantic models as they serialise."""
    if selector.format == "content":
        return content_blocks(value)
    return _jsonable(value)


def content_blocks(value: Any) -> list[dict[str, Any]]:
    """A string is one text block; a block (a dict or an SDK content model) or a list of them is kept as it is."""
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    items = value if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray) else [value]
    blocks = [_jsonable(item) for item in items]
    for block in blocks:
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise TypeError(f"a content output is a string or content blocks, not {block!r}")
    return blocks


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, dict | list | str | int | float | bool) or value is None:
        return value
    return TypeAdapter(type(value)).dump_python(value, mode="json")


def projectors_for(specs: Sequence[VariantSpec]) -> ToolProjectors:
    """One projector per variant: a `Results` entry, or the variant's `project` of the value (else the value)."""

    def projector(spec: VariantSpec) -> Callable[[Any], Any]:
        def project(value: Any) -> Any:
            if isinstance(value, Results):
                made = value.resolve(spec.selector)
            elif spec.project is not None:
                made = spec.project(value)
            else:
                made = value
            return to_wire_value(spec.selector, made)

        return project

    return ToolProjectors(success={spec.selector: projector(spec) for spec in specs})


def declaration(
    name: str,
    variants: Sequence[VariantSpec],
    *,
    input_schema: Mapping[str, Any],
    description: str = "",
    title: str | None = None,
    annotations: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> ToolDeclaration:
    """A checked declaration; DeclarationError names the rule a broken one breaks."""
    raw: dict[str, Any] = {
        "name": name,
        "description": description,
        "inputSchema": dict(input_schema),
        "outputVariants": [spec.to_wire() for spec in variants],
    }
    if title:
        raw["title"] = title
    if annotations:
        raw["annotations"] = dict(annotations)
    if meta:
        raw["_meta"] = dict(meta)
    return parse_declaration(raw)
