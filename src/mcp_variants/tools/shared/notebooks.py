"""Which notebook a call means, reading and editing it (one writer at a time), and its kernel."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from ...jupyter.errors import JupyterErrorKind
from ...jupyter.notebook_model import ensure_ids, kernelspec_name
from ...jupyter.paths import clean_relative
from ...protocol.errors import ErrorKind, ToolError
from .tool_context import ToolContext
from .where import Where


def notebook_path(ctx: ToolContext, args: dict[str, Any]) -> str:
    """The notebook named in `args` (by path, or by a name this client gave it in use_notebook), else the client's default."""
    named = args.get("notebook")
    path = ctx.client.notebook_names.get(named, named) if named else ctx.client.notebook
    if not path:
        raise ToolError(JupyterErrorKind.NO_NOTEBOOK, "Name the notebook (notebook: 'path/to.ipynb') or call use_notebook first.")
    if not path.endswith(".ipynb"):
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"{path!r} is not a notebook path; notebooks end in .ipynb.")
    return clean_relative(path).as_posix()


async def kernel_for(ctx: ToolContext, path: str) -> str:
    """The kernel serving `path` on the client's backend, started on first use."""
    return (await notebook_kernel(ctx, path))[0]


async def notebook_kernel(ctx: ToolContext, path: str) -> tuple[str, bool]:
    """The kernel serving `path` (one of its own, or its JupyterLab session's), and True when it
    replaced the one it ran in before: earlier state is gone."""
    key = (ctx.backend.key, path)
    kernel_id, replaced = await ctx.backend.kernels.notebook_kernel(path, ctx.registry.notebook_kernels.get(key),
                                                                    lambda: notebook_kernelspec(ctx, path))
    ctx.registry.set_notebook_kernel(ctx.backend.key, path, kernel_id)
    return kernel_id, ctx.registry.arrived(ctx.backend.key, path) or replaced


async def code_kernel(ctx: ToolContext, requested: str | None) -> tuple[str | None, bool]:
    """The kernel code that is no cell's runs in (None: the runtime's default), and True when it replaced one that died.

    As in jupyter-mcp-server, whose callers rely on it, code runs where the current notebook's cells run, so
    what a cell defined is there: the notebook this client chose with use_notebook, when it has a kernel on
    the client's runtime. A stateless request, or a client with no notebook, has the default kernel.
    """
    if requested is not None:
        await ctx.backend.kernels.attach(requested)
        return requested, False
    path = ctx.client.notebook
    if path is None or (ctx.backend.key, path) not in ctx.registry.notebook_kernels:
        return None, False
    return await notebook_kernel(ctx, path)


async def notebook_kernelspec(ctx: ToolContext, path: str) -> str | None:
    """The kernelspec the notebook's metadata names, when this runtime has it (as JupyterLab picks a notebook's
    kernel); None for the runtime's default."""
    wanted = kernelspec_name(await ctx.backend.contents.read_notebook(path))
    if wanted is None:
        return None
    return wanted if any(spec.name == wanted for spec in await ctx.backend.kernels.kernelspecs()) else None


def notebook_lock(ctx: ToolContext, path: str) -> AbstractAsyncContextManager[None]:
    """One writer at a time per notebook, so a read-modify-write never loses another call's edit."""
    return ctx.registry.notebook_locks.hold((ctx.backend.key, path))


@asynccontextmanager
async def editing(ctx: ToolContext, path: str) -> AsyncIterator[dict[str, Any]]:
    """The notebook at `path`, saved when the block succeeds (validated): the file written back
    whole, atomically, or in a live notebook the difference applied to its shared document, by
    cell id, so what others changed meanwhile stays. A ToolError inside the block changes nothing.
    """
    async with notebook_lock(ctx, path), ctx.backend.contents.edit_notebook(path, origin=ctx.client.key, agent=ctx.agent) as notebook:
        yield notebook


async def live_note(ctx: ToolContext, path: str, kernel_id: str, where: Where | None) -> str:
    """Where the notebook runs and what a person with it open in JupyterLab sees of this client's work, said once
    (use_notebook); `where`: the Jupyter server found for --root, when the server looks for one."""
    if where is not None and where.finding is None:
        return (f" Not live: no Jupyter server serves {where.root}, so it runs in the embedded kernels; start JupyterLab on "
                f"{where.root} or a folder above it and call use_notebook again to work in it live.")
    at = where.server if where is not None else ""
    live = await ctx.backend.contents.live(path)
    if live:
        return (f" Live in JupyterLab{at}, kernel {kernel_id}: edits and outputs appear at once where it is open there "
                "(its shared document), and runs use its JupyterLab kernel, so variables are shared with the people there.")
    if live is False:
        return (f" Not live: the Jupyter server{at} has no real-time collaboration (jupyter-collaboration): edits are saved "
                "to the file and will not appear live in a JupyterLab that has it open (reload it there).")
    return f" Not live: it runs in {ctx.backend.label}, its file under --root."


def has_stable_ids(notebook: dict[str, Any]) -> bool:
    """nbformat 4.5 or later with an id on every cell."""
    return notebook.get("nbformat_minor", 0) >= 5 and all(cell.get("id") for cell in notebook.get("cells", []))


async def load_stable(ctx: ToolContext, path: str) -> tuple[dict[str, Any], bool]:
    """The notebook with stable cell ids, and True when it had none and was upgraded on disk.

    Ids given to an older notebook in memory only would change on every read, so a cell_id
    a caller saw would name nothing on its next call; the upgrade is written back once.
    """
    notebook = await ctx.backend.contents.read_notebook(path)
    if has_stable_ids(notebook):
        return notebook, False
    async with notebook_lock(ctx, path):
        notebook = await ctx.backend.contents.read_notebook(path)
        if has_stable_ids(notebook):
            return notebook, False
        ensure_ids(notebook)
        await ctx.backend.contents.write_notebook(path, notebook)
        return notebook, True
