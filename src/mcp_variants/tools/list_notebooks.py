"""list_notebooks: the notebooks open on this client's runtime, their kernels, and this client's default."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.meta import cache_meta
from .shared.tables import TABLE_PROJECTORS, Table
from .shared.tool_context import ToolContext

CACHE_TTL_MS = 30_000
NOT_RUNNING = "not running"


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    backend = ctx.backend
    kernels = {path: kernel_id for (key, path), kernel_id in ctx.registry.notebook_kernels.items() if key == backend.key}
    paths = set(kernels)
    if ctx.client.notebook:
        paths.add(ctx.client.notebook)
    states = {k.kernel_id: k.state for k in await backend.kernels.list_kernels()} if paths else {}
    records: list[dict[str, Any]] = []
    names = {path: name for name, path in ctx.client.notebook_names.items()}
    for path in sorted(paths):
        kernel_id = kernels.get(path)
        record: dict[str, Any] = {
            "path": path,
            "kernelId": kernel_id,
            "kernelState": states.get(kernel_id, NOT_RUNNING) if kernel_id else NOT_RUNNING,
            "isDefault": path == ctx.client.notebook,
        }
        if path in names:
            record["name"] = names[path]
        records.append(record)
    listing = Table(
        kind="notebooks.list",
        title="Open notebooks",
        columns=(("path", "Path"), ("kernelId", "Kernel"), ("kernelState", "State"), ("default", "Default"))
        + ((("name", "Name"),) if names else ()),
        rows=[{"path": r["path"], "kernelId": r["kernelId"], "kernelState": r["kernelState"],
               "default": "yes" if r["isDefault"] else "no", **({"name": r.get("name")} if names else {})} for r in records],
        programmatic={"notebooks": records, "default": ctx.client.notebook},
        text_limit=ctx.limits.assistant_text_bytes,
        empty_message="No notebooks are open. use_notebook opens one.",
        facets={"kernelState": sorted({r["kernelState"] for r in records}),
                "default": sorted({"yes" if r["isDefault"] else "no" for r in records})},
    )
    return Outcome(value=listing, meta=cache_meta(CACHE_TTL_MS))


TOOL = VariantTool(declared("list_notebooks"), TABLE_PROJECTORS, run)
