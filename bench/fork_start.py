"""What the test suite's fork server buys a server's start: bench/tricks.py's `fork` rows (issue 45).

`python -m mcp_variants serve --root <tmp> --embedded`, from spawn to its first `tools/list` answer (bench.startup's
`first_answer`), started two ways in a shuffled order each round:

  fork   as the suite starts it (tests/support/servers.py `python_command`): `python -I -S forkserver_client.py
         SOCKET -m mcp_variants serve ...`, a stand-in whose fork server (tests/support/forkserver.py, started here
         as servers.py starts it, once) has imported the SDK and our server and forks
  exec   `python -m mcp_variants serve ...`, a fresh interpreter, as a person's command line starts it

CPU per start: the exec's, and for the fork the stand-in's plus the fork's (the fork server reaps it before
the stand-in exits, so the fork's CPU is in the fork server's children's time, /proc).
"""

from __future__ import annotations

import contextlib
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .record import REPO
from .roundtrip import waited_children_cpu_seconds
from .startup import first_answer

SUPPORT = REPO / "tests" / "support"


@contextlib.contextmanager
def fork_server() -> Iterator[tuple[str, int]]:
    """The suite's fork server, started as servers.py's `_ForkServer` starts it: (its socket, its PID). It ends when
    its stdin closes."""
    with tempfile.TemporaryDirectory(prefix="forkserver-") as folder:
        socket = os.path.join(folder, "socket")
        process = subprocess.Popen([sys.executable, str(SUPPORT / "forkserver.py"), socket], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE)
        assert process.stdin is not None and process.stdout is not None
        try:
            if process.stdout.readline() != b"ready\n":
                raise RuntimeError(f"the fork server did not start (exit code {process.wait()})")
            yield socket, process.pid
        finally:
            process.stdin.close()
            process.wait(timeout=30)
            process.stdout.close()


def _own_children_cpu_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def start(command: list[str], root: Path, fork_server_pid: int | None = None) -> tuple[float, float]:
    """One start of `command` to its first answer, then its end: (wall ms to the answer, CPU ms of the start and
    that answer and the exit, the fork's included)."""
    def spent() -> float:
        return _own_children_cpu_seconds() + (waited_children_cpu_seconds(fork_server_pid) if fork_server_pid else 0.0)

    before = spent()
    elapsed, _ = first_answer(command, root)
    return elapsed * 1000, (spent() - before) * 1000


def commands(root: Path, socket: str) -> dict[str, list[str]]:
    serve = ["-m", "mcp_variants", "serve", "--root", str(root), "--embedded"]
    return {"fork": [sys.executable, "-I", "-S", str(SUPPORT / "forkserver_client.py"), socket, *serve],
            "exec": [sys.executable, *serve]}
