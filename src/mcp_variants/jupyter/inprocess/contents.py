"""Files and notebooks of the Jupyter server this code runs inside, through its own contents manager.

The contents manager is the server's: its root, its hidden-file rules, its checkpoints, its file
ids, whatever class the server is configured with (a database, S3); nothing is read from disk behind
its back. An edit asks, just before it saves, whether the file is still what it read (its hash), as
edits through /api/contents do (jupyter/remote/contents.py): a person's save in between is a
`conflict`, nothing written.
"""

from __future__ import annotations

from typing import Any

from jupyter_core.utils import ensure_async
from tornado.web import HTTPError

from ...protocol.errors import ErrorKind, ToolError
from ..contents_models import changed_meanwhile, version, walk
from ..errors import JupyterErrorKind
from ..file_notebooks import FileNotebooks
from ..notebook_format import check, without_transient
from ..paths import clean_relative
from ..refusals import no_folder, no_notebook

SUBJECT = "this Jupyter server"


def api_path(path: str) -> str:
    clean = clean_relative(path).as_posix()
    return "" if clean == "." else clean


class ServerContents(FileNotebooks):
    def __init__(self, contents_manager: Any) -> None:
        super().__init__()
        self.manager = contents_manager

    async def _model(self, path: str, **options: Any) -> dict[str, Any] | None:
        """The model at `path` (options as ContentsManager.get takes them), None where there is none."""
        try:
            return dict(await ensure_async(self.manager.get(api_path(path), **options)))
        except HTTPError as exc:
            if exc.status_code in (400, 404):  # none, or not of that type
                return None
            raise ToolError(ErrorKind.INTERNAL, f"{SUBJECT} could not read {path!r}: {exc.log_message or exc.reason}") from None

    async def _folder(self, path: str) -> dict[str, Any] | None:
        model = await self._model(path, content=True)
        return model if model is not None and model.get("type") == "directory" else None

    async def list_entries(self, path: str, depth: int, pattern: str | None) -> list[dict[str, Any]]:
        folder = await self._folder(path)
        if folder is None:
            raise no_folder(path)
        return await walk(folder, 1, depth, pattern, self._folder)

    async def exists(self, path: str) -> bool:
        return bool(await ensure_async(self.manager.file_exists(api_path(path))))

    async def read_notebook(self, path: str) -> dict[str, Any]:
        return (await self._read_for_edit(path))[0]

    async def _read_for_edit(self, path: str) -> tuple[dict[str, Any], object]:
        try:
            model = dict(await ensure_async(self.manager.get(api_path(path), content=True, type="notebook", require_hash=True)))
        except HTTPError as exc:
            if exc.status_code == 404:
                raise no_notebook(path) from None
            raise ToolError(JupyterErrorKind.INVALID_NOTEBOOK,
                            f"{path!r} is not a readable notebook: {exc.log_message or exc.reason}") from None
        # The manager marks cells "trusted" on read; that is not part of the file.
        return without_transient(model["content"]), version(model)

    async def _check_unchanged(self, path: str, read: object) -> None:
        model = await self._model(path, content=False, require_hash=True)
        if model is None or version(model) != read:
            raise changed_meanwhile(path, SUBJECT)

    async def live(self, path: str) -> bool | None:
        return False  # the file: a JupyterLab without real-time collaboration shows it on reload

    async def _write(self, path: str, notebook: dict[str, Any]) -> None:
        check(notebook)
        where = api_path(path)
        parent = clean_relative(path).parent.as_posix()
        if not await ensure_async(self.manager.dir_exists("" if parent == "." else parent)):
            raise ToolError(ErrorKind.NOT_FOUND, f"No folder for {path!r} under the root.")
        try:
            await ensure_async(self.manager.save({"type": "notebook", "format": "json", "content": notebook}, where))
        except HTTPError as exc:
            raise ToolError(ErrorKind.INTERNAL, f"{SUBJECT} did not save {path!r}: {exc.log_message or exc.reason}") from None
