"""A FastMCP server whose tools return values FastMCP wraps as `{"result": ...}` (an int, a list, a str) beside ones
it does not (a model, a dict): `plain` serves them as `@mcp.tool` on FastMCP's own `run()`, `migrated` as
`@variants.legacy_tool(structured="assistant")` (`point`: `structured="programmatic"`) on `mcp_variants.fastmcp.cli`
(the rest of the arguments go to it),
`unbridged` migrated but on FastMCP's own `run()`, as an author might out of habit. A tool whose schemas nest models
(`$defs` and `$ref`s, which FastMCP inlines unless the environment's DEREFERENCE_SCHEMAS is "0":
`FastMCP(dereference_schemas=False)`). And a tool that raises, with FastMCP's `mask_error_details` as the
environment's MASK_ERROR_DETAILS says ("1": masked)."""

import os
import sys

from fastmcp import FastMCP
from pydantic import BaseModel

from mcp_variants.fastmcp import Variants, cli


class Point(BaseModel):
    x: int
    y: int


class Loan(BaseModel):
    member: str
    due: str


class Book(BaseModel):
    title: str
    loan: Loan | None = None


class Shelf(BaseModel):
    label: str
    books: list[Book]
    lent: Loan | None = None


mcp = FastMCP("wrapped", version="1.0.0", mask_error_details=os.environ.get("MASK_ERROR_DETAILS") == "1",
              dereference_schemas=os.environ.get("DEREFERENCE_SCHEMAS") != "0")
MODE = sys.argv[1]
variants = None if MODE == "plain" else Variants(mcp)
tool = mcp.tool if variants is None else variants.legacy_tool(structured="assistant")
for_code = mcp.tool if variants is None else variants.legacy_tool(structured="programmatic")


@tool
def count(n: int) -> int:
    """The number after n."""
    return n + 1


@tool
def words(text: str) -> list[str]:
    """The words of a text."""
    return text.split()


@tool
def shout(text: str) -> str:
    """The text in capitals."""
    return text.upper()


@for_code
def point(x: int) -> Point:
    """A point on the line y = 2."""
    return Point(x=x, y=2)


@tool
def tally(key: str) -> dict[str, int]:
    """One key counted once."""
    return {key: 1}


@tool
def shelve(label: str, book: Book) -> Shelf:
    """A shelf holding one book, lent when the book is."""
    return Shelf(label=label, books=[book], lent=book.loan)


@tool
def ship(order: str) -> int:
    """The shipment number of an order."""
    raise ValueError(f"no shipment {order}")


if __name__ == "__main__":
    if MODE == "migrated":
        cli(mcp, sys.argv[2:])
    else:
        mcp.run(show_banner=False)
