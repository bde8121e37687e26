"""stdio on the event loop: this process's stdin and stdout, framed and checked.

The SDK's stdio_server reads and writes through anyio.wrap_file, so every line and every flush
goes through a worker thread, the largest part of our overhead over a raw kernel round trip
(bench/tricks.py, rows stdio, measures this transport against that one; docs/performance.md). Here stdin and stdout are event-loop pipes
(or, for a regular file, which a loop cannot watch, plain reads and writes: a file never blocks
for long). Like the SDK, we keep the real descriptors for the protocol and point fd 0 at
/dev/null and fd 1 at stderr while serving, so a stray print, or a kernel that inherits our
stdout, cannot corrupt the wire.

Nothing of ours stands between the pipes and the SDK's JSON-RPC loop: the loop's own reads pull
the next line from stdin, a handler's answer is written to stdout in the handler's task, and the
era's loop is called directly (`StdioServerConnection.serve`) rather than through `Server.run`'s relay. Each
stream hop removed is a task switch and an event-loop pass less per request.

This transport owns the framing, so that every request with an id gets exactly one answer:

- lines of at most `max_message_bytes` (sdk/_lines.py): a longer one is answered -32600 and
  dropped as it arrives, in bounded memory, and the connection keeps serving;
- every line checked as JSON-RPC (protocol/jsonrpc.py) and answered when it is no message the
  SDK would answer (it drops what it cannot parse without a word);
- the era decided by the first request that validly claims one (sdk/_stdio_era.py);
- batches served on a 2025-03-26 connection, the one version that had them, and refused with
  -32600 on every other;
- each answer as sent (sdk/_tunnel.py: a tunnelled result opened, a -32022 naming every version);
- the 2026-12-01 bridge (sdk/_bridge.py) applied to each request as it arrives, only with `bridge=True`
  (what the installed SDK needs: sdk/_serve.bridging); with `bridge=False` it is never imported.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.lowlevel import Server
from mcp.server.runner import _serve_legacy_stream, _serve_modern_stream
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCResponse, jsonrpc_message_adapter
from pydantic import ValidationError

from ..protocol.jsonrpc import (
    ID_PEEK_BYTES,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    Batch,
    JsonRpcMessage,
    Kind,
    Refusal,
    check_bytes,
    dumps,
    error_response,
    peek_id,
    refuse_batch,
)
from ._guard import DEFAULT_MAX_MESSAGE_BYTES
from ._lines import LineFramer, Oversized
from ._stdio_era import ConnectionEra, Opening
from ._tunnel import session_message_as_sent
from ._write_streams import DeliveringWriteStream

logger = logging.getLogger(__name__)

READ_CHUNK = 256 * 1024
EOF_GRACE_SECONDS = 30.0  # how long requests already received may still finish after stdin closes
CLOSE_GRACE_SECONDS = 10.0  # how long answers still buffered may take to reach a client at the end
EARLY_MESSAGES_KEPT = 8  # notifications kept for the SDK before the first request, as its own entry keeps

_Key = tuple[bool, int | str]  # a request id, keyed so that 1 and "1" stay two ids


def _key(request_id: int | str) -> _Key:
    return isinstance(request_id, str), request_id


@asynccontextmanager
async def stdio_connection(max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                           at_eof: Callable[[], None] = lambda: None, *, bridge: bool = False,
                           fds: tuple[int, int] | None = None) -> AsyncIterator[StdioServerConnection]:
    """This process's stdin and stdout as one connection, for `StdioServerConnection.serve`. `at_eof` runs when stdin
    ends, before the requests still running are waited for (it ends the ones that would never end by themselves:
    subscriptions/listen streams). `bridge=True`: each request through the 2026-12-01 bridge. `fds`: two descriptors
    (read, write) served in place of stdin and stdout, which are then left as they are (an in-process client's pipes:
    the process's own stdout is not the protocol's); they stay the caller's to close."""
    read_fd, write_fd = fds or (0, 1)
    source = await _Input.open(os.dup(read_fd))
    sink = await _Output.open(os.dup(write_fd))
    saved = _divert_standard_descriptors() if fds is None else None
    try:
        yield StdioServerConnection(source, sink, max_message_bytes, at_eof, bridge)
    finally:
        try:
            await sink.aclose()  # what is buffered is still written: every answer given reaches the client
        finally:
            source.close()
        if saved is not None:
            _restore_standard_descriptors(saved)


