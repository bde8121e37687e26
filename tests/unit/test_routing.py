"""A session routes what the server writes as it is written (sdk/routing.py, issue 22): no task of its own for it,
each message stored for resumption and passed to its request's stream (or the GET stream) in the order written."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest
from mcp.server.streamable_http import GET_STREAM_KEY, EventMessage
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp_types import JSONRPCNotification, JSONRPCResponse

from mcp_variants.sdk.events import MemoryEventStore
from mcp_variants.sdk.routing import RoutedTransport


class RecordingStore(MemoryEventStore):
    def __init__(self) -> None:
        super().__init__()
        self.stored: list[tuple[str, Any]] = []

    async def store_event(self, stream_id: str, message: Any) -> str:
        self.stored.append((stream_id, message))
        return await super().store_event(stream_id, message)


def test_messages_are_stored_and_reach_their_stream_in_order_and_no_task_runs_for_it() -> None:
    async def scenario() -> None:
        store = RecordingStore()
        transport = RoutedTransport("s1", event_store=store)
        tasks = len(asyncio.all_tasks())
        async with transport.connect() as (_, write_stream):
            assert len(asyncio.all_tasks()) == tasks
            send, receive = transport._request_streams["7"] = anyio.create_memory_object_stream[EventMessage](16)
            progress = JSONRPCNotification(jsonrpc="2.0", method="notifications/progress", params={"progressToken": 1, "progress": 1})
            answer = JSONRPCResponse(jsonrpc="2.0", id=7, result={})
            unrelated = JSONRPCNotification(jsonrpc="2.0", method="notifications/tools/list_changed")
            await write_stream.send(SessionMessage(progress, metadata=ServerMessageMetadata(related_request_id=7)))
            await write_stream.send(SessionMessage(answer))
            await write_stream.send(SessionMessage(unrelated))  # no GET stream open: stored only
            assert [receive.receive_nowait(), receive.receive_nowait()] == [EventMessage(progress, "1"), EventMessage(answer, "2")]
            assert store.stored == [("7", progress), ("7", answer), (GET_STREAM_KEY, unrelated)]

    asyncio.run(scenario())


def test_once_terminated_a_write_raises_closed_as_the_sdks_stream_does() -> None:
    async def scenario() -> None:
        transport = RoutedTransport("s1")
        async with transport.connect() as (_, write_stream):
            await transport.terminate()
            with pytest.raises(anyio.ClosedResourceError):
                await write_stream.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=1, result={})))

    asyncio.run(scenario())
