"""A small MCPServer app on mcp_variants.sdk: one tool of each kind the server API has.

- `count_books`: text for the model, nothing else (assistant/content only);
- `find_books`: text for the model, typed records for the client's code (programmatic/structured);
- `shelf_table`: a table for the person (user/structured), a line for the model;
- `shelf_view`: an MCP Apps view (its ui:// page; the view's data is io.modelcontextprotocol/ui/structured);
- `shelf_stats`: an MCPServer tool as it was, migrated in one line (`legacy_tool`): old clients get what they got.

    python examples/bookshelf.py                     # stdio
    python examples/bookshelf.py --http --port 3000  # streamable HTTP at http://127.0.0.1:3000/mcp
"""

from mcp.server.apps import Apps
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import ErrorKind, Results, ToolError, Variants, View, cli, variant


class Book(BaseModel):
    title: str
    author: str
    year: int


class Found(BaseModel):
    books: list[Book]


class Table(BaseModel):
    columns: list[str]
    rows: list[list[str | int]]


class Stats(BaseModel):
    books: int
    authors: int
    oldest: int


SHELF = [Book(title="Middlemarch", author="George Eliot", year=1871),
         Book(title="Persuasion", author="Jane Austen", year=1817),
         Book(title="Emma", author="Jane Austen", year=1815)]

VIEW_HTML = """<!doctype html><html><body><ul id="shelf"></ul><script>
// The MCP Apps handshake, as ext-apps' App.connect() makes it: ui/initialize, then ui/notifications/initialized.
// A host sends the tool's result only after it.
const send = (message) => window.parent.postMessage({jsonrpc: "2.0", ...message}, "*");
addEventListener("message", ({source, data}) => {
  if (source !== window.parent || data?.jsonrpc !== "2.0") return;
  if (data.id === 1 && data.result) send({method: "ui/notifications/initialized", params: {}});
  if (data.method === "ui/notifications/tool-result") show(data.params);
});
send({id: 1, method: "ui/initialize",
      params: {protocolVersion: "2026-01-26", appInfo: {name: "bookshelf", version: "1.0.0"}, appCapabilities: {}}});

// One rule at every version: view data only from the ui output (2026-12-01: its audience says so). Any other
// result (a host before 2026-12-01 passes the legacy one) is shown as its text content, never read as view data.
function show(result) {
  const ui = result.audience === "io.modelcontextprotocol/ui";
  const lines = ui && !result.isError ? result.structuredContent.titles
    : ui ? [result.structuredContent.error.message]
    : (result.content ?? []).filter((block) => block.type === "text").map((block) => block.text);
  const items = lines.map((line) => Object.assign(document.createElement("li"), {textContent: line}));
  document.getElementById("shelf").replaceChildren(...items);
}
</script></body></html>"""

mcp = MCPServer("bookshelf", version="1.0.0")
variants = Variants(mcp, apps=Apps())


@variants.tool("assistant/content")
def count_books(author: str | None = None) -> str:
    """How many books are on the shelf, by one author or in all."""
    books = [b for b in SHELF if author is None or b.author == author]
    return f"{len(books)} books" + (f" by {author}" if author else "")


@variants.tool("assistant/content", variant("programmatic/structured", Found))
def find_books(text: str) -> Results:
    """The books whose title or author holds `text`."""
    found = [b for b in SHELF if text.lower() in f"{b.title} {b.author}".lower()]
    if not text.strip():
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "Give some text to look for.")
    return Results({
        "assistant/content": "; ".join(f"{b.title} ({b.author}, {b.year})" for b in found) or "No book matches.",
        "programmatic/structured": lambda: Found(books=found),  # computed only when the client asks for it
    })


def markdown(table: Table) -> str:
    lines: list[list[str | int]] = [[*table.columns], ["---"] * len(table.columns), *table.rows]
    return "\n".join("| " + " | ".join(str(cell) for cell in line) + " |" for line in lines)


@variants.tool(variant("assistant/content", project=lambda t: f"{len(t.rows)} books, in a table for the user"),
               variant("user/structured", Table), variant("user/content", project=markdown))
def shelf_table() -> Table:
    """The shelf as a table the host shows the person (its own table, or markdown)."""
    return Table(columns=["title", "author", "year"], rows=[[b.title, b.author, b.year] for b in SHELF])


TITLES = {"type": "object", "required": ["titles"], "properties": {"titles": {"type": "array", "items": {"type": "string"}}}}


@variants.tool("assistant/content", variant("io.modelcontextprotocol/ui/structured", TITLES),
               variant("programmatic/structured", Found), view=View("ui://bookshelf/shelf.html", VIEW_HTML, title="The shelf"))
def shelf_view() -> Results:
    """The shelf in an MCP Apps view (and as records, for code)."""
    return Results({"assistant/content": f"Showing {len(SHELF)} books.",
                    "io.modelcontextprotocol/ui/structured": {"titles": [b.title for b in SHELF]},
                    "programmatic/structured": Found(books=SHELF)})


@variants.legacy_tool(structured="assistant")  # was: @mcp.tool()
def shelf_stats(since: int = 0) -> Stats:
    """Counts of the books published since a year."""
    books = [b for b in SHELF if b.year >= since]
    if not books:
        raise ValueError(f"no book since {since}")
    return Stats(books=len(books), authors=len({b.author for b in books}), oldest=min(b.year for b in books))


if __name__ == "__main__":
    cli(mcp)
