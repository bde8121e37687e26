"""A notebook's shared document (jupyter-ydoc's YNotebook, the schema JupyterLab uses) read as an
nbformat 4 dict, and the tools' changes applied to it (no I/O).

A tool edits a copy of the notebook as it read it (`before`), and `apply` turns the difference
between that and the edited copy (`after`) into changes of the document as it is now, by cell
id: cells the tool did not touch are not written, a new cell goes after the cell that preceded
it in the tool's copy, and a source edit replaces only the span it changed. What others did
meanwhile (a person typing, inserting, moving cells) stays.
"""

from __future__ import annotations

import copy
from typing import Any

from jupyter_ydoc import YNotebook
from jupyter_ydoc.utils import cast_all
from pycrdt import Array, Map, Text

from ..notebook_model import new_cell_id
from .text import byte_span, changed_span, rebase

MISSING = object()
YMap = Map[Any]


def _plain(value: Any) -> dict[str, Any]:
    """A map read from the document as a dict, its numbers as nbformat has them (Yjs stores floats)."""
    return dict(cast_all(dict(value or {}), float, int))


def read(notebook: YNotebook) -> dict[str, Any]:
    """The document as an nbformat 4 notebook, every cell with its id (also below nbformat 4.5)."""
    meta = _plain(notebook.ydoc.get("meta", type=Map).to_py())
    return {
        "nbformat": int(meta.get("nbformat", 4)),
        "nbformat_minor": int(meta.get("nbformat_minor", 5)),
        "metadata": meta.get("metadata") or {},
        "cells": [cell_of(ycell) for ycell in notebook.ycells],
    }


def cell_of(ycell: YMap) -> dict[str, Any]:
    """One cell as nbformat has it: less what only the shared document keeps (execution_state, trusted)."""
    cell = _plain(ycell.to_py())
    cell.pop("execution_state", None)
    metadata = dict(cell.get("metadata") or {})
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


def give_ids(notebook: YNotebook) -> bool:
    """Give every cell without an id, or with one an earlier cell has, an id of its own, in the
    document (so the next reader sees it too); True when one changed."""
    seen: set[str] = set()
    changed = False
    for ycell in notebook.ycells:
        cell_id = ycell.get("id")
        if not isinstance(cell_id, str) or not cell_id or cell_id in seen:
            cell_id = new_cell_id()
            ycell["id"] = cell_id
            changed = True
        seen.add(cell_id)
    return changed


def find(notebook: YNotebook, cell_id: str) -> int | None:
    """The index of the cell with `cell_id` in the document now."""
    for index, ycell in enumerate(notebook.ycells):
        if ycell.get("id") == cell_id:
            return index
    return None


def apply(notebook: YNotebook, before: dict[str, Any], after: dict[str, Any]) -> None:
    """Make in `notebook` the changes that turned `before` into `after` (call it in a transaction).

    One pass over the document finds the cells to change, one more the cells to take out (deleted,
    or moved); only the cells put in look for their place one by one. An edit to a big notebook
    costs about what it changes."""
    _apply_meta(notebook, before, after)
    old = {cell["id"]: cell for cell in before["cells"]}
    new = {cell["id"]: cell for cell in after["cells"]}
    ycells = notebook.ycells
    order = [cell["id"] for cell in after["cells"]]
    staying = _in_order([cell_id for cell_id in order if cell_id in old], [cell["id"] for cell in before["cells"]])
    changed = [cell_id for cell_id in staying if old[cell_id] != new[cell_id]]
    if changed:
        where = _positions(notebook)
        for cell_id in changed:
            index = where.get(cell_id)
            if index is not None and not _update(ycells[index], old[cell_id], new[cell_id]):
                ycells[index] = notebook.create_ycell(new[cell_id])
    leaving = [cell_id for cell_id in old if cell_id not in staying]  # deleted, or moved (put back below)
    gone: set[str] = set()
    if leaving:
        where = _positions(notebook)
        gone = {cell_id for cell_id in leaving if cell_id not in where}  # someone else deleted it meanwhile
        for index in sorted((where[cell_id] for cell_id in leaving if cell_id in where), reverse=True):
            del ycells[index]
    for position, cell_id in enumerate(order):
        if cell_id in staying or cell_id in gone:
            continue  # a moved cell deleted by someone else meanwhile is not brought back
        ycells.insert(_after_predecessor(notebook, order, position), notebook.create_ycell(new[cell_id]))


def _positions(notebook: YNotebook) -> dict[str, int]:
    """Each cell id's index in the document now (the first, for a repeated id)."""
    where: dict[str, int] = {}
    for index, ycell in enumerate(notebook.ycells):
        where.setdefault(ycell.get("id"), index)
    return where


def _in_order(now: list[str], was: list[str]) -> set[str]:
    """The cells of `now` that keep their order from `was` (a longest increasing subsequence):
    the others are the ones that moved."""
    rank = {cell_id: index for index, cell_id in enumerate(was)}
    tails: list[int] = []  # tails[k]: index into `now` of the smallest tail of an increasing run of length k + 1
    previous: list[int] = [-1] * len(now)
    for index, cell_id in enumerate(now):
        low, high = 0, len(tails)
        while low < high:
            middle = (low + high) // 2
            if rank[now[tails[middle]]] < rank[cell_id]:
                low = middle + 1
            else:
                high = middle
        previous[index] = tails[low - 1] if low else -1
        if low == len(tails):
            tails.append(index)
        else:
            tails[low] = index
    kept: set[str] = set()
    index = tails[-1] if tails else -1
    while index >= 0:
        kept.add(now[index])
        index = previous[index]
    return kept


