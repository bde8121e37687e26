"""Declaring a tool's output variants in Python, and the result union a tool returns.

A variant is an audience, a format and, for `structured`, a schema given as a pydantic model or a JSON
Schema. A tool returns one value per variant (`Results`), each a value or a function called only when
that variant is requested, or one value that each variant's `project` function turns into its output.
Declarations go through the core's `parse_declaration`, so a Python tool obeys exactly the rules a
variants/*.json file does (every tool declares assistant/content; no pair twice; only core
combinations or a known extension's; every schema valid JSON Schema 2020-12).
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias, TypeVar

import pydantic_core
from mcp.server.mcpserver import Audio, Image
from mcp_types import ContentBlock
from pydantic import BaseModel, PydanticSchemaGenerationError, PydanticUserError, TypeAdapter

from ..protocol.declarations import parse_declaration
from ..protocol.errors import DeclarationError
from ..protocol.projection import ToolProjectors
from ..protocol.types import CORE_AUDIENCES, Selector, ToolDeclaration
from ._toolset import ResultsMismatch

SchemaLike: TypeAlias = type[BaseModel] | Mapping[str, Any] | Any
"""A variant's schema: a pydantic model class, any type pydantic describes (`Rec | None`, `list[Build]`: `Any`, as
Python has no type for a type form), or a JSON Schema mapping."""

SelectorName: TypeAlias = Literal[
    "assistant/content",
    "assistant/structured",
    "user/content",
    "user/structured",
    "programmatic/structured",
    "io.modelcontextprotocol/ui/structured",
]
"""Every selector SEP-3279 lets a tool declare here, written `audience/format`: a type checker catches a misspelt
one (`"programatic/structured"`) in `variant(...)`, `Variants.tool(...)` and `Results({...})`. Another extension's
audience is given as a `Selector`."""

CONTENT_BLOCK_TYPES = frozenset({"text", "image", "audio", "resource_link", "resource"})
_CONTENT_BLOCK: TypeAdapter[ContentBlock] = TypeAdapter(ContentBlock)


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


def variant(selector: SelectorName | Selector, schema: SchemaLike | None = None, *,
            project: Callable[[Any], Any] | None = None) -> VariantSpec:
    """`variant("programmatic/structured", Forecast)`: a selector written `audience/format` (the audience may
    itself hold a slash, as `io.modelcontextprotocol/ui/structured`), and for a structured variant its schema."""
    return VariantSpec(parse_selector(selector), schema_of(schema) if schema is not None else None, project)


def parse_selector(selector: SelectorName | str | Selector, *, declaring: bool = True) -> Selector:
    """The selector `audience/format` names. `declaring`: a misspelt core audience is refused here, naming the one
    meant; a `Results` key is only split, and a wrong one found against the declaration (`ResultsMismatch`)."""
    if isinstance(selector, Selector):
        return selector
    if not isinstance(selector, str):
        raise TypeError(f"a variant is variant(selector, schema), the selector first (variant('user/structured', "
                        f"Schema)): {selector!r} is no selector")
    audience, _, fmt = selector.rpartition("/")
    if not audience or fmt not in ("content", "structured"):
        close = difflib.get_close_matches(fmt, ["content", "structured"], n=1) if audience else []
        written = (f"{selector!r} names no format: did you mean {audience}/{close[0]}?" if close else
                   f"a selector is written audience/format (assistant/content, programmatic/structured, ...), not {selector!r}")
        raise DeclarationError(None, "a selector is audience/format", written) if declaring else ValueError(written)
    if declaring and audience not in CORE_AUDIENCES and "." not in audience:  # an extension's audience is its reverse-DNS identifier
        close = difflib.get_close_matches(audience, sorted(CORE_AUDIENCES), n=1)
        hint = f"did you mean {close[0]}/{fmt}?" if close else f"the audiences are {', '.join(sorted(CORE_AUDIENCES))}, or an extension's"
        raise DeclarationError(None, "a selector names a core audience, or an extension's", f"{selector!r} names no audience: {hint}")
    return Selector(audience, fmt)


def schema_of(schema: SchemaLike) -> dict[str, Any]:
    """The JSON Schema of a pydantic model (as it validates and serialises), of any other type pydantic describes
    (`Rec | None`, `list[Build]`, a TypedDict, a dataclass), or a JSON Schema given as a mapping."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema(mode="serialization")
    if isinstance(schema, Mapping):
        return dict(schema)
    try:
        return TypeAdapter(schema).json_schema(mode="serialization")
    except (pydantic_core.SchemaError, PydanticSchemaGenerationError, PydanticUserError, TypeError) as exc:
        raise TypeError(f"a variant's schema is a pydantic model class, a type pydantic describes (Rec | None, "
                        f"list[Build]) or a JSON Schema mapping, not {schema!r}") from exc


