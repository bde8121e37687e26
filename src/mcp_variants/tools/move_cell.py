"""move_cell: move one cell of a notebook to another index, or to where another cell is."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..jupyter.notebook_model import locate, move_cell
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.cells import locate_cell
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.meta import cell_meta
from .shared.notebooks import editing, notebook_path
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    target_id = args.get("target_cell_id")
    if (args.get("target_index") is None) == (target_id is None):
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "Say where the cell goes: target_index, or target_cell_id (one of them).")
    async with editing(ctx, path) as notebook:
        index = locate_cell(notebook, args)
        cell_id = notebook["cells"][index]["id"]
        target = locate(notebook, cell_id=target_id) if target_id is not None else int(args["target_index"])
        move_cell(notebook, index, target)
        total = len(notebook["cells"])
    if index == target:
        text = f"Cell {cell_id} is already at index {target} in {path}; nothing moved."
    else:
        text = f"Moved cell {cell_id} from index {index} to {target} in {path}."
    record = {"notebook": path, "cellId": cell_id, "fromIndex": index, "toIndex": target, "cellCount": total}
    return Outcome(value=Message("cell.move", text, record), meta=cell_meta(cell_id))


TOOL = VariantTool(declared("move_cell"), MESSAGE_PROJECTORS, run)
