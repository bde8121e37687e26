"""Our server as a process: its command line, and `HttpServer` (streamable HTTP on a free loopback port).

Stdio servers are the product's own: `StdioConnection.serve(root)` (reference client),
`StdioTarget(serve_command(root))` (raw wire), `PipedProcess` (benchmarks).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcp_variants.conformance.wire import HttpTarget, RoundTrip
from mcp_variants.processes import ServerProcess, free_port

START_TIMEOUT = 60.0
REQUEST_TIMEOUT = 60.0
STOP_GRACE = 20.0  # the server stops its kernels before it exits


def serve_command(root: Path, *args: str, script: Path | None = None) -> list[str]:
    """`mcp-variants serve --root ROOT ARGS` with the interpreter running the tests (this checkout's editable
    install; PYTHONPATH is inherited), or the same through `script` (a broken variant's launcher)."""
    head = [sys.executable, str(script)] if script else [sys.executable, "-m", "mcp_variants"]
    return [*head, "serve", "--root", str(root), *args]


class HttpServer(ServerProcess):
    """`mcp-variants serve --http` on a free loopback port, rooted at `root`, its stdout and stderr in `log`.

    Started at once (ready when its port accepts) and stopped by PID with its kernels (`close()`).
    `target` is a raw wire client of it; `post()` sends any body with any headers.

    `command` serves another server instead, one whose command line takes `mcp_variants.sdk.cli`'s
    `--http --host H --port P` (an example on the public server API); `root` is then its working folder.
    """

    def __init__(self, root: Path, *extra: str, log: Path, host: str | None = None, script: Path | None = None,
                 env: Mapping[str, str] | None = None, command: Sequence[str] | None = None) -> None:
        port = free_port()
        bind = ["--host", host] if host else []
        flags = ["--http", *bind, "--port", str(port), *extra]
        argv = [*command, *flags] if command else serve_command(root, *flags, script=script)
        super().__init__(argv, port, cwd=root, env=env, log=log)
        self.root = root
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.target = HttpTarget(self.url, timeout=REQUEST_TIMEOUT)
        self.start(START_TIMEOUT)

    def post(self, body: Mapping[str, Any] | bytes, headers: Mapping[str, str] | Sequence[tuple[str, str]] = (),
             timeout: float | None = None) -> RoundTrip:
        return self.target.post(body, headers, timeout)

    def next_id(self) -> int:
        return self.target.next_id()

    def stop(self, grace: float = STOP_GRACE) -> int | None:
        self.target.close()  # ends its handshake sessions (DELETE), best effort
        return super().stop(grace)

    def close(self) -> None:
        self.stop()
