"""Barriers on a room's connection: the server holds every change made here, and this side everything the server
had when it was asked (sync.Barriers says why a SYNC_STEP1 is one). A barrier counts on the socket it was sent on;
when that one drops it is asked again on the next, and when the copy here is thrown away meanwhile (`reset`: the
room was rebuilt) it is never answered."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from .connection import RoomConnection


class Confirmations:
    """`request`: this side's state vector now, and the SYNC_STEP1 message that carries it."""

    def __init__(self, connection: RoomConnection, request: Callable[[], tuple[bytes, bytes]]) -> None:
        self._connection = connection
        self._request = request
        self._resets = 0

    def reset(self) -> None:
        """The copy here was thrown away: barriers asked before it are never answered, and the socket's first
        answer is awaited again (the copy here is the server's only then)."""
        self._resets += 1
        self._connection.restart_barriers()

    def ask(self) -> tuple[int, int]:
        """Send a barrier: (its socket's number, its own)."""
        state, message = self._request()
        number = self._connection.barriers.ask(state)
        self._connection.send(message)
        return self._connection.number, number

    def _answered(self, barrier: tuple[int, int], resets: int) -> bool:
        """The barrier was answered, or its socket or copy is gone (so it never will be)."""
        socket, number = barrier
        return self._connection.number != socket or self._connection.barriers.answered >= number or self._resets != resets

    async def barrier(self, timeout: float) -> bool:
        """Until a barrier is answered on the socket it was sent on (asked again on the next socket
        when one drops). False when the copy was thrown away first; a ToolError (message left to the
        caller) when that does not happen within `timeout` seconds."""
        resets = self._resets
        connection = self._connection
        deadline = time.monotonic() + timeout
        while True:
            await connection.wait(lambda: connection.joined or self._resets != resets, deadline - time.monotonic(), "")
            if self._resets != resets:
                return False
            barrier = self.ask()
            await connection.wait(partial(self._answered, barrier, resets), deadline - time.monotonic(), "")
            if self._resets != resets:
                return False
            if connection.number == barrier[0]:
                return True
