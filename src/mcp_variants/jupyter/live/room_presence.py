"""The agents working in one notebook, in its room's awareness (live/presence.py's states): each shown on the cell it
edits or runs for at least SHOWN_AT_LEAST_S, renewed while it stays, gone when it leaves or goes idle. Every message
goes out through `send`, onto the room's socket while one is open."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from ..runtime import Agent
from .presence import RENEW_S, SHOWN_AT_LEAST_S, Presence, identity


class RoomPresence:
    def __init__(self, send: Callable[[bytes], None]) -> None:
        self._send = send
        self._presence = Presence()
        self._marks: dict[str, tuple[int, float]] = {}  # agent key → (its mark's number, when it was set), while on a cell
        self._marked = 0
        self.closed = False  # the document is closed: no mark is taken off any more

    def _tell(self, message: bytes | None) -> None:
        if message is not None:
            self._send(message)

    def heard(self, update: bytes) -> None:
        """Someone's awareness update: a newcomer sees the agents at once (Presence.heard)."""
        self._tell(self._presence.heard(update))

    def renew(self) -> None:
        """Every agent's state again: on a new connection, and to stay in others' awareness."""
        self._tell(self._presence.renewal())

    async def keep(self) -> None:
        """While connected: the agents' states renewed (others drop one not renewed in 30 s), idle agents let go."""
        while True:
            await asyncio.sleep(RENEW_S)
            for key in self._presence.idle(time.monotonic()):
                self.left(key)
            self.renew()

    def present(self, agent: Agent, cursors: list[dict[str, Any]]) -> None:
        """`agent` is here, selecting `cursors` (presence.selection of a cell's source; none: no cell)."""
        if cursors:
            self._marked += 1
            self._marks[agent.key] = (self._marked, time.monotonic())
        self._tell(self._presence.set(agent.key, {"user": identity(agent), "cursors": cursors}))

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
            self._tell(self._presence.set(key, {**state, "cursors": []}))

    def left(self, key: str) -> None:
        self._marks.pop(key, None)
        self._tell(self._presence.leave(key))

    def leave_all(self) -> bytes | None:
        """The message that every agent leaves (the last one sent before the socket closes)."""
        self.closed = True
        return self._presence.leave_all()
