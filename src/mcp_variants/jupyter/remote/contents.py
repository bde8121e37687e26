"""Files and notebooks on a Jupyter server, through /api/contents."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import anyio
import httpx

from ...protocol.errors import ErrorKind, ToolError
from ..contents_models import changed_meanwhile, version, walk
from ..errors import JupyterErrorKind
from ..file_notebooks import FileNotebooks
from ..notebook_format import check, without_transient
from ..paths import clean_relative
from ..refusals import no_folder, no_notebook
from .server_client import JupyterServerClient, reason


class RemoteContents(FileNotebooks):
    """The server keeps paths under its root; we refuse `..` first."""

    def __init__(self, server: JupyterServerClient) -> None:
        super().__init__()
        self.server = server
        self._limit = anyio.CapacityLimiter(8)  # folders listed at once when walking deeper than 1

    @staticmethod
    def _api(path: str) -> str:
        clean = clean_relative(path).as_posix()
        return "api/contents/" + quote("" if clean == "." else clean)

    async def _model(self, path: str, **params: str) -> httpx.Response:
        async with self._limit:
            return await self.server.request("GET", self._api(path), params=params)

    async def list_entries(self, path: str, depth: int, pattern: str | None) -> list[dict[str, Any]]:
        response = await self._model(path, content="1")
        if response.status_code != 200 or response.json().get("type") != "directory":
            raise no_folder(path)
        return await walk(response.json(), 1, depth, pattern, self._folder)

    async def _folder(self, path: str) -> dict[str, Any] | None:
        response = await self._model(path, content="1")
        return dict(response.json()) if response.status_code == 200 else None

    async def exists(self, path: str) -> bool:
        response = await self._model(path, content="0")
        return response.status_code == 200 and response.json().get("type") != "directory"

    async def read_notebook(self, path: str) -> dict[str, Any]:
        return (await self._read_for_edit(path, versioned=False))[0]

    async def _read_for_edit(self, path: str, *, versioned: bool = True) -> tuple[dict[str, Any], object]:
        response = await self._model(path, type="notebook", content="1", **({"hash": "1"} if versioned else {}))
        if response.status_code == 404:
            raise no_notebook(path)
        if response.status_code != 200:
            raise ToolError(JupyterErrorKind.INVALID_NOTEBOOK, f"{path!r} is not a readable notebook: {reason(response)}")
        model = response.json()
        # The server marks cells "trusted" on read; that is not part of the file.
        return without_transient(model["content"]), version(model)

    async def _check_unchanged(self, path: str, read: object) -> None:
        """Another worker or a person may have saved the notebook since this edit read it: asked just before the PUT.
        (A save landing between this question and the PUT is not seen: docs/choices.md, Many workers.)"""
        response = await self._model(path, content="0", hash="1")
        if response.status_code != 200 or version(response.json()) != read:
            raise changed_meanwhile(path, self.server.name)

    async def live(self, path: str) -> bool | None:
        return False  # the file, through /api/contents: a JupyterLab that has it open sees it on reload

    async def _write(self, path: str, notebook: dict[str, Any]) -> None:
        api = self._api(path)
        check(notebook)
        # One PUT of the whole notebook: the server writes it atomically (temporary file, rename).
        response = await self.server.request("PUT", api, json={"type": "notebook", "format": "json", "content": notebook})
        if response.status_code in (200, 201):
            return
        parent = clean_relative(path).parent.as_posix()
        folder = await self._model(parent, content="0")
        if response.status_code == 404 or folder.status_code != 200 or folder.json().get("type") != "directory":
            raise ToolError(ErrorKind.NOT_FOUND, f"No folder for {path!r} under the root.")
        raise ToolError(ErrorKind.INTERNAL, f"The Jupyter server at {self.server.url} did not save {path!r}: {reason(response)}")
