"""list_files: files and folders under the root, to a depth, by glob, paged."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..catalog import declared
from ..protocol.projection import Outcome
from ..sdk.lowlevel import VariantTool
from .shared.arguments import paging_start
from .shared.meta import cache_meta
from .shared.tables import TABLE_PROJECTORS, Table, rows_within
from .shared.tool_context import ToolContext

CACHE_TTL_MS = 30_000
# jupyter-mcp-server's defaults (its max_depth 1 is our depth 2): its callers page by them (docs/choices.md, "Defaults").
DEFAULT_LIMIT = 25
DEFAULT_DEPTH = 2


def readable_size(size: int) -> str:
    """'514 B', '7.4 KB', '1.2 MB': what a model reads at a glance (programmatic/structured has the bytes)."""
    if size < 1024:
        return f"{size} B"
    value = size / 1024
    for unit in ("KB", "MB", "GB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TB"


def readable_time(modified: str) -> str:
    """'2026-12-06 02:11' (UTC, to the minute) of an ISO 8601 time; programmatic/structured has it whole."""
    try:
        return datetime.fromisoformat(modified).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return modified


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    folder = args.get("path", "") or ""
    offset = paging_start(args, "list_files")
    entries = await ctx.backend.contents.list_entries(folder, int(args.get("depth", DEFAULT_DEPTH)), args.get("pattern") or None)
    limit = int(args.get("limit", DEFAULT_LIMIT)) or len(entries)  # 0: no count limit (the text budget still ends a page)
    columns = (("path", "Path"), ("type", "Type"), ("size", "Size"), ("modified", "Modified"))
    page = entries[offset:offset + limit]
    page = page[:rows_within(page, columns, ctx.limits.assistant_text_bytes)]
    next_cursor = str(offset + len(page)) if offset + len(page) < len(entries) else None
    programmatic: dict[str, Any] = {"files": page, "total": len(entries)}
    if next_cursor:
        programmatic["nextCursor"] = next_cursor
    where = folder or "the root folder"
    listing = Table(
        kind="files.list",
        title=f"Files in {where}",
        columns=columns,
        rows=[{k: e[k] for k in ("path", "type", "size", "modified")} for e in page],
        programmatic=programmatic,
        text_limit=ctx.limits.assistant_text_bytes,
        empty_message=f"No files in {where}" + (f" match {args['pattern']!r}." if args.get("pattern") else "."),
        next_cursor=next_cursor,
        facets={"type": sorted({e["type"] for e in page})},
        shown={"size": readable_size, "modified": readable_time},
    )
    return Outcome(value=listing, meta=cache_meta(CACHE_TTL_MS))


TOOL = VariantTool(declared("list_files"), TABLE_PROJECTORS, run)
