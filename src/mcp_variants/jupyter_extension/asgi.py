"""An ASGI app served by tornado handlers: the SDK's streamable HTTP app inside the Jupyter server.

tornado and the app share the server's asyncio loop, so a request is one coroutine call: the handler's
request becomes the ASGI scope (its body is read already: tornado reads it whole, within the server's
`max_body_size`, before the handler runs), and each message the app sends is written as it comes. A
response with more to come is flushed at once, so an SSE stream (a long execute_code's progress, a
subscriptions/listen) reaches the client event by event, in chunked encoding. A client that goes away
is told to the app as `http.disconnect`; what the app sends after that is dropped.

The app's lifespan (the SDK's session manager and its task group) runs from `start` to `stop` on the
same loop: the extension starts it once the server's loop runs and stops it at shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import Any

from jupyter_server.base.handlers import APIHandler
from starlette.types import ASGIApp, Message
from tornado.iostream import StreamClosedError

logger = logging.getLogger(__name__)

ASGI = {"version": "3.0", "spec_version": "2.3"}
# Credentials the Jupyter server checked already: the app (and the tools) never see them.
DROPPED_HEADERS = frozenset({"authorization", "cookie"})


class LifespanFailed(RuntimeError):
    pass


class AsgiApp:
    """`app` with its lifespan, and `serve(handler, ...)` for each request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._task: asyncio.Task[None] | None = None
        self._to_app: asyncio.Queue[Message] = asyncio.Queue()
        self._from_app: asyncio.Queue[Message] = asyncio.Queue()

    async def start(self) -> None:
        """Run the app's lifespan until it says it started (LifespanFailed when it says it could not)."""
        self._task = asyncio.get_running_loop().create_task(self._lifespan(), name="mcp-variants ASGI lifespan")
        await self._to_app.put({"type": "lifespan.startup"})
        answer = await self._from_app.get()
        if answer["type"] != "lifespan.startup.complete":
            raise LifespanFailed(answer.get("message", "the ASGI app did not start"))

    async def _lifespan(self) -> None:
        scope = {"type": "lifespan", "asgi": ASGI, "state": {}}
        try:
            await self.app(scope, self._to_app.get, self._from_app.put)
        except Exception as exc:
            logger.exception("the MCP app's lifespan failed")
            await self._from_app.put({"type": "lifespan.startup.failed", "message": str(exc)})

    async def stop(self, timeout: float = 10.0) -> None:
        """End the lifespan (the SDK ends its sessions), waiting at most `timeout` seconds."""
        if self._task is None or self._task.done():
            return
        await self._to_app.put({"type": "lifespan.shutdown"})
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._from_app.get(), timeout)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task

    async def serve(self, handler: APIHandler, *, path: str, disconnected: asyncio.Event, extra: dict[str, Any]) -> None:
        """Serve `handler`'s request through the app at `path` (the route the app knows), with `extra` in the scope
        (the request's principal); `disconnected` is set by the handler when its client goes away."""
        request = handler.request
        host, _, port = (request.host or "").rpartition(":")
        scope: dict[str, Any] = {
            "type": "http", "asgi": ASGI, "http_version": request.version.removeprefix("HTTP/"),
            "method": request.method, "scheme": request.protocol, "path": path, "raw_path": path.encode(),
            "query_string": (request.query or "").encode("latin-1"), "root_path": "",
            "headers": list(_headers(request.headers.get_all())),
            "client": (request.remote_ip or "", 0), "server": (host or request.host, int(port) if port.isdigit() else 0),
            "state": {}, **extra,
        }
        body = request.body or b""
        delivered = False

        async def receive() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await disconnected.wait()
            return {"type": "http.disconnect"}

        response = _Response(handler, disconnected)
        try:
            await self.app(scope, receive, response.send)
        finally:
            response.end()


def _headers(pairs: Iterable[tuple[str, str]]) -> Iterable[tuple[bytes, bytes]]:
    for name, value in pairs:
        if name.lower() not in DROPPED_HEADERS:
            yield name.lower().encode("latin-1"), value.encode("latin-1")


class _Response:
    """The app's response messages written to the tornado handler."""

    def __init__(self, handler: APIHandler, disconnected: asyncio.Event) -> None:
        self.handler = handler
        self.disconnected = disconnected
        self.content_type = "application/json"
        self.started = False
        self.finished = False

    async def send(self, message: Message) -> None:
        if self.finished or self.disconnected.is_set():
            return
        handler = self.handler
        if message["type"] == "http.response.start":
            self.started = True
            handler.set_status(int(message["status"]))
            seen: set[str] = set()
            for raw_name, raw_value in message.get("headers", []):
                name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
                if name.lower() == "content-type":
                    self.content_type = value
                if name.lower() in seen:
                    handler.add_header(name, value)
                else:
                    handler.set_header(name, value)  # over the handler's defaults
                    seen.add(name.lower())
            return
        if message["type"] != "http.response.body":
            return
        chunk = message.get("body", b"")
        if chunk:
            handler.write(chunk)
        if message.get("more_body"):
            try:
                await handler.flush()
            except StreamClosedError:
                self.disconnected.set()
            return
        self.end()

    def end(self) -> None:
        """Finish the response (once): with the app's content type (a Jupyter API handler would set JSON's)."""
        if self.finished:
            return
        self.finished = True
        if self.disconnected.is_set() or self.handler._finished:
            return
        if not self.started:  # the app ended (or raised) without answering
            self.handler.set_status(500)
        with contextlib.suppress(StreamClosedError):
            self.handler.finish(set_content_type=self.content_type)
