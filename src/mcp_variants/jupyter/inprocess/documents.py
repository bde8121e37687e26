"""The shared documents of the Jupyter server this code runs inside: jupyter-server-ydoc's rooms, in process.

A notebook's document is the room's own (`YDocExtension.get_document(copy=False, create=True)`): the
very document JupyterLab's clients are synced with. A change made here is one transaction on it; the
room sends it to every client and saves the file, as it does for a person's typing, and what people
type meanwhile merges cell by cell (live/apply.apply changes only what the edit changed). There is no
connection and so nothing to confirm: the change is in the server's copy when the transaction ends. What
is done with it is live/edits.NotebookEdits, as for a document joined over a websocket.

A room may be dropped and made again (the last JupyterLab tab closed, then a new one opened): every
use looks the document up again and moves over to the new one, watchers included.

The agents working in a notebook are in its room's awareness as over a websocket (live/room_presence.py): their
states are applied to the room's own awareness as its local changes, which the room sends to every client, and
what the room hears from people comes back to them (a newcomer, a colour taken).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from jupyter_ydoc import YNotebook
from pycrdt import Map, read_message

from ...protocol.errors import ErrorKind, ToolError
from ..errors import JupyterErrorKind
from ..live.cell_ids import find
from ..live.contents import LiveDocument, Roster
from ..live.edits import NotebookEdits
from ..live.presence import selection
from ..live.room_presence import RoomPresence
from ..runtime import Agent, Origin
from .contents import api_path
from .global_room import ServerLobby

YDOC_EXTENSION = "jupyter_server_ydoc"  # where jupyter-collaboration's server extension puts itself in the server's settings


class ServerRooms:
    """The rooms of jupyter-server-ydoc in this server, when it is loaded (`available`)."""

    def __init__(self, serverapp: Any) -> None:
        self.serverapp = serverapp
        self._lobby: ServerLobby | None = None

    @property
    def lobby(self) -> Roster | None:
        """The global awareness room's roster, once jupyter-server-ydoc is loaded."""
        if self._lobby is None:
            server = getattr(self._extension(), "ywebsocket_server", None)
            if server is not None:
                self._lobby = ServerLobby(server)
        return self._lobby

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

    def room_of(self, notebook: YNotebook) -> Any:
        """The room (pycrdt-websocket's YRoom) whose document `notebook` is; None when there is none now."""
        extension = self._extension()
        rooms = getattr(getattr(extension, "ywebsocket_server", None), "rooms", {}) if extension is not None else {}
        return next((room for room in list(rooms.values()) if getattr(room, "ydoc", None) is notebook.ydoc), None)

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
        self._agents = RoomPresence(self._to_room)
        self._awareness: Any = None  # the room's, while its document is this one's
        self._heard: Any = None  # the subscription to it
        self._keeper: asyncio.Task[None] | None = None  # renews the agents' states while any is here

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
            room = self._rooms.room_of(notebook)
            if room is not None:
                self._awareness = room.awareness
                self._heard = self._awareness.observe(self._on_awareness)
                self._agents.renew()  # the agents here, in the new room too

    def _unobserve(self) -> None:
        for shared, subscription in self._subscriptions:
            shared.unobserve(subscription)
        self._subscriptions.clear()
        if self._awareness is not None:
            self._awareness.unobserve(self._heard)
            self._awareness = self._heard = None

    # ---- who is here: the room's awareness (room_presence) ----------------------------------------------

    def _to_room(self, message: bytes) -> None:
        """An awareness message of the agents, as the room's own local change: the room sends it to everyone."""
        if self._awareness is not None:
            self._awareness.apply_awareness_update(read_message(message[1:]), "local")

    def _on_awareness(self, kind: str, changes: tuple[dict[str, list[int]], Any]) -> None:
        """What the room heard from its clients (not its own local changes, ours among them)."""
        if kind != "update" or changes[1] == "local" or self._awareness is None:
            return
        clients = [client for ids in changes[0].values() for client in ids]
        self._agents.heard(self._awareness.encode_awareness_update(clients))

    def present(self, agent: Agent, cell_id: str | None = None) -> None:
        cursors: list[dict[str, Any]] = []
        if cell_id is not None:
            index = find(self.notebook, cell_id, self._kept_cells.ids(self.notebook))
            if index is not None:
                cursors = selection(self.notebook.ycells[index]["source"])
        self._agents.present(agent, cursors)
        if self._keeper is None:
            self._keeper = asyncio.get_running_loop().create_task(self._agents.keep(), name=f"agents in {self.path}")

    def finished(self, agent: Agent) -> None:
        self._agents.finished(agent)

    def left(self, key: str) -> None:
        self._agents.left(key)

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
        """Stop listening, the agents gone from the room; the room and its document are the server's, and stay."""
        self.closed = True
        self._listeners.clear()
        message = self._agents.leave_all()
        if message is not None:
            self._to_room(message)
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
        self._unobserve()
