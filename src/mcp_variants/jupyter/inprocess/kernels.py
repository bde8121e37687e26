"""The kernels of the Jupyter server this code runs inside: its kernel manager, its kernelspecs, its sessions.

A kernel is started (or found) through the server's own managers, and run through jupyter_client's async
client on the kernel's ZMQ sockets, as the embedded runtime runs its own: no HTTP request and no websocket
to ourselves. Each client we open is counted as a connection of the kernel (`notify_connect`), as a
JupyterLab tab's websocket is, so the server's culler and `connections` see it.

A notebook runs in its session's kernel (the server's session manager, matched by path), as in
JupyterLab: the person who has it open and the agent share variables. One without a session gets one,
so whoever opens the notebook later joins that kernel. Those kernels are shared (RunningKernel.shared):
never shut down nor interrupted mid-run by us; a session we created is ended at exit only when nobody
else is connected to its kernel. Code that is no notebook's (execute_code) runs in a kernel of our own.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from pathlib import PurePosixPath
from typing import Any

import anyio
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_core.utils import ensure_async

from ...protocol.errors import ToolError
from ..contents_models import timestamp
from ..embedded import ZmqChannels
from ..errors import JupyterErrorKind
from ..kernel_pool import KernelPool
from ..paths import clean_relative
from ..refusals import no_kernel, no_kernelspec
from ..run_loop import RunningKernel, utc_now
from ..runtime import KernelInfo, KernelspecChoice, KernelSpecInfo, kernel_python

logger = logging.getLogger(__name__)

READY_S = 60.0


class ServerChannels(ZmqChannels):
    """A server kernel's channels in process: closing them lets go of the kernel; the kernel manager stops it."""

    def __init__(self, kernels: Any, kernel_id: str, client: AsyncKernelClient) -> None:
        super().__init__(kernels.get_kernel(kernel_id), client)
        self.kernels = kernels
        self.kernel_id = kernel_id
        self._process = self._process_id()

    def _process_id(self) -> int | None:
        return getattr(self.manager.provisioner, "pid", None)

    async def alive(self) -> bool:
        """The process these channels were opened on still runs. The server's restarter replaces a dead kernel's
        process under the same id, often before a busy loop looks: alive again, but the run it had is lost."""
        return self._process_id() == self._process and await super().alive()

    async def close(self, *, shut_down: bool) -> None:
        self.client.stop_channels()
        self.kernels.notify_disconnect(self.kernel_id)
        if shut_down and self.kernel_id in self.kernels:
            with contextlib.suppress(Exception):  # gone meanwhile (culled, or shut down by a person)
                await ensure_async(self.kernels.shutdown_kernel(self.kernel_id, now=True))


