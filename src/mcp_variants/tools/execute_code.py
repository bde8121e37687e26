"""execute_code: run code in the default kernel."""

from __future__ import annotations

from typing import Any

from ..protocol.projection import Outcome
from .shared.arguments import timeout_of
from .shared.executions import EXECUTION_PROJECTORS, execution_outcome
from .shared.spec import ToolContext, ToolSpec


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    timeout = timeout_of(ctx, args)
    execution = await ctx.backend.kernels.execute(
        args["code"], timeout=timeout, progress=ctx.progress, progress_interval=ctx.limits.progress_interval
    )
    view, failure = execution_outcome(execution, "code.execute", ctx.limits.assistant_text_bytes, timeout)
    return Outcome(value=view, failure=failure)


TOOL = ToolSpec("execute_code", run, EXECUTION_PROJECTORS)
