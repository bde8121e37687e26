"""delete_cell: remove one cell, or several, from a notebook."""

from __future__ import annotations

from typing import Any

from ..jupyter.notebook_model import locate, source_text
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome
from .shared.cells import cell_label, locate_cell
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.meta import cell_meta
from .shared.notebooks import editing, notebook_path
from .shared.spec import ToolContext, ToolSpec
from .shared.text import plural


def _targets(notebook: dict[str, Any], args: dict[str, Any]) -> list[int]:
    """The indices of the cells `args` names, each checked before any is deleted, in notebook order."""
    ids, indices = args.get("cell_ids"), args.get("cell_indices")
    if ids is None and indices is None:
        return [locate_cell(notebook, args)]
    if args.get("cell_id") is not None or args.get("cell_index") is not None:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS,
                        "Name the cells one way: cell_index or cell_id for one, cell_indices or cell_ids for several.")
    # As with one cell, ids win over indices: they stay true when cells move.
    found = [locate(notebook, cell_id=i) for i in ids] if ids is not None else [locate(notebook, i) for i in indices or []]
    if len(set(found)) != len(found):
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "The same cell is named twice; name each cell once.")
    return sorted(found)


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    with_source = bool(args.get("include_source", True))
    async with editing(ctx, path) as notebook:
        indices = _targets(notebook, args)
        labels = [cell_label(notebook, i) for i in indices]
        cells = [notebook["cells"][i] for i in indices]
        for index in reversed(indices):
            del notebook["cells"][index]
        remaining = len(notebook["cells"])
    deleted = []
    for index, cell in zip(indices, cells, strict=True):
        entry = {"cellId": cell["id"], "cellIndex": index, "cellType": cell["cell_type"]}
        if with_source:
            entry["source"] = source_text(cell)
        deleted.append(entry)
    what = labels[0] if len(labels) == 1 else f"{plural(len(labels), 'cell')} ({'; '.join(labels)})"
    text = f"Deleted {what} from {path}; {plural(remaining, 'cell')} left."
    record: dict[str, Any] = {"notebook": path, **deleted[0], "cellCount": remaining}
    if args.get("cell_ids") is not None or args.get("cell_indices") is not None:
        record["deleted"] = deleted
    return Outcome(value=Message("cell.delete", text, record), meta=cell_meta(cells[0]["id"]))


TOOL = ToolSpec("delete_cell", run, MESSAGE_PROJECTORS)
