"""A call's arguments as the tool's inputSchema names them: aliases turned into canonical names,
nulls into absent arguments. Runs before input validation (docs/choices.md, "Argument aliases").

Aliases are the names another server gives the same arguments (jupyter-mcp-server's
`notebook_name`, `cell_source`, ...). What is taken is what tools/list shows: an alias only where the
listed inputSchema admits it, which is that server's schema (`serve --compat`, `ForeignSchema`); ours
keeps one name per concept for models to read and takes no other (`additionalProperties: false`), so
it refuses them, naming ours.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .errors import ErrorKind, ToolError
from .types import ArgumentAlias, ToolDeclaration


def canonical_arguments(declaration: ToolDeclaration, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """`arguments` with every alias the listed inputSchema admits renamed (and its value translated), every null
    left out, and the defaults a listed foreign schema gives where they differ from ours.

    A null is an argument not given: optional arguments elsewhere are declared nullable with
    a null default. An alias given with its canonical name is accepted when both mean the same
    value; when they differ the call is refused (ToolError, invalid-arguments), saying why.
    """
    given = {name: value for name, value in arguments.items() if value is not None}
    listed = declaration.listed_input_schema
    for alias in declaration.aliases:
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
    if declaration.foreign is not None:
        for name, value in declaration.foreign.defaults.items():
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
