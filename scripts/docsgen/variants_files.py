"""The declarations in variants/ as written: shared shapes stay `{"$ref": "shapes/<name>.json"}`, so the
API pages can link them (the server inlines them; `mcp_variants.catalog` is its reader)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

VARIANTS = Path(__file__).resolve().parents[2] / "variants"
SHAPES_PREFIX = "shapes/"


def declarations() -> dict[str, dict[str, Any]]:
    """variants/<tool>.json by tool name: the set of tools the pages cover comes from here."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(VARIANTS.glob("*.json")):
        declaration = json.loads(path.read_text())
        found[declaration["name"]] = declaration
    return found


def shapes() -> dict[str, dict[str, Any]]:
    """variants/shapes/<name>.json by name."""
    return {p.stem: json.loads(p.read_text()) for p in sorted((VARIANTS / "shapes").glob("*.json"))}


def shape_refs(node: Any) -> list[str]:
    """The names of the shapes `node` refers to, each once, in the order they first appear."""
    found: list[str] = []
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(SHAPES_PREFIX):
            found.append(ref[len(SHAPES_PREFIX):-len(".json")])
        for v in node.values():
            found += [r for r in shape_refs(v) if r not in found]
    elif isinstance(node, list):
        for v in node:
            found += [r for r in shape_refs(v) if r not in found]
    return found
