"""Before: a FastMCP tool as FastMCP serves it today (content, structuredContent and outputSchema for every client)."""

from fastmcp import FastMCP
from pydantic import BaseModel


class Stats(BaseModel):
    words: int
    lines: int
    characters: int


mcp = FastMCP("text-stats", version="1.0.0")


@mcp.tool
def text_stats(text: str) -> Stats:
    """Count the words, lines and characters of a text."""
    return Stats(words=len(text.split()), lines=len(text.splitlines()), characters=len(text))


if __name__ == "__main__":
    mcp.run(show_banner=False)
