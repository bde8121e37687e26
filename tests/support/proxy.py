"""A TCP proxy on a free loopback port in front of a Jupyter server, to break its websockets on purpose.

Everything passes through as it is. The test can hold what either side sends on the documents' rooms'
websockets (kept back, not delivered), and cut those connections (what was held is lost, as on
a real network failure); REST requests and kernel websockets are never touched. It runs its
event loop in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field

from mcp_variants.processes import LOOPBACK, free_port

ROOM = b"/api/collaboration/room/json:"  # a document's room; the global awareness room passes as REST does


@dataclass
class _Pipe:
    client: asyncio.StreamWriter
    server: asyncio.StreamWriter
    room: bool = False
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class Proxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.url = f"http://{LOOPBACK}:{self.port}/"
        self.held = {"up": threading.Event(), "down": threading.Event()}  # up: client → server
        self.kept_back = {"up": 0, "down": 0}  # chunks held back so far, each way: what a test waits on
        self.room_connections = 0  # how many room websockets were opened through it
        self._pipes: list[_Pipe] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._accept, LOOPBACK, self.port))
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        server_reader, server_writer = await asyncio.open_connection(LOOPBACK, self.target_port)
        first = await client_reader.read(65536)
        pipe = _Pipe(client_writer, server_writer, room=ROOM in first.split(b"\r\n", 1)[0])
        if pipe.room:
            self.room_connections += 1
        self._pipes.append(pipe)
        server_writer.write(first)
        pipe.tasks = [asyncio.create_task(self._pump(client_reader, server_writer, pipe, "up")),
                      asyncio.create_task(self._pump(server_reader, client_writer, pipe, "down"))]

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, pipe: _Pipe, direction: str) -> None:
        held: list[bytes] = []
        try:
            while data := await reader.read(65536):
                if pipe.room and self.held[direction].is_set():
                    held.append(data)
                    self.kept_back[direction] += 1
                    continue
                for chunk in [*held, data]:
                    writer.write(chunk)
                held.clear()
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    def hold(self, direction: str) -> None:
        """Keep back what one side ("up": our server, "down": the Jupyter server) sends on room websockets."""
        self.held[direction].set()

    def release(self) -> None:
        for event in self.held.values():
            event.clear()

    def cut_rooms(self) -> None:
        """Close every room websocket now; what was held back is lost."""
        async def cut() -> None:
            for pipe in [p for p in self._pipes if p.room]:
                for task in pipe.tasks:
                    task.cancel()
                for writer in (pipe.client, pipe.server):
                    with contextlib.suppress(Exception):
                        writer.transport.abort()
                self._pipes.remove(pipe)

        asyncio.run_coroutine_threadsafe(cut(), self._loop).result(10)

    def close(self) -> None:
        self.cut_rooms()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
