"""unuse_notebook: forget this client's default notebook and stop the notebook's kernel."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..jupyter.errors import JupyterErrorKind
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.messages import MESSAGE_PROJECTORS, Message
from .shared.notebooks import notebook_path
from .shared.tool_context import ToolContext


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    if not args.get("notebook") and not ctx.client.notebook:
        hint = "this client has no default notebook" if ctx.client.persistent else "this request is stateless and has no default notebook"
        raise ToolError(JupyterErrorKind.NO_NOTEBOOK,
                        f"Nothing to unuse: {hint}. Name it: notebook='path/to.ipynb'; list_notebooks shows the open ones.")
    path = notebook_path(ctx, args)
    backend = ctx.backend
    key = (backend.key, path)
    was_default = ctx.client.notebook == path
    kernel_id = ctx.registry.notebook_kernels.get(key)
    if kernel_id is None and not was_default:
        raise ToolError(ErrorKind.NOT_FOUND, f"{path} is not open; list_notebooks shows the notebooks that are.")
    others = [
        client for client in ctx.registry.clients.values()
        if client is not ctx.client and client.notebook == path and client.backend_key == backend.key
    ]
    # A kernel use_notebook attached the notebook to ran before it and may serve others: it keeps running.
    borrowed = kernel_id is not None and ((backend.key, kernel_id) in ctx.registry.attached_kernels
                                          or any(k == kernel_id for n, k in ctx.registry.notebook_kernels.items() if n != key))
    stopped = shared = False
    if kernel_id is not None and not others:
        shared = backend.kernels.is_shared(kernel_id)  # the notebook's JupyterLab session: only let go of
        if not borrowed and await backend.kernels.is_running(kernel_id):
            await backend.kernels.shutdown_kernel(kernel_id)
        ctx.registry.drop_notebook_kernel(backend.key, path)
        stopped = not (borrowed or shared)
    ctx.client.let_go_of(path)

    parts = []
    if was_default:
        parts.append(f"{path} is no longer this client's default notebook; name one in each call or use_notebook another.")
    if stopped:
        parts.append(f"Its kernel {kernel_id} is shut down: its variables are gone." if was_default
                     else f"Closed {path}: its kernel {kernel_id} is shut down and its variables are gone.")
    elif borrowed:
        parts.append(f"{path} is closed; its kernel {kernel_id} keeps running: it was attached with kernel_id, not started for {path}.")
    elif shared:
        parts.append(f"Its kernel {kernel_id} keeps running: it is the notebook's JupyterLab session, which this client let go of.")
    elif kernel_id is not None:
        parts.append(f"Its kernel {kernel_id} keeps running: {len(others)} other client(s) use {path}.")
    record = {
        "notebook": path, "kernelId": kernel_id, "kernelStopped": stopped,
        "wasDefault": was_default,
    }
    return Outcome(value=Message("notebook.unuse", " ".join(parts), record))


TOOL = VariantTool(declared("unuse_notebook"), MESSAGE_PROJECTORS, run)
