"""insert_cell: add a code, markdown or raw cell to a notebook, at an index or at the end."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..jupyter.notebook_model import insert_cell, make_cell
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.meta import cell_meta
from .shared.notebooks import editing, notebook_path
from .shared.text import plural
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    cell_type = args.get("cell_type", "code")
    async with editing(ctx, path) as notebook:
        cell = make_cell(cell_type, args["source"])
        index = insert_cell(notebook, int(args.get("cell_index", -1)), cell)
        total = len(notebook["cells"])
    text = f"Inserted a {cell_type} cell at index {index} (id {cell['id']}) in {path}; it has {plural(total, 'cell')} now."
    record = {"notebook": path, "cellId": cell["id"], "cellIndex": index, "cellType": cell_type, "cellCount": total}
    return Outcome(value=Message("cell.insert", text, record), meta=cell_meta(cell["id"]))


TOOL = VariantTool(declared("insert_cell"), MESSAGE_PROJECTORS, run)
