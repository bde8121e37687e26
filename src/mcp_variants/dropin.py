"""jupyter-mcp-server as a drop-in: the Jupyter server's compatibility layer, beside SEP-3279 (not in its core).

Aliases are the names another server gives the same arguments (jupyter-mcp-server's `notebook_name`,
`cell_source`, ...: variants/<tool>.json `argumentAliases`; docs/choices.md, "Argument aliases"). What is taken is
what tools/list shows: an alias only where the listed inputSchema admits it, which is that server's schema
(`serve --compat`, `ForeignSchema`); ours keeps one name per concept for models to read and takes no other
(`additionalProperties: false`), so it refuses them, naming ours. A call's arguments are read here (aliases turned
into canonical names, nulls into absent arguments) before they are checked against the tool's own inputSchema
(`DropIn.arguments`, the `read_arguments` of the tool's `VariantTool`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .catalog import compat_record, tool_files
from .protocol.declarations import check_schema, parse_declaration
from .protocol.errors import DeclarationError, ErrorKind, ToolError
from .protocol.types import ToolDeclaration


@dataclass(frozen=True, slots=True)
class ArgumentAlias:
    """Another server's name for one of a tool's arguments (variants/<tool>.json `argumentAliases`;
    docs/choices.md, "Argument aliases"): taken where the listed inputSchema admits it (`ForeignSchema`),
    refused, naming the canonical argument, where it does not.

    The alias's value becomes the canonical argument's: as it is, looked up in `values`
    (an enum of other words), or plus `add` (a count that starts elsewhere).
    """

    name: str
    canonical: str
    values: dict[str, Any] | None = None
    add: int | None = None


@dataclass(frozen=True, slots=True)
class ForeignSchema:
    """Another server's inputSchema for a tool, listed in place of the tool's own so that calls written against
    that server pass a client's validation (`serve --compat`). What it lists is taken: its argument names (the
    tool's aliases), and its defaults, applied where they differ from ours. Calls are still checked against the
    tool's own inputSchema, after the aliases are turned into its names."""

    input_schema: dict[str, Any]
    defaults: dict[str, Any]  # canonical argument → the value a call that leaves it out gets


