"""The embedded runtime: local kernels through jupyter_client, no Jupyter server.

Kernels use the IPC transport (Unix sockets in a private folder): no TCP port
is opened, and a round trip is a few milliseconds.

jupyter_client (with zmq, tornado, traitlets; and IPython for the kernelspec folders) is imported
when a kernel is first needed: a client that only lists the tools does not pay for it at start-up.
"""

from __future__ import annotations

import os
import queue
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from ..protocol.errors import ErrorKind, ToolError
from .kernel_pool import KernelPool
from .refusals import no_kernelspec
from .run_loop import RunningKernel, utc_now
from .runtime import KernelInfo, KernelSpecInfo, kernel_python

if TYPE_CHECKING:
    import zmq
    import zmq.asyncio
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

KERNELSPECS_TTL_S = 10.0  # as long as list_kernels' cache hint: a kernel installed meanwhile shows up after it


class ZmqChannels:
    """A local kernel's ZMQ channels (jupyter_client's async client), as the run loop reads them.

    A message already received is taken at once, from a synchronous view of the channel's socket: the async
    client's `get_msg` spends two turns of the event loop on each (a poll, then a recv), and a kernel's messages
    mostly come in a burst, the shell reply before the run's idle status.
    """

    def __init__(self, manager: AsyncKernelManager, client: Any) -> None:
        import zmq

        self.manager = manager
        self.client = client
        self._iopub_now: zmq.Socket[bytes] = zmq.Socket.shadow(client.iopub_channel.socket.underlying)
        self._shell_now: zmq.Socket[bytes] = zmq.Socket.shadow(client.shell_channel.socket.underlying)

    def execute(self, code: str, *, silent: bool = False) -> str:
        msg_id: str = self.client.execute(code, silent=silent, store_history=not silent, allow_stdin=False)
        return msg_id

    async def iopub(self, timeout: float) -> dict[str, Any] | None:
        return self._received(self._iopub_now) or await _next(self.client.get_iopub_msg, timeout)

    async def shell(self, timeout: float) -> dict[str, Any] | None:
        return self._received(self._shell_now) or await _next(self.client.get_shell_msg, timeout)

    def _received(self, socket: zmq.Socket[bytes]) -> dict[str, Any] | None:
        """The next message `socket` has already received, parsed as the async client parses it; None when none."""
        import zmq

        try:
            frames = socket.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            return None
        _, message = self.client.session.feed_identities(frames)
        parsed: dict[str, Any] = self.client.session.deserialize(message)
        return parsed

    async def interrupt(self) -> None:
        await self.manager.interrupt_kernel()

    async def alive(self) -> bool:
        alive: bool = await self.manager.is_alive()
        return alive

    def silence_before_check(self) -> float:
        return 0.0  # the kernel is our child process: asking costs nothing

    async def close(self, *, shut_down: bool) -> None:
        self.client.stop_channels()
        if shut_down:
            await self.manager.shutdown_kernel(now=True)
        else:  # it died: only its files and sockets are left
            await self.manager.cleanup_resources()


async def _next(get: Callable[..., Awaitable[dict[str, Any]]], timeout: float) -> dict[str, Any] | None:
    try:
        return await get(timeout=timeout)
    except queue.Empty:  # what jupyter_client raises when nothing came in time; a ZMQ error is not that
        return None


