"""Where a shared document's cells are, by id: which lack one, giving them one, finding one (no I/O).

pycrdt finds an array's i-th item by walking from the first, so the ids are read in one pass (the cells
array's JSON) or taken as read already (kept_cells.ReadCells), and the document is indexed only at a cell found."""

from __future__ import annotations

import contextlib
from typing import Any

import orjson
from jupyter_ydoc import YNotebook

from ..notebook_model import new_cell_id


def ids_of(notebook: YNotebook) -> list[Any]:
    """The id of each cell in the document now, in order, in one pass."""
    return [cell.get("id") for cell in orjson.loads(str(notebook.ycells))]


def lacking_ids(ids: list[Any]) -> list[int]:
    """The indices of the cells (by their `ids`, in order) without an id, or with one an earlier cell has."""
    unique = set(ids)
    if len(unique) == len(ids) and "" not in unique and set(map(type, unique)) <= {str}:
        return []  # as nearly always (found without a Python loop)
    seen: set[str] = set()
    lacking = []
    for index, cell_id in enumerate(ids):
        if not isinstance(cell_id, str) or not cell_id or cell_id in seen:
            lacking.append(index)
        else:
            seen.add(cell_id)
    return lacking


def give_ids(notebook: YNotebook, ids: list[Any] | None = None) -> bool:
    """Give every cell without an id, or with one an earlier cell has, an id of its own, in the
    document (so the next reader sees it too); True when one changed. `ids`: the cells' ids, as read already."""
    lacking = lacking_ids(ids if ids is not None else ids_of(notebook))
    for index in lacking:
        notebook.ycells[index]["id"] = new_cell_id()
    return bool(lacking)


def find(notebook: YNotebook, cell_id: str, ids: list[Any] | None = None) -> int | None:
    """The index of the cell with `cell_id` in the document now; `ids`: its cells' ids, as read already."""
    return index_of(ids if ids is not None else ids_of(notebook), cell_id)


def index_of(ids: list[Any], cell_id: str) -> int | None:
    """The index of the (first) cell with `cell_id` among the document's `ids`."""
    with contextlib.suppress(ValueError):
        return ids.index(cell_id)
    return None


def positions(ids: list[Any]) -> dict[Any, int]:
    """Each cell id's index in the document (the first, for a repeated id)."""
    where: dict[Any, int] = {}
    for index, cell_id in enumerate(ids):
        where.setdefault(cell_id, index)
    return where
