"""After: the same FastMCP tool with declared variants; old clients get what they got before."""

from fastmcp import FastMCP
from pydantic import BaseModel

from mcp_variants.fastmcp import Variants, cli


class Stats(BaseModel):
    words: int
    lines: int
    characters: int


mcp = FastMCP("text-stats", version="1.0.0")
variants = Variants(mcp)


@variants.legacy_tool(structured="assistant")
def text_stats(text: str) -> Stats:
    """Count the words, lines and characters of a text."""
    return Stats(words=len(text.split()), lines=len(text.splitlines()), characters=len(text))


if __name__ == "__main__":
    cli(mcp)
