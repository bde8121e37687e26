"""A notebook's shared document (jupyter-ydoc's YNotebook, the schema JupyterLab uses) read as an
nbformat 4 dict, and the tools' changes applied to it (no I/O).

A tool edits a copy of the notebook as it read it (`before`), and `apply` turns the difference
between that and the edited copy (`after`) into changes of the document as it is now, by cell
id: cells the tool did not touch are not written, a new cell goes after the cell that preceded
it in the tool's copy, and a source edit replaces only the span it changed. What others did
meanwhile (a person typing, inserting, moving cells) stays.

The cells as read are kept between calls (ReadCells, told of every change by the document's observer)
and frozen (FrozenDict), so that readers share them and an edit copies only the cells it takes
(EditedCells): with 5,000 cells, converting, copying and comparing them all took a second per call.
"""

from __future__ import annotations

import bisect
import contextlib
import copy
import re
from typing import Any

import orjson
from jupyter_ydoc import YNotebook
from jupyter_ydoc.utils import cast_all
from pycrdt import Array, Map, Text

from ...protocol.errors import ToolError
from ..notebook_format import check
from ..notebook_json import thaw
from ..notebook_model import new_cell_id
from .text import byte_span, changed_span, rebase

MISSING = object()
YMap = Map[Any]
REREAD_SHARE = 8  # when more than one cell in this many changed, ReadCells reads them all again in one pass
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
    cells as read already (ReadCells), else read here. The cell dicts are the ones read: change a copy."""
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


def cell_of(ycell: YMap) -> dict[str, Any]:
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
    the plain ones), some five times faster than a deep copy."""
    return thaw(orjson.dumps(value))


def check_edited(notebook: dict[str, Any]) -> None:
    """notebook_format.check of an edited notebook (EditedCells), judging again only what the edit may have
    changed. nbformat's schema judges each cell on its own: a frozen cell (one as read, that the edit did not
    take) it judged valid in a 4.5 notebook is valid in any other, and only the rest of the notebook is judged
    again. What it judges across cells, that each has an id and no id repeats, is looked at over all of them.
    Anything else (another version, an id missing or repeated, a cell refused) is judged whole, as before,
    so that the verdict and its message are the same. 5,000 cells: 1.4-2 ms instead of 3 to 5 (docs/performance.md)."""
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


def editable(before: dict[str, Any]) -> dict[str, Any]:
    """The notebook a tool changes, from `before` as read (`read`): its metadata a plain copy, its cells EditedCells."""
    return {**before, "metadata": thawed(before["metadata"]), "cells": EditedCells(before["cells"])}


class EditedCells(list[dict[str, Any]]):
    """The cells of a notebook being edited (NotebookEdits.editing): the frozen ones read, shared with every reader,
    each replaced by a plain copy the first time it is taken by index (`cells[i]`, as a tool takes the cell it
    changes). A cell reached otherwise (in a loop, by `pop`) is still frozen: changing it raises TypeError.

    So an edit copies only the cells it takes, and `apply` compares only those: the others are the very
    dicts read (an identity check), where copying and comparing all 5,000 of a big notebook costs some 15 ms."""

    def __getitem__(self, key: Any) -> Any:
        value = super().__getitem__(key)
        if isinstance(value, FrozenDict):
            value = thawed(value)
            super().__setitem__(key, value)
        return value


class ReadCells:
    """A document's cells as last read, and their ids, kept from one read to the next: a read converts again
    only the cells that changed since. Reading 5,000 cells costs some 30 ms; one, a few microseconds.

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


def _ids_of(notebook: YNotebook) -> list[Any]:
    return [cell.get("id") for cell in read_cells(notebook)]


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
    lacking = lacking_ids(ids if ids is not None else _ids_of(notebook))
    for index in lacking:
        notebook.ycells[index]["id"] = new_cell_id()
    return bool(lacking)


def find(notebook: YNotebook, cell_id: str, ids: list[Any] | None = None) -> int | None:
    """The index of the cell with `cell_id` in the document now; `ids`: its cells' ids, as read already."""
    return _index(ids if ids is not None else _ids_of(notebook), cell_id)


