"""Arguments several tools take, read one way."""

from __future__ import annotations

from typing import Any

from ...protocol.errors import ErrorKind, ToolError
from .spec import ToolContext


def timeout_of(ctx: ToolContext, args: dict[str, Any]) -> float:
    """Seconds before a run is interrupted: the call's `timeout`, else the server's default."""
    return float(args.get("timeout") or ctx.limits.default_timeout)


def cursor_offset(args: dict[str, Any], tool: str) -> int | None:
    """The row a `cursor` (a nextCursor this tool returned) points at; None without one."""
    cursor = args.get("cursor")
    if cursor is None:
        return None
    if not (isinstance(cursor, str) and cursor.isdigit()):
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"cursor must be a nextCursor value returned by {tool}.")
    return int(cursor)
