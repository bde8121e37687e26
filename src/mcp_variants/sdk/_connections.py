"""HTTP connections: a deadline for every request's headers and body, and a cap on open connections.

uvicorn (0.31 to 0.55, h11) times out a connection only while it is idle between requests
(`timeout_keep_alive`): one that sends half a request and stalls is kept forever, and its
`limit_concurrency` answers 503 to everyone once stalled connections fill it. This is uvicorn's
own h11 protocol with the two things it lacks:

- a read deadline: a request's headers must arrive within `read_timeout` seconds of the
  connection (or of the previous response), and each piece of its body within `read_timeout`
  of the last; a connection that misses one is closed. A request that is being served (a long
  `execute_code`, an SSE stream) has nothing left to send and no deadline;
- a cap: at most `max_connections` are open. A new connection over the cap closes the one that
  has waited longest for a request's headers (a stalled or an idle keep-alive one); only when
  every connection is serving a request is the new one refused (closed at once). So a thousand
  stalled connections cannot starve a client that sends its request.

It extends uvicorn's `H11Protocol` and reads attributes uvicorn does not promise (`UVICORN_READS`), so uvicorn has no
upper bound (docs/support.md): the names are checked when a server starts with this protocol (`uvicorn_http`), and a
uvicorn without one of them stops the start with what to do, not a connection with an AttributeError. Delete this
module when uvicorn has a read deadline and a cap that prefers serving connections of its own.
tests/unit/test_dependency_internals.py guards the same reads in uvicorn's source at the versions tested.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle

from ._http import HttpLimits

logger = logging.getLogger(__name__)


class GuardedH11Protocol(H11Protocol):
    def __init__(self, *args: Any, read_timeout: float | None, max_connections: int | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.read_timeout = read_timeout
        self.max_connections = max_connections
        self._deadline: asyncio.TimerHandle | None = None
        self.waiting_since: float | None = None  # when it began to wait for a request's headers

    @classmethod
    def factory(cls, read_timeout: float | None, max_connections: int | None) -> Any:
        """What uvicorn's `Config(http=...)` takes: it builds one protocol per connection. None: no deadline, no cap."""
        return functools.partial(cls, read_timeout=read_timeout, max_connections=max_connections)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch()
        open_ = [c for c in self.connections if not c.transport.is_closing()]
        if self.max_connections is not None and len(open_) > self.max_connections:
            self._make_room(open_)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch(progress=True)

    def on_response_complete(self) -> None:
        super().on_response_complete()  # uvicorn's keep-alive timer takes the idle connection from here
        self._cancel_deadline()
        self.waiting_since = time.monotonic()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        super().connection_lost(exc)

    # -- deadlines

    def _awaits_headers(self) -> bool:
        return self.conn.their_state is h11.IDLE and (self.cycle is None or self.cycle.response_complete)

    def _watch(self, progress: bool = False) -> None:
        """Arm the deadline for what the connection waits for now: headers (counted from when it began to
        wait), body (counted from the last piece), or nothing."""
        if self.read_timeout is None:
            return
        if self._awaits_headers():
            if self.waiting_since is None:
                self.waiting_since = time.monotonic()
            if self._deadline is None:
                delay = max(0.0, self.waiting_since + self.read_timeout - time.monotonic())
                self._deadline = self.loop.call_later(delay, self._missed, "headers")
            return
        self.waiting_since = None
        if self.conn.their_state is h11.SEND_BODY:
            if progress or self._deadline is None:
                self._cancel_deadline()
                self._deadline = self.loop.call_later(self.read_timeout, self._missed, "body")
            return
        self._cancel_deadline()

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _missed(self, what: str) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            logger.info("closing a connection from %s: no request %s within %g s", self.client, what, self.read_timeout)
            self.transport.close()

    # -- the cap

    def _make_room(self, open_: list[Any]) -> None:
        waiting = [c for c in open_
                   if c is not self and isinstance(c, GuardedH11Protocol) and c.waiting_since is not None and c._awaits_headers()]
        if not waiting:
            logger.warning("refusing a connection: %d are open and every one is serving a request", len(open_) - 1)
            self.transport.close()
            return
        oldest = min(waiting, key=lambda c: c.waiting_since or 0.0)
        logger.info("%d connections open: closing the one from %s, waiting for a request since %.1f s", len(open_),
                    oldest.client, time.monotonic() - (oldest.waiting_since or 0.0))
        oldest.transport.close()


# What GuardedH11Protocol relies on in uvicorn, as the names the code that sets or defines them holds: the methods it
# extends, and the attributes it reads (each set by the function named). Names, not behaviour: the tests at both ends of
# the tested range, and the canary at uvicorn's newest (docs/support.md), check the behaviour.
UVICORN_READS: tuple[tuple[str, Callable[..., Any], tuple[str, ...]], ...] = (
    ("H11Protocol.__init__", H11Protocol.__init__, ("conn", "connections", "cycle", "loop")),
    ("H11Protocol.connection_made", H11Protocol.connection_made, ("transport", "client")),
    ("RequestResponseCycle.__init__", RequestResponseCycle.__init__, ("response_complete",)),
)
UVICORN_METHODS = ("connection_made", "data_received", "on_response_complete", "connection_lost")


def missing_uvicorn_reads(reads: tuple[tuple[str, Callable[..., Any], tuple[str, ...]], ...] = UVICORN_READS) -> list[str]:
    """Which of `reads` (and of H11Protocol's methods GuardedH11Protocol extends) the installed uvicorn lacks."""
    missing = [f"H11Protocol.{name}" for name in UVICORN_METHODS if not callable(getattr(H11Protocol, name, None))]
    for where, function, names in reads:
        code = getattr(function, "__code__", None)
        found = set(code.co_names) if code is not None else set()
        missing += [f"self.{name} (set in {where})" for name in names if name not in found]
    return missing


def check_uvicorn(reads: tuple[tuple[str, Callable[..., Any], tuple[str, ...]], ...] = UVICORN_READS) -> None:
    """Raise, naming the uvicorn installed and what to do, if it lacks what GuardedH11Protocol relies on (`reads`)."""
    missing = missing_uvicorn_reads(reads)
    if missing:
        installed = version("uvicorn")
        raise RuntimeError(
            f"uvicorn {installed} is not supported by this mcp-variants with a read deadline or a connection cap "
            f"(HttpLimits read_timeout/max_connections): mcp_variants.sdk extends uvicorn's h11 protocol, and this "
            f"uvicorn no longer has {', '.join(missing)}. Install an earlier uvicorn (pip install 'uvicorn<{installed}'), "
            "upgrade mcp-variants to a release that supports it, or serve without read_timeout and max_connections "
            "(uvicorn's own h11 protocol; docs/support.md)")


def uvicorn_http(limits: HttpLimits) -> Any:
    """What uvicorn's `Config(http=...)` takes to serve with `limits`' read deadline and connection cap: this protocol,
    or uvicorn's own h11 where they set neither (`HttpLimits()`). With either set, the uvicorn installed is checked first
    for what the protocol reads of it: a RuntimeError names its version and the fix if it lacks any."""
    if limits.read_timeout is None and limits.max_connections is None:
        return "h11"
    check_uvicorn()
    return GuardedH11Protocol.factory(limits.read_timeout, limits.max_connections)
