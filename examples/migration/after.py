"""After: the same tool with declared variants; old clients get the same tools/list entry and results, every field."""

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import Variants, cli, variant


class Stats(BaseModel):
    words: int
    lines: int
    characters: int


mcp = MCPServer("text-stats", version="1.0.0")
variants = Variants(mcp)
CARD = {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}


@variants.legacy_tool(variant("user/structured", CARD, project=lambda s: {"title": f"{s.words} words"}), structured="assistant")
def text_stats(text: str) -> Stats:
    """Count the words, lines and characters of a text."""
    return Stats(words=len(text.split()), lines=len(text.splitlines()), characters=len(text))


if __name__ == "__main__":
    cli(mcp)
