"""The cells as read from a shared document, frozen so that every reader shares them and an edit copies only the
cells it takes (no I/O).

The constraint they serve: a document's cells are kept between calls (kept_cells.ReadCells) and handed to every
reader as they are, and `apply` tells the cells an edit changed from the others by identity (a cell not taken is
the very dict read). A reader that changed a shared cell in place would change every later reader's copy, and an
edit that changed one it did not take would go unwritten. Frozen, either raises TypeError instead. The copy per
read and the whole compare per edit this spares are measured by `make bench` (bench/notebook_size.py, "frozen
cells"); the figures are in docs/performance.md.
"""

from __future__ import annotations

import contextlib
from typing import Any

import orjson

from ...protocol.errors import ToolError
from ..notebook_format import check
from ..notebook_json import thaw
from .cell_ids import lacking_ids


def _refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
    raise TypeError("This cell, as read from the notebook's shared document, is shared with every reader of it and "
                    "cannot be changed: in an edit, take the cell by index (notebook['cells'][i]) to change it, or change a copy.")


class FrozenDict(dict[str, Any]):
    """A dict of a cell as read: read as any dict, refusing every change. A copy (copy.copy, copy.deepcopy,
    `thawed`) is plain and can be changed; pickled, it is a plain dict."""

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse
    judged = False  # valid by nbformat 4.5's schema (check_edited)

    def __copy__(self) -> dict[str, Any]:
        return thawed(self)  # type: ignore[no-any-return]

    def __deepcopy__(self, memo: Any) -> dict[str, Any]:
        return thawed(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> Any:
        return dict, (dict(self),)


class FrozenList(list[Any]):
    """A list of a cell as read (its outputs, say), refusing every change, as FrozenDict."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __copy__(self) -> list[Any]:
        return thawed(self)  # type: ignore[no-any-return]

    def __deepcopy__(self, memo: Any) -> list[Any]:
        return thawed(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> Any:
        return list, (list(self),)


def frozen(value: Any) -> Any:
    """`value` (as read from JSON), its dicts and lists frozen all the way down."""
    if type(value) is dict:
        return FrozenDict({key: frozen(item) for key, item in value.items()})
    if type(value) is list:
        return FrozenList([frozen(item) for item in value])
    return value


def thawed(value: Any) -> Any:
    """A plain copy, to change, of what was read: a parse of its compact JSON (orjson writes the frozen types as
    the plain ones), faster than a deep copy (bench/notebook_size.py, "frozen cells")."""
    return thaw(orjson.dumps(value))


def editable(before: dict[str, Any]) -> dict[str, Any]:
    """The notebook a tool changes, from `before` as read (as_nbformat.read): its metadata a plain copy, its cells EditedCells."""
    return {**before, "metadata": thawed(before["metadata"]), "cells": EditedCells(before["cells"])}


class EditedCells(list[dict[str, Any]]):
    """The cells of a notebook being edited (NotebookEdits.editing): the frozen ones read, shared with every reader,
    each replaced by a plain copy the first time it is taken by index (`cells[i]`, as a tool takes the cell it
    changes). A cell reached otherwise (in a loop, by `pop`) is still frozen: changing it raises TypeError.

    So an edit copies only the cells it takes, and `apply` compares only those: the others are the very dicts read."""

    def __getitem__(self, key: Any) -> Any:
        value = super().__getitem__(key)
        if isinstance(value, FrozenDict):
            value = thawed(value)
            super().__setitem__(key, value)
        return value


def check_edited(notebook: dict[str, Any]) -> None:
    """notebook_format.check of an edited notebook (EditedCells), judging again only what the edit may have
    changed. nbformat's schema judges each cell on its own: a frozen cell (one as read, that the edit did not
    take) it judged valid in a 4.5 notebook is valid in any other, and only the rest of the notebook is judged
    again. What it judges across cells, that each has an id and no id repeats, is looked at over all of them.
    Anything else (another version, an id missing or repeated, a cell refused) is judged whole, so that the
    verdict and its message are the same."""
    every = notebook.get("cells")
    if notebook.get("nbformat") == 4 and notebook.get("nbformat_minor") == 5 and isinstance(every, list) and not lacking_ids(
            [cell.get("id") if isinstance(cell, dict) else None for cell in every]):
        rest = [cell for cell in every if not getattr(cell, "judged", False)]
        with contextlib.suppress(ToolError):  # judged whole below, for nbformat's verdict and words
            if check({**notebook, "cells": rest}):  # the schema alone judged them valid
                for cell in rest:
                    if isinstance(cell, FrozenDict):
                        cell.judged = True
                return
    check(notebook)
