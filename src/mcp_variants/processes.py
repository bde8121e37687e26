"""The processes this project starts on this machine, from start to stop.

- `free_port()`: a free TCP port on 127.0.0.1.
- `stop_process(process)`: a child we started, stopped by its PID and reaped, and everything it started.
- `OutputTail`: drains a child's pipe in a thread (a chatty child never blocks on a full pipe), keeping the end.
- `PipedProcess`: a child spoken to over its stdin and stdout (a stdio MCP server).
- `ServerProcess`: a child that serves on a TCP port (the HTTP server, a `--server-cmd`), ready once the port accepts.

The Jupyter server launcher built on them is the application's (jupyter/server_launcher.py); this
harness is the conformance suite's and the reference client's too, which have no Jupyter.

Processes are stopped by PID only, never by name. psutil checks each process's start time
before it signals one, so a PID the system has given to another process since is never hit.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import shlex
import signal
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Self

import httpx
import psutil

LOOPBACK = "127.0.0.1"
TAIL_BYTES = 64 * 1024
CHILD_GRACE_S = 2.0  # a stopped server's own children (kernels) get this long to end before SIGKILL
KILL_WAIT_S = 5.0
POLL_S = 0.05
FREE_PORT_LOW = 20000  # free_port takes ports from here up to the ephemeral range: above the ports common services use
PORT_TRIES = 64


class ProcessStartError(RuntimeError):
    """A child did not come to serve: it exited first, or did not get ready in time. The message ends with its output."""


class ProcessExited(ProcessStartError):
    """The child exited before it served (for a server on a port we chose: most likely, the port was taken)."""


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context, made once: a request without one makes its own, loading the CA bundle (CPU
    each time), and a Jupyter server's readiness is polled every POLL_S (jupyter/server_launcher.py, the tests' gateway)."""
    return httpx.create_ssl_context()


@functools.cache
def _ephemeral_low(path: Path = Path("/proc/sys/net/ipv4/ip_local_port_range")) -> int:
    """The lowest port the system gives to `bind(0)` and to outgoing connections (Linux's default when unreadable)."""
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _bound(host: str, port: int) -> int | None:
    """The port a socket bound to `port` got (0: the system's choice), None when it is taken."""
    with socket.socket() as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return None
        return int(sock.getsockname()[1])


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port nothing listens on now, taken at random below the system's ephemeral range: every kernel's
    five ZMQ ports and every outgoing connection come from that range, so a port it gave us could be theirs
    before our server binds it (seen once in a parallel test run). Another process may still take it before
    ours binds: launchers retry."""
    high = min(_ephemeral_low(), 65536) - 1
    for _ in range(PORT_TRIES if high > FREE_PORT_LOW else 0):
        if (port := _bound(host, random.randint(FREE_PORT_LOW, high))) is not None:
            return port
    port = _bound(host, 0)  # none free below the range: the system's choice
    if port is None:
        raise OSError(f"no free TCP port on {host}")
    return port


def accepts(port: int, host: str = LOOPBACK, timeout: float = 0.2) -> bool:
    """Something accepts TCP connections on host:port."""
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError:
        return False
    return True


def _descendants(process: subprocess.Popen[bytes]) -> list[psutil.Process]:
    if process.returncode is not None:  # reaped: its PID may be another process's now
        return []
    try:
        return list(psutil.Process(process.pid).children(recursive=True))
    except psutil.Error:
        return []


def reap(processes: Iterable[psutil.Process], timeout: float = CHILD_GRACE_S) -> None:
    """Give `processes` `timeout` seconds to end, then SIGKILL the ones left (psutil skips a reused PID)."""
    _, alive = psutil.wait_procs(list(processes), timeout=timeout)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(alive, timeout=KILL_WAIT_S)


def _wait(process: subprocess.Popen[bytes], timeout: float) -> None:
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout)


def stop_process(process: subprocess.Popen[bytes], *, grace: float = 10.0) -> int | None:
    """Stop a child we started, by its PID, and reap it; then everything it had started.

    EOF first when we hold its stdin (a stdio server shuts down on it), SIGTERM after `grace`
    seconds, SIGKILL after `grace` more. A signal never lands while the child is still within
    its grace: a SIGTERM during a stdio server's own shutdown would end it before its kernels.
    Its descendants, as they were before the first step, get CHILD_GRACE_S to end (a server
    stops its kernels itself), then SIGKILL. Returns the exit code, None if it would not end.
    """
    descendants = _descendants(process)
    if process.stdin is not None and not process.stdin.closed:
        with contextlib.suppress(OSError, ValueError):
            process.stdin.close()
        _wait(process, grace)
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, KILL_WAIT_S)):
        if process.poll() is not None:
            break
        process.send_signal(sig)  # Popen's own: a no-op once the child is reaped
        _wait(process, wait)
    reap(descendants)
    return process.returncode


class OutputTail:
    """A child's pipe read to its end in a daemon thread, keeping the last `keep` bytes (all of them when None)."""

    def __init__(self, stream: IO[bytes], keep: int | None = TAIL_BYTES) -> None:
        self._keep = keep
        self._data = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        read = getattr(stream, "read1", stream.read)
        with contextlib.suppress(OSError, ValueError):
            for chunk in iter(lambda: read(65536), b""):
                with self._lock:
                    self._data += chunk
                    if self._keep is not None and len(self._data) > self._keep:
                        del self._data[: len(self._data) - self._keep]
        with contextlib.suppress(OSError):
            stream.close()

    def bytes(self) -> bytes:
        with self._lock:
            return bytes(self._data)

    def text(self) -> str:
        return self.bytes().decode(errors="replace")

    def join(self, timeout: float = 5.0) -> None:
        """Wait until the pipe is closed (the child and anything that inherited the pipe ended)."""
        self._thread.join(timeout)


