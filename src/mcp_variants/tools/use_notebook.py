"""use_notebook: open a notebook (creating it on request), give it a kernel (its own kernelspec's, or a running
one), make it this client's default, and remember a short name for it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from ..catalog import declared
from ..jupyter.notebook_model import kernelspec_name, new_notebook
from ..jupyter.runtime import KernelInfo
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.notebooks import editing, live_note, load_stable, notebook_kernel, notebook_kernelspec, notebook_lock, notebook_path
from .shared.text import plural
from .shared.tool_context import ToolContext
from .shared.where import follow_jupyter

A = TypeVar("A")
B = TypeVar("B")
NEW_KERNEL = "NEW"  # kernel_id asking for a fresh kernel rather than naming one (jupyter-mcp-server's word)


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    if not args.get("notebook"):
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "Name the notebook to use: notebook='path/to.ipynb' (relative to the root).")
    where = await follow_jupyter(ctx)  # this call's runtime, chosen before it ran (tools/__init__.py): said in the answer
    path = notebook_path(ctx, {"notebook": args["notebook"]})
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
                default = next(s for s in await ctx.backend.kernels.kernelspecs() if s.is_default)
                await contents.write_notebook(path, new_notebook(default.name, default.display_name, default.language))
                created = True
    requested = args.get("kernel_id")
    # The notebook read (a live one's room joined) while its kernel is attached: the slower of the two, not both.
    (notebook, upgraded), (kernel_id, arrived) = await _both(load_stable(ctx, path),
                                                             _attach(ctx, path, requested) if requested else notebook_kernel(ctx, path))
    blank_removed = await _without_a_blank_start(ctx, path, notebook)
    kernel = next((k for k in await ctx.backend.kernels.list_kernels() if k.kernel_id == kernel_id), None)
    kernel_name = kernel.name if kernel is not None else ""

    previous = ctx.client.notebook
    name = args.get("name")
    if ctx.client.persistent:
        ctx.client.use_notebook(path, name)
    cells = len(notebook["cells"])
    what = "Created" if created else "Using"
    text = f"{what} {path} ({plural(cells, 'cell')}; kernel {kernel_id}, {kernel_name or 'kernelspec unknown'})."
    wanted = kernelspec_name(notebook)
    if wanted and wanted != kernel_name and not requested and await notebook_kernelspec(ctx, path) is None:
        text += f" Its metadata names kernelspec {wanted!r}, which this runtime does not have (list_kernels shows the ones it has)."
    if arrived:
        text += (" It ran in another kernel before (the embedded kernels, or a Jupyter server that has stopped): the "
                 "variables of its earlier runs are gone.")
    elif kernel is not None and not requested and _fresh_behind_counts(ctx, kernel, notebook):
        text += (" Its kernel is fresh: the variables behind the execution counts shown in its cells are gone (run the "
                 "cells again, execute_notebook, to have them).")
    if blank_removed:
        text += " The empty cell JupyterLab gives a notebook without cells was removed."
    if upgraded:
        text += " It had no cell ids (nbformat < 4.5): it was upgraded and saved, so cell ids stay stable."
    text += await live_note(ctx, path, kernel_id, where)
    if ctx.client.persistent:
        text += " It is now this client's default notebook: later calls may leave out notebook."
        if name:
            text += f" Later calls may also name it notebook={name!r}."
        if previous and previous != path:
            text += f" {previous} stays open; unuse_notebook(notebook={previous!r}) stops its kernel."
    else:
        text += (
            " No default was kept: this request is stateless (it carries no session), "
            f"so pass notebook={path!r} on each call."
        )
    record: dict[str, Any] = {
        "notebook": path, "kernelId": kernel_id, "kernelName": kernel_name, "cellCount": cells,
        "created": created, "upgraded": upgraded, "isDefault": ctx.client.persistent,
    }
    if name:
        record["name"] = name
    return Outcome(value=Message("notebook.use", text, record))


def _fresh_behind_counts(ctx: ToolContext, kernel: KernelInfo, notebook: dict[str, Any]) -> bool:
    """The notebook shows runs (execution counts) its kernel never made: one of its own that has run nothing (a shared
    kernel, a JupyterLab session's, may hold the person's state: not said of it)."""
    return (kernel.execution_count == 0 and not ctx.backend.kernels.is_shared(kernel.kernel_id)
            and any(c.get("execution_count") for c in notebook["cells"] if c["cell_type"] == "code"))


def _only_a_blank_cell(notebook: dict[str, Any]) -> bool:
    cells = notebook["cells"]
    return len(cells) == 1 and cells[0]["cell_type"] == "code" and not "".join(cells[0]["source"]) \
        and not cells[0].get("outputs") and cells[0].get("execution_count") is None and not cells[0].get("metadata")


async def _without_a_blank_start(ctx: ToolContext, path: str, notebook: dict[str, Any]) -> bool:
    """A live notebook whose only cell is empty, unrun and bare is one its room gave the cell it adds to a file
    without cells (jupyter_ydoc): removed, so the agent's first cell is its first, as in the file. True when removed."""
    if not _only_a_blank_cell(notebook) or not await ctx.backend.contents.live(path):
        return False
    async with editing(ctx, path) as editable:
        if not _only_a_blank_cell(editable):
            return False
        editable["cells"].clear()
    notebook["cells"] = []
    return True


async def _both(first: Awaitable[A], second: Awaitable[B]) -> tuple[A, B]:
    """Both at once, each run to its end (a kernel is never left half started); the first one's failure is raised."""
    one, two = await asyncio.gather(first, second, return_exceptions=True)
    for outcome in (one, two):
        if isinstance(outcome, BaseException):
            raise outcome
    return one, two  # type: ignore[return-value]


async def _attach(ctx: ToolContext, path: str, requested: str) -> tuple[str, bool]:
    """The notebook's kernel becomes `requested` (a running kernel), or a fresh one for NEW; a kernel
    started for it before is shut down, unless another notebook uses it."""
    kernels = ctx.backend.kernels
    before = ctx.registry.drop_notebook_kernel(ctx.backend.key, path)
    attached = requested.strip().upper() != NEW_KERNEL
    if attached:
        await kernels.attach(requested)
        kernel_id = requested
    else:
        kernel_id = await kernels.start_kernel(await notebook_kernelspec(ctx, path))
    ctx.registry.set_notebook_kernel(ctx.backend.key, path, kernel_id, attached=attached)
    shared = kernel_id == before or before in ctx.registry.notebook_kernels.values()
    if before is not None and not shared and (ctx.backend.key, before) not in ctx.registry.attached_kernels:
        await kernels.shutdown_kernel(before)
    return kernel_id, False


TOOL = VariantTool(declared("use_notebook"), MESSAGE_PROJECTORS, run)
