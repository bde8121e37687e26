"""Running a notebook cell and keeping its outputs: shared by execute_cell and insert_execute_code_cell."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...jupyter.notebook_model import set_outputs, source_text
from ...output_links import cell_output_uri
from ...protocol.errors import ErrorKind, ToolError
from ...protocol.projection import Outcome
from .arguments import progress_of, timeout_of
from .executions import execution_outcome
from .meta import cell_meta
from .notebooks import editing, notebook_kernel
from .tool_context import ToolContext


async def run_cell(ctx: ToolContext, path: str, cell: dict[str, Any], kind: str, args: dict[str, Any]) -> Outcome:
    """Run `cell` (as the caller read it from the notebook at `path`, with its id) with the call's
    timeout and progress `args`, then write its outputs back to the cell with that id.

    In a live notebook the outputs reach the cell as the kernel sends them, so a person sees the
    run stream in. The notebook is read again after the run: a person may have edited it
    meanwhile, and the id (not the index) finds the cell wherever it moved; a cell deleted
    meanwhile gets nothing, and the run is an error carrying its outputs.
    """
    cell_id = cell["id"]
    if cell.get("cell_type") != "code":
        raise ToolError(
            ErrorKind.INVALID_ARGUMENTS,
            f"Cell {cell_id} is a {cell.get('cell_type')} cell; only code cells run. read_cell shows it; "
            "overwrite_cell_source or insert_cell can make a code cell.",
        )
    kernel_id, replaced = await notebook_kernel(ctx, path)
    timeout = timeout_of(ctx, args)
    async with ctx.backend.contents.running_cell(path, cell_id, origin=ctx.client.key, agent=ctx.agent) as on_outputs:
        execution = await ctx.backend.kernels.execute(source_text(cell), kernel_id=kernel_id, timeout=timeout,
                                                      progress=progress_of(ctx, args), on_outputs=on_outputs)
    if replaced:
        execution = replace(execution, kernel_restarted=True)
    async with editing(ctx, path) as notebook:
        index = next((i for i, c in enumerate(notebook["cells"]) if c.get("id") == cell_id), None)
        if index is None:
            # Written into no cell: its outputs are kept as a run's (execute_code's resources).
            view, _ = execution_outcome(execution, kind, ctx.limits.assistant_text_bytes, timeout, images=ctx.images,
                                        uris=await ctx.outputs.keep(execution.outputs))
            raise ToolError(ErrorKind.NOT_FOUND,
                            f"Cell {cell_id} was deleted from {path} while it ran (by someone else): its outputs are in this "
                            "result only, written into no cell. read_notebook shows the notebook as it is now.", partial=view)
        set_outputs(notebook["cells"][index], execution.outputs, execution.execution_count)
    cell_info = {"notebook": path, "cellId": cell_id, "cellIndex": index}
    uris = [cell_output_uri(path, cell_id, i) for i in range(len(execution.outputs))]
    view, failure = execution_outcome(execution, kind, ctx.limits.assistant_text_bytes, timeout, cell_info, images=ctx.images,
                                      uris=uris)
    return Outcome(value=view, failure=failure, meta=cell_meta(cell_id))
