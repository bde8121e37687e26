"""Arguments several tools take, read one way."""

from __future__ import annotations

from typing import Any

from ...jupyter.runtime import Progress
from ...protocol.errors import ErrorKind, ToolError
from .tool_context import ToolContext


def timeout_of(ctx: ToolContext, args: dict[str, Any]) -> float:
    """Seconds before a run is interrupted: the call's `timeout`, else (also for 0) the server's default."""
    return float(args.get("timeout") or ctx.limits.default_timeout)


def progress_of(ctx: ToolContext, args: dict[str, Any]) -> Progress | None:
    """How a run reports while it goes: keep-alives every `progress_interval` s, and what it prints unless `stream` is false."""
    if ctx.progress is None:
        return None
    return Progress(ctx.progress, float(args.get("progress_interval", ctx.limits.progress_interval)), bool(args.get("stream", True)))


def cursor_offset(args: dict[str, Any], tool: str) -> int | None:
    """The row a `cursor` (a nextCursor this tool returned) points at; None without one."""
    cursor = args.get("cursor")
    if cursor is None:
        return None
    if not (isinstance(cursor, str) and cursor.isdigit()):
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"cursor must be a nextCursor value returned by {tool}.")
    return int(cursor)


def paging_start(args: dict[str, Any], tool: str) -> int:
    """The first row of a page: `start`, or where a `cursor` points (not both)."""
    if args.get("cursor") is not None and "start" in args:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "Pass start or cursor, not both; cursor is the nextCursor of the previous page.")
    offset = cursor_offset(args, tool)
    return int(args.get("start", 0)) if offset is None else offset
