"""Before: a tool as MCPServer serves it today (content, structuredContent and outputSchema for every client)."""

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel


class Stats(BaseModel):
    words: int
    lines: int
    characters: int


mcp = MCPServer("text-stats", version="1.0.0")


@mcp.tool()
def text_stats(text: str) -> Stats:
    """Count the words, lines and characters of a text."""
    return Stats(words=len(text.split()), lines=len(text.splitlines()), characters=len(text))


if __name__ == "__main__":
    mcp.run()
