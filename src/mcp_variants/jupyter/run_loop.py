"""The one execute loop: how every runtime runs code, whatever carries the kernel's messages.

A transport (jupyter_client's ZMQ channels, a Jupyter server's kernel websocket) implements
`MessageSource`; `run_code` does the rest: the deadline and the interrupt at it, progress
reports, noticing a dead kernel, draining what an interrupted run still prints, the shell
reply. A fix to any of those lands in every runtime at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, Protocol, TypeVar

import anyio

from .outputs import OutputCollector, RunTracker
from .runtime import Execution, OutputsListener, ProgressCallback, RunStatus

MAX_WAIT_S = 1.0  # the longest wait for a message before the loop looks at the clock and the kernel again
DRAIN_S = 5.0  # after an interrupt, how long what the run still prints is kept
REPLY_S = 5.0  # how long the shell reply may take after the run went idle


class MessageSource(Protocol):
    """One kernel's channels, as a transport carries them: all the loop needs of a kernel."""

    def execute(self, code: str) -> str:
        """Send an execute_request (history stored, no stdin); its msg_id."""
        ...

    async def iopub(self, timeout: float) -> dict[str, Any] | None:
        """The next iopub message, or None when none came within `timeout` seconds."""
        ...

    async def shell(self, timeout: float) -> dict[str, Any] | None:
        """The next shell message, or None when none came within `timeout` seconds."""
        ...

    async def interrupt(self) -> None: ...

    async def alive(self) -> bool:
        """Whether the kernel still runs; a ToolError when the transport cannot tell."""
        ...

    def silence_before_check(self) -> float:
        """Seconds without a message before the loop asks `alive` (0: at every empty wait, where asking is cheap)."""
        ...


def utc_now() -> datetime:
    return datetime.now(UTC)


S = TypeVar("S", bound=MessageSource)


@dataclass
class RunningKernel(Generic[S]):
    """A kernel a runtime started: its channels, one run at a time, and what list_kernels shows of it."""

    kernel_id: str
    channels: S
    started: datetime = field(default_factory=utc_now)
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    last_activity: datetime = field(default_factory=utc_now)
    execution_state: str = "idle"
    execution_count: int = 0
    shared: bool = False  # others run code in it too (a notebook's JupyterLab session): never interrupt their run


async def run_code(
    kernel: RunningKernel[Any], code: str, *, timeout: float, hard_cap_bytes: int,
    progress: ProgressCallback | None, progress_interval: float, on_outputs: OutputsListener | None = None,
) -> Execution:
    """Run `code` in `kernel` (whose lock the caller holds) until it idles, times out or dies;
    `on_outputs` hears of every change to the outputs while it runs."""
    channels: MessageSource = kernel.channels
    collector = OutputCollector(hard_cap_bytes)
    began = time.perf_counter()
    deadline = began + timeout
    next_progress = began + progress_interval
    heard = began  # the last message, or the last time the kernel was found alive
    run = RunTracker(channels.execute(code), collector)
    ended: RunStatus | None = None  # TIMEOUT or DIED; otherwise the tracker's status
    queued = False

    def feed(msg: dict[str, Any]) -> None:
        if run.feed(msg) and on_outputs is not None:
            on_outputs(collector.outputs, run.execution_count)

    kernel.execution_state = "busy"
    try:
        while not run.done:
            now = time.perf_counter()
            if now >= deadline:
                ended = RunStatus.TIMEOUT
                if kernel.shared and not run.started:
                    queued = True  # an interrupt would stop someone else's run, not ours
                    break
                await channels.interrupt()
                await _drain(channels, run, feed)
                break
            if progress is not None and now >= next_progress:
                await progress(now - began, f"running for {now - began:.0f} s")
                next_progress = now + progress_interval
            wait = min(deadline, next_progress if progress else deadline, now + MAX_WAIT_S) - now
            msg = await channels.iopub(max(wait, 0.001))
            if msg is None:
                if time.perf_counter() - heard >= channels.silence_before_check():
                    if not await channels.alive():
                        ended = RunStatus.DIED
                        break
                    heard = time.perf_counter()
                continue
            heard = time.perf_counter()
            if _says_kernel_died(msg):
                ended = RunStatus.DIED
                break
            feed(msg)
        if ended is None:
            run.settle(await _reply(channels, run.msg_id))
    finally:
        kernel.execution_count = run.execution_count or kernel.execution_count
        kernel.last_activity = utc_now()
        kernel.execution_state = "idle"
    return Execution(
        kernel_id=kernel.kernel_id,
        status=ended or run.status,
        execution_count=kernel.execution_count or None,
        outputs=collector.outputs,
        duration_ms=(time.perf_counter() - began) * 1000,
        truncated_bytes=collector.dropped_bytes,
        queued=queued,
    )


def _says_kernel_died(msg: dict[str, Any]) -> bool:
    """A Jupyter server reports a kernel process that died as status "restarting" or "dead" (no parent)."""
    return msg["header"]["msg_type"] == "status" and msg["content"].get("execution_state") in ("restarting", "dead")


async def _drain(channels: MessageSource, run: RunTracker, feed: Callable[[dict[str, Any]], None]) -> None:
    """After an interrupt: keep what the kernel still says about this run until it idles."""
    end = time.perf_counter() + DRAIN_S
    while not run.done and (left := end - time.perf_counter()) > 0:
        msg = await channels.iopub(left)
        if msg is None:
            return
        feed(msg)


async def _reply(channels: MessageSource, msg_id: str) -> dict[str, Any] | None:
    """The run's shell reply (replies to earlier, abandoned runs are passed over)."""
    end = time.perf_counter() + REPLY_S
    while (left := end - time.perf_counter()) > 0:
        reply = await channels.shell(left)
        if reply is None:
            return None
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply
    return None
