"""list_variables: the variables of a Python kernel (names, types, shapes and lengths, a short repr; a DataFrame's
columns), read by the kernel itself without leaving a trace (jupyter/variables.py)."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.tables import TABLE_PROJECTORS, Table
from .shared.tool_context import ToolContext
from .shared.variables import LIST_REQUEST, ask_kernel, columns_text, one_line, size_text

VALUE_CHARS = 80  # a table cell's repr


def _row(record: dict[str, Any]) -> dict[str, Any]:
    value = f"columns: {columns_text(record)}" if "columns" in record else record["repr"]
    return {"name": record["name"], "type": record["type"], "size": size_text(record), "dtype": record.get("dtype") or "",
            "value": one_line(value, VALUE_CHARS)}


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    request = {**LIST_REQUEST, "include_all": bool(args.get("include_all", False))}
    kernel_id, label, answer = await ask_kernel(ctx, args, request)
    records: list[dict[str, Any]] = answer["variables"]
    left = answer["total"] - len(records)
    notes = [f"{left} more variables not shown (the first {len(records)} by name); inspect_variable shows any one."] if left else []
    if not args.get("include_all"):
        notes.append("Modules, functions and classes are left out (include_all: true lists them).")
    listing = Table(
        kind="variables.list",
        title=f"Variables in {label}",
        columns=(("name", "Name"), ("type", "Type"), ("size", "Shape/len"), ("dtype", "Dtype"), ("value", "Value")),
        rows=[_row(r) for r in records],
        programmatic={"kernelId": kernel_id, "variables": records, "total": answer["total"]},
        text_limit=ctx.limits.assistant_text_bytes,
        empty_message=f"No variables in {label} yet.",
        facets={"type": sorted({r["type"] for r in records})},
        note=" ".join(notes),
    )
    return Outcome(value=listing)


TOOL = VariantTool(declared("list_variables"), TABLE_PROJECTORS, run)
