"""edit_cell_source: replace the one occurrence of a string in a cell's source."""

from __future__ import annotations

from typing import Any

from ..jupyter.notebook_model import edit_source, source_text
from ..protocol.projection import Outcome
from .shared.cells import cell_label, locate_cell
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.meta import cell_meta
from .shared.notebooks import editing, notebook_path
from .shared.spec import ToolContext, ToolSpec
from .shared.text import plural


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    async with editing(ctx, path) as notebook:
        index = locate_cell(notebook, args)
        cell = notebook["cells"][index]
        edit_source(cell, args["old_string"], args["new_string"])
        label = cell_label(notebook, index)
    source = source_text(cell)
    text = f"Edited {label} in {path}: replaced old_string with new_string; the source is now {plural(len(source.splitlines()), 'line')}."
    record = {"notebook": path, "cellId": cell["id"], "cellIndex": index, "source": source}
    return Outcome(value=Message("cell.edit", text, record), meta=cell_meta(cell["id"]))


TOOL = ToolSpec("edit_cell_source", run, MESSAGE_PROJECTORS)
