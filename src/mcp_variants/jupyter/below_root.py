"""A Jupyter server whose root is a folder above --root (JupyterLab on `~`, --root a project in it), seen
from --root: our path `p` is `<prefix>/p` on that server, and the paths it gives back lose the prefix again.

Only the calls that carry a notebook's or a folder's path differ from the server's own Contents and
Kernels; everything else is theirs. The server is on this machine (found by its runtime file), so each
path is checked here as the embedded runtime checks it (paths.resolve_inside: no `..`, no symbolic
link out of --root): the server, which follows links anywhere under its own root, never gets one
that leaves --root.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from .paths import clean_relative, resolve_inside
from .runtime import (
    Agent,
    ChangeListener,
    Contents,
    Execution,
    KernelInfo,
    Kernels,
    KernelspecChoice,
    KernelSpecInfo,
    Origin,
    OutputsListener,
    Progress,
    Unwatch,
)


class PathsBelow:
    """Between --root's paths and the server's: `prefix` is --root relative to the server's root."""

    def __init__(self, root: Path, prefix: str) -> None:
        self.root = root
        self.prefix = prefix.strip("/")

    def on_server(self, path: str) -> str:
        resolve_inside(self.root, path)
        clean = clean_relative(path).as_posix()
        return self.prefix if clean == "." else f"{self.prefix}/{clean}"

    def ours(self, path: str) -> str:
        return path.removeprefix(self.prefix + "/") if path != self.prefix else "."


class ContentsBelow:
    """The server's Contents, seen from --root."""

    def __init__(self, contents: Contents, paths: PathsBelow) -> None:
        self.contents = contents
        self.paths = paths

    async def list_entries(self, path: str, depth: int, pattern: str | None) -> list[dict[str, Any]]:
        # A pattern with a '/' matches the path from the root: the server's root, so it starts with the prefix there.
        on_server = f"{self.paths.prefix}/{pattern}" if pattern and "/" in pattern else pattern
        entries = await self.contents.list_entries(self.paths.on_server(path), depth, on_server)
        return [{**entry, "path": self.paths.ours(entry["path"])} for entry in entries]

    async def read_notebook(self, path: str) -> dict[str, Any]:
        return await self.contents.read_notebook(self.paths.on_server(path))

    async def write_notebook(self, path: str, notebook: dict[str, Any]) -> None:
        await self.contents.write_notebook(self.paths.on_server(path), notebook)

    def edit_notebook(self, path: str, *, origin: Origin, agent: Agent | None = None) -> AbstractAsyncContextManager[dict[str, Any]]:
        return self.contents.edit_notebook(self.paths.on_server(path), origin=origin, agent=agent)

    def running_cell(self, path: str, cell_id: str, *, origin: Origin,
                     agent: Agent | None = None) -> AbstractAsyncContextManager[OutputsListener | None]:
        return self.contents.running_cell(self.paths.on_server(path), cell_id, origin=origin, agent=agent)

    async def agent_left(self, key: str) -> None:
        await self.contents.agent_left(key)

    async def watch(self, path: str, listener: ChangeListener) -> Unwatch:
        return await self.contents.watch(self.paths.on_server(path), listener)

    async def live(self, path: str) -> bool | None:
        return await self.contents.live(self.paths.on_server(path))

    async def exists(self, path: str) -> bool:
        return await self.contents.exists(self.paths.on_server(path))

    async def aclose(self) -> None:
        await self.contents.aclose()


class KernelsBelow:
    """The server's Kernels, seen from --root: a notebook's session is at its path on the server."""

    def __init__(self, kernels: Kernels, paths: PathsBelow) -> None:
        self.kernels = kernels
        self.paths = paths

    async def execute(self, code: str, *, kernel_id: str | None = None, timeout: float,
                      progress: Progress | None = None, on_outputs: OutputsListener | None = None,
                      silent: bool = False) -> Execution:
        return await self.kernels.execute(code, kernel_id=kernel_id, timeout=timeout, progress=progress, on_outputs=on_outputs,
                                          silent=silent)

    async def start_kernel(self, kernel_name: str | None = None) -> str:
        return await self.kernels.start_kernel(kernel_name)

    async def kernelspecs(self) -> list[KernelSpecInfo]:
        return await self.kernels.kernelspecs()

    async def attach(self, kernel_id: str) -> None:
        await self.kernels.attach(kernel_id)

    async def notebook_kernel(self, path: str, known: str | None, kernelspec: KernelspecChoice) -> tuple[str, bool]:
        return await self.kernels.notebook_kernel(self.paths.on_server(path), known, kernelspec)

    def is_shared(self, kernel_id: str) -> bool:
        return self.kernels.is_shared(kernel_id)

    async def is_running(self, kernel_id: str) -> bool:
        return await self.kernels.is_running(kernel_id)

    async def restart_kernel(self, kernel_id: str) -> None:
        await self.kernels.restart_kernel(kernel_id)

    async def shutdown_kernel(self, kernel_id: str) -> None:
        await self.kernels.shutdown_kernel(kernel_id)

    async def list_kernels(self) -> list[KernelInfo]:
        return await self.kernels.list_kernels()

    async def aclose(self) -> None:
        await self.kernels.aclose()
