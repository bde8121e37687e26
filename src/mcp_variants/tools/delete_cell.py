"""delete_cell: remove one cell from a notebook."""

from __future__ import annotations

from typing import Any

from ..jupyter.notebook_model import source_text
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
        label = cell_label(notebook, index)
        cell = notebook["cells"].pop(index)
        remaining = len(notebook["cells"])
    text = f"Deleted {label} from {path}; {plural(remaining, 'cell')} left."
    record = {
        "notebook": path, "cellId": cell["id"], "cellIndex": index, "cellType": cell["cell_type"],
        "source": source_text(cell), "cellCount": remaining,
    }
    return Outcome(value=Message("cell.delete", text, record), meta=cell_meta(cell["id"]))


TOOL = ToolSpec("delete_cell", run, MESSAGE_PROJECTORS)