class EmbeddedRuntime(KernelPool[ZmqChannels]):
    """Starts, runs and stops local kernels whose working folder is `root`."""

    def __init__(self, root: Path, *, kernel_name: str = "python3", hard_cap_bytes: int = 4_000_000) -> None:
        super().__init__(kernel_name=kernel_name, hard_cap_bytes=hard_cap_bytes)
        self.root = root
        self._spec_manager: KernelSpecManager | None = None
        self._specs_read: tuple[float, list[KernelSpecInfo]] | None = None  # (when, what): kernelspecs()
        self._socket_dir = tempfile.TemporaryDirectory(prefix="mcp-variants-kernels-")
        self._zmq_context: zmq.asyncio.Context | None = None

    @property
    def _context(self) -> zmq.asyncio.Context:
        """One ZMQ context for every kernel's manager and client, as a Jupyter server's kernels share one: on their
        own, each manager and each client makes a context (an I/O thread and a reaper each), four threads a kernel."""
        if self._zmq_context is None:
            import zmq.asyncio

            self._zmq_context = zmq.asyncio.Context()
        return self._zmq_context

    @property
    def _specs(self) -> KernelSpecManager:
        if self._spec_manager is None:
            from jupyter_client.kernelspec import KernelSpecManager

            self._spec_manager = KernelSpecManager()
        return self._spec_manager

    def check_kernel_name(self) -> None:
        """The default kernelspec exists (a ToolError naming the ones that do): checked once, at start-up."""
        if _in_jupyter_path(self.kernel_name):
            return
        names = sorted(self._specs.find_kernel_specs())
        if self.kernel_name not in names:
            raise ToolError(ErrorKind.NOT_FOUND, f"no kernelspec {self.kernel_name!r}; `jupyter kernelspec list` shows {', '.join(names)}.")

    async def kernelspecs(self) -> list[KernelSpecInfo]:
        """The kernelspecs on JUPYTER_PATH, read again at most every KERNELSPECS_TTL_S: reading every
        kernel.json in a thread on each list_kernels halved the calls a second this server answers."""
        now = time.monotonic()
        if self._specs_read is None or now - self._specs_read[0] >= KERNELSPECS_TTL_S:
            specs = await anyio.to_thread.run_sync(self._specs.get_all_specs)
            self._specs_read = (now, [KernelSpecInfo(name, s["spec"].get("display_name", name), s["spec"].get("language", ""),
                                                     name == self.kernel_name, kernel_python(s["spec"], sys.executable))
                                      for name, s in sorted(specs.items())])
        return list(self._specs_read[1])

    async def start_kernel(self, kernel_name: str | None = None) -> str:
        from jupyter_client.manager import AsyncKernelManager

        kernel_id = str(uuid.uuid4())
        name = kernel_name or self.kernel_name
        manager = AsyncKernelManager(
            kernel_name=name,
            transport="ipc",
            ip=str(Path(self._socket_dir.name) / kernel_id[:8]),
            kernel_spec_manager=self._specs,
            context=self._context,
        )
        try:
            spec = manager.kernel_spec
        except Exception:  # NoSuchKernel, or a kernel.json that does not parse
            raise no_kernelspec(name, "here") from None
        await manager.start_kernel(cwd=str(self.root))
        client = manager.client(context=self._context)
        # No heartbeat: liveness is the manager's (`alive`: the kernel is our child). Its channel is a thread per
        # kernel that pings every second, CPU an idle server would spend for nothing.
        client.start_channels(hb=False)
        try:
            await client.wait_for_ready(timeout=60)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await ZmqChannels(manager, client).close(shut_down=True)
            raise
        return self._track(RunningKernel(kernel_id, ZmqChannels(manager, client), name=name, environment=kernel_interpreter(spec)))

    def where_modules_go(self, kernel: RunningKernel[ZmqChannels], module: str) -> str:
        if not kernel.environment:
            return super().where_modules_go(kernel, module)
        python = kernel.environment
        return (f"The kernel ({kernel.name}) runs {python}, which lacks {module}: install it into that environment "
                f"({python} -m pip install {module}, or the package that provides it), or use a kernel of another environment: "
                "serve with --kernel NAME (MCP_VARIANTS_KERNEL), or open a notebook whose metadata.kernelspec names it; "
                "`jupyter kernelspec list` shows the kernelspecs (`python -m ipykernel install --user --name NAME` "
                "run in an environment adds its own).")

    async def list_kernels(self) -> list[KernelInfo]:
        return [
            KernelInfo(
                kernel_id=k.kernel_id,
                name=k.name,
                state=k.execution_state,
                started=k.started.isoformat(timespec="seconds"),
                last_activity=k.last_activity.isoformat(timespec="seconds"),
                execution_count=k.execution_count,
            )
            for k in self._kernels.values()
        ]

    async def restart_kernel(self, kernel_id: str) -> None:
        kernel = self._find(kernel_id)
        async with kernel.lock:
            await kernel.channels.manager.restart_kernel(now=True)
            await kernel.channels.client.wait_for_ready(timeout=60)
            kernel.execution_count = 0
            kernel.last_activity = utc_now()

    async def shutdown_kernel(self, kernel_id: str) -> None:
        kernel = self._untrack(kernel_id, died=False)
        if kernel is not None:
            await kernel.channels.close(shut_down=True)

    async def _forget(self, kernel: RunningKernel[ZmqChannels]) -> None:
        self._untrack(kernel.kernel_id, died=True)
        await kernel.channels.close(shut_down=False)

    async def aclose(self) -> None:
        """Shut down every kernel this runtime started."""
        for kernel in list(self._kernels.values()):
            with anyio.move_on_after(10, shield=True):
                await kernel.channels.close(shut_down=True)
        self._kernels.clear()
        self._socket_dir.cleanup()
        if self._zmq_context is not None:
            self._zmq_context.destroy(linger=0)  # the kernels' sockets are closed; this ends the context's threads


def _in_jupyter_path(name: str) -> bool:
    """A kernelspec folder of that name on JUPYTER_PATH, as KernelSpecManager().find_kernel_specs() finds one first
    (names lower-cased, a folder with a kernel.json), without importing jupyter_client. False says nothing: the
    manager also looks in IPython's folder and for ipykernel's own kernel, and names those that exist."""
    from jupyter_core.paths import jupyter_path

    for folder in jupyter_path("kernels"):
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        if any(entry.lower() == name and os.path.isfile(os.path.join(folder, entry, "kernel.json")) for entry in entries):
            return True
    return False


def kernel_interpreter(spec: Any) -> str:
    """The Python a Python kernel of ours runs, as its kernelspec's argv says."""
    return kernel_python(spec, sys.executable)