_Key_co = TypeVar("_Key_co", covariant=True)


class Entries(Protocol[_Key_co]):
    """A mapping as `Results` reads it, covariant in its keys (a `Mapping`'s are not): a `dict[SelectorName, Any]`
    is `Entries[SelectorName | Selector]`, as a dict literal is."""

    def items(self) -> Iterable[tuple[_Key_co, Any]]: ...


class Results:
    """The result union: one entry per declared variant, `Results({"assistant/content": text,
    "programmatic/structured": lambda: compute()})`. A callable entry is called only when its variant is requested,
    so a tool pays only for what the client asked for. It holds exactly the tool's declared selectors: one more or
    one fewer fails the call, whatever was requested (`ResultsMismatch`).

    The keys are `SelectorName`s or `Selector`s, in a dict literal or any mapping typed so (`dict[SelectorName, Any]`),
    so a type checker catches a misspelt key. A `dict[str, Any]` is refused by the type checker for that reason (it
    would let `"programatic/structured"` through); at run time it works, and a wrong key fails the call with
    `ResultsMismatch`."""

    __slots__ = ("_entries",)

    def __init__(self, entries: Entries[SelectorName | Selector]) -> None:
        self._entries: dict[Selector, Any] = {parse_selector(key, declaring=False): value for key, value in entries.items()}

    @property
    def selectors(self) -> frozenset[Selector]:
        """The variants the tool gave an entry for."""
        return frozenset(self._entries)

    def resolve(self, selector: Selector) -> Any:
        """The variant's value: its entry, called when it is a function; LookupError when there is none."""
        if selector not in self._entries:
            raise LookupError(f"the tool returned no {selector} entry")
        value = self._entries[selector]
        return value() if callable(value) else value


def to_wire_value(selector: Selector, value: Any) -> Any:
    """An output as JSON: a content output's value as content blocks; a structured one as `structured_json` makes it."""
    if selector.format == "content":
        return content_blocks(value)
    return structured_json(value)


