"""Outputs as a source of resources (server/resources.py serves every source; output_links.py says what they are):

* `mcp-variants://runs/<run>/outputs/<n>`: an execute_code run's output, from the OutputStore, read only by the
  client that ran it (link_owner); never listed (its URI is in the result), never changes.
* `cell-output:///<path>/cells/<cell id>/outputs/<n>`: a cell's output as the notebook has it now, by the path
  rules of the notebooks (notebook_resources.py: nothing outside the root); subscribing watches the notebook.
"""

from __future__ import annotations

import base64
from typing import Any

from mcp.shared.exceptions import MCPError

from ..jupyter.registry import ClientState, RuntimeRegistry
from ..jupyter.runtime import ChangeListener, Unwatch
from ..output_links import (
    CELL_SCHEME,
    CELL_TEMPLATE,
    RUN_PREFIX,
    RUN_TEMPLATE,
    OutputNotKept,
    OutputStore,
    parse_cell_output_uri,
    parse_run_uri,
    representations,
)
from ..protocol.errors import INVALID_PARAMS, ErrorKind, ProtocolError, ToolError
from . import notebook_resources
from .image_resources import READ_CACHE_HINT as NEVER_CHANGES
from .resources import Source, link_owner


def contents(uri: str, output: dict[str, Any]) -> list[dict[str, Any]]:
    """resources/read's contents of an output: one entry per representation, the richest first."""
    return [{"uri": uri, "mimeType": mime, **({"blob": base64.b64encode(data).decode()} if isinstance(data, bytes) else {"text": data})}
            for mime, data in representations(output)]


class RunOutputResources(Source):
    def __init__(self, store: OutputStore) -> None:
        self.store = store

    def owns(self, uri: str) -> bool:
        return uri.startswith(RUN_PREFIX)

    def templates(self) -> list[dict[str, Any]]:
        return [{"uriTemplate": RUN_TEMPLATE, "name": "run-output", "title": "An output of an execute_code run",
                 "description": "Output n of an execute_code run, whole (up to --hard-cap), readable by the client that ran it: "
                                "a capped result names it. text/plain for a stream or an error, else each type of its bundle, "
                                "the richest first."}]

    async def read(self, client: ClientState, uri: str, *, stateless: bool) -> dict[str, Any]:
        named = parse_run_uri(uri)
        try:
            if named is None:
                raise OutputNotKept(uri)
            output = await self.store.get(*named, link_owner(client))
        except ProtocolError as exc:  # a shared store that cannot be reached
            raise MCPError(exc.code, exc.message, {"uri": uri}) from None
        except OutputNotKept:
            budget = self.store.max_bytes // (1024 * 1024)
            raise MCPError(INVALID_PARAMS, "Resource not found: This output is not kept for this client: the server keeps the outputs "
                                           f"of each client's execute_code runs, the most recently used, up to {budget} MB, while its "
                                           "session lasts. Run the code again for new ones.", {"uri": uri}) from None
        result: dict[str, Any] = {"contents": contents(uri, output)}
        if stateless:
            result.update(NEVER_CHANGES)
        return result



class CellOutputResources(Source):
    def __init__(self, registry: RuntimeRegistry) -> None:
        self.registry = registry

    def owns(self, uri: str) -> bool:
        return uri.startswith(f"{CELL_SCHEME}:")

    def templates(self) -> list[dict[str, Any]]:
        return [{"uriTemplate": CELL_TEMPLATE, "name": "cell-output", "title": "An output of a notebook cell",
                 "description": "Output n of the cell with that id, as the notebook (by its path under the root) has it now, "
                                "whole: text/plain for a stream or an error, else each type of its bundle, the richest first. "
                                "Subscribing hears of changes to the notebook."}]

    def _path(self, uri: str) -> tuple[str, str, int]:
        named = parse_cell_output_uri(uri)
        if named is None:
            raise MCPError(INVALID_PARAMS, f"{uri!r} is not a cell output resource: they are "
                                           f"{CELL_SCHEME}:///path/to/notebook.ipynb/cells/<cell id>/outputs/<n>", {"uri": uri})
        path, cell_id, index = named
        return notebook_resources.checked_path(path, uri), cell_id, index

    async def read(self, client: ClientState, uri: str, *, stateless: bool) -> dict[str, Any]:
        path, cell_id, index = self._path(uri)
        try:
            notebook = await self.registry.backend(client).contents.read_notebook(path)
        except ToolError as exc:
            raise notebook_resources.failure(exc, uri) from None
        cell = next((c for c in notebook.get("cells", []) if c.get("id") == cell_id), None)
        outputs = cell.get("outputs", []) if cell is not None else []
        if not 0 <= index < len(outputs):
            said = (f"{path} has no cell with id {cell_id}" if cell is None
                    else f"cell {cell_id} of {path} has {len(outputs)} output{'' if len(outputs) == 1 else 's'}")
            raise MCPError(INVALID_PARAMS, f"Resource not found: {said} (read_cell shows a cell's outputs now).",
                           {"uri": uri, "type": str(ErrorKind.NOT_FOUND)})
        result: dict[str, Any] = {"contents": contents(uri, outputs[index])}
        if stateless:
            result.update(notebook_resources.READ_CACHE_HINT)
        return result

    async def watch(self, client: ClientState, uri: str, listener: ChangeListener) -> Unwatch | None:
        path, _, _ = self._path(uri)
        try:
            return await self.registry.backend(client).contents.watch(path, listener)
        except ToolError as exc:
            raise notebook_resources.failure(exc, uri) from None