def _after_predecessor(notebook: YNotebook, order: list[str], position: int) -> int:
    """Where the cell at `position` of the tool's order goes now: right after the nearest cell
    before it (in that order) that the document still has; first when there is none."""
    for earlier in reversed(order[:position]):
        index = find(notebook, earlier)
        if index is not None:
            return index + 1
    return 0


def _update(ycell: YMap, old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Change `ycell` from `old` to `new` key by key; False when it must be replaced whole."""
    if old.get("cell_type") != new.get("cell_type"):
        return False
    for key in set(old) | set(new):
        was, wanted = old.get(key, MISSING), new.get(key, MISSING)
        if was == wanted:
            continue
        current = ycell.get(key)
        if key == "source" and isinstance(current, Text) and isinstance(was, str) and isinstance(wanted, str):
            edit_text(current, was, wanted)
        elif key == "metadata" and isinstance(current, Map) and isinstance(was, dict) and isinstance(wanted, dict):
            _update_map(current, was, wanted)
        elif key == "outputs" and isinstance(wanted, list):
            set_outputs(ycell, wanted)
        elif wanted is MISSING:
            del ycell[key]
        else:
            ycell[key] = _shared(key, wanted)
    return True


def _shared(key: str, value: Any) -> Any:
    """A cell value as the schema stores it: the source as a text, metadata as a map."""
    if key == "source":
        return Text("".join(value) if isinstance(value, list) else value)
    if key == "metadata" and isinstance(value, dict):
        return Map(value)
    return value


def edit_text(text: Text, seen: str, wanted: str) -> None:
    """Turn `seen` into `wanted` in `text` by the one span that differs, kept clear of what others
    changed in `text` since `seen` was read."""
    span = changed_span(seen, wanted)
    if span is None:
        return
    now = str(text)
    span = rebase(span, seen, now)
    start, end = byte_span(now, span)
    if end > start:
        del text[start:end]
    if span.replacement:
        text.insert(start, span.replacement)


def _update_map(ymap: YMap, was: dict[str, Any], wanted: dict[str, Any]) -> None:
    for key in set(was) | set(wanted):
        if key not in wanted:
            if key in ymap:
                del ymap[key]
        elif was.get(key, MISSING) != wanted[key]:
            ymap[key] = wanted[key]


def _apply_meta(notebook: YNotebook, before: dict[str, Any], after: dict[str, Any]) -> None:
    ymeta = notebook.ydoc.get("meta", type=Map)
    for key in ("nbformat", "nbformat_minor"):
        if before.get(key) != after.get(key):
            ymeta[key] = after[key]
    if before.get("metadata") != after.get("metadata"):
        current = ymeta.get("metadata")
        if isinstance(current, Map):
            _update_map(current, before.get("metadata") or {}, after.get("metadata") or {})
        else:
            ymeta["metadata"] = Map(copy.deepcopy(after.get("metadata") or {}))


def shared_output(output: dict[str, Any]) -> YMap:
    """An nbformat output as the schema stores it: a map, a stream's text as a shared text (it grows)."""
    value = copy.deepcopy(output)
    if value.get("output_type") == "stream":
        text = value.get("text", "")
        value["text"] = Text("".join(text) if isinstance(text, list) else text)
    return Map(value)


def set_outputs(ycell: YMap, outputs: list[dict[str, Any]]) -> None:
    youtputs = ycell.get("outputs")
    if not isinstance(youtputs, Array):
        ycell["outputs"] = Array([shared_output(o) for o in outputs])
        return
    youtputs.clear()
    youtputs.extend([shared_output(o) for o in outputs])


class RunningCell:
    """A run's outputs written into the cell with `cell_id` as they come: a new output appended, a
    stream's new text appended to its shared text, everything rewritten after a clear_output.

    The cell is found by id at every write, wherever people moved it. When it is gone, nothing
    is written anywhere (`gone`)."""

    def __init__(self, cell_id: str) -> None:
        self.cell_id = cell_id
        self.gone = False
        self._written: list[tuple[dict[str, Any], int]] = []  # the run's own output dicts, and a stream's text length written

    def _cell(self, notebook: YNotebook) -> YMap | None:
        index = None if self.gone else find(notebook, self.cell_id)
        if index is None:
            self.gone = True
            return None
        ycell: YMap = notebook.ycells[index]
        return ycell

    def begin(self, notebook: YNotebook) -> None:
        """As JupyterLab starts a run: no outputs, no execution count, running."""
        ycell = self._cell(notebook)
        if ycell is None:
            return
        set_outputs(ycell, [])
        ycell["execution_count"] = None
        ycell["execution_state"] = "running"

    def update(self, notebook: YNotebook, outputs: list[dict[str, Any]], execution_count: int | None) -> None:
        """The outputs so far; the execution count waits for the end, as in JupyterLab (its prompt shows [*] until then)."""
        ycell = self._cell(notebook)
        if ycell is None:
            return
        youtputs = ycell.get("outputs")
        written = self._written
        rewrite = (
            not isinstance(youtputs, Array) or len(youtputs) != len(written) or len(outputs) < len(written)
            or any(outputs[i] is not output for i, (output, _) in enumerate(written))
        )
        if rewrite:
            set_outputs(ycell, outputs)
        else:
            assert isinstance(youtputs, Array)
            if written:
                last, length = written[-1]
                text = last.get("text") if last.get("output_type") == "stream" else None
                ytext = youtputs[len(written) - 1].get("text")
                if isinstance(text, str) and len(text) > length and isinstance(ytext, Text):
                    ytext += text[length:]
            youtputs.extend([shared_output(o) for o in outputs[len(written):]])
        self._written = [(o, len(o["text"]) if o.get("output_type") == "stream" else 0) for o in outputs]

    def end(self, notebook: YNotebook) -> None:
        ycell = self._cell(notebook)
        if ycell is not None:
            ycell["execution_state"] = "idle"