def structured_json(value: Any) -> Any:
    """A structured value as JSON, exactly as the schema `schema_of` gives for it describes it: a pydantic model by
    its aliases and with every field, `None` ones included (a required `assignee: str | None` holding None is
    `"assignee": null`, which its schema requires); a dataclass, a TypedDict, or a dict or list holding models,
    likewise. Dropping `None` fields would break the schema of every required nullable field."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return pydantic_core.to_jsonable_python(value, by_alias=True)


def content_blocks(value: Any) -> list[dict[str, Any]]:
    """A content output's value as MCPServer turns a tool's return value into `content`: a string is one text
    block; the SDK's `Image` and `Audio` and its content block models are blocks, as is a dict that is a valid
    content block (its `type` one of text, image, audio, resource_link, resource); a list or tuple is each of its
    items in turn; anything else (a pydantic model, another dict, a number) is its JSON as one text block."""
    if isinstance(value, list | tuple):
        return [block for item in value for block in content_blocks(item)]
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    if isinstance(value, Image):
        return [_block(value.to_image_content())]
    if isinstance(value, Audio):
        return [_block(value.to_audio_content())]
    if isinstance(value, dict) and value.get("type") in CONTENT_BLOCK_TYPES:
        return [_block(_CONTENT_BLOCK.validate_python(value))]
    if isinstance(value, BaseModel) and isinstance(value, ContentBlock):
        return [_block(value)]
    return [{"type": "text", "text": pydantic_core.to_json(value, fallback=str, indent=2).decode()}]


def _block(block: BaseModel) -> dict[str, Any]:
    """A content block as the wire has it: its optional fields that are unset left out, as the SDK sends them."""
    dumped: dict[str, Any] = block.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def projectors_for(name: str, specs: Sequence[VariantSpec], *, content: Callable[[Any], Any] | None = None,
                   legacy: Legacy | None = None) -> ToolProjectors:
    """One projector per variant: a `Results` entry (the `Results` checked against the declared selectors), or
    the variant's `project` of the value (else the value). `content`: what a framework makes of a content value
    before it becomes blocks (FastMCP's own conversion); None: `content_blocks` alone. `legacy`: a migrated tool's
    established shape, whose structuredContent older versions keep."""
    declared = frozenset(spec.selector for spec in specs)

    def projector(spec: VariantSpec) -> Callable[[Any], Any]:
        def project(value: Any) -> Any:
            if isinstance(value, Results):
                if value.selectors != declared:
                    raise ResultsMismatch(name, declared, value.selectors, migrated=legacy is not None)
                made = value.resolve(spec.selector)
            elif spec.project is not None:
                made = spec.project(value)
            else:
                made = value
            if content is not None and spec.selector.format == "content":
                made = content(made)
            return to_wire_value(spec.selector, made)

        return project

    return ToolProjectors(success={spec.selector: projector(spec) for spec in specs},
                          established_structured=legacy.structured if legacy is not None else None)


@dataclass(frozen=True)
class Legacy:
    """A migrated tool's established shape, which older versions keep (SEP-3279: SHOULD preserve): the outputSchema
    it listed, if any, and what made its structuredContent from its return value."""

    output_schema: dict[str, Any] | None = None
    structured: Callable[[Any], Any] | None = None


def is_function(given: object) -> bool:
    """A decorated function where a decorator's variants were expected (its parentheses left out)."""
    return callable(given) and not isinstance(given, (str, VariantSpec, Selector))


def registered_twice(name: str, framework_decorator: str) -> DeclarationError:
    """A tool of ours whose name the server already has, or was given again after ours: another function registered
    under it, or the framework's own decorator stacked with ours on one function (either order). Both layers refuse
    it in these words, naming the fix."""
    return DeclarationError(name, "a tool is registered once",
                            f"the server has another tool of that name: another function registered under it (rename "
                            f"one), or {framework_decorator} stacked with @variants.tool on this one, in either order "
                            f"(decorate it with @variants.tool alone: it registers the tool itself)")


def declared_specs(decorator: str, variants: Iterable[VariantSpec | SelectorName]) -> list[VariantSpec]:
    """A decorator's variants, each a VariantSpec (a selector's name is `variant(name)`); TypeError for a function,
    where `@variants.tool` was written without the variants it takes."""
    specs = list(variants)
    if any(is_function(given) for given in specs):
        raise TypeError(f"@variants.{decorator} takes the tool's variants before it decorates: "
                        f'@variants.{decorator}("assistant/content", ...), with its parentheses')
    return [variant(given) if isinstance(given, str) else given for given in specs]


def declaration(
    name: str,
    variants: Sequence[VariantSpec],
    *,
    input_schema: Mapping[str, Any],
    description: str = "",
    title: str | None = None,
    annotations: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
    legacy: Legacy | None = None,
) -> ToolDeclaration:
    """A checked declaration; DeclarationError names the rule a broken one breaks. `legacy`: the tool served older
    versions before it declared variants, and they keep what it answered (`ToolDeclaration.established`)."""
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
    parsed = parse_declaration(raw)
    if legacy is None:
        return parsed
    return dataclasses.replace(parsed, established=True, established_output_schema=legacy.output_schema)
