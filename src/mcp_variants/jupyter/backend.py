"""What every runtime offers the tools: kernels to run code in, and contents (files, notebooks).

Three runtimes implement it: embedded (local kernels, files under --root), remote (a
Jupyter server's REST API and kernel websockets) and sandboxes (a Jupyter server this
process launched, reached as a remote one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from .kernels import Execution, KernelInfo, ProgressCallback


class Kernels(Protocol):
    async def execute(
        self,
        code: str,
        *,
        kernel_id: str | None = None,
        timeout: float,
        progress: ProgressCallback | None = None,
        progress_interval: float = 5.0,
    ) -> Execution:
        """Run `code` in `kernel_id` (the default kernel when None)."""
        ...

    async def start_kernel(self) -> str: ...

    async def restart_kernel(self, kernel_id: str) -> None: ...

    async def shutdown_kernel(self, kernel_id: str) -> None: ...

    async def list_kernels(self) -> list[KernelInfo]: ...

    async def aclose(self) -> None: ...


class Contents(Protocol):
    async def list_entries(self, path: str, depth: int, pattern: str | None) -> list[dict[str, Any]]:
        """Entries under `path` to `depth`: dicts with path, name, type, size, modified."""
        ...

    async def read_notebook(self, path: str) -> dict[str, Any]:
        """The nbformat 4 notebook at `path`; ToolError("not-found") when there is none."""
        ...

    async def write_notebook(self, path: str, notebook: dict[str, Any]) -> None:
        """Replace the notebook at `path` whole, or not at all."""
        ...

    async def exists(self, path: str) -> bool: ...


@dataclass
class Backend:
    key: str  # "embedded", "remote", "sandbox:<id>"
    label: str  # for messages: "the embedded kernels", "the Jupyter server at …"
    kernels: Kernels
    contents: Contents
