"""The shared documents of the Jupyter server this code runs inside: jupyter-server-ydoc's rooms, in process.

A notebook's document is the room's own (`YDocExtension.get_document(copy=False, create=True)`): the
very document JupyterLab's clients are synced with. A change made here is one transaction on it; the
room sends it to every client and saves the file, as it does for a person's typing, and what people
type meanwhile merges cell by cell (live/cells.apply changes only what the edit changed). There is no
connection and so nothing to confirm: the change is in the server's copy when the transaction ends.

A room may be dropped and made again (the last JupyterLab tab closed, then a new one opened): every
use looks the document up again and moves over to the new one, watchers included.
"""

from __future__ import annotations

import copy
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from jupyter_ydoc import YNotebook
from pycrdt import Map

from ...protocol.errors import ErrorKind, ToolError
from ..live import cells
from ..live.contents import LiveDocument
from ..notebook_format import check
from ..runtime import ChangeListener, Origin, OutputsListener, Unwatch
from .contents import api_path

YDOC_EXTENSION = "jupyter_server_ydoc"  # where jupyter-collaboration's server extension puts itself in the server's settings


class ServerRooms:
    """The rooms of jupyter-server-ydoc in this server, when it is loaded (`available`)."""

    def __init__(self, serverapp: Any) -> None:
        self.serverapp = serverapp

    def _extension(self) -> Any:
        return self.serverapp.web_app.settings.get(YDOC_EXTENSION)

    @property
    def available(self) -> bool | None:
        return self._extension() is not None

    async def room_document(self, path: str) -> YNotebook:
        extension = self._extension()
        if extension is None:
            raise ToolError(ErrorKind.UNREACHABLE, "Real-time collaboration is no longer loaded in this Jupyter server.")
        try:
            notebook = await extension.get_document(path=api_path(path), content_type="notebook", file_format="json",
                                                    copy=False, create=True)
        except Exception as exc:  # the room could not load the file
            raise ToolError(ErrorKind.INVALID_NOTEBOOK, f"The shared document of {path!r} could not be opened: {exc}") from None
        if not isinstance(notebook, YNotebook):
            raise ToolError(ErrorKind.INVALID_NOTEBOOK, f"{path!r} has no notebook document in this server's collaboration.")
        return notebook

    async def open(self, path: str) -> LiveDocument | None:
        if not self.available:
            return None
        document = RoomNotebook(path, self)
        await document.current()
        return document


class RoomNotebook:
    """One notebook's room document, changed in place."""

    def __init__(self, path: str, rooms: ServerRooms) -> None:
        self.path = path
        self._rooms = rooms
        self._notebook: YNotebook | None = None
        self._subscriptions: list[tuple[Any, Any]] = []  # (shared type, subscription)
        self._origin: Origin = None  # who makes the transaction now being committed
        self._listeners: dict[object, ChangeListener] = {}
        self.closed = False
        self.last_used = time.monotonic()

    async def current(self) -> None:
        """The room's document now (another one when the room was made again)."""
        self.last_used = time.monotonic()
        notebook = await self._rooms.room_document(self.path)
        if notebook is not self._notebook:
            self._unobserve()
            self._notebook = notebook
            # The cells and metadata observed directly: YNotebook.observe would replace the room's own observer
            # (the one that saves the file), since a YNotebook keeps one.
            for shared in (notebook.ycells, notebook.ydoc.get("meta", type=Map)):
                self._subscriptions.append((shared, shared.observe_deep(self._on_change)))

    def _unobserve(self) -> None:
        for shared, subscription in self._subscriptions:
            shared.unobserve(subscription)
        self._subscriptions.clear()

    @property
    def notebook(self) -> YNotebook:
        assert self._notebook is not None, "current() first"
        return self._notebook

    def _on_change(self, events: Any) -> None:
        for listener in list(self._listeners.values()):
            listener(self._origin)

    @contextmanager
    def _as(self, origin: Origin) -> Iterator[None]:
        self._origin = origin
        try:
            yield
        finally:
            self._origin = None

    def change(self, origin: Origin, make: Callable[[YNotebook], Any]) -> Any:
        """Run `make` on the room's document in one transaction, made by `origin`."""
        self.last_used = time.monotonic()
        with self._as(origin), self.notebook.ydoc.transaction():
            return make(self.notebook)

    def read(self) -> dict[str, Any]:
        self.change(None, cells.give_ids)
        return cells.read(self.notebook)

    @asynccontextmanager
    async def editing(self, origin: Origin) -> AsyncIterator[dict[str, Any]]:
        await self.current()
        self.change(origin, cells.give_ids)
        before = cells.read(self.notebook)
        after = copy.deepcopy(before)
        yield after
        check(after)
        await self.current()
        self.change(origin, lambda notebook: cells.apply(notebook, before, after))

    async def replace(self, notebook: dict[str, Any]) -> None:
        check(notebook)
        await self.current()
        before = cells.read(self.notebook)
        self.change(None, lambda live: cells.apply(live, before, notebook))

    @asynccontextmanager
    async def running(self, cell_id: str, origin: Origin) -> AsyncIterator[OutputsListener]:
        await self.current()
        run = cells.RunningCell(cell_id)
        self.change(origin, run.begin)

        def write(outputs: list[dict[str, Any]], execution_count: int | None) -> None:
            if not run.gone:
                self.change(origin, lambda notebook: run.update(notebook, outputs, execution_count))

        try:
            yield write
        finally:
            if not run.gone and not self.closed:
                self.change(origin, run.end)

    def watch(self, listener: ChangeListener) -> Unwatch:
        token = object()
        self._listeners[token] = listener

        async def unwatch() -> None:
            self._listeners.pop(token, None)

        return unwatch

    @property
    def watched(self) -> bool:
        return bool(self._listeners)

    async def close(self) -> None:
        """Stop listening; the room and its document are the server's, and stay."""
        self.closed = True
        self._listeners.clear()
        self._unobserve()
        self._notebook = None
