"""The embedded runtime: local kernels through jupyter_client, no Jupyter server.

Kernels use the IPC transport (Unix sockets in a private folder): no TCP port
is opened, and a round trip is a few milliseconds.
"""

from __future__ import annotations

import logging
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import anyio
from jupyter_client.manager import AsyncKernelManager

from .default_kernel import DefaultKernel
from .errors import ToolError
from .outputs import OutputCollector, RunTracker

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[float, str], Awaitable[None]]


@dataclass
class Execution:
    """What one execution produced."""

    kernel_id: str
    status: str  # "ok", "error", "timeout", "died"
    execution_count: int | None
    outputs: list[dict[str, Any]]
    duration_ms: float
    truncated_bytes: int = 0
    kernel_restarted: bool = False  # the kernel was replaced before this run: earlier state is gone


@dataclass
class KernelInfo:
    kernel_id: str
    name: str
    state: str
    started: str
    last_activity: str
    execution_count: int


@dataclass
class _Kernel:
    kernel_id: str
    manager: AsyncKernelManager
    client: Any
    started: datetime
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    last_activity: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    execution_state: str = "idle"
    execution_count: int = 0


class EmbeddedRuntime:
    """Starts, runs and stops local kernels whose working folder is `root`."""

    def __init__(self, root: Path, *, kernel_name: str = "python3", hard_cap_bytes: int = 4_000_000) -> None:
        self.root = root
        self.kernel_name = kernel_name
        self.hard_cap_bytes = hard_cap_bytes
        self._kernels: dict[str, _Kernel] = {}
        self._default = DefaultKernel()
        self._socket_dir = tempfile.TemporaryDirectory(prefix="mcp-variants-kernels-")

    async def start_kernel(self) -> str:
        kernel_id = str(uuid.uuid4())
        manager = AsyncKernelManager(
            kernel_name=self.kernel_name,
            transport="ipc",
            ip=str(Path(self._socket_dir.name) / kernel_id[:8]),
        )
        await manager.start_kernel(cwd=str(self.root))
        client = manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
        except Exception:
            client.stop_channels()
            await manager.shutdown_kernel(now=True)
            raise
        self._kernels[kernel_id] = _Kernel(kernel_id, manager, client, datetime.now(timezone.utc))
        return kernel_id

    async def default_kernel(self) -> tuple[str, bool]:
        """The default kernel's id, started on first use; True when it replaced a dead one."""
        return await self._default.get(self.start_kernel, self._kernels)

    async def list_kernels(self) -> list[KernelInfo]:
        return [
            KernelInfo(
                kernel_id=k.kernel_id,
                name=self.kernel_name,
                state=k.execution_state,
                started=k.started.isoformat(timespec="seconds"),
                last_activity=k.last_activity.isoformat(timespec="seconds"),
                execution_count=k.execution_count,
            )
            for k in self._kernels.values()
        ]

    async def execute(
        self,
        code: str,
        *,
        kernel_id: str | None = None,
        timeout: float,
        progress: ProgressCallback | None = None,
        progress_interval: float = 5.0,
    ) -> Execution:
        restarted = False
        if kernel_id is None:
            kernel_id, restarted = await self.default_kernel()
        kernel = self._kernels.get(kernel_id)
        if kernel is None:
            raise ToolError("kernel-died", f"Kernel {kernel_id} is no longer running; restart the notebook to get a new one.")
        async with kernel.lock:
            execution = await self._run(kernel, code, timeout, progress, progress_interval)
        execution.kernel_restarted = restarted
        return execution

    async def _run(
        self, kernel: _Kernel, code: str, timeout: float, progress: ProgressCallback | None, interval: float
    ) -> Execution:
        client = kernel.client
        collector = OutputCollector(self.hard_cap_bytes)
        began = time.perf_counter()
        deadline = began + timeout
        next_progress = began + interval
        run = RunTracker(client.execute(code, store_history=True, allow_stdin=False), collector)
        kernel.execution_state = "busy"
        status = ""
        while not run.done:
            now = time.perf_counter()
            if now >= deadline:
                status = "timeout"
                await kernel.manager.interrupt_kernel()
                await self._drain(client, run.msg_id, collector, seconds=5.0)
                break
            if progress is not None and now >= next_progress:
                await progress(now - began, f"running for {now - began:.0f} s")
                next_progress = now + interval
            wait = min(deadline, next_progress if progress else deadline, now + 1.0) - now
            try:
                msg = await client.get_iopub_msg(timeout=max(wait, 0.001))
            except Exception:  # queue.Empty: nothing yet; is the kernel still there?
                if not await kernel.manager.is_alive():
                    status = "died"
                    break
                continue
            run.feed(msg)
        kernel.execution_count = run.execution_count or kernel.execution_count
        kernel.last_activity = datetime.now(timezone.utc)
        kernel.execution_state = "idle"
        if status == "died":
            await self._forget(kernel)
        elif not status:
            run.settle(await self._reply(client, run.msg_id))  # already in flight
        status = status or run.status
        return Execution(
            kernel_id=kernel.kernel_id,
            status=status,
            execution_count=kernel.execution_count or None,
            outputs=collector.outputs,
            duration_ms=(time.perf_counter() - began) * 1000,
            truncated_bytes=collector.dropped_bytes,
        )

    @staticmethod
    async def _reply(client: Any, msg_id: str) -> dict[str, Any] | None:
        for _ in range(50):
            try:
                reply = await client.get_shell_msg(timeout=2.0)
            except Exception:
                return None
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply
        return None

    @staticmethod
    async def _drain(client: Any, msg_id: str, collector: OutputCollector, seconds: float) -> None:
        """After an interrupt: keep what the kernel still says about this run until it idles."""
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            try:
                msg = await client.get_iopub_msg(timeout=max(end - time.perf_counter(), 0.001))
            except Exception:
                return
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"].get("execution_state") == "idle":
                return
            if msg["msg_type"] != "status":
                collector.add(msg["msg_type"], msg["content"])

    async def restart_kernel(self, kernel_id: str) -> None:
        kernel = self._kernels.get(kernel_id)
        if kernel is None:
            raise ToolError("not-found", f"No kernel {kernel_id}; list_kernels shows the running ones.")
        async with kernel.lock:
            await kernel.manager.restart_kernel(now=True)
            await kernel.client.wait_for_ready(timeout=60)
            kernel.execution_count = 0
            kernel.last_activity = datetime.now(timezone.utc)

    async def shutdown_kernel(self, kernel_id: str) -> None:
        kernel = self._kernels.pop(kernel_id, None)
        if kernel is None:
            return
        self._default.shut_down(kernel_id)
        kernel.client.stop_channels()
        await kernel.manager.shutdown_kernel(now=True)

    async def _forget(self, kernel: _Kernel) -> None:
        self._kernels.pop(kernel.kernel_id, None)
        self._default.died(kernel.kernel_id)
        kernel.client.stop_channels()
        try:
            await kernel.manager.cleanup_resources()
        except Exception:  # already gone: nothing left to clean
            logger.debug("cleanup of dead kernel %s failed", kernel.kernel_id, exc_info=True)

    async def aclose(self) -> None:
        """Shut down every kernel this runtime started."""
        for kernel in list(self._kernels.values()):
            kernel.client.stop_channels()
            with anyio.move_on_after(10, shield=True):
                await kernel.manager.shutdown_kernel(now=True)
        self._kernels.clear()
        self._socket_dir.cleanup()
