"""Notebooks as resources: `notebook:///<path>` for each notebook of the client's runtime (its
folder under --root, a Jupyter server, a sandbox), read as the nbformat 4 JSON the runtime
holds now (a live notebook: its shared document), and watched for changes.

The URI names a path in the runtime of the client that asks, as the tools' `notebook` argument
does; a subscription stays with the runtime the client had when it subscribed.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from ..jupyter.errors import JupyterErrorKind
from ..jupyter.paths import clean_relative
from ..jupyter.registry import ClientState, RuntimeRegistry
from ..jupyter.runtime import ChangeListener, Unwatch
from ..protocol.errors import INVALID_PARAMS, ErrorKind, ToolError
from ..tools.shared.hints import hinted
from .resources import Source

SCHEME = "notebook"
MIME_TYPE = "application/x-ipynb+json"
TEMPLATE = f"{SCHEME}:///{{+path}}"  # RFC 6570 reserved expansion: the path keeps its slashes
LIST_DEPTH = 4  # how deep below the root resources/list looks for notebooks
READ_CACHE_HINT = {"ttlMs": 0, "cacheScope": "private"}  # a notebook changes at any time; it is this client's runtime's


def notebook_uri(path: str) -> str:
    return f"{SCHEME}:///{quote(path)}"


def notebook_path(uri: str) -> str:
    """The path a notebook URI names; MCPError (invalid params) for anything else."""
    parts = urlsplit(uri)
    path = unquote(parts.path).lstrip("/")
    if parts.scheme != SCHEME or parts.netloc or not path.endswith(".ipynb"):
        raise MCPError(INVALID_PARAMS, f"{uri!r} is not a notebook resource: they are {SCHEME}:///path/to/notebook.ipynb", {"uri": uri})
    return checked_path(path, uri)


def checked_path(path: str, uri: str) -> str:
    """`path` (from `uri`) as a clean relative path: MCPError (invalid params) for one that leaves the root."""
    try:
        return clean_relative(path).as_posix()
    except ToolError as exc:
        raise MCPError(INVALID_PARAMS, exc.message, {"uri": uri}) from None


def failure(exc: ToolError, uri: str) -> MCPError:
    """A runtime's failure to read a notebook, as a protocol error (resources/read has no isError)."""
    code = INVALID_PARAMS if exc.kind in (ErrorKind.NOT_FOUND, JupyterErrorKind.PATH_OUTSIDE_ROOT) else INTERNAL_ERROR
    return MCPError(code, hinted(exc).message, {"uri": uri, "type": str(exc.kind)})


class NotebookResources(Source):
    def __init__(self, registry: RuntimeRegistry) -> None:
        self.registry = registry

    def owns(self, uri: str) -> bool:
        return uri.startswith(f"{SCHEME}:")

    async def entries(self, client: ClientState) -> list[dict[str, Any]]:
        backend = self.registry.backend(client)
        found = await backend.contents.list_entries("", LIST_DEPTH, "*.ipynb")
        return [
            {"uri": notebook_uri(entry["path"]), "name": entry["path"], "title": entry["name"], "mimeType": MIME_TYPE,
             "description": f"A notebook in {backend.label}; subscribe to hear when someone changes it."}
            for entry in found if entry["type"] == "notebook"
        ]

    def templates(self) -> list[dict[str, Any]]:
        return [{"uriTemplate": TEMPLATE, "name": "notebook", "title": "Notebook", "mimeType": MIME_TYPE,
                 "description": "A notebook by its path under the root (the tools' `notebook` argument), as nbformat 4 JSON."}]

    async def read(self, client: ClientState, uri: str, *, stateless: bool) -> dict[str, Any]:
        path = notebook_path(uri)
        try:
            notebook = await self.registry.backend(client).contents.read_notebook(path)
        except ToolError as exc:
            raise failure(exc, uri) from None
        result: dict[str, Any] = {"contents": [{"uri": uri, "mimeType": MIME_TYPE, "text": json.dumps(notebook, ensure_ascii=False)}]}
        if stateless:
            result.update(READ_CACHE_HINT)
        return result

    async def watch(self, client: ClientState, uri: str, listener: ChangeListener) -> Unwatch | None:
        path = notebook_path(uri)
        try:
            return await self.registry.backend(client).contents.watch(path, listener)
        except ToolError as exc:
            raise failure(exc, uri) from None