def apply(notebook: YNotebook, before: dict[str, Any], after: dict[str, Any], ids: list[Any] | None = None) -> str | None:
    """Make in `notebook` the changes that turned `before` into `after` (call it in a transaction); `ids`:
    the document's cell ids now, in order, as read already (ReadCells), else read here. Returns the id of a cell
    the edit changed, else of one it put in (where people see the agent at work); None when it only deleted cells
    or changed the metadata.

    The cells to change are the ones of `after` that are not those of `before` (EditedCells) and differ;
    their places in the document, from `ids`, kept up to date as cells are taken out and put in: pycrdt
    finds a document's i-th cell by walking from the first, so the document is only ever indexed at the
    cells changed. An edit to a big notebook costs about what it changes."""
    _apply_meta(notebook, before, after)
    old = {cell["id"]: cell for cell in before["cells"]}
    new = {cell["id"]: cell for cell in after["cells"]}
    ycells = notebook.ycells
    ids = list(ids) if ids is not None else _ids_of(notebook)  # the document's, in order, changed here as the document is
    # Each cell's id in order (the dicts' keys, when no id repeats: the 5,000 cells are not gone through again).
    order = list(new) if len(new) == len(after["cells"]) else [cell["id"] for cell in after["cells"]]
    was = list(old) if len(old) == len(before["cells"]) else [cell["id"] for cell in before["cells"]]
    staying = _in_order([cell_id for cell_id in order if cell_id in old], was)
    # A cell the edit did not take is the very dict read (EditedCells): the identity check spares comparing it.
    changed = [cell_id for cell_id, cell in new.items()
               if cell_id in staying and cell is not old[cell_id] and cell != old[cell_id]]
    for cell_id in changed:
        index = _index(ids, cell_id)
        if index is not None and not _update(ycells[index], old[cell_id], new[cell_id]):
            ycells[index] = notebook.create_ycell(new[cell_id])
    leaving = [cell_id for cell_id in old if cell_id not in staying] if len(staying) < len(old) else []  # deleted, or moved
    gone: set[str] = set()
    if leaving:
        where = _positions(ids)
        gone = {cell_id for cell_id in leaving if cell_id not in where}  # someone else deleted it meanwhile
        for index in sorted((where[cell_id] for cell_id in leaving if cell_id in where), reverse=True):
            del ycells[index]
            del ids[index]
    # put in: new cells, and moved ones (put back), but not a moved cell someone else deleted meanwhile
    putting = [(position, cell_id) for position, cell_id in enumerate(order) if cell_id not in staying and cell_id not in gone]
    for position, cell_id in putting:
        index = _after_predecessor(ids, order, position)
        ycells.insert(index, notebook.create_ycell(new[cell_id]))
        ids.insert(index, cell_id)
    return next(iter(changed), None) or next((cell_id for _, cell_id in putting if cell_id not in old), None)


def _index(ids: list[Any], cell_id: str) -> int | None:
    """The index of the (first) cell with `cell_id` among the document's `ids`."""
    with contextlib.suppress(ValueError):
        return ids.index(cell_id)
    return None


def _positions(ids: list[Any]) -> dict[Any, int]:
    """Each cell id's index in the document (the first, for a repeated id)."""
    where: dict[Any, int] = {}
    for index, cell_id in enumerate(ids):
        where.setdefault(cell_id, index)
    return where


def _in_order(now: list[str], was: list[str]) -> set[str]:
    """The cells of `now` that keep their order from `was` (a longest increasing subsequence):
    the others are the ones that moved."""
    wanted = set(now)
    if now == [cell_id for cell_id in was if cell_id in wanted]:  # nothing moved (every edit but a move): all stay
        return wanted
    rank = {cell_id: index for index, cell_id in enumerate(was)}
    ranks = [rank[cell_id] for cell_id in now]
    tails: list[int] = []  # tails[k]: index into `now` of the smallest tail of an increasing run of length k + 1
    tail_ranks: list[int] = []  # their ranks, for bisect
    previous: list[int] = [-1] * len(now)
    for index, cell_rank in enumerate(ranks):
        low = bisect.bisect_left(tail_ranks, cell_rank)
        previous[index] = tails[low - 1] if low else -1
        if low == len(tails):
            tails.append(index)
            tail_ranks.append(cell_rank)
        else:
            tails[low] = index
            tail_ranks[low] = cell_rank
    kept: set[str] = set()
    index = tails[-1] if tails else -1
    while index >= 0:
        kept.add(now[index])
        index = previous[index]
    return kept


def _after_predecessor(ids: list[Any], order: list[str], position: int) -> int:
    """Where the cell at `position` of the tool's order goes in the document's `ids`: right after the
    nearest cell before it (in that order) that the document still has; first when there is none."""
    for earlier in reversed(order[:position]):
        index = _index(ids, earlier)
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

    The cell is found by id at every write, wherever people moved it (among the ids `kept` has, when
    given). When it is gone, nothing is written anywhere (`gone`)."""

    def __init__(self, cell_id: str, kept: ReadCells | None = None) -> None:
        self.cell_id = cell_id
        self.gone = False
        self._kept_cells = kept
        self._written: list[tuple[dict[str, Any], int]] = []  # the run's own output dicts, and a stream's text length written

    def _cell(self, notebook: YNotebook) -> YMap | None:
        index = None if self.gone else find(notebook, self.cell_id, self._kept_cells.ids(notebook) if self._kept_cells else None)
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
