"""restart_notebook: restart the kernel of a notebook; its variables are gone."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.notebooks import notebook_kernel, notebook_path
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    running = ctx.registry.notebook_kernels.get((ctx.backend.key, path))
    kernel_id, _ = await notebook_kernel(ctx, path)
    shared = ctx.backend.kernels.is_shared(kernel_id)
    if kernel_id == running or shared:  # otherwise it was just started, fresh already
        await ctx.backend.kernels.restart_kernel(kernel_id)
    text = f"Restarted the kernel of {path}: variables and imports are gone; run the cells you need again."
    if shared:
        text += (" It is the kernel of the notebook's session on the Jupyter server: whoever else runs code in it "
                 "(people in JupyterLab, other clients) lost theirs too.")
    return Outcome(value=Message("notebook.restart", text, {"notebook": path, "kernelId": kernel_id, "restarted": True}))


TOOL = VariantTool(declared("restart_notebook"), MESSAGE_PROJECTORS, run)
