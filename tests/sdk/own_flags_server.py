"""A server with a flag of its own beside `cli`'s, written as python-servers.md (*Run it*) says: one parser takes
`--db` and, from `add_serving_arguments`, cli's options, so `--help` lists both; `cli(mcp, args=args)` serves by
what it read. Run by test_api.py."""

import argparse

from mcp.server.mcpserver import MCPServer

from mcp_variants.sdk import Results, Variants, add_serving_arguments, cli

variants = Variants()
parser = argparse.ArgumentParser(description="shipments, over MCP")
parser.add_argument("--db", default="shipments.sqlite", help="the database of shipments")
add_serving_arguments(parser)
args = parser.parse_args()


@variants.tool("assistant/content")
def database() -> Results:
    """The database this server was started with."""
    return Results({"assistant/content": args.db})


mcp = MCPServer("own-flags", extensions=[variants], middleware=[variants.middleware])

if __name__ == "__main__":
    cli(mcp, args=args)
