"""Sandboxes: isolated Jupyter servers this process launches on 127.0.0.1 and reaches as remote ones.

Each has its own folder (a `root/` it serves, its config, runtime files and log), its own
random token (read from a file: not in the command line, not in the environment its kernels
inherit) and a free port. Its kernel websocket sets TCP_NODELAY: kernel messages are small
writes, and Nagle's algorithm holds each one back until the previous is acknowledged
(`1+1` costs ~48 ms against a stock server, ~6 ms with it).
"""

from __future__ import annotations

import itertools
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import anyio
import anyio.to_thread
import psutil

from ..protocol.errors import ErrorKind, ToolError
from .hub import Hub
from .remote import server_backend
from .remote.server_client import JupyterServerClient

logger = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0
_ids = itertools.count(1)

# The sandbox server's configuration, written into its folder.
CONFIG = '''\
# Written by mcp-variants for one sandbox server.
import atexit, os, shutil, signal, threading, time

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection


class NoDelayConnection(ZMQChannelsWebsocketConnection):
    """Kernel messages are small writes: without TCP_NODELAY, Nagle holds each back ~40 ms."""

    def connect(self):
        self.websocket_handler.set_nodelay(True)
        return super().connect()


c.ServerApp.kernel_websocket_connection_class = NoDelayConnection


def _exit_with_parent(parent=int(os.environ["MCP_VARIANTS_PARENT_PID"])):
    # If mcp-variants is killed outright (no chance to stop us), stop too, and take our folder along.
    while os.getppid() == parent:
        time.sleep(1)
    atexit.register(shutil.rmtree, os.environ["MCP_VARIANTS_SANDBOX_FOLDER"], True)
    os.kill(os.getpid(), signal.SIGTERM)


threading.Thread(target=_exit_with_parent, daemon=True).start()
'''


@dataclass
class Sandbox:
    id: str
    url: str
    folder: Path  # everything of this sandbox; removed on terminate
    root: Path  # what its server serves, and its kernels' working folder
    process: subprocess.Popen[bytes]
    started: str
    log: IO[bytes] = field(repr=False)
    terminated: bool = False

    @property
    def key(self) -> str:
        return f"sandbox:{self.id}"

    @property
    def state(self) -> str:
        if self.terminated:
            return "terminated"
        return "running" if self.process.poll() is None else "exited"

    def record(self) -> dict[str, Any]:
        """What tools show: never the token."""
        return {"id": self.id, "url": self.url, "root": str(self.root), "pid": self.process.pid,
                "started": self.started, "state": self.state}

    async def aclose(self) -> None:
        """SIGTERM (the server shuts its kernels down), SIGKILL after a grace period; then any
        kernel it left behind, by PID; then the folder."""
        if self.terminated:
            return
        self.terminated = True
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._stop)
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _stop(self) -> None:
        try:
            kernels = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.Error:
            kernels = []
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # psutil checks each process's start time, so a reused PID is never signalled.
        _, alive = psutil.wait_procs(kernels, timeout=2)
        for kernel in alive:
            try:
                kernel.kill()
            except psutil.Error:
                pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spawn(folder: Path, root: Path, port: int, log: IO[bytes]) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_TOKEN", "MCP_VARIANTS_TOKEN")}
    env.update(
        JUPYTER_TOKEN_FILE=str(folder / "token"),  # the server reads it; kernels inherit only the path
        JUPYTER_CONFIG_DIR=str(folder / "config"),  # no user or site config leaks in
        JUPYTER_RUNTIME_DIR=str(folder / "runtime"),
        MCP_VARIANTS_PARENT_PID=str(os.getpid()),
        MCP_VARIANTS_SANDBOX_FOLDER=str(folder),
    )
    command = [
        sys.executable, "-m", "jupyter_server",
        f"--config={folder / 'jupyter_server_config.py'}",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}", "--ServerApp.open_browser=False", "--ServerApp.terminals_enabled=False",
    ]
    if os.geteuid() == 0:
        command.append("--ServerApp.allow_root=True")  # jupyter-server refuses root otherwise
    # Its own session: a Ctrl-C meant for us does not reach it; we stop it in order.
    return subprocess.Popen(command, cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                            start_new_session=True)


