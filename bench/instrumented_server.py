"""The stdio server with timestamps, a profiler or a thread-free stdio transport (diagnostics only).

    python -m bench.instrumented_server [--stamps FILE] [--cprofile FILE] [--direct-stdio] serve --root DIR

Runs `mcp_variants.server.cli.main` unchanged, after monkeypatching from the outside:

--stamps FILE   perf_counter() timestamps (CLOCK_MONOTONIC, comparable with the client's) at
                  stdin_line   the SDK's reader got a request line back on the event loop
                  bridge_in    the bridge's inbound relay rewrites the request
                  runner_in    the SDK's ServerRunner._on_request starts
                  handler_in / handler_out   our tools/call handler was entered / returned
                  execute_in / execute_out   EmbeddedRuntime.execute (the kernel loop)
                  serialize_in / serialize_out   the SDK's ServerRunner._serialize (result sieve)
                  bridge_out   the bridge's outbound relay unwraps the result
                  write_in     the SDK's writer starts writing the response (JSON already dumped)
                  flushed      the SDK's writer has flushed it
                written as one JSON line per event to FILE at exit.
--cprofile FILE START COUNT
                 cProfile of the event-loop thread from the START-th request line read to the
                 (START+COUNT)-th, i.e. COUNT steady-state requests; dumped at exit (pstats).
--no-bridge-relay  a what-if: run the SDK server on the stdio streams directly, without the
                 bridge's two relay tasks (serve_bridged_streams). 2026-12-01 then gets -32022,
                 so use it with 2026-07-28 requests to measure what the relays cost.
--direct-stdio   a what-if: the SDK's stdio_server reads and writes its pipes through
                 anyio.wrap_file, i.e. one worker-thread hop per line read, per write and per
                 flush. This replaces those with a thread-free reader (asyncio pipe transport)
                 and a direct os.write, to measure what the hops cost.

Nothing in src/ is modified; the patches live only in this process.
"""

from __future__ import annotations

import asyncio
import atexit
import cProfile
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio

_STAMPS: list[tuple[str, float]] = []
_clock = time.perf_counter
_RECORD_STAMPS = False
_PROFILER: cProfile.Profile | None = None
_PROFILE_WINDOW: tuple[int, int] = (0, 0)  # profile from request line START to line START+COUNT
_lines_seen = 0


def _stamp(event: str) -> None:
    if _RECORD_STAMPS:
        _STAMPS.append((event, _clock()))


def _on_line() -> None:
    """Called on the event loop for each request line: stamps it and opens/closes the profile window."""
    global _lines_seen
    _lines_seen += 1
    _stamp("stdin_line")
    if _PROFILER is not None:
        start, count = _PROFILE_WINDOW
        if _lines_seen == start:
            _PROFILER.enable()
        elif _lines_seen == start + count:
            _PROFILER.disable()


class _StampedAsyncFile(anyio.AsyncFile):  # type: ignore[type-arg]
    """anyio's AsyncFile (worker thread per call), with stamps after readline and around write."""

    async def readline(self) -> Any:  # type: ignore[override]
        line = await super().readline()
        if line:
            _on_line()
        return line

    async def write(self, data: Any) -> Any:  # type: ignore[override]
        _stamp("write_in")
        return await super().write(data)

    async def flush(self) -> None:  # type: ignore[override]
        await super().flush()
        _stamp("flushed")


class _DirectFile:
    """A thread-free stand-in for anyio.wrap_file(text wrapper over a pipe)."""

    def __init__(self, wrapper: Any, stamps: bool) -> None:
        self._fd = wrapper.buffer.fileno()
        self._stamps = stamps
        self._reader: asyncio.StreamReader | None = None

    async def _ensure_reader(self) -> asyncio.StreamReader:
        if self._reader is None:
            loop = asyncio.get_running_loop()
            reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
            pipe = os.fdopen(os.dup(self._fd), "rb", buffering=0)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
            self._reader = reader
        return self._reader

    def __aiter__(self) -> Any:
        return self._lines()

    async def _lines(self) -> Any:
        reader = await self._ensure_reader()
        while True:
            line = await reader.readline()
            if not line:
                return
            _on_line()
            yield line.decode("utf-8", errors="replace")

    async def write(self, data: str) -> None:
        if self._stamps:
            _stamp("write_in")
        view = memoryview(data.encode("utf-8"))
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    async def flush(self) -> None:
        if self._stamps:
            _stamp("flushed")

    async def aclose(self) -> None:
        return None


