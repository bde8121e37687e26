"""jupyter-mcp-server as a drop-in: the Jupyter server's compatibility layer, beside SEP-3279 (not in its core).

Aliases are the names another server gives the same arguments (jupyter-mcp-server's `notebook_name`,
`cell_source`, ...: variants/<tool>.json `argumentAliases`; docs/choices.md, "Argument aliases"). What is taken is
what tools/list shows: an alias only where the listed inputSchema admits it, which is that server's schema
(`serve --compat`, `ForeignSchema`); ours keeps one name per concept for models to read and takes no other
(`additionalProperties: false`), so it refuses them, naming ours. A call's arguments are read here (aliases turned
into canonical names, nulls into absent arguments) before they are checked against the tool's own inputSchema
(`canonical_arguments`, the `read_arguments` of the tool's `VariantTool`). Pure functions over a catalog entry
(catalog.py reads the declarations and their aliases) and, with `--compat`, the other server's schema.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .catalog import ArgumentAlias, CatalogEntry, compat_record
from .protocol.declarations import check_schema
from .protocol.errors import DeclarationError, ErrorKind, ToolError


@dataclass(frozen=True, slots=True)
class ForeignSchema:
    """Another server's inputSchema for a tool, listed in place of the tool's own so that calls written against
    that server pass a client's validation (`serve --compat`). What it lists is taken: its argument names (the
    tool's aliases), and its defaults, applied where they differ from ours. Calls are still checked against the
    tool's own inputSchema, after the aliases are turned into its names."""

    input_schema: dict[str, Any]
    defaults: dict[str, Any]  # canonical argument → the value a call that leaves it out gets


def compat_schemas(catalog: Mapping[str, CatalogEntry], server: str, directory: Path | None = None) -> dict[str, ForeignSchema]:
    """`server`'s inputSchema for every tool it has (variants/compat/<server>.json), to be listed in place of ours;
    DeclarationError when it has a tool we do not, or one of its schemas names an argument we would not take."""
    schemas = compat_record(server, directory)["tools"]
    for name in schemas.keys() - catalog.keys():
        raise DeclarationError(name, f"every tool of {server} is served", "no tool of that name")
    return {name: standing_in(catalog[name], schema) for name, schema in schemas.items()}


def listed_input_schema(entry: CatalogEntry, foreign: ForeignSchema | None = None) -> dict[str, Any]:
    """The inputSchema tools/list shows: ours, or the other server's the tool stands in for."""
    return entry.declaration.input_schema if foreign is None else foreign.input_schema


def standing_in(entry: CatalogEntry, input_schema: dict[str, Any]) -> ForeignSchema:
    """Another server's `input_schema`, to be listed in place of the tool's own. Every argument that schema names must
    be one of ours or a declared alias, so that what is listed is taken; its defaults that mean another value than
    ours are kept, to be applied."""
    declaration = entry.declaration
    tool = declaration.name
    if input_schema.get("type") != "object":
        raise DeclarationError(tool, "a listed inputSchema is an object schema", "it must have type 'object'")
    check_schema(tool, "the listed inputSchema", input_schema)
    ours = declaration.input_schema.get("properties", {})
    aliases = {alias.name: alias for alias in entry.aliases}
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
    return ForeignSchema(input_schema, defaults)


def _listed_default(tool: str, alias: ArgumentAlias | None, spec: Any) -> Any:
    """A listed argument's default as a value of ours (an alias's translated); None for none, or null."""
    default = spec.get("default") if isinstance(spec, dict) else None
    if default is None or alias is None:
        return default
    try:
        return translated(tool, alias, default)
    except ToolError as exc:
        raise DeclarationError(tool, "a listed default means a value of ours", exc.message) from None


def canonical_arguments(entry: CatalogEntry, arguments: Mapping[str, Any], foreign: ForeignSchema | None = None) -> dict[str, Any]:
    """`arguments` with every alias the listed inputSchema (ours, or `foreign`) admits renamed (and its value
    translated), every null left out, and the defaults `foreign` gives where they differ from ours.

    A null is an argument not given: optional arguments elsewhere are declared nullable with
    a null default. An alias given with its canonical name is accepted when both mean the same
    value; when they differ the call is refused (ToolError, invalid-arguments), saying why.
    """
    declaration = entry.declaration
    given = {name: value for name, value in arguments.items() if value is not None}
    listed = listed_input_schema(entry, foreign)
    for alias in entry.aliases:
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
    if foreign is not None:
        for name, value in foreign.defaults.items():
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
