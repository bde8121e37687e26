"""One notebook's shared document, kept in sync with its room on a Jupyter server.

The room is joined, and joined again whenever the websocket drops, by a RoomConnection (live/connection.py): the
exchange of state vectors sends whatever the other side missed, and nothing twice. Local changes are made in one
transaction each, tagged with who made them; `confirm` waits until the server's copy holds them (a barrier:
live/confirmation.py).

If the server rebuilt the room meanwhile (it restarted, or it dropped the room and loaded the
file again), the copy here belongs to another history and is thrown away, unmerged: merging
would duplicate the notebook's cells. An edit the server never confirmed is then reported as
not applied.

The agents working in the notebook are in the room's awareness (live/room_presence.py): JupyterLab shows each as a
collaborator, its colour and name on the cell it edits or runs. They are announced again on every new connection,
renewed while they stay, and leave when their session ends, when they go idle, or when the document is closed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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

from ...protocol.errors import ErrorKind, ToolError
from ..refusals import Recourse, RuntimeRefusal
from ..runtime import Agent, Origin
from .cell_ids import find
from .confirmation import Confirmations
from .connection import RoomConnection
from .edits import NotebookEdits
from .presence import selection
from .room_presence import RoomPresence
from .rooms import DocumentSession, Rooms
from .sync import ServerView, decode_state_vector

logger = logging.getLogger(__name__)

OPEN_TIMEOUT_S = 20.0  # joining a room: the server loads the file first
CONFIRM_TIMEOUT_S = 15.0  # an edit waits this long for the server to hold it, reconnecting if need be
RAW_MESSAGE = 2  # jupyter-server-ydoc's own messages (save replies, conflicts): JSON
EMPTY_UPDATE = b"\x00\x00"
FROM_SERVER = object()  # the origin of what the server sent: not sent back


class SharedNotebook(NotebookEdits):
    """The shared document of the notebook at `path`; `open` first, `close` at the end. `session`: the notebook's
    document session, when the caller just asked for it (the first join takes it)."""

    def __init__(self, path: str, rooms: Rooms, session: DocumentSession | None = None) -> None:
        super().__init__()
        self.path = path
        self._url = rooms.server.url
        self._connection = RoomConnection(path, rooms, self, session)
        self._agents = RoomPresence(self._connection.send)
        self._confirmations = Confirmations(self._connection, lambda: (self._doc.get_state(), create_sync_message(self._doc)))
        self._session_id = session.session_id if session is not None else None  # the server's: another after it restarted
        self._origin: Origin | object = None  # who makes the transaction now being committed
        self.last_used = time.monotonic()
        self._start_over()

    def _start_over(self) -> None:
        """An empty copy, for a new history."""
        self._doc: Doc[Any] = Doc()
        self.notebook = YNotebook(self._doc)
        self._kept_cells.forget()
        self._server = ServerView()
        self._doc.observe(self._on_transaction)
        self.notebook.observe(self._on_change)

    async def open(self) -> None:
        """Join the room and take the server's copy; a ToolError when that fails."""
        connection = self._connection
        connection.start()
        try:
            await connection.wait(lambda: connection.joined or connection.failure is not None or connection.ended, OPEN_TIMEOUT_S,
                                  f"The Jupyter server at {self._url} did not send the shared document of {self.path!r} "
                                  f"within {OPEN_TIMEOUT_S:g} s.")
        except BaseException:
            await self.close()
            raise
        if not connection.joined:
            failure = connection.failure or ToolError(ErrorKind.UNREACHABLE, f"Could not join the shared document of {self.path!r}.")
            await self.close()
            raise failure

    async def close(self) -> None:
        self.closed = True
        self._listeners.clear()
        await self._connection.close(self._agents.leave_all())

    # ---- what the connection carries (connection.Peer) ------------------------------------------

    def joining(self, session: DocumentSession) -> None:
        if self._session_id is not None and session.session_id != self._session_id:
            self._discard("the Jupyter server restarted")
        self._session_id = session.session_id

    def opened(self) -> None:
        self._confirmations.ask()
        self._agents.renew()  # the agents here, on this connection too

    async def keep(self) -> None:
        await self._agents.keep()

    def received(self, message: bytes) -> bool:
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
                if reply is not None:
                    self._connection.send(reply)
            elif kind in (YSyncMessageType.SYNC_STEP2, YSyncMessageType.SYNC_UPDATE):
                if payload != EMPTY_UPDATE:
                    with self._as(FROM_SERVER):
                        self._doc.apply_update(payload)
                    self.notebook.undo_manager.clear()  # JupyterLab's undo is in the browser; none kept here
                if kind == YSyncMessageType.SYNC_STEP2 and (asked := self._connection.barriers.answer()) is not None:
                    self._server.saw(decode_state_vector(asked))  # it holds all this side had when it asked
            self._connection.wake()
        elif message[0] == YMessageType.AWARENESS:
            self._agents.heard(read_message(message[1:]))
        elif message[0] == RAW_MESSAGE:
            decoder = Decoder(message)
            decoder.read_var_uint()
            with contextlib.suppress(ValueError):
                if json.loads(decoder.read_var_string()).get("type") == "conflict":
                    logger.warning("shared document %s: the server reports a conflict", self.path)
        return True

    def _discard(self, why: str) -> None:
        """Throw the copy away, unmerged: the server's belongs to another history."""
        logger.info("shared document %s: %s; taking its copy afresh", self.path, why)
        self._start_over()
        self._confirmations.reset()  # not joined: readers wait for the next socket's copy
        self._tell(None)

    # ---- changes ----------------------------------------------------------------------------

    @contextmanager
    def _as(self, origin: Origin | object) -> Iterator[None]:
        self._origin = origin
        try:
            yield
        finally:
            self._origin = None

    def _on_transaction(self, event: TransactionEvent) -> None:
        if self._origin is not FROM_SERVER:
            self._connection.send(create_update_message(event.update))

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

    # ---- confirmation (live/confirmation.py) --------------------------------------------------

    async def ready(self) -> None:
        """Until the copy here is the server's (joined again after a drop); a ToolError when it stays away."""
        self.last_used = time.monotonic()
        if self.closed:
            raise ToolError(ErrorKind.UNREACHABLE, f"The shared document of {self.path!r} is closed.")
        connection = self._connection
        await connection.wait(lambda: connection.joined or connection.ended, CONFIRM_TIMEOUT_S,
                              f"Lost the shared document of {self.path!r} at {self._url} and could not join it again "
                              f"within {CONFIRM_TIMEOUT_S:g} s; check that the Jupyter server runs.")
        if not connection.joined:
            raise ToolError(ErrorKind.UNREACHABLE, f"The shared document of {self.path!r} is gone from {self._url}.")

    async def current(self) -> None:
        """Until the copy here holds all the server had when asked: a read sees what others did up to now."""
        self.last_used = time.monotonic()
        try:
            await self._confirmations.barrier(CONFIRM_TIMEOUT_S)
        except ToolError:
            raise ToolError(ErrorKind.UNREACHABLE, f"The Jupyter server at {self._url} did not answer for the "
                                                   f"shared document of {self.path!r} within {CONFIRM_TIMEOUT_S:g} s.") from None

    async def confirm(self) -> None:
        """Until the server holds every change made here; a ToolError when it does not in time, or
        when the copy was thrown away first (those changes were not applied)."""
        try:
            confirmed = await self._confirmations.barrier(CONFIRM_TIMEOUT_S)
        except ToolError:
            self._discard_unconfirmed()
            raise RuntimeRefusal(ErrorKind.UNREACHABLE,
                                 f"The Jupyter server at {self._url} did not confirm this change to {self.path!r} within "
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
        self._connection.restart()  # the socket may carry the old copy's changes yet

    # ---- who is here (room_presence) and what the contents do with it (NotebookEdits) -----------

    def present(self, agent: Agent, cell_id: str | None = None) -> None:
        cursors: list[dict[str, Any]] = []
        if cell_id is not None and self._connection.joined:
            index = find(self.notebook, cell_id, self._kept_cells.ids(self.notebook))
            if index is not None:
                cursors = selection(self.notebook.ycells[index]["source"])
        self._agents.present(agent, cursors)

    def finished(self, agent: Agent) -> None:
        self._agents.finished(agent)

    def left(self, key: str) -> None:
        self._agents.left(key)

    async def _ready(self) -> None:
        await self.ready()

    async def _settled(self) -> None:
        await self.confirm()
