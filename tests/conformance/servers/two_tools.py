"""A plain two-tool server: no MCP Apps, no user variants, one tool that changes something and needs arguments.

What many servers look like. Given a call for its write tool (`--call 'add_note={"text": "hi"}'`), the suite
must say OK, exit 0, without --allow-skips: the scenarios about user/*, the ui variant or the Apps extension
do not apply to it. It once could only reach INCOMPLETE, and its author added variants "to satisfy the suite".

    python tests/conformance/servers/two_tools.py            # stdio
"""

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import Results, Variants, cli, variant


class Notes(BaseModel):
    notes: list[str]


class Added(BaseModel):
    count: int


NOTES: list[str] = ["buy milk"]
variants = Variants()


@variants.tool("assistant/content", variant("programmatic/structured", Notes), variant("assistant/structured", Notes),
               annotations={"readOnlyHint": True})
def list_notes() -> Results:
    """Every note."""
    notes = Notes(notes=list(NOTES))
    return Results({"assistant/content": "\n".join(NOTES) or "(no notes)", "programmatic/structured": notes,
                    "assistant/structured": notes})


@variants.tool("assistant/content", variant("programmatic/structured", Added))
def add_note(text: str) -> Results:
    """Add a note."""
    NOTES.append(text)
    return Results({"assistant/content": f"Added the note {text!r}.", "programmatic/structured": Added(count=len(NOTES))})


mcp = MCPServer("two-tools", version="1.0.0", extensions=[variants], middleware=[variants.middleware])

if __name__ == "__main__":
    cli(mcp)
