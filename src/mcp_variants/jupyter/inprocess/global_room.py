"""The agents in JupyterLab's global awareness room of the Jupyter server this code runs inside, where the
collaborators panel finds who is working on which notebooks: in process, as live/lobby.Lobby is over a websocket.

The room (`JupyterLab:globalAwareness`, jupyter-server-ydoc's) is made when a JupyterLab first connects, and may be
made again: each message goes to the room there is now, as its own local awareness change, which the room sends to
every JupyterLab connected; the renewals (every RENEW_S) show the agents in a room made since.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from pycrdt import read_message

from ..live.presence import RENEW_S, GlobalPresence
from ..live.rooms import GLOBAL_AWARENESS
from ..runtime import Agent


class ServerLobby:
    """A Roster (live/contents.py) on the global awareness room of this server's jupyter-server-ydoc."""

    def __init__(self, websocket_server: Any) -> None:
        self._server = websocket_server  # pycrdt-websocket's WebsocketServer: its `rooms` by id
        self._agents = GlobalPresence()
        self._awareness: Any = None  # the room's we listen to
        self._heard: Any = None
        self._task: asyncio.Task[None] | None = None

    def present(self, agent: Agent, path: str) -> str | None:
        self._send(self._agents.present(agent, path))
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._keep(), name="global awareness in process")
        return self._agents.presence.colour(agent.key)

    def left(self, key: str) -> None:
        self._send(self._agents.left(key))

    def _room_awareness(self) -> Any:
        """The global room's awareness now, listened to for newcomers (None: no JupyterLab has connected)."""
        room = getattr(self._server, "rooms", {}).get(GLOBAL_AWARENESS)
        awareness = getattr(room, "awareness", None)
        if awareness is not self._awareness:
            if self._awareness is not None:
                self._awareness.unobserve(self._heard)
            self._awareness, self._heard = awareness, awareness.observe(self._on_awareness) if awareness is not None else None
        return awareness

    def _send(self, message: bytes | None) -> None:
        awareness = self._room_awareness()
        if message is not None and awareness is not None:
            awareness.apply_awareness_update(read_message(message[1:]), "local")

    def _on_awareness(self, kind: str, changes: tuple[dict[str, list[int]], Any]) -> None:
        if kind == "update" and changes[1] != "local" and self._awareness is not None:
            clients = [client for ids in changes[0].values() for client in ids]
            self._send(self._agents.presence.heard(self._awareness.encode_awareness_update(clients)))

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(RENEW_S)
            for message in self._agents.kept(time.monotonic()):
                self._send(message)

    async def close(self) -> None:
        """Every agent leaves."""
        self._send(self._agents.presence.leave_all())
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._awareness is not None:
            self._awareness.unobserve(self._heard)
