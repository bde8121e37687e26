"""execute_cell: run one code cell of a notebook in the notebook's kernel and keep its outputs."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.cell_execution import run_cell
from .shared.cells import locate_cell
from .shared.executions import EXECUTION_PROJECTORS
from .shared.notebooks import load_stable, notebook_path
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    notebook, _ = await load_stable(ctx, path)
    cell = notebook["cells"][locate_cell(notebook, args)]
    return await run_cell(ctx, path, cell, "cell.execute", args)


TOOL = VariantTool(declared("execute_cell"), EXECUTION_PROJECTORS, run, task_support="optional")