class ServerKernels(KernelPool[ServerChannels]):
    """`serverapp`: the jupyter_server ServerApp this extension was loaded into."""

    def __init__(self, serverapp: Any, *, kernel_name: str, hard_cap_bytes: int) -> None:
        super().__init__(kernel_name=kernel_name, hard_cap_bytes=hard_cap_bytes)
        self.kernels = serverapp.kernel_manager
        self.specs = serverapp.kernel_spec_manager
        self.sessions = serverapp.session_manager
        self._created: dict[str, str] = {}  # kernel id → id of the session we created for it

    async def _open(self, kernel_id: str, *, name: str, shared: bool) -> str:
        manager = self.kernels.get_kernel(kernel_id)
        client = AsyncKernelClient(parent=manager, session=manager.session)
        client.load_connection_info(manager.get_connection_info())
        client.start_channels()
        self.kernels.notify_connect(kernel_id)
        channels = ServerChannels(self.kernels, kernel_id, client)
        try:
            await client.wait_for_ready(timeout=READY_S)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await channels.close(shut_down=not shared)
            raise
        return self._track(RunningKernel(kernel_id, channels, name=name, shared=shared))

    async def kernelspecs(self) -> list[KernelSpecInfo]:
        specs = await ensure_async(self.specs.get_all_specs())
        return [KernelSpecInfo(name, s["spec"].get("display_name", name), s["spec"].get("language", ""), name == self.kernel_name,
                               kernel_python(s["spec"], sys.executable))  # the Jupyter server's kernels: this process starts them
                for name, s in sorted(specs.items())]

    async def start_kernel(self, kernel_name: str | None = None) -> str:
        name = kernel_name or self.kernel_name
        if name not in await ensure_async(self.specs.get_all_specs()):
            raise no_kernelspec(name, "on this Jupyter server")
        kernel_id = str(await self.kernels.start_kernel(kernel_name=name, path=""))
        return await self._open(kernel_id, name=name, shared=False)

    async def attach(self, kernel_id: str) -> None:
        """A kernel of the server we did not start (a person's, a session's): opened once, shared."""
        if kernel_id in self._kernels:
            return
        if kernel_id not in self.kernels:
            raise no_kernel(kernel_id, " on this Jupyter server")
        await self._open(kernel_id, name=self.kernels.get_kernel(kernel_id).kernel_name, shared=True)

    async def is_running(self, kernel_id: str) -> bool:
        """Ours, and still the server's (a person, or its culler, may have shut it down)."""
        return kernel_id in self._kernels and kernel_id in self.kernels

    async def notebook_kernel(self, path: str, known: str | None, kernelspec: KernelspecChoice) -> tuple[str, bool]:
        path = clean_relative(path).as_posix()
        session = await self._session(path)
        if session is None and known is not None and await self.is_running(known):
            session = await self._start_session(path, kernel_id=known)  # use_notebook's kernel_id, recorded as its session
        if session is None:
            session = await self._start_session(path, kernel_name=await kernelspec() or self.kernel_name)
        kernel_id = str(session["kernel"]["id"])
        await self.attach(kernel_id)
        if known is not None and known != kernel_id and self.is_shared(known):
            await self.shutdown_kernel(known)  # the session moved to another kernel: let go of the old one
        return kernel_id, known is not None and known != kernel_id

    async def _session(self, path: str) -> dict[str, Any] | None:
        for session in await self.sessions.list_sessions():
            where = str(session.get("path") or "").removeprefix("RTC:")  # JupyterLab's collaborative drive, on some versions
            if where == path and session.get("kernel"):
                return dict(session)
        return None

    async def _start_session(self, path: str, *, kernel_id: str | None = None, kernel_name: str | None = None) -> dict[str, Any]:
        """A session for the notebook, as JupyterLab creates one: with a running kernel, or a new one of `kernel_name`."""
        session = dict(await self.sessions.create_session(path=path, name=PurePosixPath(path).name, type="notebook",
                                                          kernel_name=kernel_name, kernel_id=kernel_id))
        started = str(session["kernel"]["id"])
        if kernel_id is None:
            self._created[started] = str(session["id"])
        elif started in self._kernels and not self._kernels[started].shared:
            self._kernels[started].shared = True  # a session now runs in it: others may join, so we only let go of it
            self._created[started] = str(session["id"])
        return session

    async def list_kernels(self) -> list[KernelInfo]:
        """Every kernel of the server (a person's too); ours carry our counts."""
        infos = []
        for model in self.kernels.list_kernels():
            ours = self._kernels.get(model["id"])
            infos.append(KernelInfo(
                kernel_id=model["id"], name=model.get("name", ""), state=model.get("execution_state", "unknown"),
                started=ours.started.isoformat(timespec="seconds") if ours else "",
                last_activity=timestamp(model.get("last_activity")), execution_count=ours.execution_count if ours else 0,
            ))
        return infos

    async def restart_kernel(self, kernel_id: str) -> None:
        kernel = self._find(kernel_id)
        async with kernel.lock:
            if kernel_id not in self.kernels:
                await self._forget(kernel)
                raise ToolError(JupyterErrorKind.KERNEL_DIED, f"Kernel {kernel_id} is gone from the server; the next run starts a new one.")
            await self.kernels.restart_kernel(kernel_id, now=True)
            # A fresh client: the old one's sockets hold messages from before the restart.
            await kernel.channels.close(shut_down=False)
            self._kernels.pop(kernel_id)
            await self._open(kernel_id, name=kernel.name, shared=kernel.shared)
            self._kernels[kernel_id].lock = kernel.lock
            self._kernels[kernel_id].started = kernel.started
            self._kernels[kernel_id].last_activity = utc_now()

    async def shutdown_kernel(self, kernel_id: str) -> None:
        """Ours are shut down; a shared one is only let go of: others keep it."""
        kernel = self._untrack(kernel_id, died=False)
        if kernel is not None:
            await kernel.channels.close(shut_down=not kernel.shared)

    async def _forget(self, kernel: RunningKernel[ServerChannels]) -> None:
        """A kernel died mid-run: the server restarts it (its own restarter); ours is shut down, a shared one let go of."""
        self._untrack(kernel.kernel_id, died=True)
        with anyio.CancelScope(shield=True):
            await kernel.channels.close(shut_down=not kernel.shared)

    async def aclose(self) -> None:
        """Shut down our kernels, let go of the shared ones, ending the sessions we created that nobody else joined."""
        for kernel in list(self._kernels.values()):
            with anyio.move_on_after(10, shield=True):
                await kernel.channels.close(shut_down=not kernel.shared)
                session = self._created.get(kernel.kernel_id)
                if session is not None and kernel.kernel_id in self.kernels and self._alone_in(kernel.kernel_id):
                    with contextlib.suppress(Exception):  # ended meanwhile
                        await self.sessions.delete_session(session)
        self._kernels.clear()

    def _alone_in(self, kernel_id: str) -> bool:
        """Whether no one is connected to the kernel now that our client is closed."""
        return int(self.kernels.kernel_model(kernel_id).get("connections", 0)) == 0
