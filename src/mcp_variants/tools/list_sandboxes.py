"""list_sandboxes: the sandbox servers this server launched."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.runtimes import describe
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    records = [s.record() for s in ctx.registry.sandboxes.values()]
    if records:
        current = ctx.client.backend_key
        lines = [describe(r) + (" — this client uses it" if current == f"sandbox:{r['id']}" else "") for r in records]
        text = f"Sandboxes ({len(records)}):\n" + "\n".join(lines)
    else:
        text = "No sandboxes are running. launch_sandbox starts one."
    # The Results contract's list shape: `result` is the list of records, not a rendering of it.
    return Outcome(value=Message("sandboxes.list", text, {"sandboxes": records}, assistant={"kind": "sandboxes.list", "result": records}))


TOOL = VariantTool(declared("list_sandboxes"), MESSAGE_PROJECTORS, run)
