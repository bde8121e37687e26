"""overwrite_cell_source: replace the whole source of a cell; its outputs stay until it runs again."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..jupyter.notebook_model import source_text
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
        previous = source_text(cell)
        cell["source"] = args["source"]
        label = cell_label(notebook, index)
    lines = (len(previous.splitlines()), len(args["source"].splitlines()))
    text = f"Replaced the source of {label} in {path} ({plural(lines[0], 'line')} → {plural(lines[1], 'line')})."
    if cell.get("cell_type") == "code" and cell.get("outputs"):
        text += " Its outputs are from the old source until execute_cell runs it."
    record = {"notebook": path, "cellId": cell["id"], "cellIndex": index, "source": args["source"], "previousSource": previous}
    return Outcome(value=Message("cell.overwrite", text, record), meta=cell_meta(cell["id"]))


TOOL = VariantTool(declared("overwrite_cell_source"), MESSAGE_PROJECTORS, run)
