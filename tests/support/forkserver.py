"""A Python that has imported the MCP SDK and our server once, and forks a server process per request.

`import mcp` is most of the CPU a `serve` process takes to start (docs/sdk-change.md, section 11), and the suite
starts hundreds of them (docs/testing.md, "The fork server", has the measurement). Each pytest worker starts one of these at its first
server (servers.py, `python_command`), and its tests start servers through `forkserver_client.py`, a stdlib-only
stand-in that passes its argv, environment, working folder and stdin/stdout/stderr here; the fork runs the module
or script exactly as `python -m MODULE` / `python SCRIPT` would (runpy), with those descriptors, and its exit
status goes back to the stand-in, which exits with it. Signals sent to the stand-in are passed on; if the stand-in
is killed, the fork kills itself (its life pipe closes). What differs from an exec: the server is not a child of
the PID the test holds (tests that look at a server's children or kill its process group start it `fresh`), and it
inherits this process's modules (each module imported alone is tests/unit/test_imports.py's).

Run as a script with the socket path as its argument; it ends when its stdin closes.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import runpy
import selectors
import signal
import socket
import sys
import threading
from dataclasses import dataclass
from typing import Any

from forkserver_client import DESCRIPTORS, HEADER  # this folder is sys.path[0]: the script's own

# What `serve` imports at start and on its first tool call; each fork starts with them imported.
PRELOAD = ("mcp", "mcp_variants.server.cli", "mcp_variants.server.app", "mcp_variants.sdk._stdio", "mcp_variants.sdk._http",
           "mcp_variants.jupyter.embedded", "jupyter_client")


def _startup_environment(env: dict[str, str]) -> dict[str, str]:
    """What Python reads of the environment as it starts: a request that differs is run by an exec instead."""
    return {key: value for key, value in env.items() if key.startswith("PYTHON") or key.startswith("LD_")}


@dataclass
class Request:
    argv: list[str]  # after the interpreter: ["-m", MODULE, ...] or [SCRIPT, ...]
    cwd: str
    env: dict[str, str]
    fds: list[int]

    def become(self) -> None:
        """In the fork: take the stand-in's descriptors, folder, environment and argv, then run its program."""
        stdin, stdout, stderr, life = self.fds
        for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
            os.dup2(fd, target)
        for fd in (stdin, stdout, stderr):
            if fd > 2:
                os.close(fd)
        os.set_inheritable(life, False)
        threading.Thread(target=_die_with, args=(life,), name="forkserver-life", daemon=True).start()
        os.setsid()
        os.chdir(self.cwd)
        os.environ.clear()
        os.environ.update(self.env)
        _reopen_stdio()
        if self.argv[0] == "-m":
            sys.argv = [self.argv[1], *self.argv[2:]]
            sys.path[0] = os.getcwd()
            runpy.run_module(self.argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(self.argv)
            sys.path[0] = os.path.dirname(os.path.abspath(self.argv[0]))
            runpy.run_path(self.argv[0], run_name="__main__")


def _die_with(life: int) -> None:
    """The stand-in holds the pipe's other end: when it is gone (SIGKILL included), so is this process."""
    while os.read(life, 1):
        pass
    os.kill(os.getpid(), signal.SIGKILL)


def _reopen_stdio() -> None:
    """sys.stdin/stdout/stderr as Python makes them for the descriptors now at 0, 1 and 2 (sys.__stdout__ and
    the others stay: they write to the same descriptors)."""
    def stream(old: Any, fd: int, mode: str, line_buffering: bool) -> io.TextIOWrapper:
        binary: Any = open(fd, mode + "b", closefd=False)  # noqa: SIM115 (it lives as long as the process)
        return io.TextIOWrapper(binary, encoding=old.encoding, errors=old.errors, line_buffering=line_buffering,
                                write_through=fd == 2)

    sys.stdin = stream(sys.stdin, 0, "r", False)
    sys.stdout = stream(sys.stdout, 1, "w", os.isatty(1))
    sys.stderr = stream(sys.stderr, 2, "w", True)


def _send(connection: socket.socket, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # the stand-in is gone; its fork follows through its life pipe
        connection.sendall(json.dumps(message).encode() + b"\n")


class ForkServer:
    def __init__(self, path: str) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(64)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(sys.stdin, selectors.EVENT_READ, "stdin")
        self.forks: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, its stand-in's connection)
        self.startup = _startup_environment(dict(os.environ))

    def serve(self) -> Request | None:
        """Fork per request until stdin closes (None); in a fork, return its request."""
        while True:
            for key, _ in self.selector.select():
                if key.data == "stdin":
                    if not os.read(0, 4096):
                        return None
                elif key.data == "accept":
                    connection, _ = self.listener.accept()
                    request = self._fork(connection)
                    if request is not None:
                        return request
                else:
                    self._reap(key.fd)

    def _fork(self, connection: socket.socket) -> Request | None:
        try:
            request = self._receive(connection)
        except (OSError, ValueError) as error:
            _send(connection, {"exec": f"unreadable request: {error}"})
            connection.close()
            return None
        if _startup_environment(request.env) != self.startup:
            _send(connection, {"exec": "its PYTHON*/LD_* environment differs from the fork server's"})
            self._close(request.fds)
            connection.close()
            return None
        pid = os.fork()
        if pid == 0:
            self._leave()
            connection.close()
            return request
        self._close(request.fds)
        pidfd = os.pidfd_open(pid)
        self.forks[pidfd] = (pid, connection)
        self.selector.register(pidfd, selectors.EVENT_READ, "fork")
        _send(connection, {"pid": pid})
        return None

    @staticmethod
    def _receive(connection: socket.socket) -> Request:
        connection.settimeout(10)
        head, fds, _, _ = socket.recv_fds(connection, HEADER.size, DESCRIPTORS)
        if len(head) != HEADER.size or len(fds) != DESCRIPTORS:
            ForkServer._close(fds)
            raise ValueError("expected a length and four descriptors")
        (length,) = HEADER.unpack(head)
        body = b""
        while len(body) < length:
            chunk = connection.recv(length - len(body))
            if not chunk:
                ForkServer._close(fds)
                raise ValueError("the request ended early")
            body += chunk
        connection.settimeout(None)
        fields = json.loads(body)
        return Request(fields["argv"], fields["cwd"], fields["env"], fds)

    def _reap(self, pidfd: int) -> None:
        pid, connection = self.forks.pop(pidfd)
        self.selector.unregister(pidfd)
        os.close(pidfd)
        _, status = os.waitpid(pid, 0)
        _send(connection, {"status": status})
        connection.close()

    def _leave(self) -> None:
        """In a fork: let go of everything the fork server holds."""
        self.selector.close()
        self.listener.close()
        for pidfd, (_, connection) in self.forks.items():
            os.close(pidfd)
            connection.close()

    @staticmethod
    def _close(fds: list[int]) -> None:
        for fd in fds:
            os.close(fd)


def main() -> None:
    for module in PRELOAD:
        __import__(module)
    if threading.active_count() != 1:
        sys.exit(f"forkserver: a preloaded module started a thread ({threading.enumerate()}); forking it is unsafe")
    server = ForkServer(sys.argv[1])
    gc.freeze()  # what was imported stays in its pages: forks copy less
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    request = server.serve()
    if request is None:  # the worker is gone: so is the socket's folder (servers.py made it for this)
        os.unlink(sys.argv[1])
        os.rmdir(os.path.dirname(sys.argv[1]))
    else:
        request.become()


if __name__ == "__main__":
    main()
