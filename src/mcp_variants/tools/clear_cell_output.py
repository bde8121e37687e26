"""clear_cell_output: remove the outputs and execution count of one code cell."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.cells import cell_label, locate_cell
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.meta import cell_meta
from .shared.notebooks import editing, notebook_path
from .shared.text import plural
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    async with editing(ctx, path) as notebook:
        index = locate_cell(notebook, args)
        cell = notebook["cells"][index]
        label = cell_label(notebook, index)
        if cell.get("cell_type") != "code":
            raise ToolError(ErrorKind.INVALID_ARGUMENTS,
                            f"{label.capitalize()} has no outputs: only code cells do. read_notebook shows the code cells.")
        cleared = len(cell.get("outputs", []))
        cell["outputs"] = []
        cell["execution_count"] = None
    if cleared:
        text = f"Cleared {plural(cleared, 'output')} of {label} in {path}."
    else:
        text = f"{label.capitalize()} in {path} had no outputs; its execution count is cleared."
    record = {"notebook": path, "cellId": cell["id"], "cellIndex": index, "clearedOutputs": cleared}
    return Outcome(value=Message("cell.clear_output", text, record), meta=cell_meta(cell["id"]))


TOOL = VariantTool(declared("clear_cell_output"), MESSAGE_PROJECTORS, run)
