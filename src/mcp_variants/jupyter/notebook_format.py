"""nbformat, imported on first use: it pulls in jsonschema, whose import costs about a second,
so a server that never touches a notebook never pays it."""

from __future__ import annotations

from typing import Any

from ..protocol.errors import ErrorKind, ToolError


def parse(text: str, path: str) -> dict[str, Any]:
    """A notebook read as nbformat 4; ToolError(ErrorKind.INVALID_NOTEBOOK) for a damaged file."""
    import nbformat

    try:
        return dict(nbformat.reads(text, as_version=4))
    except Exception as exc:  # nbformat raises several kinds for a damaged file
        raise ToolError(ErrorKind.INVALID_NOTEBOOK, f"{path!r} is not a readable notebook: {exc}") from None


def without_transient(notebook: dict[str, Any]) -> dict[str, Any]:
    """A notebook as a server sends it, less the transient display data it adds."""
    import nbformat
    from nbformat.v4.rwbase import strip_transient

    return dict(strip_transient(nbformat.from_dict(notebook)))


def check(notebook: dict[str, Any]) -> None:
    """Refuse to write a notebook the format does not allow."""
    import nbformat

    try:
        nbformat.validate(nbformat.from_dict(notebook))
    except nbformat.ValidationError as exc:
        raise ToolError(ErrorKind.INVALID_NOTEBOOK, f"refusing to write an invalid notebook: {exc.message}") from None
