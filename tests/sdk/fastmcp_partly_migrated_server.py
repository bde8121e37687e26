"""A FastMCP server migrated one tool at a time: `count` migrated with `legacy_tool`, the rest plain `@mcp.tool`
(`double` with an outputSchema, `note` without one, `nothing` returning None (`nothing_migrated` too), `broken`
raising, `ask` a round of the multi-round flow). `mixed` serves it on `mcp_variants.fastmcp.cli`; `plain` serves every
tool as `@mcp.tool` on FastMCP's own `run()`, as before migrating."""

import sys

from fastmcp import FastMCP
from mcp_types import InputRequiredResult

from mcp_variants.fastmcp import Variants, cli

mcp = FastMCP("partly", version="1.0.0")
MODE = sys.argv[1]
migrated = mcp.tool if MODE == "plain" else Variants(mcp).legacy_tool(structured="assistant")


@migrated
def count(n: int) -> int:
    """The number after n."""
    return n + 1


@mcp.tool
def double(n: int) -> int:
    """Twice n."""
    return 2 * n


@mcp.tool
def note(text: str):  # type: ignore[no-untyped-def]  # no return annotation: FastMCP lists no outputSchema
    """A note, as text."""
    return f"noted: {text}"


@mcp.tool
def nothing(n: int) -> int | None:
    """Nothing for n: a plain tool returning None, which FastMCP wraps as {"result": null} beside an empty content."""
    return None


@migrated
def nothing_migrated(n: int) -> int | None:
    """As `nothing`, migrated."""
    return None


@mcp.tool
def broken(n: int) -> int:
    """Always fails."""
    raise ValueError(f"no {n}")


@mcp.tool
def ask() -> InputRequiredResult:
    """Asks the client again, with state to echo."""
    return InputRequiredResult(request_state="asked")


if __name__ == "__main__":
    if MODE == "mixed":
        cli(mcp, sys.argv[2:])
    else:
        mcp.run(show_banner=False)
