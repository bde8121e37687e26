"""list_files: files and folders under the root, to a depth, by glob, paged."""

from __future__ import annotations

import fnmatch
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..jupyter.paths import PathOutsideRoot, is_inside, resolve_inside
from ..protocol.projection import Outcome, ToolFailure
from .base import ToolContext, ToolSpec
from .listings import LISTING_PROJECTORS, Listing

CACHE_HINT = {"io.modelcontextprotocol/cache": {"ttlMs": 30_000, "cacheScope": "private"}}
SKIPPED = {".ipynb_checkpoints", "__pycache__", ".git"}


def _entries(real_root: Path, start: Path, depth: int, pattern: str | None) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def walk(folder: Path, level: int) -> None:
        try:
            children = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in children:
            if entry.name.startswith(".") or entry.name in SKIPPED:
                continue
            path = Path(entry.path)
            real = path.resolve()
            if not is_inside(real_root, real):
                continue  # a symbolic link out of the root is not ours to show
            is_dir = entry.is_dir()
            if pattern is None or fnmatch.fnmatch(entry.name, pattern):
                stat = entry.stat()
                kind = "directory" if is_dir else "notebook" if entry.name.endswith(".ipynb") else "file"
                found.append({
                    "path": path.relative_to(real_root).as_posix(),
                    "name": entry.name,
                    "type": kind,
                    "size": None if is_dir else stat.st_size,
                    "modified": datetime.fromtimestamp(stat.st_mtime, timezone.utc).isoformat(timespec="seconds"),
                })
            if is_dir and level < depth:
                walk(path, level + 1)

    walk(start, 1)
    return found


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    folder = args.get("path", "") or ""
    try:
        start = resolve_inside(ctx.root, folder)
    except PathOutsideRoot as exc:
        return Outcome(failure=ToolFailure("path-outside-root", str(exc)))
    if not start.is_dir():
        return Outcome(failure=ToolFailure("not-found", f"No folder {folder!r} under the root; call list_files without a path to see what there is."))
    cursor = args.get("cursor")
    if cursor is not None and not (isinstance(cursor, str) and cursor.isdigit()):
        return Outcome(failure=ToolFailure("invalid-arguments", "cursor must be a nextCursor value returned by list_files."))
    offset = int(cursor or 0)
    limit = int(args.get("limit", 100))
    entries = _entries(ctx.root.resolve(), start, int(args.get("depth", 1)), args.get("pattern"))
    page = entries[offset:offset + limit]
    next_cursor = str(offset + limit) if offset + limit < len(entries) else None
    programmatic: dict[str, Any] = {"files": page, "total": len(entries)}
    if next_cursor:
        programmatic["nextCursor"] = next_cursor
    listing = Listing(
        kind="files.list",
        title=f"Files in {folder or 'the root folder'}",
        columns=(("path", "Path"), ("type", "Type"), ("size", "Size"), ("modified", "Modified")),
        rows=[{k: e[k] for k in ("path", "type", "size", "modified")} for e in page],
        programmatic=programmatic,
        text_limit=ctx.limits.assistant_text_bytes,
        empty_message=f"No files in {folder or 'the root folder'}" + (f" match {args['pattern']!r}." if args.get("pattern") else "."),
        next_cursor=next_cursor,
        facets={"type": sorted({e["type"] for e in page})},
    )
    return Outcome(value=listing, meta=CACHE_HINT)


LIST_FILES = ToolSpec("list_files", run, LISTING_PROJECTORS)