class PipedProcess:
    """A child spoken to over its stdin and stdout, such as a stdio MCP server; its stderr is kept in `stderr`.

    The caller reads `stdout`; `write` sends bytes (from any thread) and flushes them.
    """

    def __init__(self, argv: Sequence[str], *, cwd: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None,
                 stderr_keep: int | None = TAIL_BYTES) -> None:
        self.argv = list(argv)
        self.process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        cwd=cwd, env=dict(env) if env is not None else None)
        assert self.process.stdin is not None and self.process.stdout is not None and self.process.stderr is not None
        self.stdin: IO[bytes] = self.process.stdin
        self.stdout: IO[bytes] = self.process.stdout
        self.stderr = OutputTail(self.process.stderr, stderr_keep)
        self._write_lock = threading.Lock()

    @property
    def pid(self) -> int:
        return self.process.pid

    def write(self, data: bytes) -> None:
        """Write and flush `data`; OSError (BrokenPipeError) or ValueError once the child is gone or stdin closed."""
        with self._write_lock:
            self.stdin.write(data)
            self.stdin.flush()

    def stop(self, grace: float = 10.0) -> int | None:
        """EOF, then SIGTERM, then SIGKILL (stop_process); returns the exit code."""
        code = stop_process(self.process, grace=grace)
        self.stderr.join()
        return code


class ServerProcess:
    """A child that serves on a TCP port: spawned, ready once the port accepts, stopped by PID with all it started.

    Its stdout and stderr go to `log` (a file, kept after it ends) or else into a tail in
    memory; `output()` reads either. `start()` is `spawn()` then `wait_ready()`: a caller with
    other work can spawn first and wait later. Subclasses change `ready()`.
    """

    def __init__(self, argv: Sequence[str], port: int, *, host: str = LOOPBACK, cwd: str | os.PathLike[str] | None = None,
                 env: Mapping[str, str] | None = None, log: Path | None = None, new_session: bool = False) -> None:
        self.argv = list(argv)
        self.port = port
        self.host = host
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.log = log
        self.new_session = new_session  # its own session: a Ctrl-C meant for us does not reach it; we stop it in order
        self.process: subprocess.Popen[bytes] | None = None
        self._log_file: IO[bytes] | None = None
        self._tail: OutputTail | None = None
        self._spawned = 0

    @property
    def pid(self) -> int:
        assert self.process is not None, "not spawned"
        return self.process.pid

    def describe(self) -> str:
        command = shlex.join(self.argv)
        return command if len(command) <= 160 else command[:157] + "..."

    def spawn(self) -> Self:
        """Start the command (OSError when it cannot be executed); returns at once."""
        if self.log is not None:
            if self._log_file is None or self._log_file.closed:
                self._log_file = open(self.log, "ab" if self._spawned else "wb")  # noqa: SIM115 - closed in stop()
            sink: Any = self._log_file
        else:
            sink = subprocess.PIPE
        self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT, cwd=self.cwd,
                                        env=self.env, start_new_session=self.new_session)
        self._spawned += 1
        if self.process.stdout is not None:
            self._tail = OutputTail(self.process.stdout)
        return self

    def ready(self) -> bool:
        return accepts(self.port, self.host)

    def wait_ready(self, timeout: float = 30.0) -> Self:
        """Until `ready()`; ProcessExited when the child exits first, ProcessStartError after `timeout` (the child stopped)."""
        assert self.process is not None, "spawn() first"
        deadline = time.monotonic() + timeout
        try:
            while True:
                if self.process.poll() is not None:
                    raise ProcessExited(f"{self.describe()} exited with code {self.process.returncode} before it served; "
                                        f"its output ends with:\n{self.output()[-2000:]}")
                if self.ready():
                    return self
                if time.monotonic() > deadline:
                    raise ProcessStartError(f"{self.describe()} did not serve on {self.host}:{self.port} within {timeout:g} s; "
                                            f"its output ends with:\n{self.output()[-2000:]}")
                time.sleep(POLL_S)
        except BaseException:
            self.stop()
            raise

    def start(self, timeout: float = 30.0) -> Self:
        return self.spawn().wait_ready(timeout)

    def output(self) -> str:
        """What the child wrote to stdout and stderr: all of the log file, or the tail kept in memory."""
        if self.log is not None:
            if self._log_file is not None and not self._log_file.closed:
                self._log_file.flush()
            try:
                return self.log.read_bytes().decode(errors="replace")
            except OSError:
                return ""
        return self._tail.text() if self._tail is not None else ""

    def stop(self, grace: float = 10.0) -> int | None:
        """SIGTERM, SIGKILL after `grace` (stop_process); idempotent. Returns the exit code."""
        code = stop_process(self.process, grace=grace) if self.process is not None else None
        if self._tail is not None:
            self._tail.join()
        if self._log_file is not None:
            self._log_file.close()
        return code

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
