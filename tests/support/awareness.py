"""Who a room says is there: a client of a room's awareness only (pycrdt's Awareness over a websocket, nothing of
mcp-variants in it), as JupyterLab reads a notebook room's (the cell markers) and the global room's (the
collaborators panel). It runs its event loop in a thread; `states()` is what it has heard so far.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any
from urllib.parse import quote

import httpx
from pycrdt import Awareness, Doc, YMessageType, create_awareness_message, read_message
from websockets.asyncio.client import ClientConnection, connect

from .person import JupyterServer, stop_thread
from .waiting import until

GLOBAL_ROOM = "JupyterLab:globalAwareness"


def notebook_room(server: JupyterServer, path: str) -> str:
    """The room id and query of a notebook's room, as JupyterLab joins it."""
    response = httpx.put(f"{server.url}api/collaboration/session/{quote(path)}", json={"format": "json", "type": "notebook"},
                         headers=server.auth_headers, timeout=30)
    response.raise_for_status()
    session = response.json()
    return f"json:notebook:{session['fileId']}?sessionId={session['sessionId']}"


class Watcher:
    def __init__(self, server: JupyterServer, room: str) -> None:
        self._url = server.url.replace("http://", "ws://") + f"api/collaboration/room/{room}"
        self._headers = server.auth_headers
        self._awareness = Awareness(Doc())
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._joined: Future[None] = Future()
        self.greeted = threading.Event()  # the room's first message (its sync step 1) has come
        self._stop: asyncio.Event | None = None
        self._socket: Any = None
        self._task = asyncio.run_coroutine_threadsafe(self._run(), self._loop)
        self._joined.result(timeout=30)

    async def _run(self) -> None:
        self._stop = asyncio.Event()
        try:
            async with connect(self._url, additional_headers=self._headers, max_size=None) as socket:
                self._joined.set_result(None)
                self._socket = socket
                listening = asyncio.create_task(self._listen(socket))
                await self._stop.wait()
                listening.cancel()
        except BaseException as exc:
            if not self._joined.done():
                self._joined.set_exception(exc)
            raise

    async def _listen(self, socket: ClientConnection) -> None:
        async for message in socket:
            if isinstance(message, bytes) and message[0] == YMessageType.SYNC:
                self.greeted.set()
            if isinstance(message, bytes) and message[0] == YMessageType.AWARENESS:
                self._awareness.apply_awareness_update(read_message(message[1:]), "room")

    def announce(self, state: dict[str, Any]) -> None:
        """Say who this client is, as a JupyterLab that opens the notebook does."""
        async def send() -> None:
            self._awareness.set_local_state(state)
            update = self._awareness.encode_awareness_update([self._awareness.client_id])
            await self._socket.send(create_awareness_message(update))

        asyncio.run_coroutine_threadsafe(send(), self._loop).result(timeout=10)

    def states(self) -> list[dict[str, Any]]:
        """Every state heard and not withdrawn (a copy), but this watcher's own (empty) one."""
        async def read() -> list[dict[str, Any]]:
            own = self._awareness.client_id
            return [dict(s) for c, s in self._awareness.states.items() if c != own and s]

        result: list[dict[str, Any]] = asyncio.run_coroutine_threadsafe(read(), self._loop).result(timeout=10)
        return result

    def named(self, name: str) -> list[dict[str, Any]]:
        """The states now of the collaborators called `name`."""
        return [s for s in self.states() if (s.get("user") or {}).get("display_name") == name]

    def wait(self, check: Callable[[list[dict[str, Any]]], bool], timeout: float = 10) -> list[dict[str, Any]]:
        """Until `check(states)` holds; the states then."""
        def holds() -> tuple[list[dict[str, Any]]] | None:
            states = self.states()
            return (states,) if check(states) else None

        return until(holds, "the room's awareness", timeout)[0]

    def close(self) -> None:
        stop_thread(self._loop, self._thread, self._stop, self._task)
