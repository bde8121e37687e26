"""The catalog: the one loader of the tool declarations in variants/ (the one place a schema is written).

Each variants/<tool>.json is read once, into a `CatalogEntry`: the checked declaration, and the names another
server gives its arguments (`argumentAliases`, which dropin.py reads calls by). A declaration refers to a shared
shape as `{"$ref": "shapes/<name>.json"}`; the loader inlines it, so every schema on the wire is self-contained.
variants/compat/<server>.json holds another server's inputSchemas, recorded from its tools/list
(scripts/record_compat.py), for `serve --compat <server>`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .protocol.declarations import parse_declaration
from .protocol.errors import DeclarationError
from .protocol.types import ToolDeclaration

SHAPES_PREFIX = "shapes/"
COMPAT = "compat"


def variants_dir() -> Path:
    """variants/ inside the installed wheel, or at the repo root for a source checkout."""
    packaged = Path(str(resources.files("mcp_variants"))) / "variants"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "variants"


def load_shape(directory: Path, name: str) -> dict[str, Any]:
    shape = json.loads((directory / SHAPES_PREFIX / name).read_text())
    shape.pop("$comment", None)
    inlined: dict[str, Any] = _inline(shape, directory)
    return inlined


@dataclass(frozen=True, slots=True)
class ArgumentAlias:
    """Another server's name for one of a tool's arguments (variants/<tool>.json `argumentAliases`;
    docs/choices.md, "Argument aliases"): taken where the listed inputSchema admits it (dropin.py), refused,
    naming the canonical argument, where it does not.

    The alias's value becomes the canonical argument's: as it is, looked up in `values`
    (an enum of other words), or plus `add` (a count that starts elsewhere).
    """

    name: str
    canonical: str
    values: dict[str, Any] | None = None
    add: int | None = None


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One tool of variants/: its checked declaration, and another server's names for its arguments."""

    declaration: ToolDeclaration
    aliases: tuple[ArgumentAlias, ...] = ()


def load_catalog(directory: Path | None = None) -> dict[str, CatalogEntry]:
    """Every tool of variants/ (or `directory`), checked, by name; DeclarationError names the first broken rule."""
    catalog: dict[str, CatalogEntry] = {}
    for raw in tool_files(directory):
        declaration = parse_declaration(raw)
        catalog[declaration.name] = CatalogEntry(declaration, parse_aliases(declaration.name, raw.get("argumentAliases", {}),
                                                                            declaration.input_schema))
    return catalog


@cache
def packaged_catalog() -> Mapping[str, CatalogEntry]:
    """The catalog this package ships (variants/), read once a process: the Jupyter tools are built on it (`declared`)
    and served with its aliases (server/app.py's `load_tools`)."""
    return MappingProxyType(load_catalog())


def declared(name: str) -> ToolDeclaration:
    """The checked declaration of the packaged tool `name`; DeclarationError when variants/ declares no such tool."""
    entry = packaged_catalog().get(name)
    if entry is None:
        raise DeclarationError(name, "every tool is declared in variants/", "no declaration of that name")
    return entry.declaration


def load_declarations(directory: Path | None = None) -> dict[str, ToolDeclaration]:
    """Every tool declaration of the catalog, checked."""
    return {name: entry.declaration for name, entry in load_catalog(directory).items()}


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


def tool_files(directory: Path | None = None) -> Iterator[dict[str, Any]]:
    """Each variants/<tool>.json, its shared shapes inlined, in name order."""
    directory = directory or variants_dir()
    for path in sorted(directory.glob("*.json")):
        yield _inline(json.loads(path.read_text()), directory)


def compat_servers(directory: Path | None = None) -> list[str]:
    """The servers whose tool schemas `serve --compat` can list: variants/compat/<server>.json."""
    return sorted(path.stem for path in ((directory or variants_dir()) / COMPAT).glob("*.json"))


def compat_record(server: str, directory: Path | None = None) -> dict[str, Any]:
    """variants/compat/<server>.json: `server`, `version`, and `tools` (each tool's inputSchema by name)."""
    record: dict[str, Any] = json.loads(((directory or variants_dir()) / COMPAT / f"{server}.json").read_text())
    return record


def _inline(node: Any, directory: Path) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(SHAPES_PREFIX) and len(node) == 1:
            return load_shape(directory, ref[len(SHAPES_PREFIX):])
        return {k: _inline(v, directory) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, directory) for v in node]
    return node
