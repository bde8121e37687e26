"""nbformat, imported on first use: it pulls in jsonschema, whose import costs about a second,
so a server that never touches a notebook never pays it."""

from __future__ import annotations

import importlib
from typing import Any

from ..protocol.errors import ErrorKind, ToolError


def _module(name: str) -> Any:
    """An nbformat module, on first use (it ships no type annotations)."""
    return importlib.import_module(name)


def parse(text: str, path: str) -> dict[str, Any]:
    """A notebook read as nbformat 4; ToolError(ErrorKind.INVALID_NOTEBOOK) for a damaged file."""
    nbformat = _module("nbformat")
    try:
        return dict(nbformat.reads(text, as_version=4))
    except Exception as exc:  # nbformat raises several kinds for a damaged file
        raise ToolError(ErrorKind.INVALID_NOTEBOOK, f"{path!r} is not a readable notebook: {exc}") from None


def without_transient(notebook: dict[str, Any]) -> dict[str, Any]:
    """A notebook as a server sends it, less the transient display data it adds."""
    return dict(_module("nbformat.v4.rwbase").strip_transient(_module("nbformat").from_dict(notebook)))


def check(notebook: dict[str, Any]) -> None:
    """Refuse to write a notebook the format does not allow."""
    nbformat = _module("nbformat")
    try:
        nbformat.validate(nbformat.from_dict(notebook))
    except nbformat.ValidationError as exc:
        raise ToolError(ErrorKind.INVALID_NOTEBOOK, f"refusing to write an invalid notebook: {exc.message}") from None
