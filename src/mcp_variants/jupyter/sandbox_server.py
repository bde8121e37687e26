"""A sandbox as the runtime registry keeps it: one isolated Jupyter server we launched (sandboxes.py launches,
finds and terminates them), its folder, and how it stops. Light on imports, so that the registry names its type."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from .server_launcher import JupyterServerProcess

STOP_TIMEOUT_S = 10.0  # SIGTERM, then SIGKILL: a sandbox's server and the kernels it left


@dataclass
class Sandbox:
    id: str
    server: JupyterServerProcess  # its folder holds everything of this sandbox; removed on terminate
    started: str
    terminated: bool = False

    @property
    def key(self) -> str:
        return f"sandbox:{self.id}"

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def folder(self) -> Path:
        return self.server.folder

    @property
    def root(self) -> Path:
        """What its server serves, and its kernels' working folder."""
        return self.server.root

    @property
    def lab_url(self) -> str | None:
        """Where a person opens it in JupyterLab, live (None: no JupyterLab with collaboration there)."""
        return f"{self.url}lab" if self.server.app == "jupyterlab" and self.server.collaborative else None

    @property
    def state(self) -> str:
        if self.terminated:
            return "terminated"
        process = self.server.process
        return "running" if process is not None and process.poll() is None else "exited"

    def record(self) -> dict[str, Any]:
        """What tools show: never the token."""
        return {"id": self.id, "url": self.url, "root": str(self.root), "pid": self.server.pid,
                "started": self.started, "state": self.state}

    async def aclose(self) -> None:
        """SIGTERM (the server shuts its kernels down), SIGKILL after a grace period, any kernel it
        left behind by PID (processes.stop_process); then the folder."""
        if self.terminated:
            return
        self.terminated = True
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self.server.stop, STOP_TIMEOUT_S)
        shutil.rmtree(self.folder, ignore_errors=True)