@dataclass(frozen=True, slots=True)
class DropIn:
    """One tool as the drop-in layer sees it: its declaration, another server's names for its arguments, and that
    server's inputSchema when it is listed in place of ours."""

    declaration: ToolDeclaration
    aliases: tuple[ArgumentAlias, ...] = ()
    foreign: ForeignSchema | None = None

    @property
    def listed_input_schema(self) -> dict[str, Any]:
        """The inputSchema tools/list shows: ours, or the other server's the tool stands in for."""
        return self.declaration.input_schema if self.foreign is None else self.foreign.input_schema

    def arguments(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """A call's arguments as the tool's inputSchema names them (`canonical_arguments`)."""
        return canonical_arguments(self, given)


def load_dropins(directory: Path | None = None) -> dict[str, DropIn]:
    """Every tool declaration (catalog.py), checked, with its `argumentAliases`, checked."""
    dropins: dict[str, DropIn] = {}
    for raw in tool_files(directory):
        declaration = parse_declaration(raw)
        aliases = parse_aliases(declaration.name, raw.get("argumentAliases", {}), declaration.input_schema)
        dropins[declaration.name] = DropIn(declaration, aliases)
    return dropins


@cache
def packaged_dropins() -> Mapping[str, DropIn]:
    """The declarations this package ships (variants/), read once a process: the Jupyter tools are built on them
    (tools/shared/declared.py), and served with their drop-in names (server/app.py's `load_tools`)."""
    return MappingProxyType(load_dropins())


def with_compat(dropins: Mapping[str, DropIn], server: str, directory: Path | None = None) -> dict[str, DropIn]:
    """The tools with `server`'s inputSchema listed for every tool it has (variants/compat/<server>.json; the others
    as they are); DeclarationError when one of them names an argument we would not take."""
    schemas = compat_record(server, directory)["tools"]
    for name in schemas.keys() - dropins.keys():
        raise DeclarationError(name, f"every tool of {server} is served", "no tool of that name")
    return {name: standing_in(d, schemas[name]) if name in schemas else d for name, d in dropins.items()}


def parse_aliases(tool: str, raw: Any, input_schema: dict[str, Any]) -> tuple[ArgumentAlias, ...]:
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


def standing_in(dropin: DropIn, input_schema: dict[str, Any]) -> DropIn:
    """The tool listing another server's `input_schema` in place of its own (`ForeignSchema`). Every argument that
    schema names must be one of ours or a declared alias, so that what is listed is taken; its defaults that mean
    another value than ours are kept, to be applied."""
    declaration = dropin.declaration
    tool = declaration.name
    if input_schema.get("type") != "object":
        raise DeclarationError(tool, "a listed inputSchema is an object schema", "it must have type 'object'")
    check_schema(tool, "the listed inputSchema", input_schema)
    ours = declaration.input_schema.get("properties", {})
    aliases = {alias.name: alias for alias in dropin.aliases}
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
    return replace(dropin, foreign=ForeignSchema(input_schema, defaults))


def _listed_default(tool: str, alias: ArgumentAlias | None, spec: Any) -> Any:
    """A listed argument's default as a value of ours (an alias's translated); None for none, or null."""
    default = spec.get("default") if isinstance(spec, dict) else None
    if default is None or alias is None:
        return default
    try:
        return translated(tool, alias, default)
    except ToolError as exc:
        raise DeclarationError(tool, "a listed default means a value of ours", exc.message) from None


def canonical_arguments(dropin: DropIn, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """`arguments` with every alias the listed inputSchema admits renamed (and its value translated), every null
    left out, and the defaults a listed foreign schema gives where they differ from ours.

    A null is an argument not given: optional arguments elsewhere are declared nullable with
    a null default. An alias given with its canonical name is accepted when both mean the same
    value; when they differ the call is refused (ToolError, invalid-arguments), saying why.
    """
    declaration = dropin.declaration
    given = {name: value for name, value in arguments.items() if value is not None}
    listed = dropin.listed_input_schema
    for alias in dropin.aliases:
        if alias.name not in given:
            continue
        if not _admits(listed, alias.name):
            # A client validating against what we list would refuse it too: taking it would make the listing untrue.
            raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"Invalid arguments for {declaration.name}: {alias.name} is not one of "
                                                         f"its arguments but another server's name for {alias.canonical}; "
                                                         f"pass {alias.canonical}.")
        written = given.pop(alias.name)
        value = translated(declaration.name, alias, written)
        if alias.canonical in given and given[alias.canonical] != value:
            raise ToolError(
                ErrorKind.INVALID_ARGUMENTS,
                f"Invalid arguments for {declaration.name}: {alias.name} is another name for {alias.canonical}, and the two "
                f"disagree: {alias.canonical}={_shown(given[alias.canonical])}, {alias.name}={_shown(written)}"
                f"{_meaning(alias, value)}. Pass one of them.",
            )
        given[alias.canonical] = value
    if dropin.foreign is not None:
        for name, value in dropin.foreign.defaults.items():
            given.setdefault(name, value)
    return given


def _admits(schema: Mapping[str, Any], name: str) -> bool:
    """Whether an object schema lets a call carry argument `name`: it lists it, or takes others too (a schema
    without `additionalProperties: false`, as jupyter-mcp-server's are)."""
    return name in schema.get("properties", {}) or schema.get("additionalProperties", True) is not False


def translated(tool: str, alias: ArgumentAlias, value: Any) -> Any:
    """The canonical argument's value for `value` given as `alias`; ToolError when it has no meaning there."""
    if alias.values is not None:
        if not isinstance(value, str) or value not in alias.values:
            accepted = ", ".join(json.dumps(v) for v in alias.values)
            raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"Invalid arguments for {tool}: {alias.name} must be one of {accepted}.")
        return alias.values[value]
    if alias.add is not None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"Invalid arguments for {tool}: {alias.name} must be an integer.")
        return value + alias.add
    return value


def _meaning(alias: ArgumentAlias, value: Any) -> str:
    """What a translated alias stands for, when its value is not the canonical one as written."""
    if alias.values is None and alias.add is None:
        return ""
    return f" (which means {alias.canonical}={_shown(value)})"


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."
