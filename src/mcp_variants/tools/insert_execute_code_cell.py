"""insert_execute_code_cell: add a code cell to a notebook, run it, keep its outputs."""

from __future__ import annotations

from typing import Any

from ..jupyter.notebook_model import insert_cell, make_cell
from ..protocol.projection import Outcome
from .base import ToolContext, ToolSpec
from .cell_execution import run_cell, timeout_of
from .executions import EXECUTION_PROJECTORS
from .notebooks import load, notebook_path


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    notebook = await load(ctx, path)
    cell = make_cell("code", args["source"])
    insert_cell(notebook, int(args.get("cell_index", -1)), cell)
    await ctx.backend.contents.write_notebook(path, notebook)
    return await run_cell(ctx, path, cell["id"], "cell.insert_execute", timeout_of(ctx, args))


TOOL = ToolSpec("insert_execute_code_cell", run, EXECUTION_PROJECTORS)
