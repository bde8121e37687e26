"""terminate_sandbox: stop a sandbox server and its kernels, and remove its folder."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    from ..jupyter.sandboxes import terminate_sandbox  # on first use: it imports the remote runtime (httpx, pycrdt, ...)

    sandbox = await terminate_sandbox(ctx.registry, args["sandbox_id"])
    text = f"Sandbox {sandbox.id} is terminated: its kernels and server stopped, its folder {sandbox.folder} is removed."
    if ctx.client.backend_key == sandbox.key:
        # Said, not silent: this client's next calls run somewhere else.
        ctx.client.run_on(ctx.registry.default_backend)
        text += f" This client's calls now run on {ctx.registry.backend(ctx.client).label}."
    return Outcome(value=Message("sandbox.terminate", text, {"sandbox": sandbox.record()}))


TOOL = VariantTool(declared("terminate_sandbox"), MESSAGE_PROJECTORS, run)
