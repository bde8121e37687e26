"""The shared documents of the Jupyter server this code runs inside: jupyter-server-ydoc's rooms, in process.

A notebook's document is the room's own (`YDocExtension.get_document(copy=False, create=True)`): the
very document JupyterLab's clients are synced with. A change made here is one transaction on it; the
room sends it to every client and saves the file, as it does for a person's typing, and what people
type meanwhile merges cell by cell (live/apply.apply changes only what the edit changed). There is no
connection and so nothing to confirm: the change is in the server's copy when the transaction ends. What
is done with it is live/edits.NotebookEdits, as for a document joined over a websocket.

A room may be dropped and made again (the last JupyterLab tab closed, then a new one opened): every
use looks the document up again and moves over to the new one, watchers included.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from jupyter_ydoc import YNotebook
from pycrdt import Map

from ...protocol.errors import ErrorKind, ToolError
from ..errors import JupyterErrorKind
from ..live.contents import LiveDocument, Roster
from ..live.edits import NotebookEdits
from ..runtime import Origin
from .contents import api_path

YDOC_EXTENSION = "jupyter_server_ydoc"  # where jupyter-collaboration's server extension puts itself in the server's settings


class ServerRooms:
    """The rooms of jupyter-server-ydoc in this server, when it is loaded (`available`)."""

    def __init__(self, serverapp: Any) -> None:
        self.serverapp = serverapp
        self.lobby: Roster | None = None  # the agents are not shown in process yet (docs/guides/jupyter.md)

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
            raise ToolError(JupyterErrorKind.INVALID_NOTEBOOK, f"The shared document of {path!r} could not be opened: {exc}") from None
        if not isinstance(notebook, YNotebook):
            raise ToolError(JupyterErrorKind.INVALID_NOTEBOOK, f"{path!r} has no notebook document in this server's collaboration.")
        return notebook

    async def open(self, path: str) -> LiveDocument | None:
        if not self.available:
            return None
        document = RoomNotebook(path, self)
        await document.current()
        return document


class RoomNotebook(NotebookEdits):
    """One notebook's room document, changed in place."""

    def __init__(self, path: str, rooms: ServerRooms) -> None:
        super().__init__()
        self.path = path
        self._rooms = rooms
        self._subscriptions: list[tuple[Any, Any]] = []  # (shared type, subscription)
        self._origin: Origin = None  # who makes the transaction now being committed
        self.last_used = time.monotonic()

    async def current(self) -> None:
        """The room's document now (another one when the room was made again)."""
        self.last_used = time.monotonic()
        notebook = await self._rooms.room_document(self.path)
        if notebook is not getattr(self, "notebook", None):
            self._unobserve()
            self.notebook = notebook
            self._kept_cells.forget()
            # The cells and metadata observed directly: YNotebook.observe would replace the room's own observer
            # (the one that saves the file), since a YNotebook keeps one.
            self._subscriptions.append((notebook.ycells, notebook.ycells.observe_deep(self._on_cells)))
            meta = notebook.ydoc.get("meta", type=Map)
            self._subscriptions.append((meta, meta.observe_deep(self._on_change)))

    def _unobserve(self) -> None:
        for shared, subscription in self._subscriptions:
            shared.unobserve(subscription)
        self._subscriptions.clear()

    async def _ready(self) -> None:
        await self.current()

    def _on_cells(self, events: Any) -> None:
        self._kept_cells.changed(events)
        self._on_change(events)

    def _on_change(self, events: Any) -> None:
        self._tell(self._origin)

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

    async def close(self) -> None:
        """Stop listening; the room and its document are the server's, and stay."""
        self.closed = True
        self._listeners.clear()
        self._unobserve()
