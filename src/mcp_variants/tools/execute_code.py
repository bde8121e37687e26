"""execute_code: run code in a running kernel named by kernel_id, else in the kernel of the client's current
notebook, else in the runtime's default kernel."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..catalog import declared
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.arguments import progress_of, timeout_of
from .shared.executions import EXECUTION_PROJECTORS, execution_outcome
from .shared.notebooks import code_kernel
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    timeout = timeout_of(ctx, args)
    kernel_id, replaced = await code_kernel(ctx, args.get("kernel_id"))
    execution = await ctx.backend.kernels.execute(args["code"], kernel_id=kernel_id, timeout=timeout, progress=progress_of(ctx, args))
    if replaced:
        execution = replace(execution, kernel_restarted=True)
    view, failure = execution_outcome(execution, "code.execute", ctx.limits.assistant_text_bytes, timeout, images=ctx.images,
                                      uris=await ctx.outputs.keep(execution.outputs))
    return Outcome(value=view, failure=failure)


TOOL = VariantTool(declared("execute_code"), EXECUTION_PROJECTORS, run, task_support="optional")
