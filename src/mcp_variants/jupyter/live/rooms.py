"""A Jupyter server's real-time collaboration API (jupyter-server-ydoc, part of jupyter-collaboration):
whether the server has it, a notebook's document session, and the websocket of its room.

`PUT /api/collaboration/session/<path>` gives the notebook's file id and the server's session
id; the room is `/api/collaboration/room/json:notebook:<file id>?sessionId=<session id>`, the
one JupyterLab joins. A server without the extension answers the PUT with 404. The global awareness
room, `/api/collaboration/room/JupyterLab:globalAwareness`, is where JupyterLab says who is working on what.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from ...protocol.errors import ErrorKind, ToolError
from ..paths import clean_relative
from ..remote.server_client import JupyterServerClient, reason

OPEN_TIMEOUT_S = 10.0
GLOBAL_AWARENESS = "JupyterLab:globalAwareness"  # the room whose awareness JupyterLab's collaborators panel lists
PING_INTERVAL_S = 20.0  # keeps idle connections (and proxies between) open, and notices a dead server


@dataclass(frozen=True)
class DocumentSession:
    file_id: str
    session_id: str  # the server's: another one after it restarted


class RoomClosed(Exception):
    """The server closed a room's websocket on purpose (the document could not be loaded, say)."""

    def __init__(self, code: int | None, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class Rooms:
    """The collaboration API of one Jupyter server; `available` is what it is known to have."""

    def __init__(self, server: JupyterServerClient) -> None:
        self.server = server
        self.available: bool | None = None  # unknown until a notebook's session was asked for

    async def session(self, path: str) -> DocumentSession | None:
        """The document session of the notebook at `path` (which exists); None without collaboration."""
        api = "api/collaboration/session/" + quote(clean_relative(path).as_posix())
        response = await self.server.request("PUT", api, json={"format": "json", "type": "notebook"})
        if response.status_code == 404:
            self.available = False
            return None
        try:
            body = response.json() if response.status_code in (200, 201) else {}
        except ValueError:
            body = {}
        if "fileId" not in body:
            raise ToolError(ErrorKind.INTERNAL, f"The Jupyter server at {self.server.url} did not open the shared document "
                                                f"of {path!r}: {reason(response)}")
        self.available = True
        return DocumentSession(str(body["fileId"]), str(body.get("sessionId", "")))

    async def collaborative(self, path: str) -> bool:
        """Whether the server has real-time collaboration (asked once, with `path`, if not known yet)."""
        if self.available is None:
            await self.session(path)
        return bool(self.available)

    def connect(self, session: DocumentSession) -> AbstractAsyncContextManager[ClientConnection]:
        """The room's websocket, open; an OSError or ToolError when it cannot be opened."""
        return self._open(self.server.websocket_url(f"api/collaboration/room/json:notebook:{session.file_id}",
                                                    urlencode({"sessionId": session.session_id})), prime=True)

    def connect_global(self) -> AbstractAsyncContextManager[ClientConnection]:
        """The websocket of the server's global awareness room (who is in JupyterLab, and on which documents)."""
        return self._open(self.server.websocket_url(f"api/collaboration/room/{GLOBAL_AWARENESS}", ""))

    @asynccontextmanager
    async def _open(self, url: str, *, prime: bool = False) -> AsyncIterator[ClientConnection]:
        if prime:
            await self._prime(url)
        socket = await self._connect(url)
        try:
            yield socket
        finally:
            await socket.close()

    async def _connect(self, url: str) -> ClientConnection:
        try:
            return await connect(url, additional_headers=self.server.ws_headers(), max_size=None, compression=None,
                                 open_timeout=OPEN_TIMEOUT_S, ping_interval=PING_INTERVAL_S, ping_timeout=PING_INTERVAL_S)
        except (InvalidHandshake, InvalidURI, TimeoutError) as exc:
            raise ToolError(ErrorKind.UNREACHABLE, f"Could not open the shared document's websocket at {self.server.url} "
                                                   f"({type(exc).__name__}).") from None

    async def _prime(self, url: str) -> None:
        """Have the room loaded by a connection that ends at once, before the one that stays.

        The first connection to a room loads its notebook in the task that serves that connection, and the worker
        thread anyio starts for the file's read there is bound to that task: it ends only when the task does.
        jupyter-server stops its event loop without closing websockets, so a connection still open at SIGTERM
        left that (non-daemon) thread waiting for ever, and JupyterLab never exited. Loaded by this short
        connection, the thread ends with it. The room's first message (its sync step 1) is sent once it is loaded.
        """
        socket = await self._connect(url)
        try:
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                await asyncio.wait_for(socket.recv(), OPEN_TIMEOUT_S)
        finally:
            await socket.close()


def ack_at_once(connection: ClientConnection) -> None:
    """Acknowledge the next packets at once (Linux TCP_QUICKACK; the kernel drops back to delayed
    acknowledgements now and then, so this is asked again after every message).

    A room answers an edit with two small writes (the update for everyone, then the answer to the
    barrier that confirms it); with Nagle's algorithm on the server's socket the second waits for
    the first to be acknowledged, and a delayed acknowledgement (tens of milliseconds on Linux) would be
    most of an edit's confirmation.
    """
    raw = connection.transport.get_extra_info("socket") if connection.transport is not None else None
    if raw is not None and hasattr(socket, "TCP_QUICKACK"):
        with contextlib.suppress(OSError):
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)


async def send_last(socket: ClientConnection | None, message: bytes | None) -> None:
    """`message` on the open `socket` before it closes (the agents leaving: else people see them 30 s more), for at
    most 2 s; nothing when either is None or the socket is gone."""
    if message is not None and socket is not None:
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            await asyncio.wait_for(socket.send(message), 2)


def closed_on_purpose(error: ConnectionClosed) -> RoomClosed | None:
    """The server's reason when it closed the room (4404, 4400, 4500, or 1003 with a JSON reason)."""
    frame = error.rcvd
    if frame is None or not (frame.code == 1003 or 4000 <= frame.code < 5000):
        return None
    detail = frame.reason
    try:
        parsed = json.loads(detail)
        detail = str(parsed.get("errorReason") or parsed.get("reason") or detail)
    except (ValueError, AttributeError):
        pass
    return RoomClosed(frame.code, detail)
