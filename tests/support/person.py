"""Someone else in a notebook's shared document, without a browser: a Yjs client of its own, as
JupyterLab is one (pycrdt's own Provider over a websocket, jupyter-ydoc's YNotebook), nothing of
mcp-variants in it. It runs its event loop in a thread; the test calls it from its own.

`Person.change(fn)` makes one change as a person's JupyterLab would (fn gets the YNotebook, in
one transaction) and returns once the room holds it; `Person.notebook()` is the notebook as this
client sees it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol
from urllib.parse import quote

import httpx
from jupyter_ydoc import YNotebook
from pycrdt import Decoder, Doc, Provider, YMessageType, YSyncMessageType, create_sync_message, get_state, read_message
from websockets.asyncio.client import ClientConnection, connect

from .waiting import until


class JupyterServer(Protocol):
    """A Jupyter server to reach: a JupyterServerProcess, or a sandbox's URL and token."""

    @property
    def url(self) -> str: ...

    @property
    def auth_headers(self) -> dict[str, str]: ...


def _clocks(state: bytes) -> dict[int, int]:
    """A Yjs state vector: client id -> clock. (The product has its own; this client stays independent of what it tests.)"""
    decoder = Decoder(state)
    return {decoder.read_var_uint(): decoder.read_var_uint() for _ in range(decoder.read_var_uint())}


class _Channel:
    """pycrdt's Channel over a websockets connection, which also learns what the room holds: every
    SYNC_STEP2 the room sends carries changes it has applied."""

    def __init__(self, socket: ClientConnection, path: str) -> None:
        self._socket = socket
        self._path = path
        self.room_clocks: dict[int, int] = {}
        self.heard_step2 = asyncio.Event()

    @property
    def path(self) -> str:
        return self._path

    def __aiter__(self) -> _Channel:
        return self

    async def __anext__(self) -> bytes:
        try:
            return await self.recv()
        except Exception:
            raise StopAsyncIteration from None

    async def send(self, message: bytes) -> None:
        await self._socket.send(message)

    async def recv(self) -> bytes:
        message = await self._socket.recv()
        data = message if isinstance(message, bytes) else message.encode()
        if data[:2] == bytes([YMessageType.SYNC, YSyncMessageType.SYNC_STEP2]):
            for client, clock in _clocks(get_state(read_message(data[2:]))).items():
                self.room_clocks[client] = max(clock, self.room_clocks.get(client, 0))
            self.heard_step2.set()
        return data

    async def until_room_holds(self, doc: Doc[Any]) -> None:
        """Until the room has applied every change made in `doc`: a SYNC_STEP1 from an empty
        document asks for the room's whole state, and its answer says what the room holds."""
        client = doc.client_id
        while self.room_clocks.get(client, 0) < _clocks(doc.get_state()).get(client, 0):
            self.heard_step2.clear()
            await self._socket.send(create_sync_message(Doc()))
            await asyncio.wait_for(self.heard_step2.wait(), 30)


class Person:
    def __init__(self, server: JupyterServer, path: str, *, base_url: str | None = None) -> None:
        self.server = server
        self.path = path
        self.base_url = base_url or server.url
        self.doc: Doc[Any] = Doc()
        self.notebook_doc = YNotebook(self.doc)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._stop: asyncio.Event | None = None
        self._joined: Future[None] = Future()
        self._channel: _Channel | None = None
        self._task = asyncio.run_coroutine_threadsafe(self._run(), self._loop)
        self._joined.result(timeout=30)

    async def _run(self) -> None:
        self._stop = asyncio.Event()
        try:
            async with httpx.AsyncClient(headers=self.server.auth_headers, timeout=30) as http:
                response = await http.put(f"{self.base_url}api/collaboration/session/{quote(self.path)}",
                                          json={"format": "json", "type": "notebook"})
                response.raise_for_status()
                session = response.json()
            url = (self.base_url.replace("http://", "ws://") + f"api/collaboration/room/json:notebook:{session['fileId']}"
                   f"?sessionId={session['sessionId']}")
            async with connect(url, additional_headers=self.server.auth_headers, max_size=None) as socket:
                self._channel = _Channel(socket, url)
                async with Provider(self.doc, self._channel) as provider:
                    await provider.synced.wait()
                    self._joined.set_result(None)
                    await self._stop.wait()
        except BaseException as exc:
            if not self._joined.done():
                self._joined.set_exception(exc)
            raise

    def _call(self, fn: Callable[[], Any]) -> Any:
        async def run() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(timeout=30)

    def change(self, fn: Callable[[YNotebook], Any]) -> Any:
        """One change, in one transaction; returns once the room holds it (the provider sends it from
        its own task, and Yjs never confirms an update, so the room is asked)."""
        def run() -> Any:
            with self.doc.transaction():
                return fn(self.notebook_doc)

        result = self._call(run)
        assert self._channel is not None
        asyncio.run_coroutine_threadsafe(self._channel.until_room_holds(self.doc), self._loop).result(timeout=40)
        return result

    def notebook(self) -> dict[str, Any]:
        """The notebook as this client has it (nbformat, cell ids kept)."""
        def read() -> dict[str, Any]:
            cells = []
            for ycell in self.notebook_doc.ycells:
                cell = ycell.to_py()
                cell["source"] = str(ycell["source"])
                cells.append(cell)
            return {"cells": cells}

        result: dict[str, Any] = self._call(read)
        return result

    def wait_for(self, check: Callable[[dict[str, Any]], bool], timeout: float = 10) -> dict[str, Any]:
        """Until `check(notebook)` holds; the notebook then."""
        def holds() -> tuple[dict[str, Any]] | None:
            notebook = self.notebook()
            return (notebook,) if check(notebook) else None

        return until(holds, "the person's notebook", timeout)[0]

    def close(self) -> None:
        stop_thread(self._loop, self._thread, self._stop, self._task)


def stop_thread(loop: asyncio.AbstractEventLoop, thread: threading.Thread, stop: asyncio.Event | None, task: Future[None]) -> None:
    """End a client whose event loop runs in `thread`: `stop` set, its `task` awaited, the loop stopped."""
    if stop is not None:
        loop.call_soon_threadsafe(stop.set)
    with contextlib.suppress(Exception):
        task.result(timeout=10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)


def cell_ids(notebook: dict[str, Any]) -> list[str]:
    return [cell["id"] for cell in notebook["cells"]]


def output_texts(cell: dict[str, Any]) -> str:
    return "".join(str(o.get("text") or (o.get("data") or {}).get("text/plain") or "") for o in cell.get("outputs") or [])
