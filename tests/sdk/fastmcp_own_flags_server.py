"""A FastMCP server with a flag of its own beside `cli`'s, as fastmcp.md (*Run it*) says: one parser takes `--db`
and, from `add_serving_arguments`, cli's options, so `--help` lists both; `cli(mcp, args=args)` serves by what it
read. OWN_AUTH in the environment: the server has an `auth=` of its own. Run by test_fastmcp_wire.py."""

import argparse
import os

from fastmcp import FastMCP
from fastmcp.server.auth.providers.debug import DebugTokenVerifier

from mcp_variants.fastmcp import Results, Variants, add_serving_arguments, cli

parser = argparse.ArgumentParser(description="shipments, over MCP")
parser.add_argument("--db", default="shipments.sqlite", help="the database of shipments")
add_serving_arguments(parser)
args = parser.parse_args()

mcp = FastMCP("own-flags", auth=DebugTokenVerifier() if os.environ.get("OWN_AUTH") else None)
variants = Variants(mcp)


@variants.tool("assistant/content")
def database() -> Results:
    """The database this server was started with."""
    return Results({"assistant/content": args.db})


if __name__ == "__main__":
    cli(mcp, args=args)
