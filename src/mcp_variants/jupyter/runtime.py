"""The runtimes' seam: what the tools get from a runtime (kernels to run code in, contents to
keep files and notebooks in) and the values that cross it.

Three runtimes implement it: embedded (local kernels, files under --root), remote (a Jupyter
server's REST API and kernel websockets, or, when the server has real-time collaboration, the
notebooks' shared documents and JupyterLab session kernels: live/) and sandboxes (a Jupyter
server this process launched, reached as a remote one). Kernels run code through the one
execute loop (run_loop.py), over the message source their transport provides; Contents are
separate, so a runtime whose notebooks live elsewhere (a shared document) pairs its own
Contents with those kernels.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sys
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

ProgressCallback = Callable[[float, str], Awaitable[None]]  # (seconds elapsed, message)
# A run's outputs so far (nbformat 4, the list the run keeps growing) and its execution count,
# after each message that changed them: how a live notebook shows a run as it streams in.
OutputsListener = Callable[[list[dict[str, Any]], int | None], None]
# Who changed a notebook: a client's key (registry.ClientState.key), or None for anyone else (a
# person in JupyterLab, another program, a stateless request).
Origin = str | None
ChangeListener = Callable[[Origin], None]
Unwatch = Callable[[], Awaitable[None]]  # ends a watch (Contents.watch)
# The kernelspec a notebook's new kernel gets (its metadata's, when the runtime has it), None for the
# runtime's default; asked only when a kernel must start, since it reads the notebook.
KernelspecChoice = Callable[[], Awaitable[str | None]]
DEFAULT_AGENT_NAME = "{client} via mcp-variants"  # the server option --agent-name; {client}: the MCP client's own name
UNKNOWN_CLIENT = "An MCP client"  # a client that gave no clientInfo
# Colours a person tells apart on JupyterLab's light and dark themes (JupyterLab's own collaborator colours are CSS
# variables that only its pages resolve).
AGENT_PREFIX = "mcp-variants-"  # every agent's username starts so: how rooms tell our agents from people
COLOURS = ("#c2185b", "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#455a64", "#4e342e")

# The names jupyter_client replaces with the starting process's own interpreter in a kernelspec's argv.
OWN_PYTHON = {"python", f"python{sys.version_info[0]}", f"python{sys.version_info[0]}.{sys.version_info[1]}"}


@dataclass(frozen=True)
class Agent:
    """One MCP client at work, as people see it: `key` is who it is to the server (registry.ClientState.key, or one
    request's id when stateless), `name` what JupyterLab shows, `listed_in` the colour the collaborators panel shows it
    in (None: not listed), which its marks in a notebook take too, so a person matches a mark to its name."""

    key: str
    name: str
    listed_in: str | None = None

    @property
    def username(self) -> str:
        return AGENT_PREFIX + _digest(self.key)[:12]

    @property
    def colour(self) -> str:
        """The colour it prefers (a room shows it in the first free one from there: live/presence.py)."""
        return self.listed_in or COLOURS[int(_digest(self.key)[:8], 16) % len(COLOURS)]

    @property
    def initials(self) -> str:
        words = [w for w in self.name.split() if w[:1].isalnum()][:2]
        return "".join(w[0].upper() for w in words) or "AI"


def agent_name(template: str, client: str | None) -> str:
    """The name people see: `template` with {client} the MCP client's own name."""
    return (template or DEFAULT_AGENT_NAME).replace("{client}", (client or "").strip() or UNKNOWN_CLIENT)[:100]


def _digest(key: str) -> str:
    """Of `key` in this process: two processes' clients (each "stdio", say) are two people to JupyterLab. The process
    id is in it too: processes forked from one that made the salt share it."""
    return hashlib.sha256(f"{os.getpid()}:{_SALT}:{key}".encode()).hexdigest()


_SALT = secrets.token_hex(8)


@dataclass(frozen=True)
class Progress:
    """How a run reports while it goes, to a client that asked (a progressToken)."""

    report: ProgressCallback
    interval: float = 5.0  # seconds between keep-alives; 0: none
    stream: bool = False  # also what the run prints, as it comes


class RunStatus(StrEnum):
    OK = "ok"
    ERROR = "error"  # the code raised
    TIMEOUT = "timeout"  # interrupted at the deadline
    DIED = "died"  # the kernel went away during the run


@dataclass
class Execution:
    """What one execution produced."""

    kernel_id: str
    status: RunStatus
    execution_count: int | None
    outputs: list[dict[str, Any]]  # nbformat 4 outputs
    duration_ms: float
    truncated_bytes: int = 0
    kernel_restarted: bool = False  # the kernel was replaced before this run: earlier state is gone
    queued: bool = False  # TIMEOUT before a shared kernel began it (busy with others' runs): not interrupted
    still_running: bool = False  # TIMEOUT while it ran in a shared kernel: not interrupted, it goes on
    hint: str = ""  # for a ModuleNotFoundError, where the module would go (the tools add how to pick another kernel)


@dataclass
class KernelInfo:
    kernel_id: str
    name: str  # its kernelspec
    state: str
    started: str
    last_activity: str
    execution_count: int


@dataclass(frozen=True)
class KernelSpecInfo:
    """A kernel a runtime can start, as `jupyter kernelspec list` (or /api/kernelspecs) names it."""

    name: str
    display_name: str
    language: str
    is_default: bool  # what start_kernel() starts without a name
    python: str = ""  # the Python it runs, where known (kernel_python): which environment a user's code imports from


def kernel_python(spec: Any, own: str) -> str:
    """The Python a Python kernelspec (a KernelSpec, or its dict as /api/kernelspecs gives it) runs: its argv[0], or,
    for 'python', 'python3' or 'python3.X', `own`, the interpreter of the process that starts it (jupyter_client's
    rule; "" when that process is another machine's). "" for another language."""
    language = spec.get("language", "") if isinstance(spec, dict) else spec.language
    argv = spec.get("argv") if isinstance(spec, dict) else spec.argv
    if str(language).lower() != "python" or not argv:
        return ""
    return own if argv[0] in OWN_PYTHON else str(argv[0])


class Kernels(Protocol):
    async def execute(self, code: str, *, kernel_id: str | None = None, timeout: float,
                      progress: Progress | None = None, on_outputs: OutputsListener | None = None,
                      silent: bool = False) -> Execution:
        """Run `code` in `kernel_id` (the default kernel when None); `silent`: leave no trace in its history or
        execution count (the kernel's own look at itself, such as its variables: jupyter/variables.py)."""
        ...

    async def start_kernel(self, kernel_name: str | None = None) -> str:
        """Start a kernel of that kernelspec (the runtime's default when None); ToolError(NOT_FOUND) for an unknown one."""
        ...

    async def kernelspecs(self) -> list[KernelSpecInfo]: ...

    async def attach(self, kernel_id: str) -> None:
        """Make a running kernel usable by id: the ones this runtime started are; a Jupyter server's
        other kernels are opened (and never shut down by us). ToolError(NOT_FOUND) when there is none."""
        ...

    async def notebook_kernel(self, path: str, known: str | None, kernelspec: KernelspecChoice) -> tuple[str, bool]:
        """The kernel the notebook at `path` runs in: `known` (the one it ran in last) while that
        still runs, else another, of the kernelspec `kernelspec()` picks when one must start; True
        when it replaced `known` (the state `known` had is gone)."""
        ...

    def is_shared(self, kernel_id: str) -> bool:
        """Whether others run code in `kernel_id` too (a notebook's JupyterLab session): shutting it
        down then only lets go of it."""
        ...

    async def is_running(self, kernel_id: str) -> bool:
        """Whether `kernel_id` is a kernel of this runtime that still runs (one kernel asked, not all listed)."""
        ...

    async def restart_kernel(self, kernel_id: str) -> None: ...

    async def shutdown_kernel(self, kernel_id: str) -> None: ...

    async def list_kernels(self) -> list[KernelInfo]: ...

    async def aclose(self) -> None: ...


class Contents(Protocol):
    async def list_entries(self, path: str, depth: int, pattern: str | None) -> list[dict[str, Any]]:
        """Entries under `path` to `depth`: dicts with path, name, type, size, modified."""
        ...

    async def read_notebook(self, path: str) -> dict[str, Any]:
        """The nbformat 4 notebook at `path`; ToolError(ErrorKind.NOT_FOUND) when there is none."""
        ...

    async def write_notebook(self, path: str, notebook: dict[str, Any]) -> None:
        """Replace the notebook at `path` whole (creating it), or not at all."""
        ...

    def edit_notebook(self, path: str, *, origin: Origin, agent: Agent | None = None) -> AbstractAsyncContextManager[dict[str, Any]]:
        """The notebook at `path` (every cell with an id), to change in place: saved when the block
        succeeds, untouched when it raises. The caller holds the notebook's lock. In a live notebook,
        `agent` shows among its collaborators, on the cell it changed."""
        ...

    def running_cell(self, path: str, cell_id: str, *, origin: Origin,
                     agent: Agent | None = None) -> AbstractAsyncContextManager[OutputsListener | None]:
        """While a run of cell `cell_id` lasts: where its outputs go as they come (a live notebook's
        cell), or None where they are written once, at the end. In a live notebook, `agent` shows on the cell."""
        ...

    async def agent_left(self, key: str) -> None:
        """The agent of client `key` is gone (its session ended): it leaves every notebook people see it in."""
        ...

    async def watch(self, path: str, listener: ChangeListener) -> Unwatch:
        """Call `listener` when the notebook at `path` changes (by whom, when known) until the
        returned function is awaited."""
        ...

    async def live(self, path: str) -> bool | None:
        """Whether edits to `path` appear live in a JupyterLab that has it open: True (its shared
        document), False (a Jupyter server without real-time collaboration), None where no
        Jupyter server is involved (files on disk)."""
        ...

    async def exists(self, path: str) -> bool: ...

    async def aclose(self) -> None: ...


@dataclass
class Backend:
    key: str  # "embedded", "remote", "sandbox:<id>"
    label: str  # for messages: "the embedded kernels", "the Jupyter server at …"
    kernels: Kernels
    contents: Contents
