"""Streamable HTTP sessions that route what the server writes in the writer's own task.

mcp 2.3.0's transport gives each session a zero-buffer stream for what the server writes and a
`message_router` task that reads it and routes each message: stored for resumption, then to its
request's SSE stream, or to the GET stream. An idle session keeps that task parked on the stream, with
the stream pair and a task group: about 10 KB of every open session (docs/performance.md, "What an
abandoned session costs"). Here the write side routes each message as it is written, the same way,
so a session keeps one task, its server loop.

Ordering is kept: within a request's stream, messages arrive in the order they were written (a full
stream's writers wait in turn), and event ids are minted in that order. Where the SDK's router held
all of a session's messages behind one full request stream (a client that reads it slowly), here only
that stream's writers wait.

The hook is the manager's `_admit_session` (mcp 2.3.0), as in sessions.py: delete this module when
the SDK routes as it writes (docs/sdk-change.md, section 9).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server.streamable_http import GET_STREAM_KEY, EventMessage, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared._context_streams import create_context_streams
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp_types import JSONRPCError, JSONRPCResponse

from .write_streams import DeliveringWriteStream


def route_as_written(manager: StreamableHTTPSessionManager) -> None:
    """Make every session `manager` admits from now on a `RoutedTransport`."""
    admit = manager._admit_session

    def admit_routed(requestor: Any) -> StreamableHTTPServerTransport | None:
        transport = admit(requestor)
        if transport is not None:
            transport.__class__ = RoutedTransport  # the manager builds the SDK's class; only connect() differs
        return transport

    manager._admit_session = admit_routed  # type: ignore[method-assign]


class RoutedTransport(StreamableHTTPServerTransport):
    """The SDK's transport, its `connect()` without the router task: `route()` is its loop's body."""

    @asynccontextmanager
    async def connect(self) -> AsyncGenerator[tuple[ReadStream[SessionMessage | Exception], WriteStream[SessionMessage]], None]:
        if self._idle_timeout is not None:
            self.idle_scope = anyio.CancelScope()
        read_stream_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
        writer = DeliveringWriteStream(self.route)  # each message routed as it is sent
        self._read_stream_writer, self._read_stream = read_stream_writer, read_stream
        # Any WriteStream will do: terminate() closes it, and a request cancelled unanswered is answered on it.
        self._write_stream = writer  # type: ignore[assignment]
        try:
            yield read_stream, writer
        finally:
            for stream_id in list(self._request_streams):
                await self._clean_up_memory_streams(stream_id)
            self._request_streams.clear()
            await read_stream_writer.aclose()
            await read_stream.aclose()
            await writer.aclose()

    async def route(self, session_message: SessionMessage) -> None:
        """Store one message the server wrote (for a client that resumes), and pass it to its stream if open."""
        message, metadata = session_message.message, session_message.metadata
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            stream_id = str(message.id)
        elif isinstance(metadata, ServerMessageMetadata) and metadata.related_request_id is not None:
            if self.is_json_response_enabled:
                return  # a JSON body carries only the response: this message has no wire form
            stream_id = str(metadata.related_request_id)
        else:
            stream_id = GET_STREAM_KEY  # unrelated to a request, or a null-id error that cannot be correlated
        event_id = await self._event_store.store_event(stream_id, message) if self._event_store else None
        if stream_id in self._request_streams:
            try:
                await self._request_streams[stream_id][0].send(EventMessage(message, event_id))
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                self._request_streams.pop(stream_id, None)

