"""A FastMCP server with fastmcp-tasks' TasksExtension beside mcp_variants.fastmcp (tests/sdk/test_fastmcp_tasks.py).
fastmcp-tasks 4.1.4 requires FastMCP 4.1.4: this runs in an environment of its own, with our src/ on the path."""

from fastmcp import FastMCP
from fastmcp_tasks import TasksExtension
from pydantic import BaseModel

from mcp_variants.fastmcp import Results, Variants, cli, variant


class Sum(BaseModel):
    total: int


mcp = FastMCP("tasks-sample", version="1.0.0")
variants = Variants(mcp)  # first: its interceptor refuses a bad selector before the tasks extension makes a task
mcp.add_extension(TasksExtension(url="memory://"))


@variants.tool("assistant/content", variant("programmatic/structured", Sum), task=True)
async def slow_add(a: int, b: int) -> Results:
    """Add two integers, as a task when the client asks."""
    return Results({"assistant/content": f"{a} + {b} = {a + b}", "programmatic/structured": Sum(total=a + b)})


if __name__ == "__main__":
    cli(mcp)
