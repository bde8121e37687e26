"""A support-ticket server whose write tool cannot be repeated: `close_ticket` closes a ticket once, and every later
call with the same arguments fails with isError ("already closed").

The suite calls a `--call` tool in every scenario it fits, with the same arguments, on one server process. Named with
`--call 'close_ticket={"id": 1}'`, the first call succeeds and the later ones fail: the check must still fail those
scenarios (a needed call that fails is a failure), and say that the tool succeeded once and failed when called again,
and what to pass instead. It once failed a dozen scenarios with "already closed" alone, which read as if the server
broke SEP-3279. `list_tickets` is read-only: checked alone, it is OK. Named only with an `--error-call`
(`close_ticket={"id": 99}`, no such ticket), `close_ticket` is called only to fail: the OK must say that its results
when it succeeds were not checked. `already_closed_ok` makes closing idempotent (a closed ticket stays closed, and the
call succeeds), which is how a mutating tool's success is checked: `--call 'close_ticket={"id": 1, "already_closed_ok": true}'`.

    python tests/conformance/servers/tickets.py            # stdio
"""

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import ErrorKind, Results, ToolError, Variants, cli, variant


class Ticket(BaseModel):
    id: int
    open: bool


class Tickets(BaseModel):
    tickets: list[Ticket]


OPEN: dict[int, bool] = {1: True, 2: True}
variants = Variants()


@variants.tool("assistant/content", variant("programmatic/structured", Tickets), annotations={"readOnlyHint": True})
def list_tickets() -> Results:
    """Every ticket, open or closed."""
    tickets = Tickets(tickets=[Ticket(id=i, open=o) for i, o in OPEN.items()])
    return Results({"assistant/content": ", ".join(f"#{t.id} {'open' if t.open else 'closed'}" for t in tickets.tickets),
                    "programmatic/structured": tickets})


@variants.tool("assistant/content", variant("programmatic/structured", Ticket))
def close_ticket(id: int, already_closed_ok: bool = False) -> Results:
    """Close a ticket; with already_closed_ok, closing a closed one succeeds too."""
    if id not in OPEN:
        raise ToolError(ErrorKind.NOT_FOUND, f"no ticket #{id}")
    if not OPEN[id] and not already_closed_ok:
        raise ToolError(ErrorKind.CONFLICT, f"ticket #{id} is already closed")
    OPEN[id] = False
    return Results({"assistant/content": f"Closed ticket #{id}.", "programmatic/structured": Ticket(id=id, open=False)})


mcp = MCPServer("tickets", version="1.0.0", extensions=[variants], middleware=[variants.middleware])

if __name__ == "__main__":
    cli(mcp)
