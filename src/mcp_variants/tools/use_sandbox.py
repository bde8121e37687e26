"""use_sandbox: run this client's code, notebooks and files in a sandbox."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.runtimes import STATELESS_NOTE
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    from ..jupyter.sandboxes import find_sandbox  # on first use: it imports the remote runtime (httpx, pycrdt, ...)

    sandbox = find_sandbox(ctx.registry, args["sandbox_id"])
    if sandbox.state != "running":
        raise ToolError(ErrorKind.NOT_FOUND, f"Sandbox {sandbox.id} is {sandbox.state}; terminate_sandbox it and launch_sandbox a new one.")
    if ctx.client.persistent:
        ctx.client.run_on(sandbox.key)
        text = (f"This client now runs code, notebooks and files in sandbox {sandbox.id} (root folder {sandbox.root}). "
                "Other clients are not affected. terminate_sandbox when done.")
    else:
        text = f"Sandbox {sandbox.id} is running (root folder {sandbox.root})." + STATELESS_NOTE
    record = {"sandbox": sandbox.record(), "runtime": sandbox.key, "switched": ctx.client.persistent}
    return Outcome(value=Message("sandbox.use", text, record))


TOOL = VariantTool(declared("use_sandbox"), MESSAGE_PROJECTORS, run)
