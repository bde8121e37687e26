"""The project's one reader of streamable HTTP's event streams (`text/event-stream`), standard library only.

`read_sse` reads the messages of a stream: the reference client's HTTP transport and the conformance suite's raw
HTTP target both read with it; it sits beside them (as processes.py does) so that neither imports the other for it.
`SseEvents` cuts a stream being relayed into whole events: the server's HTTP guard (sdk/_guard.py) rewrites each.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final

_EVENT_ENDS: Final[tuple[bytes, ...]] = (b"\n\n", b"\r\n\r\n", b"\r\r")


def sse_events(lines: Iterable[bytes]) -> Iterator[tuple[str, bool]]:
    """Each event's data (its `data:` lines joined) as soon as the event ends, and whether it ended with its blank
    line (False only for what the stream's end cut short). Events without data are skipped."""
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
            continue
        if line == "" and data:
            payload, data = "\n".join(data), []
            if payload.strip():
                yield payload, True
    if data and "\n".join(data).strip():
        yield "\n".join(data), False


def read_sse(lines: Iterable[bytes], until: Callable[[Any], bool] | None = None) -> tuple[list[Any], str | None, bytes]:
    """The JSON-RPC messages of a `text/event-stream` body.

    Reads `lines` until they end, or until the event holding a message `until` accepts has
    ended (a stream may stay open after the response). Returns (messages, problem, the bytes
    read): `problem` names the first event that is not JSON.
    """
    messages: list[Any] = []
    read = bytearray()

    def counted() -> Iterator[bytes]:
        for raw in lines:
            read.extend(raw)
            yield raw

    for payload, ended in sse_events(counted()):
        try:
            messages.append(json.loads(payload))
        except ValueError:
            problem = f"an SSE event is not JSON: {payload[:200]!r}" if ended else "the last SSE event is not JSON"
            return messages, problem, bytes(read)
        if until is not None and until(messages[-1]):
            break
    return messages, None, bytes(read)


class SseEvents:
    """Cuts an event stream into whole events (each ends with a blank line), in linear time."""

    def __init__(self) -> None:
        self._pending = bytearray()

    def feed(self, chunk: bytes) -> bytes:
        """The events `chunk` completes; the bytes of an unfinished one are kept."""
        scan_from = max(0, len(self._pending) - 3)  # an end may straddle the two
        self._pending += chunk
        end = max(_end_after(self._pending, mark, scan_from) for mark in _EVENT_ENDS)
        if end == 0:
            return b""
        events = bytes(self._pending[:end])
        del self._pending[:end]
        return events

    def rest(self) -> bytes:
        """At the end of the stream: what is left."""
        rest = bytes(self._pending)
        self._pending.clear()
        return rest


def _end_after(buffer: bytearray, mark: bytes, start: int) -> int:
    at = buffer.rfind(mark, start)
    return at + len(mark) if at >= 0 else 0