async def _wait_ready(server: JupyterServerClient, process: subprocess.Popen[bytes]) -> bool:
    """True once /api/status answers; False when the process exited first (a port taken, say)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            await server.status()
            return True
        except ToolError:
            await anyio.sleep(0.05)
    return False


def _log_tail(folder: Path, token: str) -> str:
    try:
        text = (folder / "server.log").read_text(errors="replace")
    except OSError:
        return ""
    return text[-1500:].replace(token, "***")


async def launch_sandbox(hub: Hub, *, hard_cap_bytes: int) -> Sandbox:
    """Start a sandbox server, wait until it answers, and register its backend as sandbox:<id>."""
    sandbox_id = f"s-{next(_ids)}"
    folder = Path(tempfile.mkdtemp(prefix=f"mcp-variants-sandbox-{sandbox_id}-"))
    root = folder / "root"
    root.mkdir()
    (folder / "jupyter_server_config.py").write_text(CONFIG)
    token = secrets.token_urlsafe(32)
    token_file = folder / "token"
    token_file.touch(mode=0o600)
    token_file.write_text(token)  # no newline: the server reads the file as it is
    log = open(folder / "server.log", "wb")  # noqa: SIM115, ASYNC230 - lives as long as the sandbox
    process: subprocess.Popen[bytes] | None = None
    server: JupyterServerClient | None = None
    try:
        for _ in range(3):  # a free port can be taken between our probe and the server's bind
            port = _free_port()
            url = f"http://127.0.0.1:{port}/"
            server = JupyterServerClient(url, token)
            process = _spawn(folder, root, port, log)
            if await _wait_ready(server, process):
                break
            await server.aclose()
            server = None
            if process.poll() is None:
                process.kill()
            process.wait()
        if server is None or process is None:
            raise ToolError(ErrorKind.INTERNAL, f"The sandbox server did not start. Its log ends with:\n{_log_tail(folder, token)}")
    except BaseException:
        with anyio.CancelScope(shield=True):
            if server is not None:
                await server.aclose()
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
        raise
    sandbox = Sandbox(sandbox_id, url, folder, root, process, datetime.now(UTC).isoformat(timespec="seconds"), log)
    hub.sandboxes[sandbox_id] = sandbox
    hub.backends[sandbox.key] = server_backend(sandbox.key, server, label=f"sandbox {sandbox_id}", hard_cap_bytes=hard_cap_bytes)
    return sandbox


def find_sandbox(hub: Hub, sandbox_id: str) -> Sandbox:
    sandbox = hub.sandboxes.get(sandbox_id)
    if sandbox is None:
        known = ", ".join(sorted(hub.sandboxes)) or "none are running"
        raise ToolError(ErrorKind.NOT_FOUND,
                        f"No sandbox {sandbox_id!r} ({known}); list_sandboxes shows the ids, launch_sandbox starts one.")
    return sandbox


async def terminate_sandbox(hub: Hub, sandbox_id: str) -> Sandbox:
    """Stop a sandbox: its kernels, its server, its folder; forget its backend and notebook kernels."""
    sandbox = find_sandbox(hub, sandbox_id)
    del hub.sandboxes[sandbox_id]
    backend = hub.backends.pop(sandbox.key, None)
    for key in [k for k in hub.notebook_kernels if k[0] == sandbox.key]:
        del hub.notebook_kernels[key]
    if backend is not None:
        with anyio.move_on_after(5, shield=True):  # the server's own shutdown stops kernels anyway
            await backend.kernels.aclose()
    await sandbox.aclose()
    return sandbox
