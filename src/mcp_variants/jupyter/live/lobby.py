"""The agents in a Jupyter server's global awareness room, where JupyterLab's collaborators panel finds who
is working, and on which notebooks: one websocket per server, opened when the first agent works in a live
notebook there, joined again after a drop, and told when an agent leaves (its session ended, it went idle).
The agents' states are live/presence.py's; the documents they list are the notebooks they worked in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from pycrdt import YMessageType, read_message
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from ...protocol.errors import ToolError
from ..runtime import Agent
from .presence import RENEW_S, GlobalPresence
from .rooms import Rooms, send_last

logger = logging.getLogger(__name__)

RETRY_S = 2.0


class Lobby:
    def __init__(self, rooms: Rooms) -> None:
        self._rooms = rooms
        self._agents = GlobalPresence()
        self._socket: ClientConnection | None = None
        self._outbox: asyncio.Queue[bytes] | None = None  # of the open socket
        self._task: asyncio.Task[None] | None = None

    def present(self, agent: Agent, path: str) -> str | None:
        """`agent` works in the notebook at `path`: the colour it is listed in."""
        self._send(self._agents.present(agent, path))
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._stay_connected(), name="global awareness")
        return self._agents.presence.colour(agent.key)

    def left(self, key: str) -> None:
        self._send(self._agents.left(key))

    def _send(self, message: bytes | None) -> None:
        if message is not None and self._outbox is not None:
            self._outbox.put_nowait(message)

    async def _stay_connected(self) -> None:
        while True:
            try:
                async with self._rooms.connect_global() as socket:
                    self._socket, self._outbox = socket, asyncio.Queue()
                    self._send(self._agents.presence.renewal())
                    async with asyncio.TaskGroup() as tasks:
                        tasks.create_task(self._drain(socket))
                        tasks.create_task(self._keep())
                        while True:
                            await socket.send(await self._outbox.get())
            except (ConnectionClosed, OSError, ToolError, ExceptionGroup) as exc:
                logger.info("global awareness room: %s; joining again", type(exc).__name__)
            except Exception:  # a background loop: whatever went wrong, the agents are shown again on the next socket
                logger.exception("global awareness room: joining again after an unexpected error")
            finally:
                self._socket, self._outbox = None, None
            await asyncio.sleep(RETRY_S)

    async def _drain(self, socket: ClientConnection) -> None:
        """What the room sends: others' awareness, only looked at for newcomers (Presence.heard)."""
        async for message in socket:
            if isinstance(message, bytes) and message[:1] == bytes([YMessageType.AWARENESS]):
                self._send(self._agents.presence.heard(read_message(message[1:])))
        raise ConnectionClosed(None, None)

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(RENEW_S)
            for message in self._agents.kept(time.monotonic()):
                self._send(message)

    async def close(self) -> None:
        """Every agent leaves, then the socket closes."""
        await send_last(self._socket, self._agents.presence.leave_all())
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
