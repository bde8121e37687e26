"""Kernels on a Jupyter server: a notebook runs in the kernel of its session there, as in JupyterLab,
so the people who have it open and the agent share variables, the execution count goes on from
theirs, and every worker in front of the server finds the same kernel (the session is the
server's record of it, not a worker's memory).

A notebook with a session (`GET /api/sessions`, matched by path) runs in that session's kernel;
one without gets a session the way JupyterLab creates one (`POST /api/sessions`), so whoever
opens the notebook later joins the same kernel. That holds with or without real-time
collaboration. Such a kernel is shared (RunningKernel.shared): this process attaches to it (a
websocket of its own) and never shuts it down or interrupts someone else's run in it; it lets go
of it when done, and ends a session it created only when nobody else is connected to its kernel.
Code that is not a notebook's (execute_code) runs in a kernel of this process's own, as on any server.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import PurePosixPath
from typing import Any

import anyio

from ...protocol.errors import ErrorKind, ToolError
from ..paths import clean_relative
from ..remote.kernels import RemoteKernels
from ..remote.server_client import JupyterServerClient, reason
from ..remote.websocket import WebSocketChannels, open_channels
from ..run_loop import RunningKernel
from ..runtime import KernelspecChoice

logger = logging.getLogger(__name__)

DRIVE = "RTC:"  # JupyterLab's collaborative drive prefix, on some versions part of a session's path


class SessionKernels(RemoteKernels):
    def __init__(self, server: JupyterServerClient, *, kernel_name: str = "python3", hard_cap_bytes: int = 4_000_000) -> None:
        super().__init__(server, kernel_name=kernel_name, hard_cap_bytes=hard_cap_bytes)
        self._created: dict[str, str] = {}  # kernel id → id of the session this process created for it

    async def notebook_kernel(self, path: str, known: str | None, kernelspec: KernelspecChoice) -> tuple[str, bool]:
        path = clean_relative(path).as_posix()
        session = await self._session(path)
        if session is None and known is not None and known in self._kernels and await self._exists(known):
            # No session, but a kernel this process keeps for the notebook (use_notebook's kernel_id): recorded as
            # its session, so other workers and a JupyterLab find that one.
            session = await self._start_session(path, {"id": known})
        if session is None:
            session = await self._start_session(path, {"name": await kernelspec() or self.kernel_name})
        kernel_id = str(session["kernel"]["id"])
        if kernel_id not in self._kernels:
            channels = await open_channels(self.server, kernel_id)
            self._track(RunningKernel(kernel_id, channels, shared=True))
        if known is not None and known != kernel_id and self.is_shared(known):
            await self.shutdown_kernel(known)  # the session moved to another kernel: let go of the old one
        return kernel_id, known is not None and known != kernel_id

    async def _session(self, path: str) -> dict[str, Any] | None:
        response = await self.server.request("GET", "api/sessions")
        if response.status_code != 200:
            raise ToolError(ErrorKind.INTERNAL, f"{self.server.subject} did not list its sessions: {reason(response)}")
        for session in response.json():
            where = str(session.get("path") or (session.get("notebook") or {}).get("path") or "").removeprefix(DRIVE)
            if where == path and session.get("kernel"):
                return dict(session)
        return None

    async def _start_session(self, path: str, kernel: dict[str, str]) -> dict[str, Any]:
        """A session for the notebook with `kernel`: {"name": kernelspec} starts one, {"id": …} takes a running one."""
        body = {"path": path, "name": PurePosixPath(path).name, "type": "notebook", "kernel": kernel}
        response = await self.server.request("POST", "api/sessions", json=body)
        if response.status_code not in (200, 201):
            raise ToolError(ErrorKind.INTERNAL, f"{self.server.subject} could not start a session for "
                                                f"{path!r}: {reason(response)}")
        session = dict(response.json())
        running = self._kernels.get(str(session["kernel"]["id"]))
        if running is None or not running.shared:  # ending it ends its kernel: never for one we only attached to
            self._created[str(session["kernel"]["id"])] = str(session["id"])
        return session

    async def aclose(self) -> None:
        """Let go of the shared kernels, ending the sessions this process created that nobody else
        joined; then what RemoteKernels.aclose does for our own."""
        async def leave(kernel: RunningKernel[WebSocketChannels]) -> None:
            with anyio.move_on_after(10, shield=True):
                session = self._created.get(kernel.kernel_id)
                with contextlib.suppress(ToolError):  # the server is gone: so is the session
                    if session is not None and await self._alone_in(kernel.kernel_id):
                        await self.server.request("DELETE", f"api/sessions/{session}")
                await kernel.channels.close()

        async with anyio.create_task_group() as tg:
            for kernel in [k for k in self._kernels.values() if k.shared]:
                self._kernels.pop(kernel.kernel_id, None)
                tg.start_soon(leave, kernel)
        await super().aclose()

    async def _alone_in(self, kernel_id: str) -> bool:
        """Whether this process's websocket is the kernel's only connection."""
        response = await self.server.request("GET", f"api/kernels/{kernel_id}")
        return response.status_code == 200 and int(response.json().get("connections", 0)) <= 1