def _install_stdio_patch(direct: bool, stamps: bool) -> None:
    original = anyio.wrap_file

    def wrap_file(file: Any, *, limiter: Any = None) -> Any:
        if direct:
            return _DirectFile(file, stamps)
        if stamps or _PROFILER is not None:
            return _StampedAsyncFile(file, limiter=limiter)
        return original(file, limiter=limiter)

    anyio.wrap_file = wrap_file  # type: ignore[assignment]


def _install_handler_stamps() -> None:
    from mcp.server.lowlevel import Server

    from mcp_variants.jupyter.embedded import EmbeddedRuntime

    add = Server.add_request_handler

    def add_request_handler(self: Any, method: str, params_type: Any, handler: Any, *args: Any, **kwargs: Any) -> Any:
        if method == "tools/call":
            inner = handler

            async def handler(ctx: Any, params: Any) -> Any:
                _stamp("handler_in")
                try:
                    return await inner(ctx, params)
                finally:
                    _stamp("handler_out")

        return add(self, method, params_type, handler, *args, **kwargs)

    Server.add_request_handler = add_request_handler  # type: ignore[method-assign]

    execute = EmbeddedRuntime.execute

    async def timed_execute(self: Any, *args: Any, **kwargs: Any) -> Any:
        _stamp("execute_in")
        try:
            return await execute(self, *args, **kwargs)
        finally:
            _stamp("execute_out")

    EmbeddedRuntime.execute = timed_execute  # type: ignore[method-assign]

    from mcp.server.runner import ServerRunner

    on_request = ServerRunner._on_request

    async def timed_on_request(self: Any, *args: Any, **kwargs: Any) -> Any:
        _stamp("runner_in")
        return await on_request(self, *args, **kwargs)

    ServerRunner._on_request = timed_on_request  # type: ignore[method-assign]

    serialize = ServerRunner._serialize

    def timed_serialize(self: Any, *args: Any, **kwargs: Any) -> Any:
        _stamp("serialize_in")
        try:
            return serialize(self, *args, **kwargs)
        finally:
            _stamp("serialize_out")

    ServerRunner._serialize = timed_serialize  # type: ignore[method-assign]

    from mcp_variants.server import bridge

    rewrite_request, unwrap_result = bridge.rewrite_request, bridge.unwrap_result

    def timed_rewrite_request(*args: Any, **kwargs: Any) -> Any:
        _stamp("bridge_in")
        return rewrite_request(*args, **kwargs)

    def timed_unwrap_result(*args: Any, **kwargs: Any) -> Any:
        _stamp("bridge_out")
        return unwrap_result(*args, **kwargs)

    bridge.rewrite_request = timed_rewrite_request  # type: ignore[assignment]
    bridge.unwrap_result = timed_unwrap_result  # type: ignore[assignment]


def _remove_bridge_relay() -> None:
    from mcp_variants.server import bridge

    async def passthrough(read_stream: Any, write_stream: Any, serve: Any) -> None:
        await serve(read_stream, write_stream)

    bridge.serve_bridged_streams = passthrough  # type: ignore[assignment]


def main() -> None:
    argv = sys.argv[1:]
    stamps_path: Path | None = None
    profile_path: Path | None = None
    direct = False
    while argv and argv[0].startswith("--"):
        option = argv.pop(0)
        if option == "--stamps":
            stamps_path = Path(argv.pop(0))
        elif option == "--cprofile":
            profile_path = Path(argv.pop(0))
            global _PROFILE_WINDOW, _PROFILER
            _PROFILE_WINDOW = (int(argv.pop(0)), int(argv.pop(0)))
            _PROFILER = cProfile.Profile()
        elif option == "--direct-stdio":
            direct = True
        elif option == "--no-bridge-relay":
            _remove_bridge_relay()
        else:
            sys.exit(f"unknown option {option}")

    _install_stdio_patch(direct, stamps_path is not None)
    if stamps_path is not None:
        global _RECORD_STAMPS
        _RECORD_STAMPS = True
        _install_handler_stamps()

        def dump() -> None:
            stamps_path.write_text("".join(json.dumps([e, t]) + "\n" for e, t in _STAMPS))

        atexit.register(dump)

    from mcp_variants.server.cli import main as cli_main

    try:
        cli_main(argv)
    finally:
        if _PROFILER is not None and profile_path is not None:
            _PROFILER.disable()
            _PROFILER.dump_stats(str(profile_path))


if __name__ == "__main__":
    main()
