"""One notebook's shared document, kept in sync with its room on a Jupyter server.

A connection task joins the room (the Yjs sync protocol over a websocket: each side sends its
state vector, the other answers with what it lacks, then every change flows both ways), and
joins it again whenever the websocket drops: the exchange of state vectors sends whatever the
other side missed, and nothing twice. Local changes are made in one transaction each, tagged
with who made them; `confirm` waits until the server's copy holds them (a barrier: sync.Barriers).

If the server rebuilt the room meanwhile (it restarted, or it dropped the room and loaded the
file again), the copy here belongs to another history and is thrown away, unmerged: merging
would duplicate the notebook's cells. An edit the server never confirmed is then reported as
not applied.

The connection runs as an asyncio task of its own: it outlives the call that opened the
document, until `close`.

The agents working in the notebook are in the room's awareness (live/presence.py): JupyterLab shows
each as a collaborator, its colour and name on the cell it edits or runs. They are announced again
on every new connection, renewed while they stay, and leave when their session ends, when they go
idle, or when the document is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from jupyter_ydoc import YNotebook
from pycrdt import (
    Decoder,
    Doc,
    TransactionEvent,
    YMessageType,
    YSyncMessageType,
    create_sync_message,
    create_update_message,
    handle_sync_message,
    read_message,
)
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from ...protocol.errors import ErrorKind, ToolError
from ..refusals import Recourse, RuntimeRefusal
from ..runtime import Agent, Origin
from .cell_ids import find
from .edits import NotebookEdits
from .presence import RENEW_S, SHOWN_AT_LEAST_S, Presence, identity, selection
from .rooms import DocumentSession, RoomClosed, Rooms, ack_at_once, closed_on_purpose, send_last
from .sync import Barriers, ServerView, decode_state_vector

logger = logging.getLogger(__name__)

OPEN_TIMEOUT_S = 20.0  # joining a room: the server loads the file first
CONFIRM_TIMEOUT_S = 15.0  # an edit waits this long for the server to hold it, reconnecting if need be
RETRY_FIRST_S, RETRY_MAX_S = 0.1, 2.0  # backoff between attempts to join again
RAW_MESSAGE = 2  # jupyter-server-ydoc's own messages (save replies, conflicts): JSON
EMPTY_UPDATE = b"\x00\x00"
FROM_SERVER = object()  # the origin of what the server sent: not sent back


class SharedNotebook(NotebookEdits):
    """The shared document of the notebook at `path`; `open` first, `close` at the end."""

    def __init__(self, path: str, rooms: Rooms, session: DocumentSession | None = None) -> None:
        """`session`: the notebook's document session, when the caller just asked for it (the first join takes it)."""
        super().__init__()
        self.path = path
        self._rooms = rooms
        self._session = session
        self._socket: ClientConnection | None = None
        self._outbox: asyncio.Queue[bytes] | None = None  # local updates for the open socket, in order
        self._barriers = Barriers()  # of the open socket; its first answer means the copy here is the server's
        self._connection = 0  # how many sockets were opened: a confirmation counts on the one it was asked on
        self._failure: ToolError | None = None  # why the first join failed
        self._progress = asyncio.Event()  # set (and replaced) at every step: waiters look again
        self._resets = 0
        self._origin: Origin | object = None  # who makes the transaction now being committed
        self._task: asyncio.Task[None] | None = None
        self.last_used = time.monotonic()
        self._presence = Presence()  # the agents in the room's awareness
        self._marks: dict[str, tuple[int, float]] = {}  # agent key → (its mark's number, when it was set), while on a cell
        self._marked = 0
        self._start_over()

    def _start_over(self) -> None:
        """An empty copy, for a new history."""
        self._doc: Doc[Any] = Doc()
        self.notebook = YNotebook(self._doc)
        self._kept_cells.forget()
        self._server = ServerView()
        self._doc.observe(self._on_transaction)
        self.notebook.observe(self._on_change)

    # ---- the connection ---------------------------------------------------------------------

    async def open(self) -> None:
        """Join the room and take the server's copy; a ToolError when that fails."""
        self._task = asyncio.get_running_loop().create_task(self._stay_connected(), name=f"shared document {self.path}")
        try:
            await self._wait(lambda: self._synced or self._failure is not None or self._task_ended(), OPEN_TIMEOUT_S,
                             f"The Jupyter server at {self._rooms.server.url} did not send the shared document of {self.path!r} "
                             f"within {OPEN_TIMEOUT_S:g} s.")
        except BaseException:
            await self.close()
            raise
        if not self._synced:
            failure = self._failure or ToolError(ErrorKind.UNREACHABLE, f"Could not join the shared document of {self.path!r}.")
            await self.close()
            raise failure

    def _task_ended(self) -> bool:
        return self._task is not None and self._task.done()

    async def _stay_connected(self, *, joined_before: bool = False) -> None:
        """Join the room, and join it again whenever the socket drops; a first join that fails is
        reported to `open` (and ends the task)."""
        delay = RETRY_FIRST_S
        joined = joined_before
        while not self.closed:
            failure: Exception | None = None
            try:
                await self._connect()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # refused, dropped, closed by the server
                failure = exc
            finally:
                if self._synced:
                    joined, delay = True, RETRY_FIRST_S
                self._socket, self._outbox, self._barriers = None, None, Barriers()
                self._wake()
            if not joined:
                self._failure = (_as_tool_error(failure, self.path, self._rooms.server.url) if failure is not None else
                                 ToolError(ErrorKind.UNREACHABLE, f"The Jupyter server closed the shared document of {self.path!r}."))
                self._wake()
                return
            logger.info("shared document %s: connection lost (%s); joining again", self.path,
                        type(failure).__name__ if failure is not None else "closed")
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX_S)

    async def _connect(self) -> None:
        session = self._session if self._session is not None and not self._connection else await self._rooms.session(self.path)
        if session is None:
            raise ToolError(ErrorKind.UNREACHABLE, f"The Jupyter server at {self._rooms.server.url} no longer has real-time collaboration.")
        if self._session is not None and session.session_id != self._session.session_id:
            self._discard("the Jupyter server restarted")
        self._session = session
        async with self._rooms.connect(session) as socket:
            self._socket, self._outbox, self._barriers = socket, asyncio.Queue(), Barriers()
            self._connection += 1
            ack_at_once(socket)
            self._ask()
            self._awareness(self._presence.renewal())  # the agents here, on this connection too
            sender = asyncio.get_running_loop().create_task(self._send(socket, self._outbox))
            keeper = asyncio.get_running_loop().create_task(self._keep_presence())
            try:
                async for message in socket:
                    ack_at_once(socket)
                    if isinstance(message, bytes) and not self._receive(message):
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

    def _receive(self, message: bytes) -> bool:
        """Take one message from the server; False when the connection must start over."""
        if message[0] == YMessageType.SYNC:
            kind, payload = message[1], read_message(message[2:])
            if kind == YSyncMessageType.SYNC_STEP1:
                state = decode_state_vector(payload)
                if self._server.rebuilt(state):
                    self._discard("the Jupyter server loaded the notebook from its file again")
                    return False  # join again with the empty copy
                self._server.saw(state)
                reply = handle_sync_message(message[1:], self._doc)  # what the server lacks (SYNC_STEP2)
                if reply is not None and self._outbox is not None:
                    self._outbox.put_nowait(reply)
            elif kind in (YSyncMessageType.SYNC_STEP2, YSyncMessageType.SYNC_UPDATE):
                if payload != EMPTY_UPDATE:
                    with self._as(FROM_SERVER):
                        self._doc.apply_update(payload)
                    self.notebook.undo_manager.clear()  # JupyterLab's undo is in the browser; none kept here
                if kind == YSyncMessageType.SYNC_STEP2 and (asked := self._barriers.answer()) is not None:
                    self._server.saw(decode_state_vector(asked))  # it holds all this side had when it asked
            self._wake()
        elif message[0] == YMessageType.AWARENESS:
            self._awareness(self._presence.heard(read_message(message[1:])))
        elif message[0] == RAW_MESSAGE:
            decoder = Decoder(message)
            decoder.read_var_uint()
            with contextlib.suppress(ValueError):
                if json.loads(decoder.read_var_string()).get("type") == "conflict":
                    logger.warning("shared document %s: the server reports a conflict", self.path)
        return True

    @property
    def _synced(self) -> bool:
        """Joined on the open socket: the copy here is the server's."""
        return self._barriers.joined

    def _ask(self) -> tuple[int, int]:
        """Send a barrier: (this connection, its number)."""
        number = self._barriers.ask(self._doc.get_state())
        if self._outbox is not None:
            self._outbox.put_nowait(create_sync_message(self._doc))
        return self._connection, number

    def _answered(self, barrier: tuple[int, int], resets: int) -> bool:
        """The barrier was answered, or its socket or copy is gone (so it never will be)."""
        connection, number = barrier
        return self._connection != connection or self._barriers.answered >= number or self._resets != resets

    def _discard(self, why: str) -> None:
        """Throw the copy away, unmerged: the server's belongs to another history."""
        logger.info("shared document %s: %s; taking its copy afresh", self.path, why)
        self._start_over()
        self._resets += 1
        self._barriers = Barriers()  # not joined: readers wait for the next socket's copy
        self._tell(None)

    def _wake(self) -> None:
        self._progress.set()
        self._progress = asyncio.Event()

    async def _wait(self, done: Callable[[], bool], timeout: float, message: str) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                raise ToolError(ErrorKind.UNREACHABLE, message)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._progress.wait(), left)

    async def close(self) -> None:
        self.closed = True
        self._listeners.clear()
        await send_last(self._socket, self._presence.leave_all())
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    # ---- changes ----------------------------------------------------------------------------

    @contextmanager
    def _as(self, origin: Origin | object) -> Iterator[None]:
        self._origin = origin
        try:
            yield
        finally:
            self._origin = None

    def _on_transaction(self, event: TransactionEvent) -> None:
        if self._origin is not FROM_SERVER and self._outbox is not None:
            self._outbox.put_nowait(create_update_message(event.update))

    def _on_change(self, part: str, event: Any) -> None:
        """A change to the notebook's cells or metadata, not to the room's own state (saved, dirty)."""
        if part == "state":
            return
        if part == "cells":
            self._kept_cells.changed(event)
        origin = self._origin
        self._tell(origin if isinstance(origin, str) else None)

    def change(self, origin: Origin, make: Callable[[YNotebook], Any]) -> Any:
        """Run `make` on the document in one transaction made by `origin` (sent as it commits)."""
        self.last_used = time.monotonic()
        with self._as(origin), self._doc.transaction():
            result = make(self.notebook)
        self.notebook.undo_manager.clear()
        return result

    async def ready(self) -> None:
        """Until the copy here is the server's (joined again after a drop); a ToolError when it stays away."""
        self.last_used = time.monotonic()
        if self.closed:
            raise ToolError(ErrorKind.UNREACHABLE, f"The shared document of {self.path!r} is closed.")
        await self._wait(lambda: self._synced or self._task_ended(), CONFIRM_TIMEOUT_S,
                         f"Lost the shared document of {self.path!r} at {self._rooms.server.url} and could not join it again "
                         f"within {CONFIRM_TIMEOUT_S:g} s; check that the Jupyter server runs.")
        if not self._synced:
            raise ToolError(ErrorKind.UNREACHABLE, f"The shared document of {self.path!r} is gone from {self._rooms.server.url}.")

    async def _barrier(self) -> bool:
        """Until a barrier is answered on the socket it was sent on (asked again on the next socket
        when one drops): the server then holds every change made here, and this side everything the
        server had when it asked. False when the copy was thrown away first; a ToolError (message
        left to the caller) when that does not happen within CONFIRM_TIMEOUT_S."""
        resets = self._resets
        deadline = time.monotonic() + CONFIRM_TIMEOUT_S
        while True:
            await self._wait(lambda: self._synced or self._resets != resets, deadline - time.monotonic(), "")
            if self._resets != resets:
                return False
            barrier = self._ask()
            await self._wait(partial(self._answered, barrier, resets), deadline - time.monotonic(), "")
            if self._resets != resets:
                return False
            if self._connection == barrier[0]:
                return True

    async def current(self) -> None:
        """Until the copy here holds all the server had when asked: a read sees what others did up to now."""
        self.last_used = time.monotonic()
        try:
            await self._barrier()
        except ToolError:
            raise ToolError(ErrorKind.UNREACHABLE, f"The Jupyter server at {self._rooms.server.url} did not answer for the "
                                                   f"shared document of {self.path!r} within {CONFIRM_TIMEOUT_S:g} s.") from None

    async def confirm(self) -> None:
        """Until the server holds every change made here; a ToolError when it does not in time, or
        when the copy was thrown away first (those changes were not applied)."""
        try:
            confirmed = await self._barrier()
        except ToolError:
            self._discard_unconfirmed()
            raise RuntimeRefusal(ErrorKind.UNREACHABLE,
                                 f"The Jupyter server at {self._rooms.server.url} did not confirm this change to {self.path!r} within "
                                 f"{CONFIRM_TIMEOUT_S:g} s. It was kept back and will not be applied later, though it may have "
                                 "arrived before the connection failed.", recourse=Recourse.NOTEBOOK_AS_IT_IS) from None
        if not confirmed:
            raise RuntimeRefusal(ErrorKind.UNREACHABLE,
                                 f"The Jupyter server reloaded {self.path!r} before it confirmed this change, which was therefore not "
                                 "applied: try again on the notebook as it is now.", recourse=Recourse.NOTEBOOK_AS_IT_IS)

    def _discard_unconfirmed(self) -> None:
        """Changes the server never confirmed must not arrive by surprise later, when the agent may have
        redone them: the copy is thrown away, and the connection starts over with the server's."""
        self._discard("the server did not confirm a change in time")
        if self._task is not None and not self._task.done():
            self._task.cancel()  # the socket may carry the old copy's changes yet
            self._task = asyncio.get_running_loop().create_task(self._stay_connected_again(self._task))

    async def _stay_connected_again(self, previous: asyncio.Task[None]) -> None:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await previous
        await self._stay_connected(joined_before=True)

    # ---- who is here (presence) ----------------------------------------------------------------

    def _awareness(self, message: bytes | None) -> None:
        if message is not None and self._outbox is not None:
            self._outbox.put_nowait(message)

    async def _keep_presence(self) -> None:
        """While connected: the agents' states renewed (others drop one not renewed in 30 s), idle agents let go."""
        while True:
            await asyncio.sleep(RENEW_S)
            for key in self._presence.idle(time.monotonic()):
                self.left(key)
            self._awareness(self._presence.renewal())

    def present(self, agent: Agent, cell_id: str | None = None) -> None:
        cursors: list[dict[str, Any]] = []
        if cell_id is not None and self._synced:
            index = find(self.notebook, cell_id, self._kept_cells.ids(self.notebook))
            if index is not None:
                cursors = selection(self.notebook.ycells[index]["source"])
        if cursors:
            self._marked += 1
            self._marks[agent.key] = (self._marked, time.monotonic())
        self._awareness(self._presence.set(agent.key, {"user": identity(agent), "cursors": cursors}))

    def finished(self, agent: Agent) -> None:
        mark = self._marks.get(agent.key)
        if mark is not None:
            wait = max(0.0, mark[1] + SHOWN_AT_LEAST_S - time.monotonic())
            asyncio.get_running_loop().call_later(wait, self._unmark, agent.key, mark[0])

    def _unmark(self, key: str, number: int) -> None:
        """The mark `number` of `key`'s agent goes, unless a later one replaced it."""
        if self._marks.get(key, (None,))[0] != number:
            return
        del self._marks[key]
        state = self._presence.state(key)
        if state is not None and not self.closed:
            self._awareness(self._presence.set(key, {**state, "cursors": []}))

    def left(self, key: str) -> None:
        self._marks.pop(key, None)
        self._awareness(self._presence.leave(key))

    # ---- what the contents do with it (NotebookEdits) ------------------------------------------

    async def _ready(self) -> None:
        await self.ready()

    async def _settled(self) -> None:
        await self.confirm()


def _as_tool_error(exc: Exception, path: str, url: str) -> ToolError:
    if isinstance(exc, ToolError):
        return exc
    if isinstance(exc, RoomClosed):
        kind = ErrorKind.NOT_FOUND if exc.code == 4404 else ErrorKind.INVALID_NOTEBOOK
        return ToolError(kind, f"The Jupyter server at {url} could not open the shared document of {path!r}: {exc.detail}")
    return ToolError(ErrorKind.UNREACHABLE, f"Could not join the shared document of {path!r} at {url} ({type(exc).__name__}).")
