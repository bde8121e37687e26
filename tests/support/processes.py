"""What tests check about processes, by PID (psutil checks start times: a reused PID is never hit)."""

from __future__ import annotations

from pathlib import Path

import psutil

from mcp_variants.processes import reap
from support.waiting import within


class Reaper:
    """Every process a test saw; `kill_all()` at the end stops whatever a failed test left running."""

    def __init__(self) -> None:
        self.processes: list[psutil.Process] = []

    def watch(self, pid: int) -> psutil.Process:
        process = psutil.Process(pid)
        self.processes.append(process)
        return process

    def kill_all(self) -> None:
        reap(self.processes, timeout=0)


def gone(process: psutil.Process, timeout: float = 15.0) -> bool:
    """The process ended (or is a zombie nobody reaped yet) within `timeout` seconds."""
    def ended() -> bool:
        try:
            return not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True

    return within(ended, timeout, every=0.1) is not None


def started_by_exec(pid: int) -> psutil.Process:
    """`pid`, for a test that reads a server by PID (its memory, its children). A fork server's stand-in
    (support/forkserver.py) would hide the server behind it, so it is refused: start that server `fresh`."""
    process = psutil.Process(pid)
    if any(part.endswith("forkserver_client.py") for part in process.cmdline()):
        raise AssertionError(f"PID {pid} is a fork server's stand-in, not the server: start it with fresh=True")
    return process


def kernels_of(pid: int) -> list[psutil.Process]:
    """The ipykernel processes among the children of `pid` (the kernels a server started)."""
    process = started_by_exec(pid)
    try:
        children = process.children()
    except psutil.Error:
        return []
    return [child for child in children if _is_kernel(child)]


def alive_kernels(kernels: list[psutil.Process]) -> list[psutil.Process]:
    """The ones of `kernels` still running (not zombies)."""
    return [kernel for kernel in kernels if _is_kernel(kernel)]


def _is_kernel(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE and any("ipykernel" in part for part in process.cmdline())
    except psutil.Error:
        return False


def processes_in(root: Path) -> list[psutil.Process]:
    """Processes whose working folder is `root` (the kernels a server rooted there started)."""
    target = str(root.resolve())
    found = []
    for process in psutil.process_iter():
        try:
            if process.cwd() == target and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.Error:
            continue
    return found


def wait_gone_from(root: Path, timeout: float) -> list[int]:
    """Wait up to `timeout` s for the processes working in `root` to end; stop (by PID) and return any left."""
    within(lambda: not processes_in(root), timeout, every=0.2)
    left = processes_in(root)
    pids = [process.pid for process in left]
    reap(left, timeout=0)
    return pids
