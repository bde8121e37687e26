"""use_notebook: open a notebook (creating it on request), start its kernel, make it this client's default."""

from __future__ import annotations

from typing import Any

from ..jupyter.notebook_model import new_notebook
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.notebooks import kernel_for, live_note, load_stable, notebook_lock, notebook_path
from .shared.spec import ToolContext, ToolSpec
from .shared.text import plural


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    if not args.get("notebook"):
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "Name the notebook to use: notebook='path/to.ipynb' (relative to the root).")
    path = notebook_path(ctx, args)
    contents = ctx.backend.contents
    created = False
    if not await contents.exists(path):
        if not args.get("create"):
            raise ToolError(
                ErrorKind.NOT_FOUND,
                f"No notebook {path!r} under the root. Pass create: true to create it, "
                "or call list_files with pattern '*.ipynb' to see the notebooks there are.",
            )
        async with notebook_lock(ctx, path):
            if not await contents.exists(path):
                await contents.write_notebook(path, new_notebook())
                created = True
    notebook, upgraded = await load_stable(ctx, path)
    kernel_id = await kernel_for(ctx, path)

    previous = ctx.client.notebook
    if ctx.client.persistent:
        ctx.client.notebook = path
    cells = len(notebook["cells"])
    what = "Created" if created else "Using"
    text = f"{what} {path} ({plural(cells, 'cell')}; kernel {kernel_id})."
    if upgraded:
        text += " It had no cell ids (nbformat < 4.5): it was upgraded and saved, so cell ids stay stable."
    text += await live_note(ctx, path)
    if ctx.client.persistent:
        text += " It is now this client's default notebook: later calls may leave out notebook."
        if previous and previous != path:
            text += f" {previous} stays open; unuse_notebook(notebook={previous!r}) stops its kernel."
    else:
        text += (
            " No default was kept: this request is stateless (it carries no session), "
            f"so pass notebook={path!r} on each call."
        )
    record = {
        "notebook": path, "kernelId": kernel_id, "cellCount": cells,
        "created": created, "upgraded": upgraded, "isDefault": ctx.client.persistent,
    }
    return Outcome(value=Message("notebook.use", text, record))


TOOL = ToolSpec("use_notebook", run, MESSAGE_PROJECTORS)
