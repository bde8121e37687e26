"""A document's cells as last read, kept from one read to the next (no I/O)."""

from __future__ import annotations

from typing import Any

from jupyter_ydoc import YNotebook

from .as_nbformat import cell_of, read_cells
from .cell_ids import lacking_ids

REREAD_SHARE = 8  # when more than one cell in this many changed, ReadCells reads them all again in one pass


class ReadCells:
    """A document's cells as last read, and their ids, kept from one read to the next: a read converts again
    only the cells that changed since, so what a read costs follows what changed, not the notebook's length
    (`python -m bench.notebook_size --live`).

    `changed` hears of every transaction (the document's deep observer of its cells, ours and everyone
    else's alike): the cells array's own event says where cells were put in and taken out, and any deeper
    one names, first in its path, the index of the cell it changed (after the transaction). A read checks
    the count against the document's, and reads everything again when they differ or when this cannot
    follow an event: a cell is never served from before its last change.

    The cells are frozen, and handed out as they are to every reader. The ids are kept apart so that what
    needs only them (where a cell is, whether one lacks an id) does not go through 5,000 dicts."""

    def __init__(self) -> None:
        self._cells: list[dict[str, Any] | None] | None = None  # None: nothing kept; a None slot: a cell to read again
        self._ids: list[Any] = []  # the id of each cell kept (None for one to read again, or without one)
        self._stale = bytearray()  # 1 for each cell to read again: found without going through the dicts
        self._lacking: list[int] | None = None  # lacking_ids of the cells kept, until they change
        self._changed = False  # since the last read: then look for the cells to read again

    def forget(self) -> None:
        """Another document (or a new history of it): read everything again."""
        self._cells = self._lacking = None

    def changed(self, events: list[Any]) -> None:
        self._lacking, self._changed = None, True
        cells, ids, stale = self._cells, self._ids, self._stale
        if cells is None:
            return
        try:
            touched = []
            for event in events:
                if event.path:
                    touched.append(event.path[0])
                else:  # the cells array itself: its delta in order, what is kept, taken out, put in
                    at = 0
                    for step in event.delta:
                        if "retain" in step:
                            at += step["retain"]
                        elif "delete" in step:
                            del cells[at:at + step["delete"]], ids[at:at + step["delete"]], stale[at:at + step["delete"]]
                        else:
                            count = len(step["insert"])
                            cells[at:at] = ids[at:at] = [None] * count
                            stale[at:at] = b"\x01" * count
                            at += count
            for index in touched:
                cells[index] = ids[index] = None
                stale[index] = 1
        except (AttributeError, IndexError, KeyError, TypeError):
            self._cells = None

    def read(self, notebook: YNotebook) -> list[dict[str, Any]]:
        """The document's cells now: the list kept here, until the document changes (do not change it)."""
        cells = self._cells
        ycells = notebook.ycells
        if cells is not None and not self._changed and len(cells) == len(ycells):
            return cells  # type: ignore[return-value]  # no None left
        stale = self._stale.count(1) if cells is not None and len(cells) == len(ycells) else len(ycells) + 1
        if stale * REREAD_SHARE > len(ycells):
            cells = self._cells = read_cells(notebook)  # type: ignore[assignment]
            self._ids = [cell.get("id") for cell in cells]  # type: ignore[union-attr]
            self._stale = bytearray(len(cells))  # type: ignore[arg-type]
        else:
            index = -1
            for _ in range(stale):
                index = self._stale.find(1, index + 1)
                cell = cells[index] = cell_of(ycells[index])  # type: ignore[index]
                self._ids[index] = cell.get("id")
                self._stale[index] = 0
        self._changed = False
        return cells  # type: ignore[return-value]

    def ids(self, notebook: YNotebook) -> list[Any]:
        """The id of each cell now, in order (the list kept here: do not change it)."""
        self.read(notebook)
        return self._ids

    def lacking_ids(self, notebook: YNotebook) -> list[int]:
        """`lacking_ids` of the cells now, looked for again only after a change."""
        if self._lacking is None:
            self._lacking = lacking_ids(self.ids(notebook))
        return self._lacking

