"""Pure operations on nbformat 4 notebooks (dicts): find, insert, delete, move, edit cells.

No I/O: the tools read a notebook, apply one of these, and write it back atomically.
Cells carry nbformat 4.5 ids; ids survive edits, so a cell a person edits in JupyterLab
is still found by the id a model saw.
"""

from __future__ import annotations

import uuid
from typing import Any

from ..protocol.errors import ErrorKind, ToolError
from .refusals import Recourse, RuntimeRefusal

CELL_TYPES = ("code", "markdown", "raw")


def new_notebook(kernel: str = "python3", display_name: str = "Python 3", language: str = "python") -> dict[str, Any]:
    """An empty notebook whose metadata names the kernelspec it runs in, as JupyterLab writes it."""
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {"name": kernel, "display_name": display_name, "language": language},
            "language_info": {"name": language},
        },
        "cells": [],
    }


def kernelspec_name(notebook: dict[str, Any]) -> str | None:
    """The kernelspec a notebook's metadata names, if any."""
    spec = (notebook.get("metadata") or {}).get("kernelspec")
    name = spec.get("name") if isinstance(spec, dict) else None
    return name if isinstance(name, str) and name else None


def new_cell_id() -> str:
    return uuid.uuid4().hex[:12]


def ensure_ids(notebook: dict[str, Any]) -> dict[str, Any]:
    """Upgrade to nbformat 4.5 in place: every cell gets an id if it has none."""
    if notebook.get("nbformat_minor", 0) < 5:
        notebook["nbformat_minor"] = 5
    for cell in notebook.get("cells", []):
        if "id" not in cell:  # not setdefault: that would draw a uuid4 for every cell
            cell["id"] = new_cell_id()
    return notebook


def source_text(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def locate(notebook: dict[str, Any], cell_index: int | None = None, cell_id: str | None = None) -> int:
    """The index of the cell named by index or by id; given both, they must name the same cell."""
    if cell_index is None and cell_id is None:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "Name the cell by cell_index or by cell_id (one of them).")
    if cell_index is not None and cell_id is not None:
        by_id = next((i for i, cell in enumerate(notebook["cells"]) if cell.get("id") == cell_id), None)
        if by_id != cell_index:
            where = f"cell {by_id}" if by_id is not None else "no cell"
            raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"cell_index {cell_index} and cell_id {cell_id!r} ({where}) disagree: "
                                                         "name the cell by cell_index or by cell_id (one of them).")
        return by_id
    if cell_id is not None:
        for index, cell in enumerate(notebook["cells"]):
            if cell.get("id") == cell_id:
                return index
        raise RuntimeRefusal(ErrorKind.NOT_FOUND, f"No cell with id {cell_id!r}.", recourse=Recourse.CELL_IDS)
    assert cell_index is not None
    cells = notebook["cells"]
    if not 0 <= cell_index < len(cells):
        raise ToolError(
            ErrorKind.NOT_FOUND,
            f"cell_index {cell_index} is out of range: the notebook has {len(cells)} cells (0 to {len(cells) - 1}).",
        )
    return cell_index


def make_cell(cell_type: str, source: str) -> dict[str, Any]:
    if cell_type not in CELL_TYPES:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"cell_type must be one of {', '.join(CELL_TYPES)}.")
    cell: dict[str, Any] = {"id": new_cell_id(), "cell_type": cell_type, "metadata": {}, "source": source}
    if cell_type == "code":
        cell["outputs"] = []
        cell["execution_count"] = None
    return cell


def insert_cell(notebook: dict[str, Any], index: int, cell: dict[str, Any]) -> int:
    """Insert at `index` (-1 or len appends); returns where it went."""
    cells = notebook["cells"]
    if index == -1:
        index = len(cells)
    if not 0 <= index <= len(cells):
        raise ToolError(ErrorKind.NOT_FOUND, f"cell_index {index} is out of range: insert at 0 to {len(cells)}, or -1 to append.")
    cells.insert(index, cell)
    return index


def move_cell(notebook: dict[str, Any], source: int, target: int) -> None:
    cells = notebook["cells"]
    if not 0 <= target < len(cells):
        raise ToolError(ErrorKind.NOT_FOUND, f"target index {target} is out of range (0 to {len(cells) - 1}).")
    cells.insert(target, cells.pop(source))


def edit_source(cell: dict[str, Any], old: str, new: str, *, replace_all: bool = False) -> int:
    """Replace the one occurrence of `old` (every one with `replace_all`); how many were replaced.
    Refused when there is none, or more than one without `replace_all`."""
    text = source_text(cell)
    count = text.count(old) if old else 0
    if count == 0 or (count > 1 and not replace_all):
        problem = "does not occur" if count == 0 else f"occurs {count} times"
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"old_string {problem} in the cell; give a string that occurs exactly once"
                                                     + ("." if count == 0 else ", or pass replace_all: true to replace all of them."))
    cell["source"] = text.replace(old, new)
    return count


def set_outputs(cell: dict[str, Any], outputs: list[dict[str, Any]], execution_count: int | None) -> None:
    if cell.get("cell_type") != "code":
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "Only code cells have outputs.")
    cell["outputs"] = outputs
    cell["execution_count"] = execution_count
