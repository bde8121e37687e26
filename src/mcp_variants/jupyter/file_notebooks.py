"""What the Contents that keep notebooks as files share (the embedded runtime's folder, a Jupyter
server without real-time collaboration): an edit reads the whole notebook and writes it back
whole; a run's outputs are written once, at its end; a change is seen when it is made through
this process."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from .notebook_model import ensure_ids
from .runtime import Agent, ChangeListener, Origin, OutputsListener, Unwatch


class FileNotebooks(ABC):
    """A Contents whose notebooks are files; subclasses read and write them."""

    def __init__(self) -> None:
        self._listeners: dict[str, dict[object, ChangeListener]] = {}  # path → token → listener

    @abstractmethod
    async def read_notebook(self, path: str) -> dict[str, Any]: ...

    @abstractmethod
    async def _write(self, path: str, notebook: dict[str, Any]) -> None:
        """Replace the file whole (atomically), validated."""

    async def write_notebook(self, path: str, notebook: dict[str, Any]) -> None:
        await self._write(path, notebook)
        self._changed(path, None)

    async def _read_for_edit(self, path: str) -> tuple[dict[str, Any], object]:
        """The notebook, and its version as read: what `_check_unchanged` compares before the edit is written."""
        return await self.read_notebook(path), None

    async def _check_unchanged(self, path: str, version: object) -> None:  # noqa: B027 - a hook, empty where nothing can change
        """Raise ToolError(CONFLICT) when the notebook is no longer at `version`: someone else saved it meanwhile.
        Files under one process's lock cannot change under it: nothing to check."""

    @asynccontextmanager
    async def edit_notebook(self, path: str, *, origin: Origin, agent: Agent | None = None) -> AsyncIterator[dict[str, Any]]:
        notebook, version = await self._read_for_edit(path)
        notebook = ensure_ids(notebook)
        yield notebook
        await self._check_unchanged(path, version)
        await self._write(path, notebook)
        self._changed(path, origin)

    @asynccontextmanager
    async def running_cell(self, path: str, cell_id: str, *, origin: Origin,
                           agent: Agent | None = None) -> AsyncIterator[OutputsListener | None]:
        yield None

    async def agent_left(self, key: str) -> None:  # noqa: B027 - nothing to do: nobody sees an agent in a file
        """Nobody sees an agent in a file."""

    async def watch(self, path: str, listener: ChangeListener) -> Unwatch:
        token = object()
        self._listeners.setdefault(path, {})[token] = listener

        async def unwatch() -> None:
            listeners = self._listeners.get(path, {})
            listeners.pop(token, None)
            if not listeners:
                self._listeners.pop(path, None)

        return unwatch

    def _changed(self, path: str, origin: Origin) -> None:
        for listener in list(self._listeners.get(path, {}).values()):
            listener(origin)

    async def aclose(self) -> None:
        self._listeners.clear()
