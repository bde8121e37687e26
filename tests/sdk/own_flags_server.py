"""A server with a flag of its own beside `cli`'s, written as python-servers.md (*Run it*) says: its parser takes
`--db` and leaves the rest, `--help` included, to `cli(mcp, rest)`. Run by test_api.py."""

import argparse

from mcp.server.mcpserver import MCPServer

from mcp_variants.sdk import Results, Variants, cli

variants = Variants()
parser = argparse.ArgumentParser(add_help=False)  # --help is cli's, which lists its own options
parser.add_argument("--db", default="shipments.sqlite")
args, rest = parser.parse_known_args()


@variants.tool("assistant/content")
def database() -> Results:
    """The database this server was started with."""
    return Results({"assistant/content": args.db})


mcp = MCPServer("own-flags", extensions=[variants], middleware=[variants.middleware])

if __name__ == "__main__":
    cli(mcp, rest)
