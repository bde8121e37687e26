"""Files and notebooks on a Jupyter server: notebooks through their shared documents when it has
real-time collaboration, through its contents API when it has not.

While a notebook's room is in use nothing is written to it through the contents API, so
there is one writer, and a JupyterLab that has it open shows every change as it is made. Only a
notebook that does not exist yet is created through the contents API (no room can be in use
for it). Files and folders are always listed through the contents API.

An agent (the MCP client a tool call comes from) that edits or runs a cell in a shared document shows among
JupyterLab's collaborators: in the notebook's room, on the cell (live/document.py), and in the server's
global awareness room, in the collaborators panel (live/lobby.py). Files show nobody.

The same over either way to the server: `server_backend.remote_contents` joins its rooms over websockets and
keeps files through /api/contents; the Jupyter server extension uses the server's own rooms and
contents manager, in process (jupyter/inprocess).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from typing import Any, Protocol

from ..keyed_locks import KeyedLocks
from ..paths import clean_relative
from ..refusals import no_notebook
from ..runtime import Agent, ChangeListener, Contents, Origin, OutputsListener, Unwatch

IDLE_CLOSE_S = 600.0  # a document nobody used or watched for this long is let go (the server keeps the notebook)


class LiveDocument(Protocol):
    """One notebook's shared document, as JupyterContents uses it (live/document.SharedNotebook, inprocess/documents.RoomNotebook)."""

    closed: bool
    last_used: float

    @property
    def watched(self) -> bool: ...

    async def current(self) -> None:
        """Until this copy holds what the server had when asked."""
        ...

    def read(self) -> dict[str, Any]: ...

    def editing(self, origin: Origin, agent: Agent | None = None) -> AbstractAsyncContextManager[dict[str, Any]]: ...

    async def replace(self, notebook: dict[str, Any]) -> None: ...

    def running(self, cell_id: str, origin: Origin, agent: Agent | None = None) -> AbstractAsyncContextManager[OutputsListener]: ...

    def left(self, key: str) -> None:
        """The agent of client `key` leaves the notebook's collaborators."""
        ...

    def watch(self, listener: ChangeListener) -> Unwatch: ...

    async def close(self) -> None: ...


class Roster(Protocol):
    """Where JupyterLab lists who works on which notebook: what the contents need of live/lobby.Lobby (the server's
    global awareness room), so that they import nothing of its websocket."""

    def present(self, agent: Agent, path: str) -> str | None:
        """`agent` works in the notebook at `path`: the colour the panel lists it in (None: not yet known)."""
        ...

    def left(self, key: str) -> None: ...

    async def close(self) -> None: ...


class Documents(Protocol):
    """Where a server's shared documents come from."""

    @property
    def lobby(self) -> Roster | None:
        """Where the agents show in JupyterLab's collaborators panel; None: nowhere."""
        ...

    @property
    def available(self) -> bool | None:
        """False once the server is known to have no real-time collaboration (then never asked again)."""
        ...

    async def open(self, path: str) -> LiveDocument | None:
        """The shared document of the notebook at `path` (which exists), or None where the server keeps it as a file."""
        ...


class JupyterContents:
    """The Contents of a Jupyter server: its notebooks' shared documents where it has real-time collaboration, its
    contents API where it has not (and for files and folders always)."""

    def __init__(self, files: Contents, documents: Documents) -> None:
        self.rest = files  # files and notebooks without a shared document: the contents API
        self.documents = documents
        self._documents: dict[str, LiveDocument] = {}
        self._opening = KeyedLocks()

    async def _document(self, path: str) -> LiveDocument | None:
        """The shared document of the notebook at `path`, joined on first use; None without collaboration."""
        path = clean_relative(path).as_posix()
        document = self._documents.get(path)
        if document is not None and not document.closed:
            return document
        if self.documents.available is False:
            return None
        async with self._opening.hold(path):
            document = self._documents.get(path)
            if document is not None and not document.closed:
                return document
            if not await self.rest.exists(path):
                raise no_notebook(path)
            document = await self.documents.open(path)
            if document is None:
                return None
            self._documents[path] = document
        await self._let_go_of_idle()
        return document

    async def _let_go_of_idle(self) -> None:
        now = time.monotonic()
        for path, document in list(self._documents.items()):
            if document.closed or (not document.watched and now - document.last_used > IDLE_CLOSE_S):
                del self._documents[path]
                await document.close()

    async def list_entries(self, path: str, depth: int, pattern: str | None) -> list[dict[str, Any]]:
        return await self.rest.list_entries(path, depth, pattern)

    async def exists(self, path: str) -> bool:
        return await self.rest.exists(path)

    async def read_notebook(self, path: str) -> dict[str, Any]:
        document = await self._document(path)
        if document is None:
            return await self.rest.read_notebook(path)
        await document.current()
        return document.read()

    async def write_notebook(self, path: str, notebook: dict[str, Any]) -> None:
        document = await self._document(path) if await self.rest.exists(path) else None
        if document is None:  # a new notebook, or no collaboration
            await self.rest.write_notebook(path, notebook)
            return
        await document.replace(notebook)

    @asynccontextmanager
    async def edit_notebook(self, path: str, *, origin: Origin, agent: Agent | None = None) -> AsyncIterator[dict[str, Any]]:
        document = await self._document(path)
        if document is None:
            async with self.rest.edit_notebook(path, origin=origin) as notebook:
                yield notebook
            return
        async with document.editing(origin, self._seen(agent, path)) as notebook:
            yield notebook

    @asynccontextmanager
    async def running_cell(self, path: str, cell_id: str, *, origin: Origin,
                           agent: Agent | None = None) -> AsyncIterator[OutputsListener | None]:
        document = await self._document(path)
        if document is None:
            yield None
            return
        async with document.running(cell_id, origin, self._seen(agent, path)) as write:
            yield write

    def _seen(self, agent: Agent | None, path: str) -> Agent | None:
        """`agent` listed in the collaborators panel as working at `path`, and so in the colour it is listed in: the
        panel and the notebook room each give it a colour free among those they hear, and another agent only listed
        (working in another notebook) would otherwise leave it one colour in the panel and another on its cells."""
        if agent is None or self.documents.lobby is None:
            return agent
        listed_in = self.documents.lobby.present(agent, clean_relative(path).as_posix())
        return replace(agent, listed_in=listed_in) if listed_in is not None else agent

    async def agent_left(self, key: str) -> None:
        for document in self._documents.values():
            document.left(key)
        if self.documents.lobby is not None:
            self.documents.lobby.left(key)

    async def watch(self, path: str, listener: ChangeListener) -> Unwatch:
        document = await self._document(path)
        if document is None:
            return await self.rest.watch(path, listener)
        return document.watch(listener)

    async def live(self, path: str) -> bool | None:
        return await self._document(path) is not None

    async def aclose(self) -> None:
        documents, self._documents = list(self._documents.values()), {}
        for document in documents:
            await document.close()
        if self.documents.lobby is not None:
            await self.documents.lobby.close()
        await self.rest.aclose()
