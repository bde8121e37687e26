"""A Jupyter tool's declaration: data, in variants/<tool>.json, that its module builds its `VariantTool` on."""

from __future__ import annotations

from ...dropin import packaged_dropins
from ...protocol.errors import DeclarationError
from ...protocol.types import ToolDeclaration


def declared(name: str) -> ToolDeclaration:
    """The checked declaration of tool `name`; DeclarationError when variants/ declares no such tool."""
    dropin = packaged_dropins().get(name)
    if dropin is None:
        raise DeclarationError(name, "every tool is declared in variants/", "no declaration of that name")
    return dropin.declaration
