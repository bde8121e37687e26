"""What the contents do with a notebook's shared document, however it is reached: a copy to edit whose
difference is applied by cell id, a whole notebook put in place, a run's outputs as they come, watchers.

A document says how it is made ready for a change (`_ready`: joined and synced over a websocket, or the
room's document looked up again in process), how a change is made (`change`: one transaction by an
origin) and what follows one (`_settled`: the server's confirmation over a websocket, nothing in process).
It tells `self._kept_cells` (kept_cells.ReadCells) of every change to the cells, and to forget them when the
document is another one, so that a read converts only the cells that changed since the last.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from jupyter_ydoc import YNotebook

from ..notebook_format import check
from ..runtime import Agent, ChangeListener, Origin, OutputsListener, Unwatch
from .apply import apply
from .as_nbformat import read
from .cell_ids import give_ids
from .frozen import check_edited, editable
from .kept_cells import ReadCells
from .running import RunningCell


class NotebookEdits(ABC):
    notebook: YNotebook  # the document as jupyter-ydoc reads it

    def __init__(self) -> None:
        self._listeners: dict[object, ChangeListener] = {}
        self._kept_cells = ReadCells()  # the cells as last read, told of every change by the subclass's observer
        self.closed = False

    @abstractmethod
    def change(self, origin: Origin, make: Callable[[YNotebook], Any]) -> Any:
        """Run `make` on the document in one transaction made by `origin`."""

    @abstractmethod
    async def _ready(self) -> None:
        """Until the document may be read and changed; a ToolError when it cannot be."""

    async def _settled(self) -> None:  # noqa: B027 - a hook: nothing follows a change where the change is the server's at once
        """After a change: until the server holds it; a ToolError when it does not."""

    def present(self, agent: Agent, cell_id: str | None = None) -> None:  # noqa: B027 - a hook: presence where the room is reached
        """`agent` is among the notebook's collaborators, marking cell `cell_id` (None: no cell) until `finished`."""

    def finished(self, agent: Agent) -> None:  # noqa: B027 - a hook, as `present`
        """`agent`'s mark on a cell goes (once people had time to see it); the agent stays until `left` or idle."""

    def left(self, key: str) -> None:  # noqa: B027 - a hook, as `present`
        """The agent of client `key` leaves the notebook's collaborators."""

    def _with_ids(self, origin: Origin) -> list[dict[str, Any]]:
        """The cells now, every one with an id of its own (given here, once, if it lacked one)."""
        if self._kept_cells.lacking_ids(self.notebook):
            self.change(origin, lambda notebook: give_ids(notebook, self._kept_cells.ids(notebook)))
        return self._kept_cells.read(self.notebook)

    def read(self) -> dict[str, Any]:
        """The notebook as nbformat 4, every cell with an id of its own. Its cells are the ones kept for the next
        readers, frozen (frozen.FrozenDict): a caller that would change one changes a copy."""
        return read(self.notebook, self._with_ids(None))

    @asynccontextmanager
    async def editing(self, origin: Origin, agent: Agent | None = None) -> AsyncIterator[dict[str, Any]]:
        """The notebook to change (its cells copied as the block takes them: frozen.EditedCells); the difference
        is applied when the block succeeds, then settled. `agent` is seen on the first cell the edit changed."""
        await self._ready()
        before = read(self.notebook, self._with_ids(origin))
        after = editable(before)
        yield after
        check_edited(after)
        await self._ready()
        now = self._kept_cells.ids(self.notebook)  # with what others did meanwhile
        edited = self.change(origin, lambda notebook: apply(notebook, before, after, now))
        if agent is not None:
            self.present(agent, edited)
            self.finished(agent)
        await self._settled()

    async def replace(self, notebook: dict[str, Any]) -> None:
        """Make the document `notebook` (as write_notebook does), by cell id: cells that are the same stay as they are."""
        check(notebook)
        await self._ready()
        before = read(self.notebook, self._kept_cells.read(self.notebook))
        now = self._kept_cells.ids(self.notebook)
        self.change(None, lambda live: apply(live, before, notebook, now))
        await self._settled()

    @asynccontextmanager
    async def running(self, cell_id: str, origin: Origin, agent: Agent | None = None) -> AsyncIterator[OutputsListener]:
        """Where a run of `cell_id` writes its outputs as they come; `agent` is seen on the cell while it runs."""
        await self._ready()
        run = RunningCell(cell_id, self._kept_cells)
        self.change(origin, run.begin)
        if agent is not None:
            self.present(agent, cell_id)

        def write(outputs: list[dict[str, Any]], execution_count: int | None) -> None:
            if not run.gone:
                self.change(origin, lambda notebook: run.update(notebook, outputs, execution_count))

        try:
            yield write
        finally:
            if not run.gone and not self.closed:
                self.change(origin, run.end)
            if agent is not None:
                self.finished(agent)

    def watch(self, listener: ChangeListener) -> Unwatch:
        token = object()
        self._listeners[token] = listener

        async def unwatch() -> None:
            self._listeners.pop(token, None)

        return unwatch

    @property
    def watched(self) -> bool:
        return bool(self._listeners)

    def _tell(self, origin: Origin) -> None:
        """The notebook changed (by `origin`, when it was ours): every watcher hears of it."""
        for listener in list(self._listeners.values()):
            listener(origin)
