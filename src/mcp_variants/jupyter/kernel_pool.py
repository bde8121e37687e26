"""What the embedded and remote runtimes share: the kernels they started, the default kernel,
and `execute` through the one run loop. A runtime adds its transport: how a kernel starts,
restarts and stops, and the message source of its channels."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Container
from typing import Generic

import anyio

from .. import telemetry
from ..protocol.errors import ToolError
from .errors import JupyterErrorKind
from .refusals import no_kernel
from .run_loop import RunningKernel, S, run_code
from .runtime import Execution, KernelspecChoice, OutputsListener, Progress, RunStatus

MISSING_MODULE = re.compile(r"No module named '([^'.]+)")


class DefaultKernel:
    """The kernel a call without a kernel id runs in: started on first use; replaced when it died,
    and the next run is told that state was lost."""

    def __init__(self) -> None:
        self.kernel_id: str | None = None
        self._lost = False
        self._lock = anyio.Lock()

    async def get(self, start: Callable[[], Awaitable[str]], running: Container[str]) -> tuple[str, bool]:
        """Its id, and True when it replaced one that died."""
        async with self._lock:
            if self.kernel_id is not None and self.kernel_id in running:
                return self.kernel_id, False
            self.kernel_id = await start()
            replaced, self._lost = self._lost, False
            return self.kernel_id, replaced

    def shut_down(self, kernel_id: str) -> None:
        """`kernel_id` was shut down on purpose: the next default starts fresh, with nothing to report."""
        if kernel_id == self.kernel_id:
            self.kernel_id = None

    def died(self, kernel_id: str) -> None:
        if kernel_id == self.kernel_id:
            self.kernel_id, self._lost = None, True


class KernelPool(ABC, Generic[S]):
    """The kernels one runtime started, each with the message source its transport gives it."""

    def __init__(self, *, kernel_name: str, hard_cap_bytes: int) -> None:
        self.kernel_name = kernel_name
        self.hard_cap_bytes = hard_cap_bytes
        self._kernels: dict[str, RunningKernel[S]] = {}
        self._default = DefaultKernel()

    @abstractmethod
    async def start_kernel(self, kernel_name: str | None = None) -> str: ...

    @abstractmethod
    async def _forget(self, kernel: RunningKernel[S]) -> None:
        """The kernel died during a run: stop tracking it (`_untrack`) and release what is left of it."""

    async def _before_run(self, kernel: RunningKernel[S]) -> None:
        """Called before each run, with the kernel's lock held (the remote runtime reopens a dropped websocket)."""

    async def default_kernel(self) -> tuple[str, bool]:
        """The default kernel's id, started on first use; True when it replaced a dead one."""
        return await self._default.get(self.start_kernel, self._kernels)

    async def is_running(self, kernel_id: str) -> bool:
        return kernel_id in self._kernels

    async def notebook_kernel(self, path: str, known: str | None, kernelspec: KernelspecChoice) -> tuple[str, bool]:
        """A kernel of its own per notebook: `known` while it runs, else a new one."""
        if known is not None and await self.is_running(known):
            return known, False
        return await self.start_kernel(await kernelspec()), known is not None

    def is_shared(self, kernel_id: str) -> bool:
        kernel = self._kernels.get(kernel_id)
        return kernel is not None and kernel.shared

    async def attach(self, kernel_id: str) -> None:
        """The kernels a runtime started are usable by id already; a remote runtime also opens others."""
        self._find(kernel_id)

    def where_modules_go(self, kernel: RunningKernel[S], module: str) -> str:
        """How to give a kernel a module it lacks: the runtime's part of the ModuleNotFoundError hint."""
        return (f"The kernel ({kernel.name}) lacks {module}: install it into that kernel's environment, or use a kernel "
                "that has it.")

    async def execute(self, code: str, *, kernel_id: str | None = None, timeout: float,
                      progress: Progress | None = None, on_outputs: OutputsListener | None = None,
                      silent: bool = False) -> Execution:
        restarted = False
        if kernel_id is None:
            kernel_id, restarted = await self.default_kernel()
        kernel = self._kernels.get(kernel_id)
        if kernel is None:
            raise ToolError(JupyterErrorKind.KERNEL_DIED,
                            f"Kernel {kernel_id} is no longer running; restart the notebook to get a new one.")
        async with kernel.lock:
            await self._before_run(kernel)
            with telemetry.kernel_execution(kernel.kernel_id, kernel.name) as span:
                execution = await run_code(kernel, code, timeout=timeout, hard_cap_bytes=self.hard_cap_bytes,
                                           progress=progress, on_outputs=on_outputs, silent=silent)
                telemetry.executed(span, execution.status.value, execution.execution_count, execution.outputs)
            if execution.status is RunStatus.DIED:
                await self._forget(kernel)
        execution.kernel_restarted = restarted
        if execution.status is RunStatus.ERROR:
            execution.hint = self._hint(kernel, execution)
        return execution

    def _hint(self, kernel: RunningKernel[S], execution: Execution) -> str:
        """For a ModuleNotFoundError: which environment lacks the module, and how to use another."""
        error = next((o for o in execution.outputs if o["output_type"] == "error"), None)
        missing = MISSING_MODULE.search(error["evalue"]) if error and error["ename"] == "ModuleNotFoundError" else None
        if missing is None:
            return ""
        return self.where_modules_go(kernel, missing.group(1))

    def _track(self, kernel: RunningKernel[S]) -> str:
        self._kernels[kernel.kernel_id] = kernel
        return kernel.kernel_id

    def _untrack(self, kernel_id: str, *, died: bool) -> RunningKernel[S] | None:
        """Stop tracking a kernel; the default kernel learns whether it died or was shut down on purpose."""
        if died:
            self._default.died(kernel_id)
        else:
            self._default.shut_down(kernel_id)
        return self._kernels.pop(kernel_id, None)

    def _find(self, kernel_id: str) -> RunningKernel[S]:
        kernel = self._kernels.get(kernel_id)
        if kernel is None:
            raise no_kernel(kernel_id)
        return kernel
