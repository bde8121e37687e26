"""Load the tool declarations in variants/ (the one place a schema is written).

A declaration refers to a shared shape as `{"$ref": "shapes/<name>.json"}`; the
loader inlines it, so every schema on the wire is self-contained. variants/compat/<server>.json
holds another server's inputSchemas, recorded from its tools/list (scripts/record_compat.py),
for `serve --compat <server>`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from .protocol.declarations import parse_declaration
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


def load_declarations(directory: Path | None = None) -> dict[str, ToolDeclaration]:
    """Every tool declaration, checked; DeclarationError names the first broken rule."""
    declarations: dict[str, ToolDeclaration] = {}
    for raw in tool_files(directory):
        declaration = parse_declaration(raw)
        declarations[declaration.name] = declaration
    return declarations


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
