"""inspect_variable: one variable of a Python kernel in detail: type, shape or length, dtype, a longer repr, and
for a pandas DataFrame its columns with their dtypes and its first rows."""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome, ToolProjectors
from ..protocol.types import ASSISTANT_CONTENT
from ..sdk.lowlevel import VariantTool
from .shared.tables import TABLE_PROJECTORS, Table
from .shared.text import cap_text
from .shared.tool_context import ToolContext
from .shared.variables import INSPECT_REQUEST, ask_kernel, columns_text, size_text

REPR_HINT = "request programmatic/structured for the whole repr the kernel gave"


def _fields(record: dict[str, Any]) -> list[dict[str, Any]]:
    fields = [("type", record["type"]), ("shape/len", size_text(record)), ("dtype", record.get("dtype")),
              ("columns", columns_text(record) if "columns" in record else None), ("repr", record["repr"])]
    return [{"field": key, "value": value} for key, value in fields if value]


def _table(record: dict[str, Any], kernel_id: str, label: str, text_limit: int) -> Table:
    """A DataFrame's first rows as the table, any other variable's fields (type, shape, repr...)."""
    head = record.get("head")
    if head is not None:
        names = [c["name"] for c in record["columns"]][:len(head["rows"][0]) if head["rows"] else None]
        columns = (("index", ""), *((f"c{i}", name) for i, name in enumerate(names)))
        rows = [{"index": index, **{f"c{i}": cell for i, cell in enumerate(row)}}
                for index, row in zip(head["index"], head["rows"], strict=False)]
        title = f"{record['name']} ({record['type']}, {size_text(record)}): its first {len(rows)} rows"
        note = f"Columns (dtype): {columns_text(record)}"
    else:
        columns, rows = (("field", "Field"), ("value", "Value")), _fields(record)
        title, note = f"{record['name']} in {label}", ""
    return Table(kind="variable.inspect", title=title, columns=columns, rows=rows,
                 programmatic={"kernelId": kernel_id, "variable": record}, text_limit=text_limit,
                 empty_message=f"{record['name']} ({record['type']}) has no rows.", note=note)


def assistant_content(table: Table) -> list[dict[str, Any]]:
    record = table.programmatic["variable"]
    lines = [f"{record['name']}: {record['type']}"]
    lines += [f"{f['field']}: {f['value']}" for f in _fields(record) if f["field"] not in ("type", "repr")]
    if record.get("head") is not None:
        lines.append(f"First {len(record['head']['rows'])} rows:\n{table.tsv()}")
    lines.append(f"repr:\n{record['repr']}")
    return [{"type": "text", "text": cap_text("\n".join(lines), table.text_limit, hint=REPR_HINT).text}]


PROJECTORS = ToolProjectors(success={**TABLE_PROJECTORS.success, ASSISTANT_CONTENT: assistant_content})


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    name = args["name"]
    if not name.isidentifier():
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"{name!r} is not a variable name; name one variable (list_variables shows them).")
    kernel_id, label, answer = await ask_kernel(ctx, args, {**INSPECT_REQUEST, "name": name})
    if not answer["found"]:
        raise ToolError(ErrorKind.NOT_FOUND, f"No variable {name!r} in {label}; list_variables shows the variables there.")
    return Outcome(value=_table(answer["variable"], kernel_id, label, ctx.limits.assistant_text_bytes))


TOOL = VariantTool(declared("inspect_variable"), PROJECTORS, run)
