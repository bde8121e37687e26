"""What the notebook tools share: which notebook a call means, and its kernel."""

from __future__ import annotations

from typing import Any

from ..jupyter.errors import ToolError
from ..jupyter.notebook_model import ensure_ids
from ..jupyter.paths import clean_relative
from .base import ToolContext

NOTEBOOK_META = "io.jupyter-mcp/cell_id"


def notebook_path(ctx: ToolContext, args: dict[str, Any]) -> str:
    """The notebook named in `args`, else the client's default from use_notebook."""
    path = args.get("notebook") or ctx.client.notebook
    if not path:
        raise ToolError("no-notebook", "Name the notebook (notebook: 'path/to.ipynb') or call use_notebook first.")
    if not path.endswith(".ipynb"):
        raise ToolError("invalid-arguments", f"{path!r} is not a notebook path; notebooks end in .ipynb.")
    return clean_relative(path).as_posix()


async def load(ctx: ToolContext, path: str) -> dict[str, Any]:
    return ensure_ids(await ctx.backend.contents.read_notebook(path))


async def kernel_for(ctx: ToolContext, path: str) -> str:
    """The kernel serving `path` on the client's backend, started on first use."""
    return (await notebook_kernel(ctx, path))[0]


async def notebook_kernel(ctx: ToolContext, path: str) -> tuple[str, bool]:
    """The kernel serving `path`, and True when it replaced one that died: earlier state is gone."""
    key = (ctx.backend.key, path)
    kernel_id = ctx.hub.notebook_kernels.get(key)
    if kernel_id is not None and kernel_id in {k.kernel_id for k in await ctx.backend.kernels.list_kernels()}:
        return kernel_id, False
    replaced = kernel_id is not None
    kernel_id = await ctx.backend.kernels.start_kernel()
    ctx.hub.notebook_kernels[key] = kernel_id
    return kernel_id, replaced


def cell_meta(cell_id: str) -> dict[str, Any]:
    """Result `_meta` for a call that acted on one cell."""
    return {NOTEBOOK_META: cell_id}
