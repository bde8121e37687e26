"""Tools an existing MCPServer server had, served plain (`ESTABLISHED_PLAIN=1 python established_server.py`) or migrated in one line
each (`python established_server.py`): one that may return None (`assignee`), one whose outputSchema becomes the
programmatic variant (`stats`), one migrated with `@variants.legacy_tool` written without parentheses (`ping`), one registered with
`structured_output=False` (`summary`), and
one left as a plain `@mcp.tool` that returns None (`forget`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import Variants, cli

PLAIN = os.environ.get("ESTABLISHED_PLAIN") == "1"
mcp = MCPServer("established")
variants = None if PLAIN else Variants(mcp)


def migrated(structured: Any = None, **tool_kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`@mcp.tool(**tool_kwargs)` in the plain server, `@variants.legacy_tool(structured=..., **tool_kwargs)` in the
    migrated one."""
    if variants is None:
        return mcp.tool(**tool_kwargs)
    return variants.legacy_tool(structured=structured, **tool_kwargs)


class Person(BaseModel):
    name: str


class Stats(BaseModel):
    open: int
    closed: int


@migrated(structured="assistant")
def assignee(issue: int) -> Person | None:
    """Who the issue is assigned to, if anyone."""
    return Person(name="ana") if issue == 1 else None


@migrated(structured="programmatic")
def stats() -> Stats:
    """Counts of the issues."""
    return Stats(open=2, closed=5)


@migrated(structured_output=False)
def summary() -> Stats:
    """Counts of the issues, as text only (registered with structured_output=False)."""
    return Stats(open=2, closed=5)


def ping() -> str:
    """Answers pong."""
    return "pong"


mcp.tool()(ping) if variants is None else variants.legacy_tool(ping)


@mcp.tool()
def forget(issue: int) -> None:
    """Forgets an issue; returns nothing."""


if __name__ == "__main__":
    cli(mcp)
