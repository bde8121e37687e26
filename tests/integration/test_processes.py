"""mcp_variants.processes on real processes: ports, readiness, stopping by PID with everything a child
started, and a jupyter-server (mcp_variants.jupyter.server_launcher) that keeps its token out of its command line
and its kernels' environment."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest

from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from mcp_variants.processes import (
    FREE_PORT_LOW,
    PipedProcess,
    ProcessExited,
    ProcessStartError,
    ServerProcess,
    accepts,
    free_port,
)
from support.processes import gone
from support.waiting import until

pytestmark = pytest.mark.timeout(120)

# A parent that starts a child which ignores SIGTERM, prints the child's PID, then serves on a port.
PARENT = """
import socket, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"])
print(child.pid, flush=True)
server = socket.socket(); server.bind(("127.0.0.1", int(sys.argv[1]))); server.listen()
while True:
    server.accept()[0].close()
"""

CONFIG = 'c.ServerApp.tornado_settings = {"headers": {"X-From-Config": "yes"}}\n'


def test_free_port_is_free_and_accepts_says_so() -> None:
    port = free_port()
    assert not accepts(port)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", port))
        listener.listen()
        assert accepts(port)


def test_free_ports_come_from_below_the_range_kernels_and_outgoing_connections_take_theirs_from() -> None:
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    ports = {free_port() for _ in range(50)}
    assert all(FREE_PORT_LOW <= port < low for port in ports), sorted(ports)
    assert len(ports) > 40  # at random: two launches side by side rarely draw the same one
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        assert taken.getsockname()[1] >= low  # what bind(0), as jupyter_client picks a kernel's ports, gives


def test_server_process_is_ready_when_its_port_accepts_and_stop_takes_its_children(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "parent.log"
    with ServerProcess([sys.executable, "-c", PARENT, str(port)], port, log=log).start(timeout=30) as server:
        assert accepts(port)
        child = psutil.Process(int(until(lambda: server.output().split(), "the parent wrote its child's PID", timeout=10)[0]))
        assert child.ppid() == server.pid
    assert server.process is not None and server.process.returncode is not None, "the parent was reaped"
    assert gone(child, 5), "a child that ignores SIGTERM is killed once its parent ended"
    assert not accepts(port)


def test_a_server_that_exits_first_says_so_with_its_output() -> None:
    server = ServerProcess([sys.executable, "-c", "print('cannot bind'); raise SystemExit(3)"], free_port())
    with pytest.raises(ProcessExited, match="exited with code 3") as failure:
        server.start(timeout=30)
    assert "cannot bind" in str(failure.value)


def test_a_server_that_never_serves_is_stopped_after_the_timeout() -> None:
    server = ServerProcess([sys.executable, "-c", "import time; time.sleep(600)"], free_port())
    began = time.monotonic()
    with pytest.raises(ProcessStartError, match="did not serve"):
        server.start(timeout=1)
    assert time.monotonic() - began < 15
    assert server.process is not None and server.process.returncode is not None


def test_piped_process_stops_on_eof_and_keeps_the_end_of_stderr() -> None:
    code = "import sys\nsys.stderr.write('x' * 100000 + 'END')\nsys.stdin.read()\nraise SystemExit(7)"
    child = PipedProcess([sys.executable, "-c", code], stderr_keep=1000)
    child.write(b"anything\n")
    began = time.monotonic()
    assert child.stop(grace=10) == 7, "EOF ended it (no signal)"
    assert time.monotonic() - began < 10
    tail = child.stderr.bytes()
    assert len(tail) == 1000 and tail.endswith(b"END")


def test_jupyter_server_process_keeps_its_token_to_itself(tmp_path: Path) -> None:
    folder = tmp_path / "jupyter"
    with JupyterServerProcess(folder, config=CONFIG).start() as jupyter:
        assert jupyter.url.startswith("http://127.0.0.1:")
        assert httpx.get(f"{jupyter.url}api/status", timeout=10).status_code in (401, 403), "the token is needed"
        status = httpx.get(f"{jupyter.url}api/status", headers=jupyter.auth_headers, timeout=10)
        assert status.headers.get("X-From-Config") == "yes", "the configuration text is the server's"
        assert (folder / "token").stat().st_mode & 0o077 == 0, "only we can read the token file"
        process = psutil.Process(jupyter.pid)
        assert jupyter.token not in " ".join(process.cmdline())
        assert jupyter.token not in "".join(process.environ().values())
        started = httpx.post(f"{jupyter.url}api/kernels", headers=jupyter.auth_headers, json={"name": "python3"}, timeout=30)
        assert started.status_code == 201, started.text
        kernel = next(child for child in process.children(recursive=True) if "ipykernel" in " ".join(child.cmdline()))
        assert jupyter.token not in "".join(kernel.environ().values()), "a kernel does not inherit the token"
        assert kernel.cwd() == str(folder / "root")
    assert gone(process, 5) and gone(kernel, 5), "stop() ends the server and its kernels"
    assert "Kernel started" in jupyter.output() and jupyter.token not in jupyter.output()
