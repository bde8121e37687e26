"""Kernels on a Jupyter server: lifecycle over its REST API, messages over each kernel's websocket."""

from __future__ import annotations

import logging
from typing import Any

import anyio

from ...protocol.errors import ErrorKind, ToolError
from ..contents_models import timestamp
from ..errors import JupyterErrorKind
from ..kernel_pool import KernelPool
from ..refusals import Recourse, RuntimeRefusal, no_kernel
from ..run_loop import RunningKernel, utc_now
from ..runtime import KernelInfo, KernelSpecInfo, kernel_python
from .server_client import JupyterServerClient
from .websocket import WebSocketChannels, open_channels

logger = logging.getLogger(__name__)


class RemoteKernels(KernelPool[WebSocketChannels]):
    """Kernels on a Jupyter server; the ones this process started are shut down by aclose, the ones it
    attached to (RunningKernel.shared: a person's, a notebook session's) only let go of."""

    def __init__(self, server: JupyterServerClient, *, kernel_name: str = "python3", hard_cap_bytes: int = 4_000_000) -> None:
        super().__init__(kernel_name=kernel_name, hard_cap_bytes=hard_cap_bytes)
        self.server = server

    async def kernelspecs(self) -> list[KernelSpecInfo]:
        response = await self.server.request("GET", "api/kernelspecs")
        listing = response.json() if response.status_code == 200 else {}
        return [KernelSpecInfo(name, (s.get("spec") or {}).get("display_name", name), (s.get("spec") or {}).get("language", ""),
                               name == self.kernel_name, kernel_python(s.get("spec") or {}, ""))  # 'python': the server's own
                for name, s in sorted((listing.get("kernelspecs") or {}).items())]

    def _start_body(self, name: str) -> dict[str, Any]:
        """What POST api/kernels asks for: path "" starts the kernel in the server's root folder."""
        return {"name": name, "path": ""}

    async def start_kernel(self, kernel_name: str | None = None) -> str:
        name = kernel_name or self.kernel_name
        response = await self.server.request("POST", "api/kernels", json=self._start_body(name))
        if response.status_code not in (200, 201):
            kind = ErrorKind.NOT_FOUND if response.status_code in (400, 404) else ErrorKind.INTERNAL
            raise RuntimeRefusal(kind, f"{self.server.subject} could not start a {name} kernel ({response.status_code}).",
                                 recourse=Recourse.KERNELSPECS)
        kernel_id = response.json()["id"]
        try:
            channels = await open_channels(self.server, kernel_id)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self._delete(kernel_id)
            raise
        return self._track(RunningKernel(kernel_id, channels, name=name))

    async def attach(self, kernel_id: str) -> None:
        """A kernel of the server this runtime did not start (a person's, say): its channels, opened once."""
        if kernel_id in self._kernels:
            return
        response = await self.server.request("GET", f"api/kernels/{kernel_id}")
        if response.status_code != 200:
            raise no_kernel(kernel_id, f" on {self.server.name}")
        channels = await open_channels(self.server, kernel_id)
        self._track(RunningKernel(kernel_id, channels, name=str(response.json().get("name", "")), shared=True))

    async def is_running(self, kernel_id: str) -> bool:
        """Ours, and still on the server (a person, or the server's culler, may have shut it down)."""
        return kernel_id in self._kernels and await self._exists(kernel_id)

    async def list_kernels(self) -> list[KernelInfo]:
        """Every kernel on the server (a person's JupyterLab kernels too); ours carry our counts."""
        response = await self.server.request("GET", "api/kernels")
        infos = []
        for model in response.json() if response.status_code == 200 else []:
            ours = self._kernels.get(model["id"])
            infos.append(KernelInfo(
                kernel_id=model["id"],
                name=model.get("name", ""),
                state=model.get("execution_state", "unknown"),
                started=ours.started.isoformat(timespec="seconds") if ours else "",
                last_activity=timestamp(model.get("last_activity")),
                execution_count=ours.execution_count if ours else 0,
            ))
        return infos

    async def default_kernel(self) -> tuple[str, bool]:
        """As the pool's, but a default kernel whose websocket dropped and that the server no longer has
        (its server was stopped and started again: a JupyterHub user's, say) is replaced at once, and
        the run is told that state was lost."""
        kernel_id, replaced = await super().default_kernel()
        kernel = self._kernels.get(kernel_id)
        if kernel is None or kernel.channels.connected or await self._exists(kernel_id):
            return kernel_id, replaced
        self._untrack(kernel_id, died=True)
        await kernel.channels.close()
        return await super().default_kernel()

    async def _exists(self, kernel_id: str) -> bool:
        return (await self.server.request("GET", f"api/kernels/{kernel_id}")).status_code == 200

    async def _before_run(self, kernel: RunningKernel[WebSocketChannels]) -> None:
        if kernel.channels.connected:
            return
        # The websocket dropped since the last run: reopen it, unless the kernel went with it.
        if not await self._exists(kernel.kernel_id):
            self._untrack(kernel.kernel_id, died=True)
            await kernel.channels.close()
            raise ToolError(JupyterErrorKind.KERNEL_DIED, f"Kernel {kernel.kernel_id} is gone from {self.server.name} (stopped, culled, "
                                                   "or its server restarted); the next run without a kernel id starts a new one.")
        old, kernel.channels = kernel.channels, await open_channels(self.server, kernel.kernel_id)
        await old.close()

    async def restart_kernel(self, kernel_id: str) -> None:
        kernel = self._find(kernel_id)
        async with kernel.lock:
            response = await self.server.request("POST", f"api/kernels/{kernel_id}/restart")
            if response.status_code == 404:
                await self._forget(kernel)
                raise ToolError(JupyterErrorKind.KERNEL_DIED, f"Kernel {kernel_id} is gone from the server; the next run starts a new one.")
            # A fresh websocket: the old one's queues hold messages from before the restart.
            old, kernel.channels = kernel.channels, await open_channels(self.server, kernel_id)
            await old.close()
            kernel.execution_count = 0
            kernel.last_activity = utc_now()

    async def shutdown_kernel(self, kernel_id: str) -> None:
        """Ours are shut down; a shared one is only let go of (our websocket closed): others keep it."""
        kernel = self._untrack(kernel_id, died=False)
        if kernel is not None:
            await kernel.channels.close()
            if not kernel.shared:
                await self._delete(kernel_id)

    async def _delete(self, kernel_id: str) -> None:
        try:
            await self.server.request("DELETE", f"api/kernels/{kernel_id}")
        except ToolError:  # the server is gone: so is the kernel
            logger.debug("could not delete kernel %s", kernel_id)

    async def _forget(self, kernel: RunningKernel[WebSocketChannels]) -> None:
        """A kernel died: drop it, and shut down whatever the server restarted in its place (unless it is
        shared: the server restarts it for its session, not ours to stop)."""
        self._untrack(kernel.kernel_id, died=True)
        with anyio.CancelScope(shield=True):
            if not kernel.shared:
                await self._delete(kernel.kernel_id)
            await kernel.channels.close()

    async def aclose(self) -> None:
        """Shut down every kernel this runtime started and let go of the shared ones (concurrently), then the HTTP client."""
        async def close(kernel: RunningKernel[WebSocketChannels]) -> None:
            with anyio.move_on_after(10, shield=True):
                await kernel.channels.close()
                if not kernel.shared:
                    await self._delete(kernel.kernel_id)

        async with anyio.create_task_group() as tg:
            for kernel in list(self._kernels.values()):
                tg.start_soon(close, kernel)
        self._kernels.clear()
        await self.server.aclose()
