"""The tools' changes applied to a notebook's shared document (no I/O).

A tool edits a copy of the notebook as it read it (`before`), and `apply` turns the difference
between that and the edited copy (`after`) into changes of the document as it is now, by cell
id: cells the tool did not touch are not written, a new cell goes after the cell that preceded
it in the tool's copy, and a source edit replaces only the span it changed. What others did
meanwhile (a person typing, inserting, moving cells) stays.
"""

from __future__ import annotations

import bisect
import copy
from typing import Any

from jupyter_ydoc import YNotebook
from pycrdt import Map, Text

from .cell_ids import ids_of, index_of, positions
from .running import set_outputs
from .text_spans import byte_span, changed_span, rebase

MISSING = object()
YMap = Map[Any]


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
    ids = list(ids) if ids is not None else ids_of(notebook)  # the document's, in order, changed here as the document is
    # Each cell's id in order (the dicts' keys, when no id repeats: the 5,000 cells are not gone through again).
    order = list(new) if len(new) == len(after["cells"]) else [cell["id"] for cell in after["cells"]]
    was = list(old) if len(old) == len(before["cells"]) else [cell["id"] for cell in before["cells"]]
    staying = _in_order([cell_id for cell_id in order if cell_id in old], was)
    # A cell the edit did not take is the very dict read (EditedCells): the identity check spares comparing it.
    changed = [cell_id for cell_id, cell in new.items()
               if cell_id in staying and cell is not old[cell_id] and cell != old[cell_id]]
    for cell_id in changed:
        index = index_of(ids, cell_id)
        if index is not None and not _update(ycells[index], old[cell_id], new[cell_id]):
            ycells[index] = notebook.create_ycell(new[cell_id])
    leaving = [cell_id for cell_id in old if cell_id not in staying] if len(staying) < len(old) else []  # deleted, or moved
    gone: set[str] = set()
    if leaving:
        where = positions(ids)
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
        index = index_of(ids, earlier)
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

