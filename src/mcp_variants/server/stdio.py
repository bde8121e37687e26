"""stdio without worker threads, with the 2026-12-01 bridge applied as messages cross.

The SDK's stdio_server reads and writes through anyio.wrap_file, so every line and every
flush goes through a worker thread: about a quarter of a millisecond per call, most of
our overhead over a raw kernel round trip (docs/performance.md). Here the process's
stdin and stdout are event-loop pipes. Like the SDK, we keep the real descriptors for the
protocol and point fd 0 at /dev/null and fd 1 at stderr while serving, so a stray print,
or a kernel that inherits our stdout, cannot corrupt the wire.

Falls back to the SDK's transport when stdin or stdout is not a pipe (a regular file,
for example), which the event loop cannot watch.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse, jsonrpc_message_adapter

from .bridge import bridge_inbound, bridge_outbound

MAX_LINE = 64 * 1024 * 1024  # one JSON-RPC message; the SDK's reader has no limit either
EOF_GRACE_SECONDS = 30.0  # how long requests already received may still finish after stdin closes


@asynccontextmanager
async def bridged_stdio(at_eof: Callable[[], None] = lambda: None) -> AsyncIterator[tuple[Any, Any]]:
    """(read_stream, write_stream) for Server.run, over this process's stdin and stdout. `at_eof`
    runs when stdin ends, before the requests still running are waited for (it ends the ones that
    would never end by themselves: subscriptions/listen streams)."""
    loop = asyncio.get_running_loop()
    protocol_in, protocol_out = os.dup(0), os.dup(1)
    stdin = os.fdopen(protocol_in, "rb", buffering=0)
    stdout = os.fdopen(protocol_out, "wb", buffering=0)
    reader = asyncio.StreamReader(limit=MAX_LINE)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
        transport, flow = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, stdout)
    except ValueError:  # not a pipe, socket or character device
        stdin.close()
        stdout.close()
        async with _sdk_stdio() as streams:
            yield streams
        return
    writer = asyncio.StreamWriter(transport, flow, None, loop)
    saved = _divert_standard_descriptors()
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](16)

    unanswered: set[Any] = set()
    all_answered = anyio.Event()

    async def read_lines() -> None:
        async with read_send:
            while line := await reader.readline():
                if not line.strip():
                    continue
                try:
                    item: SessionMessage | Exception = SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
                except Exception as exc:  # the SDK answers what it cannot parse
                    item = exc
                if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCRequest):
                    unanswered.add(item.message.id)
                await read_send.send(bridge_inbound(item))
            # EOF: the client is done sending. Answer what it already asked before the
            # SDK sees the end of input (which cancels requests still running).
            at_eof()
            if unanswered:
                with anyio.move_on_after(EOF_GRACE_SECONDS):
                    await all_answered.wait()

    async def write_lines() -> None:
        async with write_receive:
            async for item in write_receive:
                message = bridge_outbound(item).message
                writer.write(message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n")
                await writer.drain()
                if isinstance(message, JSONRPCResponse | JSONRPCError):
                    unanswered.discard(message.id)
                    if not unanswered:
                        all_answered.set()

    reading = anyio.CancelScope()

    async def read_until_stopped() -> None:
        with reading:
            await read_lines()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_until_stopped)
            tg.start_soon(write_lines)
            try:
                yield read_receive, write_send
            finally:
                # Stop reading, but let every response already written reach the client.
                reading.cancel()
                await write_send.aclose()
    finally:
        writer.close()
        transport.close()
        _restore_standard_descriptors(saved)


@asynccontextmanager
async def _sdk_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's threaded transport, with the bridge on both streams."""
    async with stdio_server() as (read_stream, write_stream):
        read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](16)

        async def inbound() -> None:
            async with read_send:
                async for item in read_stream:
                    await read_send.send(bridge_inbound(item))

        async def outbound() -> None:
            async with write_stream, write_receive:
                async for item in write_receive:
                    await write_stream.send(bridge_outbound(item))

        async with anyio.create_task_group() as tg:
            tg.start_soon(inbound)
            tg.start_soon(outbound)
            yield read_receive, write_send
            tg.cancel_scope.cancel()


def _divert_standard_descriptors() -> tuple[int, int]:
    saved = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return saved


def _restore_standard_descriptors(saved: tuple[int, int]) -> None:
    for target, source in zip((0, 1), saved, strict=True):
        os.dup2(source, target)
        os.close(source)
