"""A write stream for the SDK that hands each message on at once, in the sender's own task.

The SDK's loops write to a `WriteStream` (mcp.shared._stream_protocols); a memory stream read by a task of its
own costs a task switch and an event-loop pass per message, and an idle task per connection. Where what a message
needs (routing it, writing it) can be done by the sender, this stream does it there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
from mcp.shared.message import SessionMessage


class DeliveringWriteStream:
    """Each `send` awaits `deliver(message)`; ClosedResourceError once closed, as a closed memory stream raises
    (the SDK's dispatcher takes that as the connection gone)."""

    def __init__(self, deliver: Callable[[SessionMessage], Awaitable[None]]) -> None:
        self._deliver = deliver
        self._closed = False

    async def send(self, item: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        await self._deliver(item)

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> DeliveringWriteStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
