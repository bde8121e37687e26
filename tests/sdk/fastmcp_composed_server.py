"""FastMCP servers composed by mounting: a `parent` that mounts a `child` under the namespace "kid"
(`parent.mount(child, namespace="kid")`), which mounts a `grandchild` under "g". `composed` gives each Variants (the
child's `add` declares a programmatic variant; `double`, `broken` and the grandchild's `half` are migrated with
`legacy_tool`) and serves the parent on `mcp_variants.fastmcp.cli`; `plain` is the same servers before migrating:
every tool a plain `@mcp.tool`, the parent on FastMCP's own `run()`."""

import sys

from fastmcp import FastMCP
from pydantic import BaseModel

from mcp_variants.fastmcp import Results, Variants, cli, variant

MODE = sys.argv[1]


class Total(BaseModel):
    total: int


grandchild = FastMCP("grandchild")
child = FastMCP("child")
parent = FastMCP("parent")
if MODE == "composed":
    kid = Variants(child)
    migrated = kid.legacy_tool(structured="assistant")
    migrated_below = Variants(grandchild).legacy_tool(structured="assistant")
    Variants(parent)  # before the mount: the parent serves the mounted tools with their variants

    @kid.tool("assistant/content", variant("programmatic/structured", Total))
    def add(a: int, b: int) -> Results:
        """a + b."""
        return Results({"assistant/content": f"{a} + {b} = {a + b}", "programmatic/structured": Total(total=a + b)})
else:
    migrated, migrated_below = child.tool, grandchild.tool


@migrated
def double(n: int) -> int:
    """Twice n."""
    return 2 * n


@migrated
def broken(n: int) -> int:
    """Always fails."""
    raise ValueError(f"no {n}")


@migrated_below
def half(n: int) -> float:
    """Half of n."""
    return n / 2


@parent.tool
def hello() -> str:
    """The parent's own tool."""
    return "hi"


child.mount(grandchild, namespace="g")
parent.mount(child, namespace="kid")

if __name__ == "__main__":
    if MODE == "composed":
        cli(parent, sys.argv[2:])
    else:
        parent.run(show_banner=False)
