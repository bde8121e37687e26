"""Sandboxes: isolated Jupyter servers this process launches on 127.0.0.1 and reaches as remote ones.

Each has its own folder (a `root/` it serves, its config, runtime files and log), its own
random token (read from a file: not in the command line, not in the environment its kernels
inherit) and a free port. Its kernel websocket sets TCP_NODELAY: kernel messages are small
writes, and Nagle's algorithm holds each one back until the previous is acknowledged (a delayed
acknowledgement: most of a short run's time against a stock server).

Where jupyter-collaboration is installed (the `lab` extra), a sandbox is a JupyterLab with
real-time collaboration: its notebooks are live (shared documents, session kernels) and a
person can open them in its JupyterLab while the agent works. Without it, a plain jupyter-server.
"""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import anyio
import anyio.to_thread

from ..processes import ProcessStartError
from ..protocol.errors import ErrorKind, ToolError
from .refusals import Recourse, RuntimeRefusal
from .registry import RuntimeRegistry
from .remote.server_client import JupyterServerClient
from .sandbox_server import Sandbox
from .server_backend import http_server_backend
from .server_launcher import COLLABORATION_EXTENSIONS, JupyterServerProcess, installed

logger = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0
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


async def launch_sandbox(registry: RuntimeRegistry, *, hard_cap_bytes: int) -> Sandbox:
    """Start a sandbox server, wait until it answers, and register its backend as sandbox:<id>."""
    sandbox_id = f"s-{next(_ids)}"
    folder = Path(tempfile.mkdtemp(prefix=f"mcp-variants-sandbox-{sandbox_id}-"))
    collaborative = installed(*COLLABORATION_EXTENSIONS)
    server = JupyterServerProcess(folder, config=CONFIG,
                                  app="jupyterlab" if collaborative and installed("jupyterlab") else "jupyter_server",
                                  extensions=COLLABORATION_EXTENSIONS if collaborative else (),
                                  env={"MCP_VARIANTS_PARENT_PID": str(os.getpid()), "MCP_VARIANTS_SANDBOX_FOLDER": str(folder)})
    try:
        # start() stops the server itself when it does not come up (and retries on a taken port).
        await anyio.to_thread.run_sync(server.start, START_TIMEOUT_S)
    except ProcessStartError:
        shutil.rmtree(folder, ignore_errors=True)
        raise ToolError(ErrorKind.INTERNAL, f"The sandbox server did not start. Its log ends with:\n{server.output()[-1500:]}") from None
    except BaseException:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(server.stop)
        shutil.rmtree(folder, ignore_errors=True)
        raise
    sandbox = Sandbox(sandbox_id, server, datetime.now(UTC).isoformat(timespec="seconds"))
    client = JupyterServerClient(server.url, server.token)
    registry.add_sandbox(sandbox, http_server_backend(sandbox.key, client, label=f"sandbox {sandbox_id}", hard_cap_bytes=hard_cap_bytes))
    return sandbox


def find_sandbox(registry: RuntimeRegistry, sandbox_id: str) -> Sandbox:
    sandbox = registry.sandboxes.get(sandbox_id)
    if sandbox is None:
        known = ", ".join(sorted(registry.sandboxes)) or "none are running"
        raise RuntimeRefusal(ErrorKind.NOT_FOUND, f"No sandbox {sandbox_id!r} ({known}).", recourse=Recourse.SANDBOXES)
    return sandbox


async def terminate_sandbox(registry: RuntimeRegistry, sandbox_id: str) -> Sandbox:
    """Stop a sandbox: its kernels, its server, its folder; forget its backend and notebook kernels."""
    find_sandbox(registry, sandbox_id)
    sandbox, backend = registry.remove_sandbox(sandbox_id)
    if backend is not None:
        with anyio.move_on_after(5, shield=True):  # the server's own shutdown stops kernels anyway
            await backend.contents.aclose()
            await backend.kernels.aclose()
    await sandbox.aclose()
    return sandbox
