"""What the notebook tools share: which notebook a call means, and its kernel."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from ..jupyter.notebook_model import ensure_ids, locate, source_text
from ..jupyter.paths import clean_relative
from ..protocol.errors import ErrorKind, ToolError
from .base import ToolContext

NOTEBOOK_META = "io.jupyter-mcp/cell_id"


def notebook_path(ctx: ToolContext, args: dict[str, Any]) -> str:
    """The notebook named in `args`, else the client's default from use_notebook."""
    path = args.get("notebook") or ctx.client.notebook
    if not path:
        raise ToolError(ErrorKind.NO_NOTEBOOK, "Name the notebook (notebook: 'path/to.ipynb') or call use_notebook first.")
    if not path.endswith(".ipynb"):
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"{path!r} is not a notebook path; notebooks end in .ipynb.")
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
    if kernel_id is not None and await ctx.backend.kernels.is_running(kernel_id):
        return kernel_id, False
    replaced = kernel_id is not None
    kernel_id = await ctx.backend.kernels.start_kernel()
    ctx.hub.notebook_kernels[key] = kernel_id
    return kernel_id, replaced


def cell_meta(cell_id: str) -> dict[str, Any]:
    """Result `_meta` for a call that acted on one cell."""
    return {NOTEBOOK_META: cell_id}


# ---- cells: shared by use_notebook, read_notebook, read_cell and the cell-editing tools ---------

_LOCKS: dict[tuple[int, str, str], anyio.Lock] = {}


def notebook_lock(ctx: ToolContext, path: str) -> anyio.Lock:
    """One writer at a time per notebook, so a read-modify-write never loses another call's edit."""
    return _LOCKS.setdefault((id(ctx.hub), ctx.backend.key, path), anyio.Lock())


@asynccontextmanager
async def editing(ctx: ToolContext, path: str) -> AsyncIterator[dict[str, Any]]:
    """The notebook at `path`, written back whole (atomically, validated) when the block succeeds.

    A ToolError inside the block leaves the file as it was.
    """
    async with notebook_lock(ctx, path):
        notebook = await load(ctx, path)
        yield notebook
        await ctx.backend.contents.write_notebook(path, notebook)


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


def locate_cell(notebook: dict[str, Any], args: dict[str, Any]) -> int:
    """The index of the cell `args` names by cell_index or cell_id."""
    index, cell_id = args.get("cell_index"), args.get("cell_id")
    if not notebook["cells"] and (index is None) != (cell_id is None):
        raise ToolError(ErrorKind.NOT_FOUND, "The notebook has no cells yet; insert_cell adds one.")
    return locate(notebook, index, cell_id)


def cell_label(notebook: dict[str, Any], index: int) -> str:
    """'cell 3 (code, id 1a2b3c4d5e6f)', for messages."""
    cell = notebook["cells"][index]
    return f"cell {index} ({cell.get('cell_type')}, id {cell.get('id')})"


def plain_output(output: dict[str, Any]) -> dict[str, Any]:
    """An nbformat output with multi-line strings joined, as shapes/nbformat-output.json has them."""
    plain = dict(output)
    if isinstance(plain.get("text"), list):
        plain["text"] = "".join(plain["text"])
    if isinstance(plain.get("data"), dict):
        plain["data"] = {mime: "".join(v) if isinstance(v, list) and all(isinstance(x, str) for x in v) else v
                         for mime, v in plain["data"].items()}
    return plain


def cell_record(notebook: dict[str, Any], index: int, *, outputs: bool) -> dict[str, Any]:
    """One cell for code and for views (shapes/notebook-cell.json): whole source, whole outputs."""
    cell = notebook["cells"][index]
    code = cell.get("cell_type") == "code"
    record: dict[str, Any] = {
        "index": index,
        "id": cell["id"],
        "type": cell.get("cell_type"),
        "source": source_text(cell),
        "executionCount": cell.get("execution_count") if code else None,
        "metadata": dict(cell.get("metadata") or {}),
    }
    if outputs:
        record["outputs"] = [plain_output(o) for o in cell.get("outputs", [])] if code else []
    return record


def plural(count: int, word: str) -> str:
    """'1 cell', '3 cells'."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
