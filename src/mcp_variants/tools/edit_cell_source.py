"""edit_cell_source: replace the one occurrence of a string in a cell's source (or every one, with replace_all)."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..jupyter.notebook_model import edit_source, source_text
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
        replaced = edit_source(cell, args["old_string"], args["new_string"], replace_all=bool(args.get("replace_all")))
        label = cell_label(notebook, index)
    source = source_text(cell)
    what = "old_string" if replaced == 1 else f"{replaced} occurrences of old_string"
    text = f"Edited {label} in {path}: replaced {what} with new_string; the source is now {plural(len(source.splitlines()), 'line')}."
    record = {"notebook": path, "cellId": cell["id"], "cellIndex": index, "source": source, "replacements": replaced}
    return Outcome(value=Message("cell.edit", text, record), meta=cell_meta(cell["id"]))


TOOL = VariantTool(declared("edit_cell_source"), MESSAGE_PROJECTORS, run)
