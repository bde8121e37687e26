"""launch_sandbox: start an isolated Jupyter server on 127.0.0.1 with its own folder and token."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.runtimes import describe
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    from ..jupyter.sandboxes import launch_sandbox  # on first use: it imports the remote runtime (httpx, pycrdt, ...)

    sandbox = await launch_sandbox(ctx.registry, hard_cap_bytes=ctx.limits.hard_cap_bytes)
    record = sandbox.record()
    text = (f"Launched sandbox {describe(record)}. Call use_sandbox with sandbox_id={record['id']!r} "
            "to run code and keep notebooks there; terminate_sandbox when done.")
    if sandbox.lab_url:
        text += (f" It is a JupyterLab with real-time collaboration: a person can watch its notebooks live at {sandbox.lab_url} "
                 f"(the token is in the file {sandbox.folder / 'token'}).")
    # The Results contract's object shape: the sandbox's fields at the top level, no `result`.
    return Outcome(value=Message("sandbox.launch", text, {"sandbox": record}, assistant={"kind": "sandbox.launch", "sandbox": record}))


TOOL = VariantTool(declared("launch_sandbox"), MESSAGE_PROJECTORS, run)
