"""A notebook's room on a Jupyter server, joined over a websocket and joined again whenever it drops.

The Yjs sync protocol over the websocket: each side sends its state vector, the other answers with what it lacks,
then every change flows both ways. What the messages mean is the document's (live/document.py, a `Peer`); this
keeps the socket: one task joins the room, joins it again after a drop (backing off), sends everything through one
outbox in order, and hands each message it receives to the document. A first join that fails ends the task, with
the reason (`failure`). The task outlives the call that opened the document, until `close`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Protocol

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from ...protocol.errors import ErrorKind, ToolError
from ..errors import JupyterErrorKind
from .rooms import DocumentSession, RoomClosed, Rooms, ack_at_once, closed_on_purpose, send_last
from .sync import Barriers

logger = logging.getLogger(__name__)

RETRY_FIRST_S, RETRY_MAX_S = 0.1, 2.0  # backoff between attempts to join again


class Peer(Protocol):
    """What a connection tells the document it carries."""

    closed: bool

    def joining(self, session: DocumentSession) -> None:
        """The session a socket is about to open in (another one than before: the server restarted)."""

    def opened(self) -> None:
        """A socket is open: send what starts the exchange on it."""

    def received(self, message: bytes) -> bool:
        """One message from the server; False when the connection must start over."""

    async def keep(self) -> None:
        """Runs while a socket is open (cancelled when it closes)."""


class RoomConnection:
    """The room of the notebook at `path`; `start`, then `close` at the end. `barriers` and `number` are the open
    socket's: its SYNC_STEP1s and their answers (the first answer: joined), and how many sockets were opened."""

    def __init__(self, path: str, rooms: Rooms, peer: Peer, session: DocumentSession | None = None) -> None:
        self.path = path
        self.rooms = rooms
        self._peer = peer
        self._session = session  # the first join's, when the opener just asked for it
        self._socket: ClientConnection | None = None
        self._outbox: asyncio.Queue[bytes] | None = None  # what goes out on the open socket, in order
        self.barriers = Barriers()
        self.number = 0
        self.failure: ToolError | None = None  # why the first join failed
        self._progress = asyncio.Event()  # set (and replaced) at every step: waiters look again
        self._task: asyncio.Task[None] | None = None

    @property
    def joined(self) -> bool:
        """Joined on the open socket: the server answered its first barrier."""
        return self.barriers.joined

    @property
    def ended(self) -> bool:
        return self._task is not None and self._task.done()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._stay_connected(), name=f"shared document {self.path}")

    def restart(self) -> None:
        """Drop the socket (it may carry what must not arrive any more) and join again."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            self._task = asyncio.get_running_loop().create_task(self._stay_connected_again(self._task))

    def restart_barriers(self) -> None:
        """Not joined any more: waiters wait for the next answer to a first barrier."""
        self.barriers = Barriers()

    def send(self, message: bytes) -> None:
        """`message` on the open socket, after everything sent before it; nothing without one."""
        if self._outbox is not None:
            self._outbox.put_nowait(message)

    def wake(self) -> None:
        self._progress.set()
        self._progress = asyncio.Event()

    async def wait(self, done: Callable[[], bool], timeout: float, message: str) -> None:
        """Until `done()`, looked at again at every step; a ToolError with `message` after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                raise ToolError(ErrorKind.UNREACHABLE, message)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._progress.wait(), left)

    async def close(self, last: bytes | None) -> None:
        """`last` on the open socket (the agents leaving), then the task ends."""
        await send_last(self._socket, last)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _stay_connected_again(self, previous: asyncio.Task[None]) -> None:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await previous
        await self._stay_connected(joined_before=True)

    async def _stay_connected(self, *, joined_before: bool = False) -> None:
        """Join the room, and join it again whenever the socket drops; a first join that fails is
        reported (`failure`) and ends the task."""
        delay = RETRY_FIRST_S
        joined = joined_before
        while not self._peer.closed:
            failure: Exception | None = None
            try:
                await self._connect()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # refused, dropped, closed by the server
                failure = exc
            finally:
                if self.joined:
                    joined, delay = True, RETRY_FIRST_S
                self._socket, self._outbox, self.barriers = None, None, Barriers()
                self.wake()
            if not joined:
                self.failure = (_as_tool_error(failure, self.path, self.rooms.server.url) if failure is not None else
                                ToolError(ErrorKind.UNREACHABLE, f"The Jupyter server closed the shared document of {self.path!r}."))
                self.wake()
                return
            logger.info("shared document %s: connection lost (%s); joining again", self.path,
                        type(failure).__name__ if failure is not None else "closed")
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX_S)

    async def _connect(self) -> None:
        session = self._session if self._session is not None and not self.number else await self.rooms.session(self.path)
        if session is None:
            raise ToolError(ErrorKind.UNREACHABLE, f"The Jupyter server at {self.rooms.server.url} no longer has real-time collaboration.")
        self._peer.joining(session)
        self._session = session
        async with self.rooms.connect(session) as socket:
            self._socket, self._outbox, self.barriers = socket, asyncio.Queue(), Barriers()
            self.number += 1
            ack_at_once(socket)
            self._peer.opened()
            sender = asyncio.get_running_loop().create_task(self._send(socket, self._outbox))
            keeper = asyncio.get_running_loop().create_task(self._peer.keep())
            try:
                async for message in socket:
                    ack_at_once(socket)
                    if isinstance(message, bytes) and not self._peer.received(message):
                        return
            except ConnectionClosed as exc:
                closed = closed_on_purpose(exc)
                if closed is not None:
                    raise closed from None
                raise
            finally:
                for task in (sender, keeper):
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task

    async def _send(self, socket: ClientConnection, outbox: asyncio.Queue[bytes]) -> None:
        """Everything sent on the socket goes through here, in order."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                await socket.send(await outbox.get())


def _as_tool_error(exc: Exception, path: str, url: str) -> ToolError:
    if isinstance(exc, ToolError):
        return exc
    if isinstance(exc, RoomClosed):
        kind = ErrorKind.NOT_FOUND if exc.code == 4404 else JupyterErrorKind.INVALID_NOTEBOOK
        return ToolError(kind, f"The Jupyter server at {url} could not open the shared document of {path!r}: {exc.detail}")
    return ToolError(ErrorKind.UNREACHABLE, f"Could not join the shared document of {path!r} at {url} ({type(exc).__name__}).")
