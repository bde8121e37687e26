"""Our server as a process: its command line, and `HttpServer` (streamable HTTP on a free loopback port).

Stdio servers are the product's own: `serve_stdio(root)`, a `StdioConnection` (the project's raw stdio client),
`StdioTarget(serve_command(root))` (the same, a process per handshake version), `PipedProcess` (benchmarks);
docs/testing.md, "How the tests reach the server", says which a test uses.

`python_command()` starts Python programs that import the SDK as forks of this worker's fork server
(forkserver.py: one `import mcp` a worker instead of one a server); `fresh=True`, or MCP_VARIANTS_TEST_FORKS=0
for the whole run, execs the interpreter as a person's command line does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcp_variants.client.stdio import StdioConnection
from mcp_variants.conformance.wire import HttpTarget, RoundTrip
from mcp_variants.processes import ServerProcess, free_port

START_TIMEOUT = 60.0
REQUEST_TIMEOUT = 60.0
STOP_GRACE = 20.0  # the server stops its kernels before it exits


FORKSERVER = Path(__file__).with_name("forkserver.py")
FORKSERVER_CLIENT = Path(__file__).with_name("forkserver_client.py")


class _ForkServer:
    """This worker's fork server, started on first use; it ends with the worker (its stdin closes)."""

    lock = threading.Lock()
    socket: str | None = None
    process: subprocess.Popen[bytes] | None = None  # held: the pipe to its stdin is what keeps it running

    @classmethod
    def path(cls) -> str:
        with cls.lock:
            if cls.socket is None:
                socket = os.path.join(tempfile.mkdtemp(prefix="forkserver-"), "socket")
                cls.process = subprocess.Popen([sys.executable, str(FORKSERVER), socket], stdin=subprocess.PIPE,
                                               stdout=subprocess.PIPE)
                assert cls.process.stdout is not None
                if cls.process.stdout.readline() != b"ready\n":
                    raise RuntimeError(f"the fork server did not start (exit code {cls.process.wait()})")
                cls.socket = socket
            return cls.socket


def python_command(*, fresh: bool = False) -> list[str]:
    """The interpreter running the tests, or its stand-in in a fork of the fork server; the same command line
    (`-m MODULE ...` or `SCRIPT ...`) follows either."""
    if fresh or os.environ.get("MCP_VARIANTS_TEST_FORKS") == "0":
        return [sys.executable]
    return [sys.executable, "-I", "-S", str(FORKSERVER_CLIENT), _ForkServer.path()]


def serve_command(root: Path, *args: str, script: Path | None = None, fresh: bool = False) -> list[str]:
    """`mcp-variants serve --root ROOT ARGS` with the interpreter running the tests (this checkout's editable
    install; PYTHONPATH is inherited), or the same through `script` (a broken variant's launcher); a fork of the
    fork server unless `fresh` (`python_command`)."""
    head = [*python_command(fresh=fresh), *([str(script)] if script else ["-m", "mcp_variants"])]
    return [*head, "serve", "--root", str(root), *args]


def serve_stdio(root: Path, *args: str, fresh: bool = False, **options: Any) -> StdioConnection:
    """`serve_command(root, *args)` spoken to with the reference client; `options` are StdioConnection's."""
    return StdioConnection(serve_command(root, *args, fresh=fresh), **options)


class HttpServer(ServerProcess):
    """`mcp-variants serve --http` on a free loopback port, rooted at `root`, its stdout and stderr in `log`.

    Started at once (ready when its port accepts) and stopped by PID with its kernels (`close()`).
    `target` is a raw wire client of it; `post()` sends any body with any headers.

    `command` serves another server instead, one whose command line takes `mcp_variants.sdk.cli`'s
    `--http --host H --port P` (an example on the public server API); `root` is then its working folder.
    `fresh` starts it by an exec (`python_command`): a test that reads its process by PID needs that.
    """

    def __init__(self, root: Path, *extra: str, log: Path, host: str | None = None, script: Path | None = None,
                 env: Mapping[str, str] | None = None, command: Sequence[str] | None = None, fresh: bool = False) -> None:
        port = free_port()
        bind = ["--host", host] if host else []
        flags = ["--http", *bind, "--port", str(port), *extra]
        argv = [*command, *flags] if command else serve_command(root, *flags, script=script, fresh=fresh)
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
