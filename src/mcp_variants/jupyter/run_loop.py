"""The one execute loop: how every runtime runs code, whatever carries the kernel's messages.

A transport (jupyter_client's ZMQ channels, a Jupyter server's kernel websocket) implements
`MessageSource`; `run_code` does the rest: the deadline and the interrupt at it, progress
reports, noticing a dead kernel, draining what an interrupted run still prints, the shell
reply. A fix to any of those lands in every runtime at once.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, Protocol, TypeVar

import anyio

from ..protocol.errors import ToolError
from .outputs import OutputCollector, RunTracker, output_text
from .runtime import Execution, OutputsListener, Progress, RunStatus

MAX_WAIT_S = 1.0  # the longest wait for a message before the loop looks at the clock and the kernel again
STREAM_S = 0.5  # streamed output is sent at most this often, what came meanwhile together
STREAM_CHARS = 2_000  # at most this much of it per notification (the end of it: the latest lines)
DRAIN_S = 5.0  # after an interrupt, how long what the run still prints is kept
REPLY_S = 5.0  # how long the shell reply may take after the run went idle
ABORTED_TRIES = 3  # how often a request the kernel aborted unrun (a run before it failed) is sent in all


class MessageSource(Protocol):
    """One kernel's channels, as a transport carries them: all the loop needs of a kernel."""

    def execute(self, code: str, *, silent: bool = False) -> str:
        """Send an execute_request (no stdin; history stored unless `silent`: then no history, no execution
        count, no execute_input, as for a look the user never made); its msg_id."""
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
    name: str = ""  # its kernelspec
    environment: str = ""  # where its code runs, for messages: a local Python kernel's interpreter
    started: datetime = field(default_factory=utc_now)
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    last_activity: datetime = field(default_factory=utc_now)
    execution_state: str = "idle"
    execution_count: int = 0
    shared: bool = False  # others run code in it too (a notebook's JupyterLab session): never interrupt their run


async def run_code(
    kernel: RunningKernel[Any], code: str, *, timeout: float, hard_cap_bytes: int, progress: Progress | None,
    on_outputs: OutputsListener | None = None, silent: bool = False,
) -> Execution:
    """Run `code` in `kernel` (whose lock the caller holds) until it idles, times out or dies;
    `on_outputs` hears of every change to the outputs while it runs."""
    channels: MessageSource = kernel.channels
    collector = OutputCollector(hard_cap_bytes)
    began = time.perf_counter()
    deadline = began + timeout
    keepalive = progress.interval if progress is not None and progress.interval > 0 else None
    next_progress = began + keepalive if keepalive else float("inf")
    streamed = StreamedText() if progress is not None and progress.stream else None
    heard = began  # the last message, or the last time the kernel was found alive
    run = RunTracker(channels.execute(code, silent=silent), collector)
    ended: RunStatus | None = None  # TIMEOUT or DIED; otherwise the tracker's status
    queued = still_running = False
    tries = 1

    def feed(msg: dict[str, Any]) -> None:
        if run.feed(msg) and on_outputs is not None:
            on_outputs(collector.outputs, run.execution_count)

    kernel.execution_state = "busy"
    try:
        while True:
            if run.done:
                run.settle(await _reply(channels, run.msg_id))
                if not run.aborted:
                    break
                # ipykernel aborts, unrun, the execute requests that reach it while it stops its queue after a failed
                # run (its own, someone else's in a shared kernel, or the KeyboardInterrupt of our interrupt). The code
                # never ran, so sending it again is safe; "Ran without output." would be a lie.
                if tries == ABORTED_TRIES:
                    run.never_ran(tries)
                    break
                tries += 1
                run = RunTracker(channels.execute(code, silent=silent), collector)
            now = time.perf_counter()
            if now >= deadline:
                ended = RunStatus.TIMEOUT
                if kernel.shared:
                    # Never interrupted at a deadline: before it began, an interrupt would stop someone else's run; while
                    # it runs, it would also drop the runs people queued after it (JupyterLab asks the kernel to stop on
                    # an error, and an interrupt is one). It goes on; the person can interrupt it in JupyterLab.
                    queued, still_running = not run.started, run.started
                    break
                await channels.interrupt()
                await _drain(channels, run, feed)
                break
            if progress is not None and keepalive and now >= next_progress:
                await progress.report(now - began, f"running for {now - began:.0f} s")
                next_progress = now + keepalive
            if progress is not None and streamed is not None and streamed.due(now):
                await progress.report(now - began, streamed.take())
            wait = min(deadline, next_progress, streamed.flush_at if streamed else deadline, now + MAX_WAIT_S) - now
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
            if streamed is not None and msg["parent_header"].get("msg_id") == run.msg_id:
                streamed.add(output_text(msg["header"]["msg_type"], msg["content"]), heard)
    except anyio.get_cancelled_exc_class():
        # The call was cancelled (tasks/cancel, notifications/cancelled): stop its code too, as at the deadline.
        # An interrupt keeps the kernel's state; the drain keeps this run's last words from the next run's.
        # Shielded: the cancelled scope would stop them too. Only a cancellation: a run that failed (its server
        # gone) keeps its own error, which an interrupt's failure must not replace.
        if not run.done and (run.started or not kernel.shared):
            with anyio.CancelScope(shield=True), anyio.move_on_after(DRAIN_S), contextlib.suppress(ToolError):
                await channels.interrupt()
                await _drain(channels, run, feed)
        raise
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
        still_running=still_running,
    )


class StreamedText:
    """What a run printed since the last progress notification, sent STREAM_S after the first of it."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self.flush_at = float("inf")

    def add(self, text: str, now: float) -> None:
        if text:
            self._parts.append(text)
            self.flush_at = min(self.flush_at, now + STREAM_S)

    def due(self, now: float) -> bool:
        return now >= self.flush_at

    def take(self) -> str:
        text = "".join(self._parts)
        self._parts.clear()
        self.flush_at = float("inf")
        return text if len(text) <= STREAM_CHARS else "…" + text[-STREAM_CHARS:]


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
