"""delete_cell: remove one cell, or several, from a notebook."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..jupyter.notebook_model import locate, source_text
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.cells import SOURCE_HINT, cell_label, locate_cell
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.meta import cell_meta
from .shared.notebooks import editing, notebook_path
from .shared.text import cap_each, plural
from .shared.tool_context import ToolContext

KIND = "cell.delete"


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
    deleted = [_entry(index, cell, with_source) for index, cell in zip(indices, cells, strict=True)]
    what = labels[0] if len(labels) == 1 else f"{plural(len(labels), 'cell')} ({'; '.join(labels)})"
    summary = f"Deleted {what} from {path}; {plural(remaining, 'cell')} left."
    record: dict[str, Any] = {"notebook": path, **deleted[0], "cellCount": remaining}
    if args.get("cell_ids") is not None or args.get("cell_indices") is not None:
        record["deleted"] = deleted
    # The model gets the sources too (capped), so that it can undo its own deletion with insert_cell.
    told = _for_model(deleted, ctx.limits.assistant_text_bytes) if with_source else deleted
    text = summary + (_sources_text(labels, told) if with_source else "")
    assistant = {"kind": KIND, "result": summary, "deleted": told}
    return Outcome(value=Message(KIND, text, record, assistant), meta=cell_meta(cells[0]["id"]))


def _entry(index: int, cell: dict[str, Any], with_source: bool) -> dict[str, Any]:
    entry = {"cellId": cell["id"], "cellIndex": index, "cellType": cell["cell_type"]}
    if with_source:
        entry["source"] = source_text(cell)
    return entry


def _for_model(deleted: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The deleted cells with their sources sharing the model's text budget."""
    capped = cap_each([entry["source"] for entry in deleted], limit, hint=SOURCE_HINT)
    return [{**entry, "source": source.text} for entry, source in zip(deleted, capped, strict=True)]


def _sources_text(labels: list[str], told: list[dict[str, Any]]) -> str:
    """The deleted sources under their cells' labels, and how insert_cell puts them back."""
    if len(told) == 1:
        head = f" Its source (insert_cell at cell_index {told[0]['cellIndex']} puts it back):"
    else:
        head = " Their sources (insert_cell at each cell_index, in this order, puts them back):"
    blocks = [f"--- {label} ---\n{entry['source'] or '(empty)'}" for label, entry in zip(labels, told, strict=True)]
    return "\n".join([head, *blocks])


TOOL = VariantTool(declared("delete_cell"), MESSAGE_PROJECTORS, run)