# ---- the descriptors --------------------------------------------------------------------------------


def _is_pipe(fd: int) -> bool:
    """What an event loop can watch: a pipe, a socket or a terminal. Not a file, and not another character device:
    epoll refuses /dev/null (EPERM, raised in a loop callback, so `serve < /dev/null` waited forever), which is read
    and written as a file is, at once."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))


class _Input:
    """The protocol's stdin: an event-loop pipe, or a regular file read as it is (a read of a file never waits long)."""

    def __init__(self, fd: int, reader: asyncio.StreamReader | None, transport: asyncio.BaseTransport | None) -> None:
        self._fd, self._reader, self._transport = fd, reader, transport

    @classmethod
    async def open(cls, fd: int) -> _Input:
        if not _is_pipe(fd):
            return cls(fd, None, None)
        reader = asyncio.StreamReader(limit=READ_CHUNK)
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0))
        return cls(fd, reader, transport)

    async def read(self) -> bytes:
        """The next bytes; b"" at the end."""
        if self._reader is not None:
            return await self._reader.read(READ_CHUNK)
        return os.read(self._fd, READ_CHUNK)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()  # closes the descriptor
        else:
            os.close(self._fd)


class _Output:
    """The protocol's stdout: an event-loop pipe with flow control, or a regular file written at once (a write to a
    file never waits for a reader: `> out.txt` works, and as fast as a pipe)."""

    def __init__(self, fd: int, writer: asyncio.StreamWriter | None) -> None:
        self._fd, self._writer = fd, writer
        self._broken = False

    @classmethod
    async def open(cls, fd: int) -> _Output:
        if not _is_pipe(fd):
            return cls(fd, None)
        loop = asyncio.get_running_loop()
        transport, flow = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, os.fdopen(fd, "wb", buffering=0))
        return cls(fd, asyncio.StreamWriter(transport, flow, None, loop))

    async def write(self, data: bytes) -> None:
        """Write `data`, whole lines. No lock is needed for whole lines (the SDK's answers come from each handler's
        task): each goes to the pipe's transport, or the file, in one call that does not wait, so two never
        interleave; `drain` then holds the writer back only while the client has not read enough."""
        if self._broken:
            return
        try:
            if self._writer is not None:
                self._writer.write(data)
                await self._writer.drain()
                return
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
        except OSError as exc:  # the client closed its end, or the file cannot grow: nobody to answer
            logger.warning("stdout is gone (%s); answers are dropped from here on", exc)
            self._broken = True

    async def aclose(self) -> None:
        """Close the descriptor once what is buffered is written: the loop must not end with an answer still in
        the transport's buffer (a client that stopped reading gets CLOSE_GRACE_SECONDS)."""
        if self._writer is None:
            os.close(self._fd)
            return
        with anyio.move_on_after(CLOSE_GRACE_SECONDS):
            try:
                self._writer.transport.set_write_buffer_limits(0)  # drain() now waits for an empty buffer
                await self._writer.drain()
            except OSError:
                pass  # the client closed its end: nobody to answer
        self._writer.close()


# ---- one connection -------------------------------------------------------------------------------


@dataclass
class _PendingBatch:
    """A batch being served: the answers in, the ids still out."""

    waiting: Counter[_Key] = field(default_factory=Counter)
    answers: list[bytes] = field(default_factory=list)
    sealed: bool = False  # every element has been passed on or answered

    @property
    def done(self) -> bool:
        return self.sealed and not self.waiting

    def expects(self, key: _Key) -> bool:
        return self.waiting[key] > 0

    def answer(self, key: _Key | None, data: bytes) -> None:
        if key is not None and self.waiting[key] > 0:
            self.waiting[key] -= 1
            self.waiting += Counter()  # drop the zero counts
        self.answers.append(data)


