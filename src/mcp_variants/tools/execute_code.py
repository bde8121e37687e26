"""execute_code: run code in a running kernel named by kernel_id, else in the kernel of the client's current
notebook, else in the runtime's default kernel."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..protocol.projection import Outcome
from .shared.arguments import progress_of, timeout_of
from .shared.executions import EXECUTION_PROJECTORS, execution_outcome
from .shared.notebooks import notebook_kernel
from .shared.spec import ToolContext, ToolSpec


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    timeout = timeout_of(ctx, args)
    kernel_id, replaced = await _kernel(ctx, args.get("kernel_id"))
    execution = await ctx.backend.kernels.execute(args["code"], kernel_id=kernel_id, timeout=timeout, progress=progress_of(ctx, args))
    if replaced:
        execution = replace(execution, kernel_restarted=True)
    view, failure = execution_outcome(execution, "code.execute", ctx.limits.assistant_text_bytes, timeout, images=ctx.images,
                                      uris=ctx.outputs.keep(execution.outputs))
    return Outcome(value=view, failure=failure)


async def _kernel(ctx: ToolContext, requested: str | None) -> tuple[str | None, bool]:
    """The kernel to run in (None: the runtime's default), and True when it replaced one that died.

    As in jupyter-mcp-server, whose callers rely on it, code runs where the current notebook's cells run, so
    what a cell defined is there: the notebook this client chose with use_notebook, when it has a kernel on
    the client's runtime. A stateless request, or a client with no notebook, has the default kernel.
    """
    if requested is not None:
        await ctx.backend.kernels.attach(requested)
        return requested, False
    path = ctx.client.notebook
    if path is None or (ctx.backend.key, path) not in ctx.hub.notebook_kernels:
        return None, False
    return await notebook_kernel(ctx, path)


TOOL = ToolSpec("execute_code", run, EXECUTION_PROJECTORS, task_support="optional")
