"""A new server on the SEP-3279 server API: one tool, three audiences, each with its own schema."""

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import ErrorKind, Results, ToolError, Variants, cli, variant


class ZoneTime(BaseModel):
    zone: str
    iso: str
    utc_offset: str


CARD = {"type": "object", "required": ["title", "subtitle"],
        "properties": {"title": {"type": "string"}, "subtitle": {"type": "string"}}}
mcp = MCPServer("world-clock", version="1.0.0")
variants = Variants(mcp)


@variants.tool("assistant/content", variant("programmatic/structured", ZoneTime), variant("user/structured", CARD))
def world_clock(zone: str = "UTC") -> Results:
    """The time now in an IANA time zone, such as Europe/Paris."""
    try:
        now = datetime.now(ZoneInfo(zone))
    except (ZoneInfoNotFoundError, ValueError):
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"No time zone named {zone!r}; try Europe/Paris or UTC.") from None
    return Results({
        "assistant/content": f"It is {now:%H:%M} in {zone} (UTC{now:%z}).",
        "programmatic/structured": lambda: ZoneTime(zone=zone, iso=now.isoformat(), utc_offset=f"{now:%z}"),
        "user/structured": lambda: {"title": f"{now:%H:%M}", "subtitle": f"{zone}, {now:%A %d %B}"},
    })


if __name__ == "__main__":
    cli(mcp)