class StdioServerConnection:
    """One stdio connection, served by the SDK's JSON-RPC loop with no task or stream of ours in between: the loop's
    reads pull lines from stdin (`_FromClient`), and what a handler writes goes to stdout in the handler's own task
    (a DeliveringWriteStream). Each stream hop costs a task switch and an event-loop pass on every message, and a
    round trip is mostly such passes (bench/roundtrip.py)."""

    def __init__(self, source: _Input, output: _Output, max_message_bytes: int, at_eof: Callable[[], None],
                 bridge: bool = False) -> None:
        self.source = source
        self.output = output
        self.at_eof = at_eof
        self.inbound = _bridge_inbound() if bridge else _as_read
        self.limit = max_message_bytes
        self.framer = LineFramer(max_message_bytes, keep=ID_PEEK_BYTES)
        self.era = ConnectionEra()
        self.ready: deque[SessionMessage | Exception] = deque()  # admitted, not yet read by the SDK
        self.ended = False  # stdin is at its end, and the requests it brought are answered (or out of time)
        self.unanswered: Counter[_Key] = Counter()  # requests passed to the SDK, by id
        self.batches: list[_PendingBatch] = []
        self._answer_came = anyio.Event()

    async def serve(self, server: Server[Any]) -> None:
        """Serve `server` until stdin ends, in the era the client opens with. The SDK's own entry
        (`Server.run`) finds the era by relaying every message through one more stream and task; the era is
        known here (ConnectionEra) before the SDK sees a request, so its loop for that era is called directly
        (mcp 2.3.0's `_serve_modern_stream` / `_serve_legacy_stream`, what `serve_dual_era_loop` calls)."""
        reader, writer = _FromClient(self), DeliveringWriteStream(self.write_from_sdk)
        async with server.lifespan(server) as state:
            try:
                if await self.opening_era() is Opening.STATELESS:
                    await _serve_modern_stream(server, reader, writer, lifespan_state=state, raise_exceptions=False)
                else:  # a handshake, or no request at all (as the SDK serves a connection that never asked)
                    await _serve_legacy_stream(server, reader, writer, lifespan_state=state, session_id=None,
                                               init_options=server.create_initialization_options(), raise_exceptions=False)
            finally:
                await writer.aclose()

    async def opening_era(self) -> Opening:
        """Read until the first request the SDK will get has come (it fixes the era), or stdin has ended."""
        while self.era.era is Opening.UNDECIDED and not self.ended:
            await self._read_more()
        return self.era.era

    # -- inbound

    async def next_message(self) -> SessionMessage | Exception:
        """The next message for the SDK, read from stdin as needed; EndOfStream once stdin is done."""
        while not self.ready:
            if self.ended:
                raise anyio.EndOfStream
            await self._read_more()
        return self.ready.popleft()

    async def _read_more(self) -> None:
        chunk = await self.source.read()
        for line in self.framer.feed(chunk) if chunk else self.framer.end():
            await self._line(line)
        if not chunk:
            # EOF: the client is done sending. Answer what it already asked before the
            # SDK sees the end of input (which cancels requests still running).
            self.at_eof()
            with anyio.move_on_after(EOF_GRACE_SECONDS):
                while self.unanswered:
                    self._answer_came = anyio.Event()
                    await self._answer_came.wait()
            self.ended = True

    async def _line(self, line: bytes | Oversized) -> None:
        if isinstance(line, Oversized):
            await self._write(error_response(
                peek_id(line.prefix), INVALID_REQUEST,
                f"Invalid Request: the message is {line.size:,} bytes; this server takes at most {self.limit:,} "
                "(--max-message-bytes)", {"limit": self.limit, "size": line.size}))
            return
        if not line.strip():
            return
        checked = check_bytes(line)
        if isinstance(checked, Batch):
            await self._batch(checked)
        elif isinstance(checked, Refusal):
            if checked.answer:
                await self._write(checked.response())
            else:
                logger.warning("dropped a notification: %s", checked.message)
        else:
            answer = self._admit(checked)
            if answer is not None:
                await self._write(answer)

    def _admit(self, message: JsonRpcMessage) -> dict[str, Any] | None:
        """Pass `message` to the SDK, or return the answer it gets instead."""
        if message.kind is Kind.REQUEST:
            answer = self.era.screen(message)
            if answer is not None:
                return answer
        elif self.era.era is Opening.UNDECIDED and len(self.ready) >= EARLY_MESSAGES_KEPT:
            logger.debug("dropped a %s that came before the first request", message.kind.value)
            return None
        try:
            parsed = jsonrpc_message_adapter.validate_python(message.body, by_name=False)
        except ValidationError as exc:  # a shape our checks let through and the SDK's model does not
            if message.kind is not Kind.REQUEST:
                logger.warning("dropped a %s the SDK cannot read: %s", message.kind.value, exc)
                return None
            return error_response(message.id, INVALID_REQUEST, f"Invalid Request: {exc.errors()[0]['msg']}")
        if message.kind is Kind.REQUEST and message.id is not None:
            self.unanswered[_key(message.id)] += 1
        inbound = SessionMessage(parsed)
        self.ready.append(self.inbound(inbound))
        return None

    async def _batch(self, batch: Batch) -> None:
        if not self.era.allows_batches:
            await self._refuse_batch(batch)
            return
        pending = _PendingBatch()
        self.batches.append(pending)
        for element in batch.elements:
            if isinstance(element, Refusal):
                if element.answer:
                    pending.answers.append(dumps(element.response()))
                continue
            if element.kind is Kind.REQUEST and element.method == "initialize":
                pending.answers.append(dumps(error_response(element.id, INVALID_REQUEST,
                                                            "Invalid Request: initialize is never part of a batch")))
                continue
            key = _key(element.id) if element.kind is Kind.REQUEST and element.id is not None else None
            if key is not None:
                pending.waiting[key] += 1  # before the SDK can answer it
            answer = self._admit(element)
            if answer is not None:
                pending.answer(key, dumps(answer))
        pending.sealed = True
        await self._flush_batch(pending)

    async def _refuse_batch(self, batch: Batch) -> None:
        if self.era.era is Opening.UNDECIDED:
            why = "before the connection has a version"
        elif self.era.era is Opening.STATELESS:
            why = "at 2026-07-28 and 2026-12-01"
        else:
            why = f"at {self.era.version}"
        await self._write(refuse_batch(batch, f"Invalid Request: JSON-RPC batches are not served {why}; only 2025-03-26 had them"))

    async def _flush_batch(self, pending: _PendingBatch) -> None:
        if not pending.done or pending not in self.batches:
            return
        self.batches.remove(pending)
        if pending.answers:  # a batch of notifications only gets no answer (JSON-RPC)
            await self.output.write(b"[" + b",".join(pending.answers) + b"]\n")

    # -- outbound

    async def write_from_sdk(self, item: SessionMessage) -> None:
        """Write one message the SDK sent: on its own line, or into the batch its request came in."""
        message = session_message_as_sent(item).message
        data = _encode(message)
        if data is None:
            return
        if not isinstance(message, JSONRPCResponse | JSONRPCError) or message.id is None:
            await self.output.write(data + b"\n")
            return
        key = _key(message.id)
        try:
            pending = next((batch for batch in self.batches if batch.expects(key)), None)
            if pending is None:
                await self.output.write(data + b"\n")
                return
            pending.answer(key, data)
            await self._flush_batch(pending)
        finally:
            # Only once written: at EOF the SDK's loop ends, and cancels its handlers, when nothing is unanswered.
            self._answered(key)

    def _answered(self, key: _Key) -> None:
        if self.unanswered[key] > 1:
            self.unanswered[key] -= 1
        else:
            self.unanswered.pop(key, None)
        self._answer_came.set()

    async def _write(self, message: dict[str, Any] | list[dict[str, Any]]) -> None:
        await self.output.write(dumps(message) + b"\n")


