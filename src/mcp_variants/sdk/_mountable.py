"""The app `streamable_http_app` returns: the guarded ASGI app, with the lifespan that starts its session manager.

The SDK's session manager answers only between the start and the end of its `run()`; an ASGI server runs it through
the app's lifespan, but an app mounted in another (`Mount("/", app=...)`) gets no lifespan of its own: the parent
must enter `lifespan`. Started lazily by a first request instead, its task group would belong to that request and
end with it, so it is not: until the lifespan runs, each request is answered with what to do (`LifespanGate`, which
a framework layer puts in front of its own HTTP app too).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..protocol.errors import INTERNAL_ERROR
from ..protocol.jsonrpc import peek_id
from ._guard import answer_json

NOT_STARTED: Final = ("this MCP app has not been started: its session manager runs in its lifespan, which a parent app "
                      "that mounts it must run. Pass it as the parent's: Starlette(routes=[..., Mount(\"/\", app=mcp_app)], "
                      "lifespan=mcp_app.lifespan), FastAPI(lifespan=mcp_app.lifespan), or enter `async with "
                      "mcp_app.lifespan(app):` in a lifespan of your own")
_ID_WITHIN: Final = 4096  # the bytes of a body read for its request id


class LifespanGate:
    """Whether an HTTP app's lifespan runs (`running()` while it does); `guard(app)` answers each HTTP request that
    comes before it with HTTP 500 and a JSON-RPC error saying to give the parent app the lifespan, not the SDK's
    bare "Task group is not initialized". Starlette takes the guard as `Middleware(gate.guard)`."""

    def __init__(self) -> None:
        self.started = False

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """While the app's lifespan runs: entered once its session manager runs."""
        self.started = True
        try:
            yield
        finally:
            self.started = False

    def guard(self, app: ASGIApp) -> ASGIApp:
        """`app`, behind the gate: an HTTP request before the lifespan runs gets what to do."""
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http" and not self.started:
                await _answer_not_started(receive, send)
            else:
                await app(scope, receive, send)

        return guarded


class StreamableHttpApp:
    """An ASGI app (streamable HTTP at /mcp) with its `lifespan`, as a Starlette app has one: what
    `streamable_http_app` returns (made there, not by hand).

    Served on its own (uvicorn), the ASGI lifespan starts it. Mounted in another app, give the parent its lifespan:
    `Starlette(routes=[Route("/health", health), Mount("/", app=mcp_app)], lifespan=mcp_app.lifespan)`, or
    `async with mcp_app.lifespan(app): yield` inside a lifespan of the parent's own. Until it is started, a request
    gets HTTP 500 and a JSON-RPC error saying so."""

    def __init__(self, app: ASGIApp, run_sessions: Callable[[], AbstractAsyncContextManager[None]],
                 on_our_transports: Callable[[], object]) -> None:
        self._gate = LifespanGate()
        self._app = app
        self._guarded = self._gate.guard(app)
        self._run_sessions = run_sessions
        self._on_our_transports = on_our_transports

    @asynccontextmanager
    async def lifespan(self, app: Any = None) -> AsyncIterator[None]:
        """Runs the session manager while the parent app (`app`, unused) runs; once only, as the SDK's."""
        self._on_our_transports()  # the session manager's task group, made here, keeps this context
        async with self._run_sessions(), self._gate.running():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self._on_our_transports()  # the lifespan's session tasks and each request's handling run in this call's context
        if scope["type"] == "lifespan":  # an ASGI server (or a parent forwarding its lifespan) running this app itself
            await self._app(scope, receive, self._watching(send))
        else:
            await self._guarded(scope, receive, send)

    def _watching(self, send: Send) -> Send:
        """`send`, noting when the app's own lifespan (the SDK app's: the same session manager) says it started."""
        async def watched(message: Message) -> None:
            if message["type"] in ("lifespan.startup.complete", "lifespan.shutdown.complete"):
                self._gate.started = message["type"] == "lifespan.startup.complete"
            await send(message)

        return watched


async def _answer_not_started(receive: Receive, send: Send) -> None:
    """HTTP 500 and NOT_STARTED, with the request's id when its first bytes hold it (the rest left unread)."""
    body, more = b"", True
    while more and len(body) < _ID_WITHIN:
        message: Message = await receive()
        if message["type"] != "http.request":
            return
        body += message.get("body", b"")
        more = bool(message.get("more_body"))
    await answer_json(send, 500, {"jsonrpc": "2.0", "id": peek_id(body[:_ID_WITHIN]),
                                   "error": {"code": INTERNAL_ERROR, "message": NOT_STARTED}}, close=more)
