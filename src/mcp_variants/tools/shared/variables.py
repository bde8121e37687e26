"""What list_variables and inspect_variable share: the kernel they look in, and asking it (jupyter/variables.py)."""

from __future__ import annotations

from typing import Any

from ...jupyter.variables import read_variables
from .notebooks import code_kernel, notebook_kernel, notebook_path
from .tool_context import ToolContext

LOOK_TIMEOUT_S = 30.0  # a look waits no longer by default (the server's --timeout when shorter): a busy kernel is said so

# What a kernel is asked for: repr sizes, how many variables, columns and head rows (jupyter/namespace.py reads it).
LIST_REQUEST: dict[str, Any] = {"name": None, "repr_chars": 100, "repr_items": 10, "include_all": False, "max_variables": 500,
                                "max_columns": 50, "head_rows": 0, "cell_chars": 0}
INSPECT_REQUEST: dict[str, Any] = {"repr_chars": 4000, "repr_items": 100, "include_all": False, "max_variables": 0,
                                   "max_columns": 200, "head_rows": 5, "cell_chars": 60}


async def variable_kernel(ctx: ToolContext, args: dict[str, Any]) -> tuple[str | None, str]:
    """The kernel to look in and how to name it: kernel_id, else the `notebook`'s kernel, else where execute_code
    runs (the current notebook's kernel, else the runtime's default)."""
    if args.get("kernel_id") is None and args.get("notebook"):
        path = notebook_path(ctx, args)
        return (await notebook_kernel(ctx, path))[0], f"the kernel of {path}"
    kernel_id, _ = await code_kernel(ctx, args.get("kernel_id"))
    if kernel_id is None:
        return None, "the server's default kernel"
    if args.get("kernel_id") is None and ctx.client.notebook:
        return kernel_id, f"the kernel of {ctx.client.notebook}"
    return kernel_id, f"kernel {kernel_id}"


async def ask_kernel(ctx: ToolContext, args: dict[str, Any], request: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """The kernel's id, its name for messages, and its answer to `request`."""
    kernel_id, label = await variable_kernel(ctx, args)
    timeout = float(args.get("timeout") or min(LOOK_TIMEOUT_S, ctx.limits.default_timeout))
    answered_by, answer = await read_variables(ctx.backend.kernels, kernel_id, request, timeout=timeout)
    return answered_by, label, answer


def size_text(record: dict[str, Any]) -> str:
    """'3x4', 'len 12', or ''."""
    if record.get("shape") is not None:
        return "x".join(str(n) for n in record["shape"]) or "scalar"
    return f"len {record['length']}" if record.get("length") is not None else ""


def one_line(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters (a table cell)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def columns_text(record: dict[str, Any]) -> str:
    return ", ".join(f"{c['name']} ({c['dtype']})" for c in record.get("columns", []))
