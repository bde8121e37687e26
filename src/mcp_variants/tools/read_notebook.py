"""read_notebook: a notebook's cells, one row each, brief (a source preview) or detailed (whole sources), paged."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..catalog import declared
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome, ToolProjectors
from ..protocol.types import ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED, UI_STRUCTURED, USER_STRUCTURED
from ..sdk.lowlevel import VariantTool
from .shared import tables
from .shared.arguments import paging_start
from .shared.cells import cell_record
from .shared.notebooks import load_stable, notebook_path
from .shared.tables import Table
from .shared.text import cap_text, plural
from .shared.tool_context import ToolContext

PREVIEW_CHARS = 80
DEFAULT_LIMIT = 20  # jupyter-mcp-server's: its callers page by it (docs/choices.md, "Defaults")
WHOLE_CELL_HINT = "read_cell with this cell's id shows it whole"


class CellTable(Table):
    """A Table whose tab-separated text escapes the tabs and newlines inside sources."""

    def tsv(self) -> str:
        def cell(value: Any) -> str:
            text = "" if value is None else str(value)
            return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")

        lines = ["\t".join(label for _, label in self.columns)]
        lines += ["\t".join(cell(row.get(key)) for key, _ in self.columns) for row in self.rows]
        return "\n".join(lines)


@dataclass(frozen=True)
class NotebookPage:
    path: str
    detailed: bool
    start: int
    total: int
    cells: list[dict[str, Any]]  # cell records with outputs (shapes/notebook-cell.json)
    table: CellTable
    text_limit: int

    @property
    def next_cursor(self) -> str | None:
        return self.table.next_cursor


def preview(source: str) -> str:
    """The first non-empty line, shortened; '…' when there is more."""
    lines = [line for line in source.splitlines() if line.strip()]
    if not lines:
        return ""
    first = lines[0].replace("\t", "    ")
    more = len(lines) > 1 or len(first) > PREVIEW_CHARS
    return first[:PREVIEW_CHARS] + ("…" if more else "")


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    detailed = args.get("detail", "brief") == "detailed"
    start = paging_start(args, "read_notebook")
    notebook, _ = await load_stable(ctx, path)
    total = len(notebook["cells"])
    limit = int(args.get("limit", DEFAULT_LIMIT)) or total  # 0: no count limit (the text budget still ends a page)
    if start and start >= total:
        cells_there = f"{total} cells (0 to {total - 1})" if total else "no cells"
        raise ToolError(ErrorKind.NOT_FOUND, f"start {start} is past the last cell: {path} has {cells_there}. Start at 0.")

    text_limit = ctx.limits.assistant_text_bytes
    page_budget = text_limit // 2  # assistant/structured carries each row twice: in `result` and in `items`
    rows: list[dict[str, Any]] = []
    cells: list[dict[str, Any]] = []
    text_bytes = data_bytes = 0
    index = start
    # A page ends at `limit` cells, or earlier when the model's text budget or the hard cap
    # would be exceeded: the rest follows through nextCursor, never cut mid-page.
    while index < total and len(rows) < limit:
        record = cell_record(notebook, index, outputs=True)
        source = record["source"]
        row = {
            "index": index, "id": record["id"], "type": record["type"], "executionCount": record["executionCount"],
            "source": cap_text(source, page_budget // 2, hint=WHOLE_CELL_HINT).text if detailed else preview(source),
        }
        if detailed:
            row["outputs"] = len(record["outputs"])
        row_bytes = len(json.dumps(row, ensure_ascii=False).encode())
        record_bytes = len(json.dumps(record, ensure_ascii=False).encode())
        if rows and (text_bytes + row_bytes > page_budget or data_bytes + record_bytes > ctx.limits.hard_cap_bytes):
            break
        rows.append(row)
        cells.append(record)
        text_bytes += row_bytes
        data_bytes += record_bytes
        index += 1
    next_cursor = str(index) if index < total else None

    columns: tuple[tuple[str, str], ...] = (
        ("index", "Index"), ("id", "ID"), ("type", "Type"), ("executionCount", "Exec"), ("source", "Source"))
    if detailed:
        columns += (("outputs", "Outputs"),)
    programmatic: dict[str, Any] = {
        "notebook": path,
        "detail": "detailed" if detailed else "brief",
        "start": start,
        "total": total,
        "cells": cells if detailed else [{k: v for k, v in c.items() if k != "outputs"} for c in cells],
    }
    if next_cursor:
        programmatic["nextCursor"] = next_cursor
    end = f"{start}–{index - 1}" if rows else "none"
    table = CellTable(
        kind="notebook.read",
        title=f"{path}: cells {end} of {total}",
        columns=columns,
        rows=rows,
        programmatic=programmatic,
        text_limit=text_limit,
        empty_message=f"{path} has no cells. insert_cell adds one.",
        next_cursor=next_cursor,
        facets={"type": sorted({r["type"] for r in rows})},
    )
    page = NotebookPage(path, detailed, start, total, cells, table, text_limit)
    return Outcome(value=page)


def _detailed_text(page: NotebookPage) -> str:
    parts = [f"{page.table.title} (detailed)"]
    for row in page.table.rows:
        head = f"── [{row['index']}] {row['type']} · id {row['id']}"
        if row["type"] == "code":
            count = row["executionCount"]
            head += f" · In [{count if count is not None else ' '}] · {plural(row['outputs'], 'output')}"
        parts.append(head)
        parts.append(row["source"] if row["source"] else "(empty)")
    if page.next_cursor:
        parts.append(f"More cells follow: call again with start={page.next_cursor}.")
    parts.append("read_cell shows a cell's outputs.")
    return "\n".join(parts)


def assistant_content(page: NotebookPage) -> list[dict[str, Any]]:
    if not page.detailed or not page.table.rows:  # the tool's description says how to see more: not said again here
        return tables.assistant_content(page.table)
    return [{"type": "text", "text": cap_text(_detailed_text(page), page.text_limit, hint="page with a smaller limit").text}]


def ui_structured(page: NotebookPage) -> dict[str, Any]:
    view: dict[str, Any] = {"view": "notebook", "notebook": page.path, "start": page.start, "total": page.total, "cells": page.cells}
    if page.next_cursor:
        view["nextCursor"] = page.next_cursor
    return view


PROJECTORS = ToolProjectors(
    success={
        ASSISTANT_CONTENT: assistant_content,
        ASSISTANT_STRUCTURED: lambda page: tables.assistant_structured(page.table),
        PROGRAMMATIC_STRUCTURED: lambda page: page.table.programmatic,
        USER_STRUCTURED: lambda page: tables.user_structured(page.table),
        UI_STRUCTURED: ui_structured,
    }
)

TOOL = VariantTool(declared("read_notebook"), PROJECTORS, run)
