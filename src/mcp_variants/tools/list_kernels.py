"""list_kernels: the kernels this server runs, and the kernelspecs it can start."""

from __future__ import annotations

import sys
from typing import Any

from ..catalog import declared
from ..jupyter.runtime import KernelSpecInfo
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.meta import cache_meta
from .shared.tables import TABLE_PROJECTORS, Table
from .shared.tool_context import ToolContext

CACHE_TTL_MS = 10_000


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    kernels = await ctx.backend.kernels.list_kernels()
    specs = await ctx.backend.kernels.kernelspecs()
    records = [
        {"id": k.kernel_id, "name": k.name, "state": k.state, "started": k.started,
         "lastActivity": k.last_activity, "executionCount": k.execution_count}
        for k in kernels
    ]
    listing = Table(
        kind="kernels.list",
        title="Kernels",
        columns=(("id", "ID"), ("name", "Name"), ("state", "State"), ("started", "Started"), ("lastActivity", "Last activity")),
        rows=[{k: r[k] for k in ("id", "name", "state", "started", "lastActivity")} for r in records],
        programmatic={"kernels": records, "runtime": {"key": ctx.backend.key, "label": ctx.backend.label}, "kernelspecs": [
            {"name": s.name, "displayName": s.display_name, "language": s.language, "isDefault": s.is_default}
            | ({"python": s.python} if s.python else {}) for s in specs]},
        text_limit=ctx.limits.assistant_text_bytes,
        empty_message="No kernels are running. execute_code starts one.",
        facets={"state": sorted({k.state for k in kernels})},
        note=_setup_note(ctx.backend.label, specs),
    )
    return Outcome(value=listing, meta=cache_meta(CACHE_TTL_MS))


def _setup_note(runtime: str, specs: list[KernelSpecInfo]) -> str:
    """Where the user's code runs, and so where its packages come from (issue 49): the runtime, each kernelspec's Python."""
    said = f"Runtime: {runtime}."
    if specs:
        said += " Kernelspecs: " + ", ".join(f"{s.name} ({s.display_name}{', the default' if s.is_default else ''}{_python(s)})"
                                              for s in specs)
        said += ". A notebook's metadata.kernelspec picks its kernel; --kernel sets the default."
    return said


def _python(spec: KernelSpecInfo) -> str:
    if not spec.python:
        return ""
    own = " (this server's own environment: only what it was installed with)" if spec.python == sys.executable else ""
    return f", runs {spec.python}{own}"


TOOL = VariantTool(declared("list_kernels"), TABLE_PROJECTORS, run)
