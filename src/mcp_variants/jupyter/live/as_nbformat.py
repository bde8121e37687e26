"""A notebook's shared document (jupyter-ydoc's YNotebook, the schema JupyterLab uses) read as an nbformat 4 dict,
its cells frozen (live/frozen.py), with no I/O."""

from __future__ import annotations

import re
from typing import Any

import orjson
from jupyter_ydoc import YNotebook
from jupyter_ydoc.utils import cast_all
from pycrdt import Array, Map

from .frozen import frozen

EXPONENT = re.compile(r"\de\+")


def _from_json(shared: Map[Any] | Array[Any]) -> Any:
    """A map or array of the document as Python values, through its JSON (`str()`, made in Rust in one pass):
    ten times faster than pycrdt's `to_py`, and linear for an array, where `to_py` (and any loop over one)
    finds each item by walking from the first. Yjs keeps numbers as floats, and its JSON writes a whole one
    as an integer but in exponent form (1e+20): those jupyter-ydoc's `cast_all` makes integers, as it does
    for the document's readers. (A NaN or an infinity, which no notebook file holds, reads as null.)"""
    text = str(shared)
    value = orjson.loads(text)
    if EXPONENT.search(text):  # or a string that looks like one: then only slower
        cast_all(value, float, int)
    return value


def read(notebook: YNotebook, now: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The document as an nbformat 4 notebook, every cell with its id (also below nbformat 4.5); `now`: its
    cells as read already (kept_cells.ReadCells), else read here. The cell dicts are the ones read: change a copy."""
    meta = _from_json(notebook.ydoc.get("meta", type=Map))
    return {
        "nbformat": int(meta.get("nbformat", 4)),
        "nbformat_minor": int(meta.get("nbformat_minor", 5)),
        "metadata": meta.get("metadata") or {},
        "cells": list(now if now is not None else read_cells(notebook)),
    }


def read_cells(notebook: YNotebook) -> list[dict[str, Any]]:
    """Every cell as nbformat has it (frozen), in one pass."""
    return [frozen(_as_nbformat(cell)) for cell in _from_json(notebook.ycells)]


def cell_of(ycell: Map[Any]) -> dict[str, Any]:
    """One cell as nbformat has it (frozen)."""
    return frozen(_as_nbformat(_from_json(ycell)))  # type: ignore[no-any-return]


def _as_nbformat(cell: dict[str, Any]) -> dict[str, Any]:
    """A cell read from the document, less what only the shared document keeps (execution_state, trusted)."""
    cell.pop("execution_state", None)
    metadata = cell.get("metadata") or {}
    metadata.pop("trusted", None)
    cell["metadata"] = metadata
    cell["source"] = cell.get("source") or ""
    if cell.get("cell_type") == "code":
        cell.setdefault("outputs", [])
        cell.setdefault("execution_count", None)
    else:
        cell.pop("outputs", None)
        cell.pop("execution_count", None)
        if not cell.get("attachments", True):
            del cell["attachments"]
    return cell