class _FromClient:
    """The SDK's read stream (mcp.shared._stream_protocols.ReadStream): each receive reads on from stdin."""

    def __init__(self, connection: StdioServerConnection) -> None:
        self._connection = connection

    async def receive(self) -> SessionMessage | Exception:
        return await self._connection.next_message()

    def __aiter__(self) -> _FromClient:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self._connection.next_message()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        """Nothing to let go of: stdin is the process's, closed by stdio_connection."""

    async def __aenter__(self) -> _FromClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _as_read(item: SessionMessage | Exception) -> SessionMessage | Exception:
    return item


def _bridge_inbound() -> Callable[[SessionMessage | Exception], SessionMessage | Exception]:
    from ._bridge import bridge_inbound  # imported only where the SDK needs the bridge: deleting it deletes this

    return bridge_inbound


def _encode(message: Any) -> bytes | None:
    """A message the SDK wrote, as one line; a response that cannot be encoded becomes a -32603 with its id."""
    try:
        text: str = message.model_dump_json(by_alias=True, exclude_unset=True)
        return text.encode()
    except Exception as exc:  # pydantic refuses text that is no Unicode (a lone surrogate)
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            logger.error("the answer to request %r cannot be encoded: %s", message.id, exc)
            return dumps(error_response(message.id, INTERNAL_ERROR, "Internal error: the answer holds text that is no Unicode"))
        logger.error("dropped a notification that cannot be encoded: %s", exc)
        return None


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
