"""execute_code: run code in the default kernel, or in a running kernel named by kernel_id."""

from __future__ import annotations

from typing import Any

from ..protocol.projection import Outcome
from .shared.arguments import progress_of, timeout_of
from .shared.executions import EXECUTION_PROJECTORS, execution_outcome
from .shared.spec import ToolContext, ToolSpec


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    timeout = timeout_of(ctx, args)
    kernels = ctx.backend.kernels
    kernel_id = args.get("kernel_id")
    if kernel_id is not None:
        await kernels.attach(kernel_id)
    execution = await kernels.execute(args["code"], kernel_id=kernel_id, timeout=timeout, progress=progress_of(ctx, args))
    view, failure = execution_outcome(execution, "code.execute", ctx.limits.assistant_text_bytes, timeout, images=ctx.images)
    return Outcome(value=view, failure=failure)


TOOL = ToolSpec("execute_code", run, EXECUTION_PROJECTORS)
