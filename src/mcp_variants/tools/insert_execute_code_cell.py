"""insert_execute_code_cell: add a code cell to a notebook, run it, keep its outputs."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..jupyter.notebook_model import insert_cell, make_cell
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.cell_execution import run_cell
from .shared.executions import EXECUTION_PROJECTORS
from .shared.notebooks import editing, notebook_path
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    cell = make_cell("code", args["source"])
    async with editing(ctx, path) as notebook:
        insert_cell(notebook, int(args.get("cell_index", -1)), cell)
    return await run_cell(ctx, path, cell, "cell.insert_execute", args)


TOOL = VariantTool(declared("insert_execute_code_cell"), EXECUTION_PROJECTORS, run, task_support="optional")
