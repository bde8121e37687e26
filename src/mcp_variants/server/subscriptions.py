"""Telling subscribers that a resource changed: debounced, and a client's own edits not echoed
back to it.

Two ways to subscribe, by protocol era:

- handshake versions (a stdio connection, an HTTP session): `resources/subscribe` and
  `resources/unsubscribe`; `notifications/resources/updated` goes out on the connection
  (over HTTP, on the session's GET stream);
- 2026-07-28 and later (stateless, no session): `subscriptions/listen` naming the URIs (SEP-2575);
  the notifications ride that request's own stream (the SDK's ListenHandler), until it closes.

A burst of changes (a person typing) is one notification once it pauses for QUIET_S, and one at
least every CEILING_S while it goes on. A change a client made itself (its tool call's edit,
its run's outputs) is not sent to that client: its result already said so; other subscribers
hear of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated

from ..jupyter.registry import ClientState
from ..jupyter.runtime import ChangeListener, Origin, Unwatch

logger = logging.getLogger(__name__)

QUIET_S = 0.25  # a change is told once changes paused this long
CEILING_S = 1.0  # and at least this often while they go on


class Watchable(Protocol):
    async def watch(self, client: ClientState, uri: str, listener: ChangeListener) -> Unwatch | None: ...


class Debouncer:
    """Changes in (`poke`); `deliver` once they pause for QUIET_S, and at least every CEILING_S."""

    def __init__(self, deliver: Callable[[], Awaitable[None]]) -> None:
        self._deliver = deliver
        self._changed = asyncio.Event()
        self._last = 0.0
        self._task = asyncio.get_running_loop().create_task(self._run())

    def poke(self) -> None:
        self._last = time.monotonic()
        self._changed.set()

    async def _run(self) -> None:
        while True:
            await self._changed.wait()
            first = time.monotonic()
            while True:
                self._changed.clear()
                wait = min(self._last + QUIET_S, first + CEILING_S) - time.monotonic()
                if wait <= 0:
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), wait)
            try:
                await self._deliver()
            except Exception:  # a subscriber gone away: nothing to tell, nothing to stop for
                logger.debug("a change notification could not be sent", exc_info=True)

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


@dataclass
class _Watch:
    unwatch: Unwatch | None  # None: the resource never changes
    debouncer: Debouncer
    streams: int = 1  # listen streams sharing it (subscriptions/listen)

    async def close(self) -> None:
        await self.debouncer.close()
        if self.unwatch is not None:
            await self.unwatch()


class Subscriptions:
    def __init__(self, owner: Callable[[str], Watchable]) -> None:
        self._owner = owner  # the source a URI belongs to
        self.bus = InMemorySubscriptionBus()  # what subscriptions/listen streams hear
        self.listen = ListenHandler(self.bus)  # serves subscriptions/listen (server/resources.py)
        self._sessions: dict[tuple[str, str], _Watch] = {}  # (client key, uri)
        self._listened: dict[str, _Watch] = {}  # uri → the one watch all listen streams share

    async def subscribe(self, client: ClientState, uri: str, session: ServerSession) -> None:
        """`client` (one with a session) hears of changes to `uri`, others' only; again is a no-op."""
        assert client.key is not None, "a subscription needs a client with a session"
        key = (client.key, uri)
        if key in self._sessions:
            return
        debouncer = Debouncer(lambda: session.send_resource_updated(uri))

        def changed(origin: Origin) -> None:
            if origin is None or origin != client.key:
                debouncer.poke()

        try:
            unwatch = await self._owner(uri).watch(client, uri, changed)
        except BaseException:
            await debouncer.close()
            raise
        self._sessions[key] = _Watch(unwatch, debouncer)

    async def unsubscribe(self, client: ClientState, uri: str) -> None:
        assert client.key is not None
        watch = self._sessions.pop((client.key, uri), None)
        if watch is not None:
            await watch.close()

    async def forget(self, client_key: str) -> None:
        """The client's session ended: its subscriptions end with it."""
        for key in [k for k in self._sessions if k[0] == client_key]:
            await self._sessions.pop(key).close()

    @asynccontextmanager
    async def listening(self, client: ClientState, uris: Iterable[str]) -> AsyncIterator[None]:
        """While a subscriptions/listen stream is open: its URIs watched, their changes published on the bus."""
        mine: list[str] = []
        try:
            for uri in dict.fromkeys(uris):
                watch = self._listened.get(uri)
                if watch is not None:
                    watch.streams += 1
                else:
                    self._listened[uri] = await self._watch_for_listeners(client, uri)
                mine.append(uri)
            yield
        finally:
            for uri in mine:
                watch = self._listened[uri]
                watch.streams -= 1
                if not watch.streams:
                    del self._listened[uri]
                    await watch.close()

    async def _watch_for_listeners(self, client: ClientState, uri: str) -> _Watch:
        """Changes to `uri`, by anyone, published on the bus for the listen streams that asked for it."""
        debouncer = Debouncer(partial(self.bus.publish, ResourceUpdated(uri=uri)))
        try:
            unwatch = await self._owner(uri).watch(client, uri, lambda origin: debouncer.poke())
        except BaseException:
            await debouncer.close()
            raise
        return _Watch(unwatch, debouncer)

    def end_streams(self) -> None:
        """End every subscriptions/listen stream, each answered with its result (the client is leaving)."""
        self.listen.close()

    async def aclose(self) -> None:
        self.end_streams()
        watches = [*self._sessions.values(), *self._listened.values()]
        self._sessions.clear()
        self._listened.clear()
        for watch in watches:
            await watch.close()
