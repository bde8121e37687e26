"""Streamable HTTP resumability: the event store the SDK's transport needs to give each SSE event an id, start
each stream with a priming event (and its `retry` field), and replay what a dropped stream missed to a client
that reconnects with `Last-Event-ID`.

Only the eras that define resumability reach it: the requests of a handshake session (2025-11-25 and before).
2026-07-28 dropped it ("Resumable SSE streams via Last-Event-ID are not supported"), and the SDK serves that era
and later ones on a transport of their own that keeps no events and refuses a GET (405): closing such a request's
stream cancels it instead. tests/wire/test_wire_stream_eras.py holds the server to both.

In memory and bounded: a personal server keeps the last `max_events` events of all its streams, enough to bridge
a dropped connection, not a log. An id that has been evicted replays nothing (the SDK then answers as for an
unknown stream), so a run that outlived its buffer is read back as a task (_task_store.py), not from here.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types import JSONRPCMessage

DEFAULT_MAX_EVENTS = 512
DEFAULT_RETRY_MS = 1000  # the `retry` field: how soon a client whose stream dropped should come back


class MemoryEventStore(EventStore):
    """The last `max_events` SSE events of every stream, oldest evicted first. (No `__len__`: the SDK tests the
    store for truth, and an empty one would turn resumability off.)"""

    def __init__(self, max_events: int = DEFAULT_MAX_EVENTS) -> None:
        self._max_events = max_events
        self._events: OrderedDict[EventId, tuple[StreamId, JSONRPCMessage | None]] = OrderedDict()
        self._ids = itertools.count(1)

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event_id = str(next(self._ids))
        self._events[event_id] = (stream_id, message)
        while len(self._events) > self._max_events:
            self._events.popitem(last=False)
        return event_id

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        known = self._events.get(last_event_id)
        if known is None:
            return None
        stream_id = known[0]
        after = False
        for event_id, (stream, message) in list(self._events.items()):
            if after and stream == stream_id and message is not None:  # priming events carry no message
                await send_callback(EventMessage(message, event_id))
            after = after or event_id == last_event_id
        return stream_id
